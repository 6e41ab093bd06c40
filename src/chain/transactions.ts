// Transactions merged with their receipts: wire -> rows.

import { effectiveGasPrice, feeSplit, type FeeSplit } from './blocks.js';
import { hexToBigInt, hexToDec, hexToDecOrNull, hexToNumber, hexToU64, hexToU64OrNull, lower } from './hex.js';
import type { TransactionRow } from './clickhouse-rows.js';
import { opExtraFee, opFields, opText } from './op-stack.js';
import type { RpcReceipt, RpcTransaction } from './wire.js';

export interface BlockContext {
  block_number: number;
  block_hash: string;
  timestamp: number;
  /** Base fee of the block (0n before London). */
  base_fee: bigint;
}

/** What the caller knows beyond the tx and its receipt. */
export interface TransactionExtras {
  /** Top-level trace error (normalized), '' when none or no traces. */
  error?: string;
  /** Whether traces were available (a missing status is then derived from `error`). */
  traced?: boolean;
  log_count?: number;
  token_transfer_count?: number;
  internal_count?: number;
}

/** First 4 bytes of the input as '0x' + 8 hex, '' if the input is shorter. */
export function methodId(input: string | null | undefined): string {
  return input && input.length >= 10 ? input.slice(0, 10).toLowerCase() : '';
}

/**
 * The transactions row. Without a receipt the receipt fields are 0/null. `fee` =
 * gas_used * effective_gas_price (the receipt's effectiveGasPrice, else gasPrice for pre-London
 * nodes), plus on an OP Stack chain the L1 data fee and operator fee the receipt says the sender
 * paid (op-stack.ts): the total, as the chain charged it. When `feeOut` is given, the execution
 * fee's burnt and priority parts (feeSplit) are added to it.
 */
export function decodeTransaction(
  tx: RpcTransaction,
  receipt: RpcReceipt | null,
  ctx: BlockContext,
  extras: TransactionExtras = {},
  feeOut?: FeeSplit,
): TransactionRow {
  const egp = receipt ? effectiveGasPrice(tx, receipt, ctx.base_fee) : 0n;
  const gasUsed = receipt ? hexToBigInt(receipt.gasUsed) : 0n;
  const op = opFields(tx, receipt);
  const fee = gasUsed * egp + opExtraFee(op);
  if (feeOut && receipt) {
    const f = feeSplit(egp, ctx.base_fee, gasUsed);
    feeOut.burnt += f.burnt;
    feeOut.priority += f.priority;
    const extra = fee - gasUsed * egp;
    if (extra) feeOut.extra = (feeOut.extra ?? 0n) + extra;
  }
  const error = extras.error ?? '';
  let status: number | null = null;
  if (receipt && receipt.status != null) status = hexToNumber(receipt.status);
  else if (receipt && extras.traced) status = error ? 0 : 1;
  const input = tx.input ?? '0x';
  return {
    block_number: ctx.block_number,
    transaction_index: tx.transactionIndex != null ? hexToNumber(tx.transactionIndex) : hexToNumber(receipt?.transactionIndex),
    hash: lower(tx.hash),
    block_hash: ctx.block_hash,
    timestamp: ctx.timestamp,
    from: lower(tx.from),
    to: lower(tx.to),
    nonce: hexToU64(tx.nonce),
    value: hexToDec(tx.value),
    gas: hexToU64(tx.gas),
    gas_price: hexToDecOrNull(tx.gasPrice),
    max_fee_per_gas: hexToDecOrNull(tx.maxFeePerGas),
    max_priority_fee_per_gas: hexToDecOrNull(tx.maxPriorityFeePerGas),
    type: tx.type ? hexToNumber(tx.type) : 0,
    input,
    method_id: methodId(input),
    status,
    gas_used: receipt ? hexToU64(receipt.gasUsed) : 0,
    cumulative_gas_used: receipt ? hexToU64(receipt.cumulativeGasUsed) : 0,
    effective_gas_price: egp.toString(),
    fee: fee.toString(),
    created_contract: receipt ? lower(receipt.contractAddress) : '',
    error,
    chain_id: hexToU64OrNull(tx.chainId),
    v: tx.v ?? '',
    r: tx.r ?? '',
    s: tx.s ?? '',
    y_parity: tx.yParity != null ? hexToNumber(tx.yParity) : null,
    access_list: tx.accessList ? JSON.stringify(tx.accessList) : '',
    max_fee_per_blob_gas: hexToDecOrNull(tx.maxFeePerBlobGas),
    blob_versioned_hashes: tx.blobVersionedHashes ?? [],
    blob_gas_used: hexToU64OrNull(receipt?.blobGasUsed),
    blob_gas_price: hexToDecOrNull(receipt?.blobGasPrice),
    authorization_list: tx.authorizationList ? JSON.stringify(tx.authorizationList) : '',
    log_count: extras.log_count ?? (receipt ? receipt.logs.length : 0),
    token_transfer_count: extras.token_transfer_count ?? 0,
    internal_count: extras.internal_count ?? 0,
    op: opText(op),
  };
}
