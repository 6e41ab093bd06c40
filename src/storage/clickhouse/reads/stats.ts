// Chain counters for /api/v2/stats, and the aggregates of /stats/hot-smart-contracts, computed
// from what is stored.
import type { ClickHouseStore } from '../store.js';
import { clampU64 } from './common.js';

export interface ChainTotals {
  blocks: string;
  transactions: string;
  gasUsed: string;
}

/** Counts from part metadata (count()) and one column sum: cheap at any size. */
export async function chainTotals(ch: ClickHouseStore): Promise<ChainTotals> {
  const [r] = await ch.query<{ blocks: string; transactions: string; gas: string }>(
    `SELECT
       (SELECT count() FROM blocks) AS blocks,
       (SELECT count() FROM transactions) AS transactions,
       (SELECT sum(gas_used) FROM blocks) AS gas`,
  );
  return { blocks: r.blocks, transactions: r.transactions, gasUsed: r.gas };
}

export interface RecentBlocks {
  count: number;
  firstTs: number | null;
  lastTs: number | null;
  gasUsed: string;
  gasLimit: string;
}

/** Milliseconds between consecutive blocks over `r`'s window; null with fewer than two blocks. */
export function averageBlockMs(r: RecentBlocks): number | null {
  return r.count >= 2 && r.firstTs !== null && r.lastTs !== null ? ((r.lastTs - r.firstTs) * 1000) / (r.count - 1) : null;
}

/** The newest `n` stored blocks: their time span and gas. */
export async function recentBlocks(ch: ClickHouseStore, n: number): Promise<RecentBlocks> {
  const [r] = await ch.query<{ c: string; lo: number; hi: number; used: string; lim: string }>(
    `SELECT count() AS c, min(toUnixTimestamp(timestamp)) AS lo, max(toUnixTimestamp(timestamp)) AS hi,
            sum(gas_used) AS used, sum(gas_limit) AS lim
     FROM (SELECT timestamp, gas_used, gas_limit FROM blocks ORDER BY number DESC LIMIT {n:UInt32})`,
    { n },
  );
  const count = Number(r?.c ?? 0);
  return { count, firstTs: count ? r.lo : null, lastTs: count ? r.hi : null, gasUsed: r?.used ?? '0', gasLimit: r?.lim ?? '0' };
}

/** Transactions and gas of the blocks stamped at or after `sinceTs` (unix seconds). */
export async function blocksSince(ch: ClickHouseStore, sinceTs: number): Promise<{ transactions: string; gasUsed: string }> {
  // Block timestamps grow with the number: read the tail in reverse key order, and only when the
  // whole tail is inside the window fall back to a filter over every block.
  const TAIL = 200_000;
  const [r] = await ch.query<{ txs: string; gas: string; n: string; oldest: number }>(
    `SELECT sumIf(transaction_count, ts >= {since:UInt32}) AS txs, sumIf(gas_used, ts >= {since:UInt32}) AS gas,
            count() AS n, min(ts) AS oldest
     FROM (SELECT toUnixTimestamp(timestamp) AS ts, transaction_count, gas_used FROM blocks ORDER BY number DESC LIMIT {tail:UInt32})`,
    { since: sinceTs, tail: TAIL },
  );
  if (Number(r?.n ?? 0) < TAIL || r.oldest < sinceTs) return { transactions: r?.txs ?? '0', gasUsed: r?.gas ?? '0' };
  const [all] = await ch.query<{ txs: string; gas: string }>(
    `SELECT sum(transaction_count) AS txs, sum(gas_used) AS gas FROM blocks WHERE timestamp >= toDateTime({since:UInt32}, 'UTC')`,
    { since: sinceTs },
  );
  return { transactions: all.txs, gasUsed: all.gas };
}

/** One block's fee percentiles (gas_price_oracle): what its transactions paid, and their priority fees. */
export interface BlockFeePercentiles {
  block_number: string;
  /** Effective gas price (wei) at each asked percentile, percentile_disc as PostgreSQL computes it. */
  prices: string[];
  /** min(max priority fee, max fee − base fee) at each percentile; empty when no transaction had one. */
  priorities: string[];
}

/**
 * Per block of the newest `blocks` (in no order), the effective gas prices and priority fees per gas of its
 * transactions (those that paid a price) at each of `percentiles` (0-1), discrete: the value at
 * position ceil(p × n) of the sorted list, as PostgreSQL's percentile_disc gives it.
 */
