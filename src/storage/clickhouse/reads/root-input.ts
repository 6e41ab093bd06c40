// Puts a top-level frame's input back: internal_transactions stores ROOT_INPUT_FROM_TX instead of
// a root frame's input when it equals its transaction's (src/chain/bundle.ts), so every read of
// the column fills it from transactions.input, one batched point read for all rows that need it.
// Where that row's calldata is in PostgreSQL's point row (INPUT_IN_POINT_ROW), the frame gets the
// same marker and the caller puts the calldata back by transaction hash (the API's withInputs).
import { ROOT_INPUT_FROM_TX } from '../../../chain/clickhouse-rows.js';
import type { ClickHouseStore } from '../store.js';

/** A read row of internal_transactions carrying its frame's input and its transaction's key. */
export interface FrameInputRow {
  block_number: string | number;
  transaction_index: number;
  input: string;
}

/**
 * `rows` with every stored ROOT_INPUT_FROM_TX replaced by its transaction's stored input, in place
 * (rows stored before the marker, and frames below the top level, are left as they are): the
 * calldata, or INPUT_IN_POINT_ROW. Reads transactions only when some row carries the marker.
 */
export async function fillRootInputs<R extends FrameInputRow>(ch: ClickHouseStore, rows: R[]): Promise<R[]> {
  const need = rows.filter((r) => r.input === ROOT_INPUT_FROM_TX);
  if (!need.length) return rows;
  const blocks = need.map((r) => String(r.block_number));
  const found = await ch.query<{ block_number: string; transaction_index: number; input: string }>(
    `SELECT block_number, transaction_index, input FROM transactions
     WHERE block_number IN {bs:Array(UInt64)} AND has(arrayZip({kb:Array(UInt64)}, {ki:Array(UInt32)}), (block_number, transaction_index))`,
    { bs: [...new Set(blocks)], kb: blocks, ki: need.map((r) => r.transaction_index) },
  );
  const inputs = new Map<string, string>();
  for (const f of found) inputs.set(`${f.block_number}:${f.transaction_index}`, f.input);
  for (const r of need) {
    const input = inputs.get(`${r.block_number}:${r.transaction_index}`);
    // Both rows are written by one insert and removed together on a reorg: a frame without its
    // transaction is a damaged store, not an input to guess.
    if (input === undefined) throw new Error(`internal_transactions: no transaction row for the top-level frame of block ${r.block_number} index ${r.transaction_index}`);
    r.input = input;
  }
  return rows;
}
