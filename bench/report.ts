// Benchmark targets and the one report `make bench` writes: each figure beside its ceiling or
// target from the same run, the ratio and MET / NOT MET, rendered as markdown and JSON. Pure
// (no I/O but writeReport), so the verdicts and the report's shape are unit-tested. Also the
// median the benchmarks take of repeated passes and pairs.

import fs from 'node:fs';
import path from 'node:path';
import type { MachineInfo } from './sysinfo.js';

/** The middle element by `by` (of an even count, the upper of the two middle ones). */
export const medianBy = <T>(xs: readonly T[], by: (x: T) => number): T => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]!;
export const median = (xs: readonly number[]): number => medianBy(xs, (x) => x);

/**
 * Each figure of a series but the first and last, over the mean of the two beside it: how far a
 * window moves against its neighbours with nothing changed (the noise a "within 20% of the
 * windows around it" bound is measured against).
 */
export const againstNeighbours = (xs: readonly number[]): number[] => xs.slice(1, -1).map((x, i) => x / ((xs[i]! + xs[i + 2]!) / 2));

/** Issues #21's and #30's figures, in one place so the benchmarks and the report cannot disagree. */
export const TARGETS = {
  /** Ingest txs/s over the pipeline bound of its own parts measured in the same run. */
  ingestOverBound: 0.85,
  /** Ingest txs/s with traces. */
  ingestTxsPerS: 20_000,
  /** Bytes of compressed active parts per transaction, all ClickHouse tables, after merges (1.5 KB). */
  storageBytesPerTx: 1_500,
  /** Bytes per transaction of both stores: ClickHouse as above plus PostgreSQL's point tables with their indexes (issue #30, 2.0 KB). */
  storageBothBytesPerTx: 2_000,
  /** Larger runs' txs/s over the smallest run's: "keeps its rate" as it grows. */
  growthKeeps: 0.9,
  /** Uncached reads, at this many connections, on this many transactions (issue #30: the same within 10% on 5,000,000). */
  uncachedConnections: 8,
  uncachedTxs: 1_000_000,
  /** Issue #30's uncached reads: at least `rps` req/s with p99 below `p99Ms`, each at uncachedConnections. */
  uncachedReads: {
    transaction: { rps: 2_000, p99Ms: 20 },
    block: { rps: 2_000, p99Ms: 20 },
    address: { rps: 2_000, p99Ms: 20 },
    addressPage: { rps: 1_000, p99Ms: 30 },
    deepPage: { rps: 500, p99Ms: 50 },
  },
  /** /search/quick p99 at every uncached concurrency (issue #30's at 8 connections). */
  searchP99Ms: 20,
} as const;

export type Verdict = 'MET' | 'NOT MET' | 'NOT MEASURED';

/** One figure against its bound: `atLeast` (figure >= bound) or `below` (figure < bound) or `atMost`. */
export interface Target {
  /** Which benchmark: ingest, storage, api, ui, socket. */
  area: string;
  name: string;
  unit: string;
  value: number | null;
  bound: number | null;
  kind: 'atLeast' | 'atMost' | 'below';
  /** What the bound is: "target" (a fixed figure) or a ceiling measured in the same run. */
  boundIs: string;
  /** Why the verdict may not be the issue's (smaller data, no breakdown, another machine...). */
  note?: string;
}

export interface Evaluated extends Target {
  ratio: number | null;
  verdict: Verdict;
}

export function evaluate(t: Target): Evaluated {
  const ok = (x: number | null): x is number => x !== null && Number.isFinite(x);
  if (!ok(t.value) || !ok(t.bound)) return { ...t, ratio: null, verdict: 'NOT MEASURED' };
  const ratio = t.bound === 0 ? null : t.value / t.bound;
  const met = t.kind === 'atLeast' ? t.value >= t.bound : t.kind === 'atMost' ? t.value <= t.bound : t.value < t.bound;
  return { ...t, ratio, verdict: met ? 'MET' : 'NOT MET' };
}

