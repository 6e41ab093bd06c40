// A line chart drawn on the server as SVG (readable without JavaScript), with its numbers in a
// table for screen readers; the chart island turns it into an interactive uPlot chart from the
// same data (data-series). A chain too young for a line of days is drawn per hour (the stats
// service's resolution=HOUR, our addition) until it has ENOUGH_DAYS.
import { groupDigits } from '../format.js';
import type { PageCtx } from '../page.js';

/** Days a line of days needs before it replaces the hours. */
export const ENOUGH_DAYS = 3;

/** A line's points per hour over the API's last 48 hours, oldest first; null when the API has none. */
export async function hourlyLine(ctx: PageCtx, id: string): Promise<Point[] | null> {
  const r = await ctx.api.get<{ chart?: { date: string; value: string }[] }>(`/api/v1/lines/${encodeURIComponent(id)}?resolution=HOUR`);
  if (r.status !== 200 || !r.body?.chart?.length) return null;
  return r.body.chart.map((p) => ({ x: p.date, y: Number(p.value) }));
}

/** An axis end as read: a day as is, an hour as "YYYY-MM-DD HH:00 UTC". */
export function xLabel(x: string): string {
  return x.length > 10 ? `${x.slice(0, 16).replace('T', ' ')} UTC` : x;
}

export interface Point {
  /** A day (YYYY-MM-DD) or an ISO time. */
  x: string;
  y: number;
}

/** The largest value for the caption: digits grouped, a fraction cut to 6 places. */
function maxLabel(v: number): string {
  const [int, frac] = String(v).split('.');
  return groupDigits(int) + (frac ? `.${frac.slice(0, 6)}` : '');
}

const W = 640;
const H = 180;
const PAD = { l: 4, r: 4, t: 8, b: 4 };

export function LineChart({ points, label, unit }: { points: Point[]; label: string; unit?: string }) {
  if (!points.length) return <p class="empty">No data for {label.toLowerCase()} yet.</p>;
  const ys = points.map((p) => p.y);
  const max = Math.max(...ys, 0);
  const min = Math.min(...ys, 0);
  const span = max - min || 1;
  const x = (i: number) => PAD.l + (points.length === 1 ? (W - PAD.l - PAD.r) / 2 : (i * (W - PAD.l - PAD.r)) / (points.length - 1));
  const y = (v: number) => PAD.t + (H - PAD.t - PAD.b) * (1 - (v - min) / span);
  const line = points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p.y).toFixed(1)}`).join('');
  const area = `${line}L${x(points.length - 1).toFixed(1)} ${y(min).toFixed(1)}L${x(0).toFixed(1)} ${y(min).toFixed(1)}Z`;
  const series = JSON.stringify({ label, unit: unit ?? '', x: points.map((p) => p.x), y: ys });
  return (
    <figure class="chart" data-series={series}>
      <figcaption>
        {label}
        <span class="muted">
          {' '}
          max {maxLabel(max)}
          {unit ? ` ${unit}` : ''}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${label}: ${points.length} points from ${xLabel(points[0].x)} to ${xLabel(points[points.length - 1].x)}`} preserveAspectRatio="none">
        <path d={area} class="chart-area" />
        <path d={line} class="chart-line" />
      </svg>
      {/* The ends of the axis in HTML: text inside the stretched SVG would be stretched too. */}
      <div class="chart-ends">
        <span>{xLabel(points[0].x)}</span>
        <span>{xLabel(points[points.length - 1].x)}</span>
      </div>
      {/* In a hidden box, not a hidden table: a table does not clip its cells, which stuck out of a phone's screen. */}
      <div class="sr-only">
        <table class="chart-data">
          <caption>{label}</caption>
          <tbody>
            {points.map((p) => (
              <tr>
                <th scope="row">{xLabel(p.x)}</th>
                <td>{p.y}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
