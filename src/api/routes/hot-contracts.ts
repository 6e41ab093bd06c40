// /stats/hot-smart-contracts: Blockscout's "hot contracts", the contracts that received the most
// transactions (or gas) over a time scale, aggregated from the stored transactions (ClickHouse)
// and kept to the receivers the address facts say are contracts.
import { hotContractCandidates, type HotContractRow, type HotContractsQuery } from '../../storage/clickhouse/reads/stats.js';
import { addressFactRows } from '../../storage/postgres/reads/addresses.js';
import type { ApiContext } from '../context.js';
import { ValidationError } from '../errors.js';
import { echo, makePage, pageSize, type PageParamValue } from '../paging.js';
import type { CastValue, ParamSpec } from '../params.js';
import type { RouteDef } from '../router.js';
import { requiredAddress } from '../serializers/address.js';
import { ADDRESS, ITEMS_COUNT } from './common.js';
import { clock } from './clock.js';

const DAY_S = 86_400;

/**
 * Blockscout's scales. The short ones are the blocks stamped in the last 5 minutes, hour or three
 * hours up to now; the day ones are whole UTC days before today, as Blockscout's daily aggregates
 * are (its fetcher writes a day once it is over, so "1d" is yesterday and today is in none).
 */
export const HOT_SCALES = {
  '5m': { seconds: 300 },
  '1h': { seconds: 3_600 },
  '3h': { seconds: 10_800 },
  '1d': { days: 1 },
  '7d': { days: 7 },
  '30d': { days: 30 },
} as const;
export type HotScale = keyof typeof HOT_SCALES;

/** The window of `scale` at `nowMs`: block timestamps at or after `fromTs`, before `toTs` (seconds). */
export function hotWindow(scale: HotScale, nowMs: number): { fromTs: number; toTs: number } {
  const now = Math.floor(nowMs / 1000);
  const s = HOT_SCALES[scale];
  if ('seconds' in s) return { fromTs: now - s.seconds, toTs: now + 1 };
  const today = now - (now % DAY_S);
  return { fromTs: today - s.days * DAY_S, toTs: today };
}

/**
 * Receivers read by the first aggregate (the page and some beside it) and at most by a later one.
 * Settable so that a test can read one at a time and go through the re-reads.
 */
export const HOT_BATCH = { first: 64, max: 16_384 };

/**
 * The page's contracts plus one (to know there is a next page): the window's receivers in order,
 * those the address facts do not call contracts (accounts, precompiles, addresses without code)
 * left out, as Blockscout keeps only receivers with code. When a batch holds too few contracts the
 * aggregate is read again after its last receiver, in batches four times larger.
 */
async function contractRows(ctx: ApiContext, q: Omit<HotContractsQuery, 'limit'>, want: number): Promise<HotContractRow[]> {
  const out: HotContractRow[] = [];
  let after = q.after;
  let batch = Math.max(HOT_BATCH.first, want);
  for (;;) {
    const rows = await hotContractCandidates(ctx.ch, { ...q, after, limit: batch });
    const facts = await ctx.addressFacts(rows.map((r) => r.address));
    for (const r of rows) {
      if (facts.get(r.address)?.isContract !== true) continue;
      out.push(r);
      if (out.length >= want) return out;
    }
    if (rows.length < batch) return out;
    const last = rows[rows.length - 1];
    after = { transactions: BigInt(last.transactions_count), gas: BigInt(last.total_gas_used), address: last.address };
    batch = Math.min(batch * 4, HOT_BATCH.max);
  }
}

/** The previous page's last row, when all three of Blockscout's keys are given (else the first page). */
function afterKey(query: Record<string, CastValue>): HotContractsQuery['after'] {
  const { transactions_count: t, total_gas_used: g, contract_address_hash: h } = query;
  if (typeof t !== 'bigint' || typeof g !== 'bigint' || typeof h !== 'string') return undefined;
  return { transactions: t, gas: g, address: h };
}

/** A count as a JSON integer while it is exact, else its digits. */
const intOrDigits = (v: string): number | string => (Number.isSafeInteger(Number(v)) ? Number(v) : v);

export const hotContractsRoute: RouteDef = {
  pattern: '/stats/hot-smart-contracts',
  query: {
    scale: { kind: 'enum', values: Object.keys(HOT_SCALES) },
    sort: { kind: 'enum', values: ['transactions_count', 'total_gas_used'] },
    order: { kind: 'enum', values: ['asc', 'desc'] },
    transactions_count: { kind: 'int', min: 1n },
    total_gas_used: { kind: 'int', min: 0n },
    contract_address_hash: ADDRESS,
    items_count: ITEMS_COUNT,
  } satisfies Record<string, ParamSpec>,
  async handler({ query, ctx }) {
    // `scale` is required (OpenApiSpex's answer when it is missing).
    if (typeof query.scale !== 'string') throw new ValidationError([{ pointer: '/scale', detail: 'Missing field: scale' }]);
    const size = pageSize(query);
    // Blockscout sorts by the asked key only when both sort and order are given.
    const asked = typeof query.sort === 'string' && typeof query.order === 'string';
    const q: Omit<HotContractsQuery, 'limit'> = {
      ...hotWindow(query.scale as HotScale, clock.now()),
      sort: asked ? (query.sort as HotContractsQuery['sort']) : 'transactions_count',
      order: asked ? (query.order as HotContractsQuery['order']) : 'desc',
      after: afterKey(query),
    };
    const rows = await contractRows(ctx, q, size + 1);
    const shown = rows.slice(0, size).map((r) => r.address);
    const [facts, balances] = await Promise.all([ctx.addressFacts(shown), addressFactRows(ctx.pg, shown)]);
    // The coin balance after its last change, once the coin lane read it (not while a reorg's
    // restore is pending: block -1); null otherwise, as Blockscout's for an address never fetched.
    const balance = (a: string) => {
      const row = balances.rows.get(a);
      return row && row.coin_balance !== null && row.coin_balance_block !== -1 ? row.coin_balance : null;
    };
    // Blockscout's view prints both figures as strings (its schema says integers; its frontend
    // reads strings); its cursor keeps the count a number and the gas (a Decimal) a string.
    const item = (r: HotContractRow) => ({
      balance: balance(r.address),
      contract_address: requiredAddress(r.address, facts),
      total_gas_used: r.total_gas_used,
      transactions_count: r.transactions_count,
    });
    const cursor = (r: HotContractRow): Record<string, PageParamValue> => ({
      contract_address_hash: r.address,
      total_gas_used: r.total_gas_used,
      transactions_count: intOrDigits(r.transactions_count),
    });
    // Blockscout's next page echoes sort and order, not the scale (the client sends it again).
    const body = makePage(rows, size, (rs) => rs.map(item), cursor, { echo: echo(query, ['sort', 'order']) });
    // The short scales slide with the clock too; cached until the next block all the same (a new
    // block is what changes them on a live chain).
    return { body, policy: 'volatile' };
  },
};
