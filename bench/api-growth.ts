// Issue #30's "the same at 5,000,000 transactions within 10%": each `make bench-api` run keeps its
// idle figures (step 4, at the target concurrency) in a file, and a run on 1,000,000 or 5,000,000
// transactions holds the figures of the larger chain against the smaller one's, the other run's
// read back from its file. Pure but for that file, so the verdicts are unit-tested
// (test/bench-api-growth.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { MachineInfo } from './sysinfo.js';
import type { Target } from './report.js';

/** One run's idle figures as kept for a later run on a larger chain. */
export interface IdleRecord {
  date: string;
  machine: MachineInfo;
  txs: number;
  connections: number;
  /** Each scenario the targets name (`reads` key, or 'search'): its rate and p99. */
  figures: { key: string; name: string; rps: number; p99ms: number }[];
}

/** Rates may fall to this share, and p99s grow to this multiple, of the smaller chain's. */
export const GROWTH_RATE_AT_LEAST = 0.9;
export const GROWTH_P99_AT_MOST = 1.1;

export const recordPath = (dir: string, txs: number): string => path.join(dir, `api-idle-${txs}.json`);

export function saveIdleRecord(dir: string, r: IdleRecord): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = recordPath(dir, r.txs);
  fs.writeFileSync(file, JSON.stringify(r, null, 2) + '\n');
  return file;
}

/** The record of a run on `txs` transactions, or why there is none to use. */
export function loadIdleRecord(dir: string, txs: number): IdleRecord | string {
  const file = recordPath(dir, txs);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return `no run on ${txs.toLocaleString('en-US')} txs recorded in ${file} (make bench-api-growth runs both sizes)`;
  }
  try {
    const r = JSON.parse(text) as IdleRecord;
    if (r.txs !== txs || !Array.isArray(r.figures) || !r.machine) throw new Error('not a record');
    return r;
  } catch {
    return `${file} is not a run's record`;
  }
}

/**
 * The larger chain's figures against the smaller one's, whichever of the two runs is this one (the
 * other's record read back): a rate target (at least 0.9 of the smaller chain's) and a p99 target
 * (at most 1.1 of it) for each figure. A record missing, from another machine or at another
 * concurrency leaves them NOT MEASURED with the reason.
 */
export function growthTargets(small: IdleRecord | string, large: IdleRecord | string, sizes: { small: number; large: number }): Target[] {
  const of = (n: number) => n.toLocaleString('en-US');
  const shown = typeof large === 'string' ? small : large;
  if (typeof shown === 'string') return [];
  const why =
    typeof small === 'string'
      ? small
      : typeof large === 'string'
        ? large
        : small.machine.cpu !== large.machine.cpu || small.machine.cores !== large.machine.cores
          ? `the runs were on different machines (${small.machine.cpu}, ${small.machine.cores} cores; ${large.machine.cpu}, ${large.machine.cores} cores)`
          : small.connections !== large.connections
            ? `the ${of(sizes.small)}-tx run was at ${small.connections} connections, the ${of(sizes.large)}-tx run at ${large.connections}`
            : undefined;
  // Both records, once nothing stands in the way of comparing them.
  const both = why === undefined ? { small: small as IdleRecord, large: large as IdleRecord } : undefined;
  const out: Target[] = [];
  for (const f of shown.figures) {
    const s = both?.small.figures.find((x) => x.key === f.key);
    const l = both?.large.figures.find((x) => x.key === f.key);
    const pair = both && s && l ? { s, l, when: `; runs of ${both.small.date} and ${both.large.date}` } : undefined;
    const note = why ?? (pair ? undefined : `one run has no ${f.name} figure`);
    const at = `on ${of(sizes.large)} txs over ${of(sizes.small)} at ${shown.connections} connections`;
    // /search/quick's target is its p99 alone; the reads' are a rate and a p99.
    if (f.key !== 'search') {
      out.push({
        area: 'api',
        name: `${f.name}: req/s ${at}`,
        unit: '',
        value: pair ? pair.l.rps / pair.s.rps : null,
        bound: GROWTH_RATE_AT_LEAST,
        kind: 'atLeast',
        boundIs: `within 10%${pair ? ` (${of(Math.round(pair.l.rps))} against ${of(Math.round(pair.s.rps))} req/s${pair.when})` : ''}`,
        note,
      });
    }
    out.push({
      area: 'api',
      name: `${f.name}: p99 ${at}`,
      unit: '',
      value: pair ? pair.l.p99ms / pair.s.p99ms : null,
      bound: GROWTH_P99_AT_MOST,
      kind: 'atMost',
      boundIs: `within 10%${pair ? ` (${pair.l.p99ms.toFixed(1)} against ${pair.s.p99ms.toFixed(1)} ms${pair.when})` : ''}`,
      note,
    });
  }
  return out;
}