/** The rate stages sharing the same cores can reach together: each tx costs every one of them. */
export function pipelineBound(...stagesTxsPerS: number[]): number {
  if (!stagesTxsPerS.length || !stagesTxsPerS.every((x) => x > 0)) return NaN;
  return 1 / stagesTxsPerS.reduce((a, x) => a + 1 / x, 0);
}

const sym = { atLeast: '>=', atMost: '<=', below: '<' } as const;

export const num = (n: number | null, digits?: number): string => {
  if (n === null || !Number.isFinite(n)) return 'n/a';
  const d = digits ?? (Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2);
  return n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
};

/** One line for a benchmark's own output: `name: value unit (>= bound boundIs; ratio r): MET`. */
export function targetLine(e: Evaluated): string {
  const unit = e.unit ? ` ${e.unit}` : '';
  return (
    `target ${e.area}: ${e.name}: ${num(e.value)}${unit} ${sym[e.kind]} ${num(e.bound)}${unit} (${e.boundIs}` +
    `${e.ratio === null ? '' : `; ratio ${num(e.ratio, 2)}`}): ${e.verdict}${e.note ? ` [${e.note}]` : ''}`
  );
}

/** What one benchmark step of `make bench` gave. */
export interface StepResult {
  name: string;
  command: string;
  exitCode: number | null;
  seconds: number;
  log: string;
  targets: Evaluated[];
  /** Figures kept as information only (a step whose targets belong to another step). */
  info?: string;
  /** The step's own `json:` line, parsed, when it printed one. */
  json?: unknown;
}

export interface Report {
  date: string;
  machine: MachineInfo;
  loadBefore: string;
  loadAfter: string;
  settings: Record<string, string>;
  steps: StepResult[];
}

