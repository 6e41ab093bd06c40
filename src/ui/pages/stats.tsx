// The stats page (/stats): the stats service's counters (/api/v1/counters) and the chain counters
// of /api/v2/stats as tiles, then one chart per line the service lists (/api/v1/lines), each from
// /api/v1/lines/{id} at the chosen resolution (DAY, WEEK, MONTH) over the chosen period (presets
// or from/to dates), drawn on the server and made interactive by the chart island. Values are
// the API's, exact where they are shown as text; a chart's points are numbers for drawing only.
import { Empty, Shortened, Tile } from '../components/common.js';
import { ENOUGH_DAYS, LineChart, type Point } from '../components/chart.js';
import { groupDigits, percent, readableDecimal, usd } from '../format.js';
import { CoinPrice } from '../components/prices.js';
import type { PageCtx, PageResult } from '../page.js';
import { apiGet, apiGetOptional } from './errors.js';

interface Counter {
  id: string;
  value: string;
  title: string;
  units?: string;
  description: string;
}

interface LineInfo {
  id: string;
  title: string;
  description: string;
  units?: string;
  resolutions: string[];
}

/** Whether a line of days is too short to read and the line is offered per hour: a young chain. */
const wantsHours = (info: LineInfo, chart: LinePoint[], resolution: string) => resolution === 'DAY' && chart.length < ENOUGH_DAYS && info.resolutions.includes('HOUR');

interface LinePoint {
  date: string;
  date_to: string;
  value: string;
  is_approximate: boolean;
}

const RESOLUTIONS = [
  { id: 'DAY', label: 'Day' },
  { id: 'WEEK', label: 'Week' },
  { id: 'MONTH', label: 'Month' },
] as const;

/** Periods offered as links: days back from today, or everything stored. */
const PRESETS = [
  { id: '30', label: '30 days', days: 30 },
  { id: '90', label: '90 days', days: 90 },
  { id: '365', label: '1 year', days: 365 },
  { id: 'all', label: 'All', days: null },
] as const;
const DEFAULT_PRESET = '90';

const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A decimal string with grouped digits, exactly as given ("1234.5" → "1,234.5"). */
export function decimalText(v: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(v);
  return m ? `${m[1]}${groupDigits(m[2])}${m[3] ?? ''}` : v;
}

/** `v` × 10^places as a decimal string, exactly (no floating point). */
export function shiftDecimal(v: string, places: number): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(v);
  if (!m) return v;
  const frac = (m[3] ?? '').padEnd(places, '0');
  const int = (m[2] + frac.slice(0, places)).replace(/^0+(?=\d)/, '');
  const rest = frac.slice(places).replace(/0+$/, '');
  return `${m[1]}${int}${rest ? `.${rest}` : ''}`;
}

// A counter with the digits that matter (an 18-decimal fee sum no longer wraps over three lines); the exact one in its title.
const counterValue = (c: Counter) => `${readableDecimal(c.value, 5)}${c.units ? ` ${c.units}` : ''}`;
const counterExact = (c: Counter) => `${decimalText(c.value)}${c.units ? ` ${c.units}` : ''}`;

/**
 * What the period choice asks the API: from/to dates, and which preset (if any) it is. A preset
 * counts back from `lastMs`, the day of the newest indexed block (not today: a chain still being
 * indexed would show an empty window).
 */
function period(ctx: PageCtx, lastMs: number): { from?: string; to?: string; preset: string | null } {
  const q = ctx.url.searchParams;
  const from = q.get('from') ?? undefined;
  const to = q.get('to') ?? undefined;
  if (from !== undefined || to !== undefined) return { from: from || undefined, to: to || undefined, preset: null };
  const id = q.get('period') ?? DEFAULT_PRESET;
  const p = PRESETS.find((x) => x.id === id) ?? PRESETS.find((x) => x.id === DEFAULT_PRESET)!;
  if (p.days === null) return { preset: p.id };
  return { from: isoDay(lastMs - (p.days - 1) * DAY_MS), to: isoDay(lastMs), preset: p.id };
}

function link(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `/stats?${s}` : '/stats';
}

/**
 * Chart points of a line: coin amounts below 0.001 are drawn in gwei (a number like 2.1e-5 would
 * read badly in the chart's table and tooltips); the shift is exact.
 */
