// Blockscout's stats service API (blockscout-rs `stats`, served under /api/v1; the frontend's stats
// page and home chart ask it): /counters, /lines, /lines/{id}, /pages/main, /pages/transactions.
// Shapes are the service's (proto `blockscout.stats.v1`, JSON field names as its gateway writes
// them: Counter {id, value, title, units?, description}, LineChart {chart: [{date, date_to, value,
// is_approximate}], info: {id, title, description, units?, resolutions}}). Only figures computed
// from what is stored are offered; a counter or line this instance cannot compute honestly is
// absent, never a guess. Fee values are in the native coin (wei / 10^18), as the service gives.
import { formatUnits } from 'viem';
import { ValidationError, NotFoundError } from '../errors.js';
import type { CastValue, ParamSpec } from '../params.js';
import type { RouteDef } from '../router.js';
import type { ApiContext } from '../context.js';
import { averageBlockMs, chainTotals, recentBlocks } from '../../storage/clickhouse/reads/stats.js';
import { blocksWindow } from '../../storage/clickhouse/reads/daily.js';
import { chainCounter } from '../../storage/postgres/reads/addresses.js';
import { contractsTotal, pendingSince } from '../../storage/postgres/reads/counts.js';
import { verifiedCounts } from '../../storage/postgres/verified.js';
import { dailySeries, hourlyPeriods, periods, type Period, type Resolution } from './daily-series.js';
import { RECENT_BLOCKS } from './stats.js';
import { clock } from './clock.js';

/** The prefix these routes are served under (src/api/app.ts). */
export const STATS_SERVICE_PREFIX = '/api/v1';

export interface CounterJson {
  id: string;
  value: string;
  title: string;
  units?: string;
  description: string;
}

interface LineInfoJson {
  id: string;
  title: string;
  description: string;
  units?: string;
  resolutions: (Resolution | 'HOUR')[];
}

interface PointJson {
  date: string;
  date_to: string;
  value: string;
  is_approximate: boolean;
}

const RESOLUTIONS: Resolution[] = ['DAY', 'WEEK', 'MONTH', 'YEAR'];
/**
 * Hours looked back at resolution=HOUR, our addition to the service's resolutions: a chain younger
 * than a few days has too few days for a line, so its pages draw hours until it has them.
 */
export const HOUR_WINDOW_HOURS = 48;
const DAY_MS = 86_400_000;
/** Points of the home page's daily transactions chart (the service's NEW_TXNS_WINDOW_RANGE). */
export const WINDOW_DAYS = 30;

const coinValue = (wei: bigint) => formatUnits(wei, 18);
/** Seconds with at most two decimals. */
const seconds = (s: number) => String(Math.round(s * 100) / 100);

interface LineDef {
  id: string;
  title: string;
  description: string;
  /** Coin-denominated lines take the native coin's symbol. */
  coinUnits?: boolean;
  units?: string;
  /** Whether the line counts addresses (derived data: approximate until the lane is past it). */
  addresses?: boolean;
  /** Offered per hour too (a figure of the period's own blocks: neither cumulative nor of addresses). */
  hourly?: boolean;
  /** The point's value, or null when the period has none (no point is shown). */
  value(p: Period, running: { transactions: bigint; gasUsed: bigint; addresses: bigint }): string | null;
}

interface SectionDef {
  id: string;
  title: string;
  lines: LineDef[];
}

const SECTIONS: SectionDef[] = [
  {
    id: 'accounts',
    title: 'Accounts',
    lines: [
      {
        id: 'accountsGrowth',
        title: 'Addresses growth',
        description: 'Cumulative number of addresses seen on the indexed chain',
        addresses: true,
        value: (_p, r) => r.addresses.toString(),
      },
      {
        id: 'newAccounts',
        title: 'New addresses',
        description: 'Addresses seen for the first time per period',
        addresses: true,
        value: (p) => String(p.newAddresses),
      },
    ],
  },
  {
    id: 'transactions',
    title: 'Transactions',
    lines: [
      {
        id: 'averageTxnFee',
        title: 'Average transaction fee',
        description: 'The average fee paid per transaction',
        coinUnits: true,
        hourly: true,
        value: (p) => (p.transactions > 0n ? coinValue((2n * p.fees + p.transactions) / (2n * p.transactions)) : null),
      },
      { id: 'newTxns', title: 'New transactions', description: 'Transactions in the blocks of the period', hourly: true, value: (p) => p.transactions.toString() },
      { id: 'txnsFee', title: 'Transactions fees', description: 'Fees paid by the transactions of the period', coinUnits: true, hourly: true, value: (p) => coinValue(p.fees) },
      { id: 'txnsGrowth', title: 'Transactions growth', description: 'Cumulative number of transactions', value: (_p, r) => r.transactions.toString() },
    ],
  },
  {
    id: 'blocks',
    title: 'Blocks',
    lines: [
      {
        id: 'averageBlockTime',
        title: 'Average block time',
        description: 'Average time between consecutive blocks of the period, in seconds',
        units: 's',
        hourly: true,
        value: (p) => (p.intervals > 0 && p.span !== null ? seconds(p.span / p.intervals) : null),
      },
    ],
  },
  {
    id: 'gas',
    title: 'Gas',
    lines: [{ id: 'gasUsedGrowth', title: 'Gas used growth', description: 'Cumulative gas used', value: (_p, r) => r.gasUsed.toString() }],
  },
];

