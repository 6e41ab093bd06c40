// Blocks and withdrawals: wire -> rows.

import { hexToBigInt, hexToDec, hexToDecOrNull, hexToNumber, hexToU64, hexToU64OrNull, lower } from './hex.js';
import type { BlockRow, WithdrawalRow } from './clickhouse-rows.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from './wire.js';

const GWEI = 1_000_000_000n;

/** burnt_fees = base_fee_per_gas * gas_used (0 before London). */
export function burntFees(block: Pick<RpcBlock, 'baseFeePerGas' | 'gasUsed'>): bigint {
  return hexToBigInt(block.baseFeePerGas) * hexToBigInt(block.gasUsed);
}

/**
 * Effective gas price of a transaction: the receipt's, else gasPrice (pre-London), else
 * computed from the 1559 fields and the base fee.
 */
export function effectiveGasPrice(tx: RpcTransaction, receipt: RpcReceipt | null, baseFee: bigint): bigint {
  if (receipt?.effectiveGasPrice) return BigInt(receipt.effectiveGasPrice);
  if (tx.gasPrice) return BigInt(tx.gasPrice);
  if (tx.maxFeePerGas) {
    const max = BigInt(tx.maxFeePerGas);
    const tip = hexToBigInt(tx.maxPriorityFeePerGas);
    const p = baseFee + tip;
    return p < max ? p : max;
  }
  return 0n;
}

/**
 * priority_fees = sum over txs of (effective_gas_price - base_fee) * gas_used. Before London
 * base_fee is 0, so this is the sum of the fees.
 */
export function priorityFees(block: RpcBlock<RpcTransaction>, receipts: readonly RpcReceipt[] | null): bigint {
  if (!receipts) return 0n;
  const baseFee = hexToBigInt(block.baseFeePerGas);
  let sum = 0n;
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i]!;
    const egp = effectiveGasPrice(block.transactions[i]!, r, baseFee);
    sum += (egp - baseFee) * hexToBigInt(r.gasUsed);
  }
  return sum;
}

/**
 * The blocks row. `priority` is the block's priority fees when already summed by the caller;
 * otherwise they are computed from `receipts` (0 without receipts).
 */
export function decodeBlock(
  block: RpcBlock<RpcTransaction | string>,
  receipts: readonly RpcReceipt[] | null = null,
  priority?: bigint,
): BlockRow {
  const prio =
    priority ?? (receipts ? priorityFees(block as RpcBlock<RpcTransaction>, receipts) : 0n);
  return {
    number: hexToNumber(block.number),
    hash: lower(block.hash),
    parent_hash: lower(block.parentHash),
    timestamp: hexToNumber(block.timestamp),
    miner: lower(block.miner),
    size: hexToU64(block.size),
    gas_limit: hexToU64(block.gasLimit),
    gas_used: hexToU64(block.gasUsed),
    base_fee_per_gas: hexToDecOrNull(block.baseFeePerGas),
    difficulty: hexToDec(block.difficulty),
    total_difficulty: hexToDecOrNull(block.totalDifficulty),
    nonce: lower(block.nonce),
    mix_hash: lower(block.mixHash),
    extra_data: lower(block.extraData),
    state_root: lower(block.stateRoot),
    transactions_root: lower(block.transactionsRoot),
    receipts_root: lower(block.receiptsRoot),
    sha3_uncles: lower(block.sha3Uncles),
    uncles: block.uncles ? block.uncles.map(lower) : [],
    transaction_count: block.transactions.length,
    withdrawals_root: block.withdrawalsRoot ? lower(block.withdrawalsRoot) : null,
    withdrawal_count: block.withdrawals ? block.withdrawals.length : 0,
    blob_gas_used: hexToU64OrNull(block.blobGasUsed),
    excess_blob_gas: hexToU64OrNull(block.excessBlobGas),
    parent_beacon_block_root: block.parentBeaconBlockRoot ? lower(block.parentBeaconBlockRoot) : null,
    burnt_fees: burntFees(block).toString(),
    priority_fees: prio.toString(),
  };
}

/** Withdrawal rows; `amount` is converted from the wire's gwei to wei (as Blockscout shows it). */
export function decodeWithdrawals(block: RpcBlock<unknown>): WithdrawalRow[] {
  const ws = block.withdrawals;
  if (!ws || ws.length === 0) return [];
  const number = hexToNumber(block.number);
  const timestamp = hexToNumber(block.timestamp);
  const out = new Array<WithdrawalRow>(ws.length);
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    out[i] = {
      block_number: number,
      withdrawal_index: hexToU64(w.index),
      validator_index: hexToU64(w.validatorIndex),
      address: lower(w.address),
      amount: (hexToBigInt(w.amount) * GWEI).toString(),
      timestamp,
    };
  }
  return out;
}