function chartOf(info: LineInfo, chart: LinePoint[], coin: string): { points: Point[]; unit?: string } {
  const coinLine = info.units === coin;
  const small = coinLine && chart.length > 0 && chart.every((p) => Number(p.value) < 0.001);
  const unit = small ? 'gwei' : info.units;
  return { points: chart.map((p) => ({ x: p.date, y: Number(small ? shiftDecimal(p.value, 9) : p.value) })), unit };
}

export async function statsPage(ctx: PageCtx): Promise<PageResult> {
  const q = ctx.url.searchParams;
  const resolution = q.get('resolution') ?? 'DAY';
  const newest = await apiGetOptional<{ timestamp: string }[]>(ctx, '/api/v2/main-page/blocks');
  const newestMs = newest?.length ? Date.parse(newest[0].timestamp) : NaN;
  const p = period(ctx, Number.isFinite(newestMs) ? newestMs : ctx.now);
  const lineQuery = new URLSearchParams({ resolution });
  if (p.from) lineQuery.set('from', p.from);
  if (p.to) lineQuery.set('to', p.to);
  const [counters, stats, lines, market] = await Promise.all([
    apiGet<{ counters: Counter[] }>(ctx, '/api/v1/counters', 'Counters'),
    apiGet<Record<string, any>>(ctx, '/api/v2/stats', 'Chain statistics'),
    apiGet<{ sections: { id: string; title: string; charts: LineInfo[] }[] }>(ctx, '/api/v1/lines', 'Charts'),
    // The coin's daily closing prices (empty without a price source).
    apiGetOptional<{ chart_data: { date: string; closing_price: string | null }[] }>(ctx, '/api/v2/stats/charts/market'),
  ]);
  const prices = (market?.chart_data ?? []).filter((d) => d.closing_price !== null).map((d) => ({ x: d.date, y: Number(d.closing_price) })).reverse();
  const charts = await Promise.all(
    lines.sections.map(async (s) => ({
      ...s,
      charts: await Promise.all(
        s.charts.map(async (info) => {
          const chart = (await apiGet<{ chart: LinePoint[] }>(ctx, `/api/v1/lines/${encodeURIComponent(info.id)}?${lineQuery}`, info.title)).chart;
          const hours = wantsHours(info, chart, resolution) ? await apiGetOptional<{ chart: LinePoint[] }>(ctx, `/api/v1/lines/${encodeURIComponent(info.id)}?resolution=HOUR`) : null;
          return { info, chart, hourly: hours?.chart.length ? hours.chart : null };
        }),
      ),
    })),
  );
  const keep = { resolution: resolution === 'DAY' ? undefined : resolution };
  const periodKeep = p.preset !== null ? { period: p.preset === DEFAULT_PRESET ? undefined : p.preset } : { from: p.from, to: p.to };
  const span = p.from || p.to ? `${p.from ?? 'the first stored day'} to ${p.to ?? 'today'}` : 'all stored history';
  return {
    title: 'Statistics · Explorer',
    description: 'Counters and charts of this chain, computed from the indexed blocks.',
    section: 'stats',
    // The chart script only where a chart has a line to draw.
    islands:
      prices.length >= 2 || charts.some((s) => s.charts.some((c) => (c.hourly?.length ?? 0) >= 2 || (!c.hourly?.length && c.chart.length >= 2))) ? ['chart'] : [],
    body: (
      <>
        <h1>Statistics</h1>
        <section class="tiles" aria-label="Counters">
          {counters.counters.map((c) => (
            <div class="tile" title={c.description}>
              <div class="tile-label">{c.title}</div>
              <div class="tile-value" data-counter={c.id}>
                <Shortened shown={counterValue(c)} exact={counterExact(c)} />
              </div>
            </div>
          ))}
          {stats.coin_price ? <Tile label={`${ctx.coin} price`} value={<CoinPrice stats={stats} />} /> : null}
          {stats.coin_price && stats.market_cap ? <Tile label={`${ctx.coin} market cap`} value={<Shortened shown={usd(stats.market_cap, { compact: true })} exact={usd(stats.market_cap)} />} /> : null}
          <Tile label="Total gas used" value={groupDigits(String(stats.total_gas_used))} />
          <Tile label="Transactions today (UTC)" value={groupDigits(String(stats.transactions_today))} />
          <Tile label="Gas used today (UTC)" value={groupDigits(String(stats.gas_used_today))} />
          {stats.network_utilization_percentage === null ? null : (
            <Tile label="Network utilization (last 100 blocks)" value={percent(stats.network_utilization_percentage, 2)} />
          )}
        </section>
        {prices.length ? (
          <section class="card" aria-labelledby="coin-price">
            <h2 id="coin-price">{ctx.coin} price (USD)</h2>
            <p class="muted stats-desc">The daily closing price over the last 30 days, from the explorer's own record of its price source.</p>
            <LineChart points={prices} label={`${ctx.coin} price`} unit="USD" />
          </section>
        ) : null}
        <section class="card stats-controls" aria-label="Chart settings">
          <nav class="filters" aria-label="Resolution">
            <span class="muted">Resolution</span>
            {RESOLUTIONS.map((r) => (
              <a href={link({ ...periodKeep, resolution: r.id === 'DAY' ? undefined : r.id })} aria-current={r.id === resolution ? 'true' : undefined}>
                {r.label}
              </a>
            ))}
          </nav>
          <nav class="filters" aria-label="Period">
            <span class="muted">Period</span>
            {PRESETS.map((x) => (
              <a href={link({ ...keep, period: x.id === DEFAULT_PRESET ? undefined : x.id })} aria-current={x.id === p.preset ? 'true' : undefined}>
                {x.label}
              </a>
            ))}
          </nav>
          <form class="stats-period" action="/stats" method="get" aria-label="Custom period">
            {keep.resolution ? <input type="hidden" name="resolution" value={keep.resolution} /> : null}
            <label>
              <span>From</span> <input type="date" name="from" value={p.from ?? ''} />
            </label>
            <label>
              <span>To</span> <input type="date" name="to" value={p.to ?? ''} />
            </label>
            <button type="submit">Show</button>
          </form>
          <p class="muted stats-span">
            Per {resolution.toLowerCase()}, {span} (UTC).
          </p>
        </section>
        {charts.map((s) => (
          <section aria-labelledby={`stats-${s.id}`}>
            <h2 id={`stats-${s.id}`}>{s.title}</h2>
            {s.charts.length ? (
              <div class="stats-charts">
                {s.charts.map(({ info, chart, hourly }) => {
                  const c = chartOf(info, chart, ctx.coin);
                  const last = chart[chart.length - 1];
                  // The newest period is not over (or derived counts are catching up): it may still change.
                  const approximate = chart.some((x) => x.is_approximate);
                  const unit = resolution === 'WEEK' ? 'week' : resolution === 'MONTH' ? 'month' : 'day';
                  return (
                    <article class="card stats-chart" data-line={info.id}>
                      <h3>{info.title}</h3>
                      <p class="muted stats-desc">{info.description}</p>
                      {hourly?.length ? (
                        <>
                          <p class="muted stats-hourly">The chain is younger than {ENOUGH_DAYS} days: per hour over the last 48 hours (UTC).</p>
                          <LineChart {...chartOf(info, hourly, ctx.coin)} label={info.title} />
                        </>
                      ) : chart.length === 1 ? (
                        <p class="empty">One {unit} of data in this period so far: a line needs two.</p>
                      ) : (
                        <LineChart points={c.points} label={info.title} unit={c.unit} />
                      )}
                      {last ? (
                        <p class="stats-last">
                          Latest: <strong data-latest={info.id}>{decimalText(last.value)}</strong>
                          {info.units ? ` ${info.units}` : ''} <span class="muted">({last.date === last.date_to ? last.date : `${last.date} to ${last.date_to}`}{last.is_approximate ? ', so far' : ''})</span>
                        </p>
                      ) : null}
                      {approximate && !(last?.is_approximate && chart.slice(0, -1).every((x) => !x.is_approximate)) ? (
                        <p class="muted stats-note">Some values may still change: derived counts are still catching up with the indexed blocks.</p>
                      ) : null}
                    </article>
                  );
                })}
              </div>
            ) : (
              <Empty>No charts in this section.</Empty>
            )}
          </section>
        ))}
      </>
    ),
  };
}
