// Per-day, per-hour and recent-window aggregates of stored blocks, for the charts (/api/v2/stats/charts/*,
// the stats service's /api/v1/lines) and the 24-hour counters (/api/v2/transactions/stats).
// Everything comes from the `blocks` table: a block's transaction count, gas, and its fees
// (burnt_fees + priority_fees = the sum of its transactions' gas_used * effective_gas_price, plus
// op_fees: an OP Stack chain's L1 data and operator fees, 0 elsewhere; so the sum of the
// transactions' `fee`), so no transaction row is read.
import type { ClickHouseStore } from '../store.js';
import { clampU64 } from './common.js';

/** What a day and an hour of stored blocks both sum. Large sums are digit strings. */
interface PeriodSums {
  blocks: number;
  transactions: string;
  gas_used: string;
  /** Fees paid by the period's transactions, wei. */
  fees: string;
  /** Unix seconds of the period's first and last block. */
  first_ts: number;
  last_ts: number;
}

/** The columns of PeriodSums, over one GROUP BY period of `blocks`. */
const PERIOD_SUMS = `count() AS blocks, sum(transaction_count) AS transactions, sum(gas_used) AS gas_used,
            sum(burnt_fees + priority_fees + op_fees) AS fees,
            toUnixTimestamp(min(timestamp)) AS first_ts, toUnixTimestamp(max(timestamp)) AS last_ts`;

/** One UTC day of stored blocks. */
export interface DayRead extends PeriodSums {
  /** YYYY-MM-DD (UTC). */
  day: string;
  first_number: string;
  last_number: string;
  /** Hash of the day's last block: a later read of that height with another hash means a reorg. */
  last_hash: string;
}

/** The days of the stored blocks numbered `fromBlock` and above, oldest first. */
export async function dailyBlockStats(ch: ClickHouseStore, fromBlock: bigint): Promise<DayRead[]> {
  return ch.query<DayRead>(
    `SELECT toString(toDate(timestamp)) AS day, ${PERIOD_SUMS},
            min(number) AS first_number, max(number) AS last_number, argMax(hash, number) AS last_hash
     FROM blocks WHERE number >= {from:UInt64} GROUP BY day ORDER BY day`,
    { from: clampU64(fromBlock) },
  );
}

/** One UTC hour of stored blocks (the charts of a chain younger than a few days). */
export interface HourRead extends PeriodSums {
  /** Unix seconds of the hour's start. */
  hour: number;
}

/** The hours of the stored blocks numbered `fromBlock` and above, oldest first. */
export async function hourlyBlockStats(ch: ClickHouseStore, fromBlock: bigint): Promise<HourRead[]> {
  return ch.query<HourRead>(
    `SELECT toUnixTimestamp(toStartOfHour(timestamp)) AS hour, ${PERIOD_SUMS}
     FROM blocks WHERE number >= {from:UInt64} GROUP BY hour ORDER BY hour`,
    { from: clampU64(fromBlock) },
  );
}

/** The stored block hash at `n`, or null. */
export async function blockHashAt(ch: ClickHouseStore, n: bigint): Promise<string | null> {
  const rows = await ch.query<{ hash: string }>('SELECT hash FROM blocks WHERE number = {n:UInt64} LIMIT 1', { n: clampU64(n) });
  return rows[0]?.hash ?? null;
}

export interface WindowRead {
  /** Lowest block number stamped at or after the window's start; null when none is. */
  firstNumber: string | null;
  blocks: number;
  transactions: string;
  /** Fees paid by the window's transactions, wei. */
  fees: string;
}

/**
 * The stored blocks stamped at or after `sinceTs` (unix seconds). Timestamps grow with the number,
 * so the newest blocks are read in reverse key order; only when that whole tail lies inside the
 * window is the window read with a filter over every block.
 */
export async function blocksWindow(ch: ClickHouseStore, sinceTs: number): Promise<WindowRead> {
  const TAIL = 200_000;
  const since = Math.max(0, Math.floor(sinceTs));
  const [r] = await ch.query<{ first: string; n: string; txs: string; fees: string; tail: string; oldest: number }>(
    `SELECT minIf(number, ts >= {since:UInt32}) AS first, countIf(ts >= {since:UInt32}) AS n,
            sumIf(transaction_count, ts >= {since:UInt32}) AS txs, sumIf(fee, ts >= {since:UInt32}) AS fees,
            count() AS tail, min(ts) AS oldest
     FROM (SELECT number, toUnixTimestamp(timestamp) AS ts, transaction_count, burnt_fees + priority_fees + op_fees AS fee
           FROM blocks ORDER BY number DESC LIMIT {tail:UInt32})`,
    { since, tail: TAIL },
  );
  const out = (x: { first: string; n: string; txs: string; fees: string }): WindowRead => ({
    firstNumber: Number(x.n) > 0 ? x.first : null,
    blocks: Number(x.n),
    transactions: x.txs,
    fees: x.fees,
  });
  if (!r || Number(r.tail) < TAIL || r.oldest < since) return r ? out(r) : { firstNumber: null, blocks: 0, transactions: '0', fees: '0' };
  const [all] = await ch.query<{ first: string; n: string; txs: string; fees: string }>(
    `SELECT min(number) AS first, count() AS n, sum(transaction_count) AS txs, sum(burnt_fees + priority_fees + op_fees) AS fees
     FROM blocks WHERE timestamp >= toDateTime({since:UInt32}, 'UTC')`,
    { since },
  );
  return out(all);
}
