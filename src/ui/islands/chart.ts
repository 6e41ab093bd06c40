// Charts: each server-drawn chart (figure.chart with data-series) becomes an interactive uPlot
// chart (values under the pointer) from the same numbers; the SVG stays when this does not run.
import uPlot from 'uplot';

interface Series {
  label: string;
  unit: string;
  x: string[];
  y: number[];
}

function draw(fig: HTMLElement): void {
  const s = JSON.parse(fig.dataset.series ?? 'null') as Series | null;
  if (!s || !s.x.length) return;
  const xs = s.x.map((d) => Date.parse(d.length === 10 ? `${d}T00:00:00Z` : d) / 1000);
  const style = getComputedStyle(document.documentElement);
  const color = style.getPropertyValue('--chart').trim() || '#2f4fd0';
  const fill = style.getPropertyValue('--chart-fill').trim() || 'rgba(47,79,208,0.12)';
  const text = style.getPropertyValue('--muted').trim() || '#5a6478';
  const grid = style.getPropertyValue('--border').trim() || '#dde2ec';
  const svg = fig.querySelector('svg');
  const box = document.createElement('div');
  fig.insertBefore(box, svg);
  const width = () => Math.max(200, fig.clientWidth);
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  // The value axis as wide as its longest label (a fixed width cut "6,000,000" to "000,000").
  const valueAxisSize = (u: uPlot, values: string[] | null, i: number, cycle: number): number => {
    const a = u.axes[i] as uPlot.Axis & { _size?: number };
    if (cycle > 1 && a._size) return a._size;
    const longest = (values ?? []).reduce((x, v) => (v.length > x.length ? v : x), '');
    u.ctx.font = (a.font as unknown as string[] | undefined)?.[0] ?? '12px system-ui';
    return Math.ceil((a.ticks?.size ?? 10) + (a.gap ?? 5) + u.ctx.measureText(longest).width / devicePixelRatio) + 2;
  };
  const plot = new uPlot(
    {
      width: width(),
      height: 200,
      series: [{}, { label: s.label, stroke: color, fill, width: 2, value: (_u, v) => (v === null ? '—' : `${v.toLocaleString('en-US')}${s.unit ? ` ${s.unit}` : ''}`) }],
      axes: [axis, { ...axis, size: valueAxisSize }],
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
    },
    [xs, s.y],
    box,
  );
  if (svg) svg.remove();
  fig.querySelector('.chart-ends')?.remove();
  new ResizeObserver(() => plot.setSize({ width: width(), height: 200 })).observe(fig);
}

for (const fig of document.querySelectorAll<HTMLElement>('figure.chart[data-series]')) draw(fig);
