// Native coin balance history for the API (coin_balance_history, written by the derived coin
// lane: one row per block where an address's balance changed, with the delta). Sorted by
// (address, block_number): an address's history newest first is one key range.
import type { ClickHouseStore } from '../store.js';
import { clampU64 } from './common.js';

export interface CoinBalanceRead {
  block_number: string;
  value: string;
  delta: string;
  /** Unix seconds of the block. */
  ts: number;
}

/** Entries strictly below `before` (a block number), newest first. */
export async function coinBalanceHistory(
  ch: ClickHouseStore,
  address: string,
  o: { before?: bigint; limit: number },
): Promise<CoinBalanceRead[]> {
  return ch.query<CoinBalanceRead>(
    `SELECT block_number, toString(value) AS value, toString(delta) AS delta, toUnixTimestamp(timestamp) AS ts
     FROM coin_balance_history FINAL
     WHERE address = {a:String}${o.before !== undefined ? ' AND block_number < {b:UInt64}' : ''}
     ORDER BY block_number DESC LIMIT {limit:UInt32}`,
    { a: address, b: o.before !== undefined ? clampU64(o.before) : undefined, limit: o.limit },
  );
}

/**
 * For each block, one transaction of that block the address sent, received or created (the
 * first in the block): the transaction an entry of its history is shown with.
 */
export async function addressTransactionsInBlocks(ch: ClickHouseStore, address: string, blocks: readonly bigint[]): Promise<Map<string, string>> {
  if (!blocks.length) return new Map();
  const rows = await ch.query<{ block_number: string; hash: string }>(
    `SELECT block_number, hash FROM transactions
     WHERE block_number IN {bs:Array(UInt64)} AND (block_number, transaction_index) IN (
       SELECT block_number, min(transaction_index) FROM address_transactions
       WHERE address = {a:String} AND block_number IN {bs:Array(UInt64)} GROUP BY block_number)`,
    { a: address, bs: [...new Set(blocks)] },
  );
  return new Map(rows.map((r) => [r.block_number, r.hash]));
}

/**
 * The balance at the end of each day (UTC) on which it changed, over the `days` days up to the
 * newest stored block's day, oldest first ('YYYY-MM-DD').
 */
export async function coinBalanceByDay(ch: ClickHouseStore, address: string, days: number): Promise<{ date: string; value: string }[]> {
  return ch.query<{ date: string; value: string }>(
    `SELECT toString(d) AS date, argMax(toString(value), block_number) AS value FROM (
       SELECT toDate(timestamp) AS d, value, block_number FROM coin_balance_history FINAL
       WHERE address = {a:String}
         AND toDate(timestamp) >= (SELECT toDate(timestamp) FROM blocks ORDER BY number DESC LIMIT 1) - {days:UInt32})
     GROUP BY d ORDER BY d`,
    { a: address, days },
  );
}
