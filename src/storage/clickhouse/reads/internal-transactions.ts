// Internal transaction reads for the API. Which frames are listed follows Blockscout
// (InternalTransaction.where_is_different_from_parent_transaction): every frame below the top
// level, and the top-level frame too when it is not a plain call (a contract creation).
import type { ClickHouseStore } from '../store.js';
import { coalescerPerStore } from '../coalesce.js';
import { clampIdx, clampU64, directionSql, type BlockIndexKey, type Direction, type TraceKey } from './common.js';

export interface InternalTransactionRead {
  block_number: string;
  transaction_index: number;
  trace_index: number;
  transaction_hash: string;
  block_hash: string;
  /** Unix seconds. */
  ts: number;
  trace_address: number[];
  type: string;
  call_type: string;
  from: string;
  to: string;
  value: string;
  gas: string;
  gas_used: string;
  error: string;
  created_contract_address: string;
}

const COLUMNS = `block_number, transaction_index, trace_index, transaction_hash, block_hash, toUnixTimestamp(timestamp) AS ts, trace_address,
  type, call_type, "from", "to", value, gas, gas_used, error, created_contract_address`;

export const LISTED_FRAME = `(trace_index > 0 OR type != 'call')`;

/** Strictly after `k` in (block, tx index, trace index) descending order. */
const AFTER_DESC = `(block_number < {kb:UInt64} OR (block_number = {kb:UInt64} AND (transaction_index < {kt:Int64} OR (transaction_index = {kt:Int64} AND trace_index < {ki:Int64}))))`;

function keyParams(k: TraceKey | undefined): Record<string, unknown> {
  return k ? { kb: clampU64(k.block), kt: clampIdx(k.txIndex), ki: clampIdx(k.index) } : {};
}

/** One transaction's internal transactions in order, after trace index `afterIndex`. */
export async function transactionInternalTransactions(
  ch: ClickHouseStore,
  block: bigint,
  txIndex: number,
  afterIndex: bigint | undefined,
  limit: number,
): Promise<InternalTransactionRead[]> {
  return ch.query<InternalTransactionRead>(
    `SELECT ${COLUMNS} FROM internal_transactions
     WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32} AND trace_index > {ai:Int64} AND ${LISTED_FRAME}
     ORDER BY trace_index LIMIT {limit:UInt32}`,
    { b: clampU64(block), t: txIndex, ai: afterIndex === undefined ? -1n : clampIdx(afterIndex), limit },
  );
}

/** Every frame of one transaction (the top level included), depth-first. */
export async function transactionFrames(ch: ClickHouseStore, block: bigint, txIndex: number): Promise<InternalTransactionRead[]> {
  return ch.query<InternalTransactionRead>(
    `SELECT ${COLUMNS} FROM internal_transactions WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32} ORDER BY trace_index`,
    { b: clampU64(block), t: txIndex },
  );
}

/** Every internal transaction, newest first; optionally of one transaction. */
export async function listInternalTransactions(
  ch: ClickHouseStore,
  o: { after?: TraceKey; tx?: BlockIndexKey; limit: number },
): Promise<InternalTransactionRead[]> {
  const conds = [LISTED_FRAME];
  if (o.after) conds.push(AFTER_DESC);
  if (o.tx) conds.push('block_number = {tb:UInt64} AND transaction_index = {tt:UInt32}');
  return ch.query<InternalTransactionRead>(
    `SELECT ${COLUMNS} FROM internal_transactions WHERE ${conds.join(' AND ')}
     ORDER BY block_number DESC, transaction_index DESC, trace_index DESC LIMIT {limit:UInt32}`,
    { ...keyParams(o.after), tb: o.tx?.block, tt: o.tx ? Number(o.tx.index) : undefined, limit: o.limit },
  );
}

/**
 * An address's internal transactions (either side unless `direction`), newest first. The address
 * index holds frames below the top level only, so a contract creation's top-level frame (listed
 * for the transaction) is not in an address's list.
 */
export async function addressInternalTransactions(
  ch: ClickHouseStore,
  address: string,
  o: { direction: Direction; after?: TraceKey; limit: number },
): Promise<InternalTransactionRead[]> {
  return ch.query<InternalTransactionRead>(
    `SELECT ${COLUMNS} FROM internal_transactions
     WHERE (block_number, transaction_index, trace_index) IN (
       SELECT block_number, transaction_index, trace_index FROM address_internal_transactions
       WHERE address = {a:String}${directionSql(o.direction)}${o.after ? ` AND ${AFTER_DESC}` : ''}
       ORDER BY block_number DESC, transaction_index DESC, trace_index DESC LIMIT {limit:UInt32})
     ORDER BY block_number DESC, transaction_index DESC, trace_index DESC`,
    { a: address, ...keyParams(o.after), limit: o.limit },
  );
}

