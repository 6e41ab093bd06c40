// Per-day figures of the stored chain behind every chart (/api/v2/stats/charts/transactions and
// the stats service's /api/v1 lines and pages), and their grouping into weeks, months and years;
// per-hour figures of the last hours for a chain too young for a line of days.
//
// A day's figures come from its stored blocks (transactions, gas, fees: ClickHouse `blocks`) and
// from the addresses the accounting lane first saw in its block range (PostgreSQL `addresses`).
// A day is complete once a later day has a stored block (the store is contiguous); complete days
// are kept in memory per API context and only the days after them are read again, so a chart
// costs one small range read once the history is known. The kept days are checked against the
// store on each use (the hash of the newest kept day's last block): a reorg below them, which
// replaces that block, drops them all. A day's new-address count is final once the accounting
// lane has passed its last block; until then it is recounted on every use and shown approximate.
import type { ApiContext } from '../context.js';
import { blockHashAt, blocksWindow, dailyBlockStats, hourlyBlockStats, type DayRead } from '../../storage/clickhouse/reads/daily.js';
import { accountingCursor, addressesFirstSeen } from '../../storage/postgres/reads/counts.js';

export interface Day {
  /** YYYY-MM-DD (UTC). */
  day: string;
  blocks: number;
  transactions: bigint;
  gasUsed: bigint;
  /** Fees paid by the day's transactions, wei. */
  fees: bigint;
  firstNumber: bigint;
  lastNumber: bigint;
  lastHash: string;
  /** Unix seconds of the day's first and last block. */
  firstTs: number;
  lastTs: number;
  newAddresses: number;
  /** The accounting lane has passed the day's last block and the day is complete. */
  addressesFinal: boolean;
  /** A later day has stored blocks: nothing more will be added to this one. */
  complete: boolean;
}

interface Memo {
  /** Complete days, oldest first. */
  days: Day[];
}

const memos = new WeakMap<ApiContext, Memo>();
const inflight = new WeakMap<ApiContext, Promise<Day[]>>();

function toDay(r: DayRead, complete: boolean): Day {
  return {
    day: r.day,
    blocks: Number(r.blocks),
    transactions: BigInt(r.transactions),
    gasUsed: BigInt(r.gas_used),
    fees: BigInt(r.fees),
    firstNumber: BigInt(r.first_number),
    lastNumber: BigInt(r.last_number),
    lastHash: r.last_hash,
    firstTs: Number(r.first_ts),
    lastTs: Number(r.last_ts),
    newAddresses: 0,
    addressesFinal: false,
    complete,
  };
}

async function load(ctx: ApiContext): Promise<Day[]> {
  let memo = memos.get(ctx) ?? { days: [] };
  const kept = memo.days[memo.days.length - 1];
  if (kept && (await blockHashAt(ctx.ch, kept.lastNumber)) !== kept.lastHash) memo = { days: [] };
  const newest = memo.days[memo.days.length - 1];
  const [rows, cursor] = await Promise.all([dailyBlockStats(ctx.ch, newest ? newest.lastNumber + 1n : 0n), accountingCursor(ctx.pg)]);
  // Read from the block after the newest kept day: every row is a day not kept yet.
  const fresh = rows.map((r, i) => toDay(r, i < rows.length - 1));
  const recount = [...memo.days.filter((d) => !d.addressesFinal), ...fresh];
  const counts = await addressesFirstSeen(ctx.pg, recount.map((d) => ({ lo: d.firstNumber, hi: d.lastNumber })));
  recount.forEach((d, i) => {
    d.newAddresses = counts[i];
    d.addressesFinal = d.complete && cursor !== null && cursor >= d.lastNumber;
  });
  memo.days.push(...fresh.filter((d) => d.complete));
  memos.set(ctx, memo);
  return [...memo.days, ...fresh.filter((d) => !d.complete)];
}

/** Every stored day, oldest first (days without blocks are absent). One load at a time per context. */
export function dailySeries(ctx: ApiContext): Promise<Day[]> {
  const running = inflight.get(ctx);
  if (running) return running;
  const p = load(ctx).finally(() => inflight.delete(ctx));
  inflight.set(ctx, p);
  return p;
}

// ---- periods ----

export type Resolution = 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';

/** A period's figures: sums over its days (zero for days without blocks). */
export interface Period {
  /** First and last date of the period, YYYY-MM-DD. */
  date: string;
  dateTo: string;
  blocks: number;
  transactions: bigint;
  gasUsed: bigint;
  fees: bigint;
  newAddresses: number;
  /** Seconds from the last block before the period (or its own first block) to its last block. */
  span: number | null;
  /** Block intervals ending in the period that `span` covers. */
  intervals: number;
  /** Figures that may still change: the newest stored day, or new addresses not final yet. */
  approximate: boolean;
  addressesApproximate: boolean;
}

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const parse = (d: string) => Date.parse(`${d}T00:00:00Z`);