export async function feePercentiles(ch: ClickHouseStore, blocks: number, percentiles: readonly number[]): Promise<BlockFeePercentiles[]> {
  const at = (arr: string) => `[${percentiles.map((p) => `arrayElement(${arr}, toUInt64(greatest(1, ceil(${Number(p)} * length(${arr})))))`).join(', ')}]`;
  return ch.query<BlockFeePercentiles>(
    `SELECT toString(block_number) AS block_number,
            arrayMap(x -> toString(x), ${at('gp')}) AS prices,
            if(length(pf) = 0, [], arrayMap(x -> toString(x), ${at('pf')})) AS priorities
     FROM (
       SELECT t.block_number AS block_number,
              arraySort(groupArray(t.effective_gas_price)) AS gp,
              arraySort(groupArrayIf(least(assumeNotNull(t.max_priority_fee_per_gas),
                                           toUInt256(greatest(toInt256(assumeNotNull(t.max_fee_per_gas)) - toInt256(assumeNotNull(b.base_fee_per_gas)), 0))),
                                     t.max_priority_fee_per_gas IS NOT NULL AND t.max_fee_per_gas IS NOT NULL AND b.base_fee_per_gas IS NOT NULL)) AS pf
       FROM transactions t
       INNER JOIN (SELECT number, base_fee_per_gas FROM blocks WHERE number > (SELECT toInt64(max(number)) FROM blocks) - {n:UInt32}) b ON b.number = t.block_number
       WHERE t.block_number > (SELECT toInt64(max(number)) FROM blocks) - {n:UInt32} AND t.effective_gas_price > 0
       GROUP BY t.block_number)`,
    { n: blocks },
  );
}

/** What a page of /stats/hot-smart-contracts aggregates and in which order. */
export interface HotContractsQuery {
  /** The window: blocks stamped at or after `fromTs` and before `toTs` (unix seconds). */
  fromTs: number;
  toTs: number;
  /** The first sort key (Blockscout's `sort`) and its direction; the other figure follows, descending. */
  sort: 'transactions_count' | 'total_gas_used';
  order: 'asc' | 'desc';
  /** The last row of the previous page (all three keys, or none). */
  after?: { transactions: bigint; gas: bigint; address: string };
  limit: number;
}

/** One receiver of the window's transactions: how many it received and the gas they used. */
export interface HotContractRow {
  address: string;
  transactions_count: string;
  total_gas_used: string;
}

const U32_TS = (ts: number) => Math.min(Math.max(Math.floor(ts), 0), 0xffff_ffff);

/**
 * The receivers (`to`) of the transactions in the window's blocks, each with its transaction count
 * and gas used, in Blockscout's order: the sort key, the other figure descending, the address
 * ascending; the rows after `after`. Every receiver is returned, contract or not: whether it is a
 * contract is the address facts' to say (the API filters). The window becomes its blocks (one scan
 * of `blocks.timestamp`, a column of four bytes a block), and the transactions are read by their
 * key (block_number): the window's rows only, two columns of them.
 */
export async function hotContractCandidates(ch: ClickHouseStore, q: HotContractsQuery): Promise<HotContractRow[]> {
  const keys: [string, 'asc' | 'desc', string][] =
    q.sort === 'total_gas_used'
      ? [['total_gas_used', q.order, 'kg'], ['transactions_count', 'desc', 'kt']]
      : [['transactions_count', q.order, 'kt'], ['total_gas_used', 'desc', 'kg']];
  const cmp = (dir: 'asc' | 'desc') => (dir === 'asc' ? '>' : '<');
  const [[a, da, pa], [b, db, pb]] = keys;
  // Counts and sums are UInt64: a cursor beyond that range orders like the range's end.
  const having = q.after
    ? ` HAVING ${a} ${cmp(da)} {${pa}:UInt64} OR (${a} = {${pa}:UInt64} AND (${b} ${cmp(db)} {${pb}:UInt64} OR (${b} = {${pb}:UInt64} AND address > {kh:String})))`
    : '';
  const params: Record<string, unknown> = { from: U32_TS(q.fromTs), to: U32_TS(q.toTs), limit: q.limit };
  if (q.after) Object.assign(params, { kt: clampU64(q.after.transactions), kg: clampU64(q.after.gas), kh: q.after.address });
  return ch.query<HotContractRow>(
    `SELECT "to" AS address, count() AS transactions_count, sum(gas_used) AS total_gas_used
     FROM transactions
     WHERE block_number IN (SELECT number FROM blocks WHERE timestamp >= toDateTime({from:UInt32}, 'UTC') AND timestamp < toDateTime({to:UInt32}, 'UTC'))
       AND "to" != ''
     GROUP BY address${having}
     ORDER BY ${a} ${da.toUpperCase()}, ${b} ${db.toUpperCase()}, address ASC
     LIMIT {limit:UInt32}`,
    params,
  );
}