/**
 * A block's listed internal transactions in chain order (Blockscout's block page lists them so),
 * after (transaction index, trace index) `after`; only of frame `type` and `callType` when given.
 * One key range of the table.
 */
export async function blockInternalTransactions(
  ch: ClickHouseStore,
  block: bigint,
  o: { after?: { txIndex: bigint; index: bigint }; type?: string; callType?: string; limit: number },
): Promise<InternalTransactionRead[]> {
  const conds = ['block_number = {b:UInt64}', LISTED_FRAME];
  if (o.after) conds.push('(transaction_index > {at:Int64} OR (transaction_index = {at:Int64} AND trace_index > {ai:Int64}))');
  if (o.type !== undefined) conds.push('type = {ty:String}');
  if (o.callType !== undefined) conds.push('call_type = {ct:String}');
  return ch.query<InternalTransactionRead>(
    `SELECT ${COLUMNS} FROM internal_transactions WHERE ${conds.join(' AND ')} ORDER BY transaction_index, trace_index LIMIT {limit:UInt32}`,
    {
      b: clampU64(block),
      ...(o.after ? { at: clampIdx(o.after.txIndex), ai: clampIdx(o.after.index) } : {}),
      ty: o.type,
      ct: o.callType,
      limit: o.limit,
    },
  );
}

/** Listed internal transactions of a block (Blockscout's internal_transactions_count). */
export async function blockInternalCount(ch: ClickHouseStore, block: bigint): Promise<number> {
  const rows = await ch.query<{ n: string }>(
    `SELECT count() AS n FROM internal_transactions WHERE block_number = {b:UInt64} AND ${LISTED_FRAME}`,
    { b: clampU64(block) },
  );
  return Number(rows[0]?.n ?? 0);
}

export interface FrameFact {
  block_number: string;
  transaction_index: number;
  /** 1: the top-level frame (its output is the revert data); 0: a failed frame below it. */
  top: number;
  output: string;
}

/** Keys of the frame reads: `t:` the top-level frame of a transaction, `f:` one failed frame below it. */
const frameKey = (kind: 't' | 'f', block: bigint | string, index: number): string => `${kind}:${block}:${index}`;

async function readFrameFacts(ch: ClickHouseStore, keys: string[]): Promise<Map<string, FrameFact>> {
  const rb: bigint[] = [];
  const ri: number[] = [];
  const nb: bigint[] = [];
  const ni: number[] = [];
  for (const k of keys) {
    const [kind, b, i] = k.split(':');
    (kind === 't' ? rb : nb).push(BigInt(b));
    (kind === 't' ? ri : ni).push(Number(i));
  }
  const rows = await ch.query<FrameFact>(
    `SELECT block_number, transaction_index, trace_index = 0 AS top, if(trace_index = 0, output, '') AS output FROM internal_transactions
     WHERE block_number IN {bs:Array(UInt64)}
       AND ((trace_index = 0 AND has(arrayZip({rb:Array(UInt64)}, {ri:Array(UInt32)}), (block_number, transaction_index)))
         OR (trace_index > 0 AND error != '' AND has(arrayZip({nb:Array(UInt64)}, {ni:Array(UInt32)}), (block_number, transaction_index))))
     LIMIT 1 BY block_number, transaction_index, top`,
    { bs: [...new Set([...rb, ...nb])], rb, ri, nb, ni },
  );
  return new Map(rows.map((r) => [frameKey(Number(r.top) ? 't' : 'f', r.block_number, r.transaction_index), r]));
}

// A page asks for up to two keys per transaction: its keys stay in one read.
const frameReads = coalescerPerStore(readFrameFacts, { maxInFlight: 2, maxKeys: 512 });

/**
 * In one read (shared with concurrent requests' reads): the top-level frame of each of `reverted`
 * (its output is the revert data) and, for each of `nested`, one failed frame below the top level
 * if there is any (`top` 0).
 */
export async function topFramesAndFailures(
  ch: ClickHouseStore,
  reverted: readonly { block: bigint; index: number }[],
  nested: readonly { block: bigint; index: number }[],
): Promise<FrameFact[]> {
  const keys = [...reverted.map((r) => frameKey('t', r.block, r.index)), ...nested.map((k) => frameKey('f', k.block, k.index))];
  const found = await frameReads(ch).getMany(keys);
  return found.filter((f): f is FrameFact => f !== undefined);
}