const LINES = new Map(SECTIONS.flatMap((s) => s.lines.map((l) => [l.id, l] as const)));

function info(l: LineDef, coin: string): LineInfoJson {
  const units = l.coinUnits ? coin : l.units;
  return { id: l.id, title: l.title, description: l.description, ...(units ? { units } : {}), resolutions: l.hourly ? [...RESOLUTIONS, 'HOUR'] : RESOLUTIONS };
}

/** The points of an hourly line over the last HOUR_WINDOW_HOURS, oldest first. */
async function hourlyPoints(ctx: ApiContext, l: LineDef): Promise<PointJson[]> {
  const none = { transactions: 0n, gasUsed: 0n, addresses: 0n };
  const out: PointJson[] = [];
  for (const p of await hourlyPeriods(ctx, clock.now() - HOUR_WINDOW_HOURS * 3_600_000)) {
    const value = l.value(p, none);
    if (value !== null) out.push({ date: p.date, date_to: p.dateTo, value, is_approximate: p.approximate });
  }
  return out;
}

/** Every point of a line at a resolution, oldest first; cumulative lines add from the first stored day. */
async function points(ctx: ApiContext, l: LineDef, resolution: Resolution): Promise<PointJson[]> {
  const running = { transactions: 0n, gasUsed: 0n, addresses: 0n };
  const out: PointJson[] = [];
  for (const p of periods(await dailySeries(ctx), resolution)) {
    running.transactions += p.transactions;
    running.gasUsed += p.gasUsed;
    running.addresses += BigInt(p.newAddresses);
    const value = l.value(p, running);
    if (value === null) continue;
    out.push({ date: p.date, date_to: p.dateTo, value, is_approximate: p.approximate || (!!l.addresses && p.addressesApproximate) });
  }
  return out;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A YYYY-MM-DD query value that names a real date, else a 422 as OpenApiSpex words it. */
function dateParam(name: string, v: CastValue | undefined): string | undefined {
  if (typeof v !== 'string') return undefined;
  const m = DATE_RE.exec(v);
  const ok = m !== null && new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).toISOString().slice(0, 10) === v;
  if (!ok) throw new ValidationError([{ pointer: `/${name}`, detail: 'Invalid format. Expected :date' }]);
  return v;
}

const counter = (id: string, value: string, title: string, description: string, units?: string): CounterJson => ({
  id,
  value,
  title,
  ...(units ? { units } : {}),
  description,
});

/** Counters of the last 24 hours (blocks stamped since) and of the pending pool's last 30 minutes. */
async function recentCounters(ctx: ApiContext, coin: string) {
  const now = clock.now();
  const [w, pending] = await Promise.all([blocksWindow(ctx.ch, (now - DAY_MS) / 1000), pendingSince(ctx.pg, now - 30 * 60_000)]);
  const txs = BigInt(w.transactions);
  const fees = BigInt(w.fees);
  return {
    newTxns24h: counter('newTxns24h', txs.toString(), 'Transactions', 'Number of new transactions within last 24 hours'),
    pendingTxns30m: counter('pendingTxns30m', pending, 'Pending transactions', 'Number of pending transactions first seen within last 30 minutes'),
    txnsFee24h: counter('txnsFee24h', coinValue(fees), 'Transactions fees', 'Sum of the fees paid by the transactions of the last 24 hours', coin),
    // No transaction in the window, no average: left out.
    averageTxnFee24h:
      txs > 0n
        ? counter('averageTxnFee24h', coinValue((2n * fees + txs) / (2n * txs)), 'Avg. transaction fee', 'Average fee paid per transaction within last 24 hours', coin)
        : undefined,
  };
}

/** Counters of the whole stored history. */
async function totalCounters(ctx: ApiContext) {
  const [totals, addresses, contracts, recent, verified] = await Promise.all([
    chainTotals(ctx.ch),
    chainCounter(ctx.pg, 'addresses').then((v) => v ?? '0'),
    contractsTotal(ctx.pg),
    recentBlocks(ctx.ch, RECENT_BLOCKS),
    verifiedCounts(ctx.pg, new Date(0)),
  ]);
  // Seconds between consecutive blocks over the recent window; fewer than two blocks: none.
  const averageMs = averageBlockMs(recent);
  const avg =
    averageMs !== null ? counter('averageBlockTime', seconds(averageMs / 1000), 'Average block time', 'Average time between the last 100 blocks, in seconds', 's') : undefined;
  return {
    averageBlockTime: avg,
    totalAddresses: counter('totalAddresses', addresses, 'Total addresses', 'Number of addresses that participated in the blockchain'),
    totalBlocks: counter('totalBlocks', totals.blocks, 'Total blocks', 'Number of blocks over all time'),
    totalContracts: counter('totalContracts', contracts, 'Total contracts', 'Number of contracts created'),
    totalTxns: counter('totalTxns', totals.transactions, 'Total txns', 'Number of transactions in blocks'),
    totalVerifiedContracts: counter('totalVerifiedContracts', verified.total, 'Total verified contracts', 'Number of verified contracts'),
  };
}

