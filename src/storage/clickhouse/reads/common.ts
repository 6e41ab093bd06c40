// Shared pieces of the API's ClickHouse reads: keyset bounds as clamped parameters, so any
// client-supplied cursor (negative, 30 digits, ...) is a valid parameter of its column type.

export const U64_MAX = (1n << 64n) - 1n;
export const U32_MAX = (1n << 32n) - 1n;

export function clampU64(v: bigint): bigint {
  return v < 0n ? 0n : v > U64_MAX ? U64_MAX : v;
}

/** A bound for a UInt32 column compared as Int64: [-1, 2^32] keeps every comparison meaningful. */
export function clampIdx(v: bigint): bigint {
  return v < -1n ? -1n : v > U32_MAX + 1n ? U32_MAX + 1n : v;
}

/** Keyset position in a list ordered by (block_number, index) (direction given by the query). */
export interface BlockIndexKey {
  block: bigint;
  index: bigint;
}

/** Position in a list ordered by (block_number, transaction_index, trace_index). */
export interface TraceKey {
  block: bigint;
  txIndex: bigint;
  index: bigint;
}

/**
 * Position in a token-transfer list: a whole log (batchIndex undefined: every id of that log was
 * shown) or one id of an ERC-1155 batch.
 */
export interface TransferKey {
  block: bigint;
  logIndex: bigint;
  batchIndex?: bigint;
}

export type Direction = 'from' | 'to' | null;

export function directionSql(direction: Direction, alias = ''): string {
  const p = alias ? `${alias}.` : '';
  return direction === 'from' ? ` AND ${p}is_from = 1` : direction === 'to' ? ` AND ${p}is_to = 1` : '';
}
