// What the upgrade's backfill of ERC-4337 user operations reads and writes in ClickHouse: the
// stored transactions of a block range that opened a bundle (an EntryPoint's BeforeExecution log),
// with all their logs and call frames, in the shape the ingest's decoder takes; the rows it
// decoded from them; and the removal of rows a killed fill left above its progress.
import { TABLES } from '../../chain/clickhouse-rows.js';
import { TABLE_WRITER_FORMAT, TableWriter } from '../../chain/clickhouse-encode.js';
import type { UserOperationRow } from '../../chain/clickhouse-rows.js';
import { deleteRows } from './delete-rows.js';
import type { ClickHouseStore } from './store.js';

/** A stored transaction that opened a bundle. `input` may be a marker (INPUT_IN_POINT_ROW): the caller puts the calldata back. */
export interface BundleTxSource {
  block_number: number;
  transaction_index: number;
  hash: string;
  block_hash: string;
  /** Unix seconds. */
  timestamp: number;
  from: string;
  to: string;
  input: string;
  chain_id: string | null;
  v: string;
  logs: { address: string; topics: string[]; data: string; log_index: number }[];
  /** Its call frames in trace order when traces were stored (else none). `input` may be ROOT_INPUT_FROM_TX. */
  frames: { trace_address: number[]; type: string; to: string; input: string; error: string }[];
}

/**
 * The transactions of blocks [from, to] with a log whose first topic is `topic` (BeforeExecution),
 * in chain order, with every log and frame of each.
 */
export async function bundleTransactions(ch: ClickHouseStore, from: number, to: number, topic: string): Promise<BundleTxSource[]> {
  const range = { a: from, b: to, topic };
  const keys = await ch.query<{ block_number: string; transaction_index: number }>(
    `SELECT DISTINCT block_number, transaction_index FROM logs
     WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64} AND topic0 = {topic:String}
     ORDER BY block_number, transaction_index`,
    range,
  );
  if (!keys.length) return [];
  const kb = keys.map((k) => Number(k.block_number));
  const ki = keys.map((k) => k.transaction_index);
  const within = `block_number BETWEEN {a:UInt64} AND {b:UInt64} AND has(arrayZip({kb:Array(UInt64)}, {ki:Array(UInt32)}), (block_number, transaction_index))`;
  const p = { ...range, kb, ki };
  const [txs, logs, frames] = await Promise.all([
    ch.query<{ block_number: string; transaction_index: number; hash: string; block_hash: string; ts: string; from: string; to: string; input: string; chain_id: string | null; v: string }>(
      `SELECT block_number, transaction_index, hash, block_hash, toUnixTimestamp(timestamp) AS ts, "from", "to", input,
              toString(chain_id) AS chain_id, v
       FROM transactions WHERE ${within}
       ORDER BY block_number, transaction_index`,
      p,
    ),
    ch.query<{ block_number: string; transaction_index: number; log_index: number; address: string; topic0: string; topic1: string; topic2: string; topic3: string; data: string }>(
      `SELECT block_number, transaction_index, log_index, address, topic0, topic1, topic2, topic3, data FROM logs
       WHERE ${within} ORDER BY block_number, log_index`,
      p,
    ),
    ch.query<{ block_number: string; transaction_index: number; trace_address: number[]; type: string; to: string; input: string; error: string }>(
      `SELECT block_number, transaction_index, trace_address, type, "to", input, error FROM internal_transactions
       WHERE ${within} ORDER BY block_number, transaction_index, trace_index`,
      p,
    ),
  ]);
  const byKey = new Map<string, BundleTxSource>();
  const out: BundleTxSource[] = txs.map((t) => {
    const s: BundleTxSource = {
      block_number: Number(t.block_number),
      transaction_index: t.transaction_index,
      hash: t.hash,
      block_hash: t.block_hash,
      timestamp: Number(t.ts),
      from: t.from,
      to: t.to,
      input: t.input,
      chain_id: t.chain_id,
      v: t.v,
      logs: [],
      frames: [],
    };
    byKey.set(`${s.block_number}:${s.transaction_index}`, s);
    return s;
  });
  for (const l of logs) {
    byKey.get(`${l.block_number}:${l.transaction_index}`)?.logs.push({
      address: l.address,
      topics: [l.topic0, l.topic1, l.topic2, l.topic3].filter((x) => x !== ''),
      data: l.data,
      log_index: l.log_index,
    });
  }
  for (const f of frames) byKey.get(`${f.block_number}:${f.transaction_index}`)?.frames.push({ trace_address: f.trace_address, type: f.type, to: f.to, input: f.input, error: f.error });
  return out;
}

/** Inserts decoded user operations (rows of blocks the ingest will not write again). */
export async function insertUserOperations(ch: ClickHouseStore, rows: readonly UserOperationRow[]): Promise<void> {
  if (!rows.length) return;
  const w = new TableWriter();
  try {
    for (const r of rows) w.add('user_operations', r);
    await ch.insertRaw('user_operations', [w.toBuffers().user_operations], TABLES.user_operations, TABLE_WRITER_FORMAT);
  } finally {
    w.release();
  }
}

/**
 * Removes user operations stored in [from, to] (what a fill killed between its insert and its
 * progress left there: the rows are inserted again). Reads first, so the usual case deletes nothing.
 */
export async function deleteUserOperationsIn(ch: ClickHouseStore, from: number, to: number): Promise<number> {
  const [c] = await ch.query<{ n: string }>('SELECT count() AS n FROM user_operations WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64}', { a: from, b: to });
  const n = Number(c?.n ?? 0);
  if (n > 0) await deleteRows(ch, 'user_operations', 'block_number BETWEEN {a:UInt64} AND {b:UInt64}', { a: from, b: to });
  return n;
}