export function summary(r: Report): Record<Verdict, number> {
  const s: Record<Verdict, number> = { MET: 0, 'NOT MET': 0, 'NOT MEASURED': 0 };
  for (const st of r.steps) for (const t of st.targets) s[t.verdict]++;
  return s;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderMarkdown(r: Report): string {
  const m = r.machine;
  const s = summary(r);
  const lines = [
    `# Benchmark report ${r.date}`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB RAM, ${m.os}, node ${m.node}. Load average before ${r.loadBefore}, after ${r.loadAfter}.`,
    'Figures depend on what else the machine ran at the time: compare runs from a quiet machine only.',
    '',
    `Targets: ${s.MET} met, ${s['NOT MET']} not met, ${s['NOT MEASURED']} not measured.`,
  ];
  const settings = Object.entries(r.settings);
  if (settings.length) lines.push('', `Settings: ${settings.map(([k, v]) => `${k}=${v}`).join(', ')}`);
  lines.push('', '## Steps', '', '| step | command | exit code | seconds | log | information |', '|---|---|---|---|---|---|');
  for (const st of r.steps) lines.push(`| ${cell(st.name)} | \`${cell(st.command)}\` | ${st.exitCode ?? 'killed'} | ${num(st.seconds, 1)} | ${cell(st.log)} | ${cell(st.info ?? '')} |`);
  lines.push('', '## Figures and targets', '', '| step | figure | value | bound | bound is | ratio | verdict | note |', '|---|---|---|---|---|---|---|---|');
  for (const st of r.steps) {
    for (const t of st.targets) {
      const unit = t.unit ? ` ${t.unit}` : '';
      lines.push(
        `| ${cell(st.name)} | ${cell(t.name)} | ${num(t.value)}${unit} | ${sym[t.kind]} ${num(t.bound)}${unit} | ${cell(t.boundIs)} | ${num(t.ratio, 2)} | ${t.verdict} | ${cell(t.note ?? '')} |`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

/** Writes report-<stamp>.md/.json and report.md/.json (the latest) into `dir`; returns the paths. */
export function writeReport(dir: string, r: Report): { md: string; json: string } {
  fs.mkdirSync(dir, { recursive: true });
  const stamp = r.date.replace(/[:.]/g, '-');
  const md = renderMarkdown(r);
  const json = JSON.stringify(r, null, 2) + '\n';
  const paths = { md: path.join(dir, `report-${stamp}.md`), json: path.join(dir, `report-${stamp}.json`) };
  fs.writeFileSync(paths.md, md);
  fs.writeFileSync(paths.json, json);
  fs.writeFileSync(path.join(dir, 'report.md'), md);
  fs.writeFileSync(path.join(dir, 'report.json'), json);
  return paths;
}

/** The evaluated targets a benchmark printed in its `json:` line (`targets`), if any. */
export function parseBenchOutput(stdout: string): { json?: unknown; targets: Evaluated[] } {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('json: '));
  if (!line) return { targets: [] };
  let json: unknown;
  try {
    json = JSON.parse(line.slice('json: '.length));
  } catch {
    return { targets: [] };
  }
  const raw = (json as { targets?: unknown }).targets;
  const targets = Array.isArray(raw) ? raw.filter((x): x is Target => !!x && typeof x === 'object' && 'name' in x && 'kind' in x).map((x) => evaluate(x)) : [];
  return { json, targets };
}

/**
 * A node URL as it may be printed and kept in a report: scheme, host and port only, since
 * providers put API keys in the path, the query or the user info.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const hidden = u.pathname.length > 1 || u.search || u.username || u.password;
    return `${u.protocol}//${u.host}${hidden ? '/…' : ''}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** One ingest run as its targets need it (blocks indexed, rates, storage). */
export interface IngestRun {
  blocks: number;
  txsPerS: number;
  /** Pipeline bound of the run's parts (NaN when they were not measured). */
  boundTxsPerS: number;
  storageBytesPerTx: number;
}

/** The targets of issue #21 for the runs of one invocation (pure: unit-tested). */
export function ingestTargets(runs: IngestRun[], opts: { synthetic: boolean; breakdown: boolean; variant: string }): Target[] {
  const out: Target[] = [];
  const sized = runs.length > 1;
  const at = (r: { blocks: number }) => (sized ? ` (${num(r.blocks, 0)} blocks)` : '');
  for (const r of runs) {
    out.push({
      area: 'ingest',
      name: `ingest txs/s over the pipeline bound of its parts${at(r)}`,
      unit: 'txs/s',
      value: r.txsPerS,
      bound: TARGETS.ingestOverBound * r.boundTxsPerS,
      kind: 'atLeast',
      boundIs: `${TARGETS.ingestOverBound} x 1/(1/pool + 1/inserts + 1/point inserts) measured in the same run`,
      note: opts.breakdown ? undefined : 'BENCH_BREAKDOWN=0: the parts were not measured',
    });
    out.push({
      area: 'ingest',
      name: `ingest txs/s with traces${at(r)}`,
      unit: 'txs/s',
      value: r.txsPerS,
      bound: TARGETS.ingestTxsPerS,
      kind: 'atLeast',
      boundIs: 'target',
      note: opts.synthetic ? `synthetic chain, ${opts.variant} traces` : "the operator's node and range",
    });
  }
  const last = runs[runs.length - 1];
  if (last) {
    out.push({
      area: 'storage',
      name: `compressed bytes per transaction after merges, all tables${at(last)}`,
      unit: 'B/tx',
      value: last.storageBytesPerTx,
      bound: TARGETS.storageBytesPerTx,
      kind: 'atMost',
      boundIs: 'target (1.5 KB)',
      note: opts.synthetic ? undefined : "the operator's chain, not the benchmark chain the target is set on",
    });
  }
  if (sized) {
    const first = runs[0]!;
    for (const r of runs.slice(1)) {
      out.push({
        area: 'ingest',
        name: `growth: txs/s at ${num(r.blocks, 0)} blocks keeps the rate at ${num(first.blocks, 0)}`,
        unit: 'txs/s',
        value: r.txsPerS,
        bound: TARGETS.growthKeeps * first.txsPerS,
        kind: 'atLeast',
        boundIs: `${TARGETS.growthKeeps} x txs/s at ${num(first.blocks, 0)} blocks, same invocation`,
      });
    }
  }
  return out;
}