const present = <T>(xs: (T | undefined)[]): T[] => xs.filter((x): x is T => x !== undefined);

/** The stats service's routes, with the native coin's symbol as the fee units. */
export function statsServiceRoutes(coin = 'ETH'): RouteDef[] {
  const RESOLUTION: ParamSpec = { kind: 'enum', values: [...RESOLUTIONS, 'HOUR'] };
  return [
    {
      pattern: '/counters',
      async handler({ ctx }) {
        const [t, r] = await Promise.all([totalCounters(ctx), recentCounters(ctx, coin)]);
        // The service's layout order.
        const counters = present([
          t.averageBlockTime,
          t.totalAddresses,
          t.totalBlocks,
          t.totalContracts,
          t.totalTxns,
          t.totalVerifiedContracts,
          r.newTxns24h,
          r.pendingTxns30m,
          r.txnsFee24h,
          r.averageTxnFee24h,
        ]);
        return { body: { counters }, policy: 'volatile' };
      },
    },
    {
      pattern: '/lines',
      async handler() {
        const sections = SECTIONS.map((s) => ({ id: s.id, title: s.title, charts: s.lines.map((l) => info(l, coin)) }));
        return { body: { sections }, policy: 'stable' };
      },
    },
    {
      pattern: '/lines/:name',
      path: { name: { kind: 'string' } },
      query: { from: { kind: 'string' }, to: { kind: 'string' }, resolution: RESOLUTION },
      async handler({ path, query, ctx }) {
        const from = dateParam('from', query.from);
        const to = dateParam('to', query.to);
        const line = LINES.get(path.name as string);
        if (!line) throw new NotFoundError();
        const resolution = (query.resolution as Resolution | 'HOUR' | undefined) ?? 'DAY';
        if (resolution === 'HOUR' && !line.hourly) {
          throw new ValidationError([{ pointer: '/resolution', detail: `HOUR is not offered for ${line.id}: only for lines of a period's own blocks` }]);
        }
        const all = resolution === 'HOUR' ? await hourlyPoints(ctx, line) : await points(ctx, line, resolution);
        // Periods that overlap [from, to] (an hour's date is an ISO time: its day is compared).
        const chart = all.filter((p) => (!from || p.date_to >= from) && (!to || p.date.slice(0, 10) <= to));
        return { body: { chart, info: info(line, coin) }, policy: 'volatile' };
      },
    },
    {
      pattern: '/pages/main',
      async handler({ ctx }) {
        const [t, days] = await Promise.all([totalCounters(ctx), dailySeries(ctx)]);
        const now = clock.now();
        const today = now - (now % DAY_MS);
        const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
        const yesterday = iso(today - DAY_MS);
        const body: Record<string, unknown> = {
          total_addresses: t.totalAddresses,
          total_blocks: t.totalBlocks,
          total_transactions: t.totalTxns,
        };
        if (t.averageBlockTime) body.average_block_time = t.averageBlockTime;
        // Yesterday's transactions, when the stored history reaches back to yesterday.
        if (days.length && days[0].day <= yesterday) {
          const y = days.find((d) => d.day === yesterday);
          body.yesterday_transactions = counter('yesterdayTxns', (y?.transactions ?? 0n).toString(), 'Yesterday txns', 'Number of transactions yesterday (0:00 - 23:59 UTC)');
        }
        const line = LINES.get('newTxns')!;
        const since = iso(today - (WINDOW_DAYS - 1) * DAY_MS);
        const chart = (await points(ctx, line, 'DAY')).filter((p) => p.date >= since);
        body.daily_new_transactions = {
          chart,
          info: { id: 'newTxnsWindow', title: 'Daily transactions', description: `Number of transactions per day over the last ${WINDOW_DAYS} days`, resolutions: ['DAY'] },
        };
        return { body, policy: 'volatile' };
      },
    },
    {
      pattern: '/pages/transactions',
      async handler({ ctx }) {
        const r = await recentCounters(ctx, coin);
        const body: Record<string, CounterJson> = {
          pending_transactions_30m: r.pendingTxns30m,
          transactions_fee_24h: r.txnsFee24h,
          transactions_24h: r.newTxns24h,
        };
        if (r.averageTxnFee24h) body.average_transactions_fee_24h = r.averageTxnFee24h;
        return { body, policy: 'volatile' };
      },
    },
  ];
}