/** The period of `resolution` holding the date (ms at UTC midnight): its first and last date. */
export function periodOf(ms: number, resolution: Resolution): { start: number; end: number } {
  const d = new Date(ms);
  switch (resolution) {
    case 'DAY':
      return { start: ms, end: ms };
    case 'WEEK': {
      // ISO weeks: Monday to Sunday.
      const start = ms - ((d.getUTCDay() + 6) % 7) * DAY_MS;
      return { start, end: start + 6 * DAY_MS };
    }
    case 'MONTH':
      return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0) };
    case 'YEAR':
      return { start: Date.UTC(d.getUTCFullYear(), 0, 1), end: Date.UTC(d.getUTCFullYear(), 11, 31) };
  }
}

/**
 * The days grouped into periods, from the first stored day's period to the last one's, every
 * period present (a stretch without blocks has zero transactions, which is true of it).
 */
export function periods(days: readonly Day[], resolution: Resolution): Period[] {
  if (!days.length) return [];
  const out: Period[] = [];
  const byStart = new Map<number, Period>();
  const first = periodOf(parse(days[0].day), resolution);
  const last = periodOf(parse(days[days.length - 1].day), resolution);
  for (let s = first.start; s <= last.start; ) {
    const p = periodOf(s, resolution);
    const period: Period = {
      date: iso(p.start),
      dateTo: iso(p.end),
      blocks: 0,
      transactions: 0n,
      gasUsed: 0n,
      fees: 0n,
      newAddresses: 0,
      span: null,
      intervals: 0,
      approximate: false,
      addressesApproximate: false,
    };
    out.push(period);
    byStart.set(p.start, period);
    s = p.end + DAY_MS;
  }
  let prevTs: number | null = null;
  for (const d of days) {
    const p = byStart.get(periodOf(parse(d.day), resolution).start)!;
    p.blocks += d.blocks;
    p.transactions += d.transactions;
    p.gasUsed += d.gasUsed;
    p.fees += d.fees;
    p.newAddresses += d.newAddresses;
    if (!d.complete) p.approximate = true;
    if (!d.addressesFinal) p.addressesApproximate = true;
    // Block intervals ending in this day: from the previous day's last block, or between its own.
    const from = prevTs ?? d.firstTs;
    const n = prevTs === null ? d.blocks - 1 : d.blocks;
    if (n > 0) {
      p.span = (p.span ?? 0) + (d.lastTs - from);
      p.intervals += n;
    }
    prevTs = d.lastTs;
  }
  return out;
}

// ---- hours (a young chain) ----

const HOUR_MS = 3_600_000;
const isoHour = (ms: number) => new Date(ms).toISOString().slice(0, 13);

/**
 * The hours from the first stored block at or after `sinceMs` to the newest one, every hour
 * present (zero without blocks), dated "YYYY-MM-DDTHH:00:00Z" to "…:59:59Z"; the newest hour is
 * approximate (not over). New addresses are not counted per hour (0, and approximate).
 */
export async function hourlyPeriods(ctx: ApiContext, sinceMs: number): Promise<Period[]> {
  const w = await blocksWindow(ctx.ch, sinceMs / 1000);
  if (w.firstNumber === null) return [];
  const rows = await hourlyBlockStats(ctx.ch, BigInt(w.firstNumber));
  if (!rows.length) return [];
  const byHour = new Map(rows.map((r) => [Number(r.hour) * 1000, r]));
  const out: Period[] = [];
  const last = Number(rows[rows.length - 1].hour) * 1000;
  let prevTs: number | null = null;
  for (let h = Number(rows[0].hour) * 1000; h <= last; h += HOUR_MS) {
    const r = byHour.get(h);
    const p: Period = {
      date: `${isoHour(h)}:00:00Z`,
      dateTo: `${isoHour(h)}:59:59Z`,
      blocks: r ? Number(r.blocks) : 0,
      transactions: r ? BigInt(r.transactions) : 0n,
      gasUsed: r ? BigInt(r.gas_used) : 0n,
      fees: r ? BigInt(r.fees) : 0n,
      newAddresses: 0,
      span: null,
      intervals: 0,
      approximate: h === last,
      addressesApproximate: true,
    };
    if (r) {
      const from = prevTs ?? Number(r.first_ts);
      const n = prevTs === null ? p.blocks - 1 : p.blocks;
      if (n > 0) {
        p.span = Number(r.last_ts) - from;
        p.intervals = n;
      }
      prevTs = Number(r.last_ts);
    }
    out.push(p);
  }
  return out;
}
