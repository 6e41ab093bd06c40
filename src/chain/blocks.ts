// Blocks and withdrawals: wire -> rows.

import { hexToBigInt, hexToDec, hexToDecOrNull, hexToNumber, hexToU64, hexToU64OrNull, lower } from './hex.js';
import type { BlockRow, WithdrawalRow } from './clickhouse-rows.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from './wire.js';

const GWEI = 1_000_000_000n;

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

/** A fee divided into what was burnt (the base fee) and what went to the block's producer. */
export interface FeeSplit {
  burnt: bigint;
  priority: bigint;
  /** OP Stack: the L1 data and operator fees the block's transactions paid beyond gas (absent: none). */
  extra?: bigint;
}

/**
 * How a transaction's fee (gas used x effective gas price) divides: the base fee per gas is
 * burnt, the rest goes to the block's producer. A transaction that pays less than the base fee
 * per gas follows no EIP-1559 rule (an OP Stack deposit, type 0x7e, pays nothing; other chains'
 * system transactions): it burns nothing and what it paid, if anything, counts as its priority
 * fee. So burnt + priority is always what it paid, and neither is ever negative.
 */
export function feeSplit(effectivePrice: bigint, baseFee: bigint, gasUsed: bigint): FeeSplit {
  if (effectivePrice < baseFee) return { burnt: 0n, priority: effectivePrice * gasUsed };
  return { burnt: baseFee * gasUsed, priority: (effectivePrice - baseFee) * gasUsed };
}

/**
 * The block's burnt and priority fees, summed over its transactions (feeSplit); before London the
 * base fee is 0, so every fee is a priority fee. Without receipts the gas each transaction used
 * is unknown: burnt is then base fee x the block's gas used and priority 0.
 */
export function blockFees(block: RpcBlock<RpcTransaction | string>, receipts: readonly RpcReceipt[] | null): FeeSplit {
  const baseFee = hexToBigInt(block.baseFeePerGas);
  if (!receipts) return { burnt: baseFee * hexToBigInt(block.gasUsed), priority: 0n };
  const sum: FeeSplit = { burnt: 0n, priority: 0n };
  for (let i = 0; i < receipts.length; i++) {
    const r = receipts[i]!;
    const f = feeSplit(effectiveGasPrice(block.transactions[i] as RpcTransaction, r, baseFee), baseFee, hexToBigInt(r.gasUsed));
    sum.burnt += f.burnt;
    sum.priority += f.priority;
  }
  return sum;
}

/**
 * The blocks row. `fees` are the block's burnt and priority fees when already summed by the
 * caller; otherwise they are computed from `receipts` (blockFees).
 */
export function decodeBlock(
  block: RpcBlock<RpcTransaction | string>,
  receipts: readonly RpcReceipt[] | null = null,
  fees?: FeeSplit,
): BlockRow {
  const f = fees ?? blockFees(block, receipts);
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
    burnt_fees: f.burnt.toString(),
    priority_fees: f.priority.toString(),
    op_fees: (f.extra ?? 0n).toString(),
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
