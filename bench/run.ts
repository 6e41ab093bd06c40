// `make bench`: every benchmark in turn (ingest with ClickHouse's storage, ingest beside the
// derived lanes, both stores' storage with the point rows, watchlist matching, API, websocket
// fan-out, web UI), each in its own process with its output
// shown as it runs and kept in a log, then ONE report (bench/report.ts) in bench-output/: the
// machine, each figure beside its ceiling or target from the same run, the ratio, MET / NOT MET.
// Targets not met are results, not failures: the exit code is 1 only when a step fails.
//
// Environment: BENCH_STEPS (a comma list of step names to run, default all but ingest-multi,
// the multi-process ingest of issue #22, which needs a PostgreSQL server and runs only when
// named), BENCH_OUTPUT (bench-output). BENCH_RPC_URL with BENCH_FROM/BENCH_TO makes the ingest step index the
// operator's node over that range (bench/ingest.ts) and skips the derived-lanes step, which
// would index it twice. Every other BENCH_* variable reaches the steps unchanged.

import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadavg, machineInfo } from './sysinfo.js';
import { num, parseBenchOutput, redactUrl, renderMarkdown, summary, writeReport, type Report, type StepResult } from './report.js';
import { runIfMain } from './run-main.js';

interface Step {
  name: string;
  script: string;
  env?: Record<string, string>;
  /**
   * The step's targets are another step's measured under other conditions (the ingest with the
   * derived lanes beside it): its figures go to the report as information, not as targets.
   */
  infoOnly?: boolean;
  /** Run only when BENCH_STEPS names it (it needs more than the others: a PostgreSQL server). */
  optIn?: boolean;
}

const here = path.dirname(fileURLToPath(import.meta.url));

export function steps(env: NodeJS.ProcessEnv): Step[] {
  const all: Step[] = [
    { name: 'ingest', script: 'ingest.js' },
    { name: 'ingest-derived', script: 'ingest.js', env: { BENCH_DERIVED: '1', BENCH_BREAKDOWN: '0' }, infoOnly: true },
    { name: 'storage', script: 'storage.js' },
    { name: 'watchlist', script: 'watchlist.js' },
    { name: 'api', script: 'api.js' },
    { name: 'socket', script: 'socket-fanout.js' },
    { name: 'ui', script: 'ui.js' },
    { name: 'ingest-multi', script: 'ingest-multi.js', infoOnly: true, optIn: true },
  ];
  const wanted = env.BENCH_STEPS ? env.BENCH_STEPS.split(',').map((x) => x.trim()).filter(Boolean) : undefined;
  const unknown = wanted?.filter((w) => !all.some((s) => s.name === w)) ?? [];
  if (unknown.length) throw new Error(`BENCH_STEPS: unknown step ${unknown.join(', ')}; steps are ${all.map((s) => s.name).join(', ')}`);
  return all.filter((s) => (wanted ? wanted.includes(s.name) : !s.optIn && !(env.BENCH_RPC_URL && s.name === 'ingest-derived')));
}

/** The BENCH_* settings of this run, as the report keeps them (a node URL without its secrets). */
export function settingsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!k.startsWith('BENCH_') || v === undefined) continue;
    out[k] = k === 'BENCH_RPC_URL' ? redactUrl(v) : v;
  }
  return out;
}

/** The multi-process ingest's figures (bench/ingest-multi.ts has no targets): txs/s per run. */
function multiProcessInfo(json: unknown): string | undefined {
  const runs = (json as { runs?: { processes: number; claimRanges: number; txsPerS: number; vsBaseline: number }[] } | undefined)?.runs;
  if (!Array.isArray(runs) || !runs.every((r) => typeof r?.txsPerS === 'number' && typeof r.claimRanges === 'number')) return undefined;
  return runs.map((r) => `${r.processes} process${r.processes > 1 ? 'es' : ''} ${r.claimRanges ? 'shared' : 'alone'}: ${num(r.txsPerS)} txs/s (${num(r.vsBaseline, 2)} x)`).join('; ');
}

function runStep(step: Step, logFile: string): Promise<StepResult> {
  const file = path.join(here, step.script);
  const t0 = performance.now();
  const log = fs.createWriteStream(logFile);
  let stdout = '';
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { env: { ...process.env, ...step.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      process.stdout.write(d);
      log.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      process.stderr.write(d);
      log.write(d);
    });
    child.on('close', (code) => {
      log.end();
      const { json, targets } = parseBenchOutput(stdout);
      const info = step.infoOnly ? (multiProcessInfo(json) ?? targets.filter((x) => x.verdict !== 'NOT MEASURED').map((x) => `${x.name}: ${num(x.value)}${x.unit ? ` ${x.unit}` : ''}`).join('; ')) : undefined;
      const envText = Object.entries(step.env ?? {}).map(([k, v]) => `${k}=${v} `).join('');
      resolve({
        name: step.name,
        command: `${envText}node ${path.relative(process.cwd(), file)}`,
        exitCode: code,
        seconds: (performance.now() - t0) / 1000,
        log: path.relative(process.cwd(), logFile),
        targets: step.infoOnly ? [] : targets,
        info,
        json,
      });
    });
  });
}

export async function main(): Promise<number> {
  const todo = steps(process.env);
  const outDir = path.resolve(process.env.BENCH_OUTPUT || 'bench-output');
  const date = new Date().toISOString();
  const logDir = path.join(outDir, `logs-${date.replace(/[:.]/g, '-')}`);
  fs.mkdirSync(logDir, { recursive: true });
  const report: Report = { date, machine: machineInfo(), loadBefore: loadavg(), loadAfter: '', settings: settingsOf(process.env), steps: [] };
  for (const step of todo) {
    process.stdout.write(`\n== make bench: ${step.name}\n`);
    report.steps.push(await runStep(step, path.join(logDir, `${step.name}.log`)));
  }
  report.loadAfter = loadavg();
  const paths = writeReport(outDir, report);
  process.stdout.write('\n' + renderMarkdown(report));
  const s = summary(report);
  const failed = report.steps.filter((x) => x.exitCode !== 0);
  process.stdout.write(
    `\nreport: ${path.relative(process.cwd(), paths.md)} and ${path.relative(process.cwd(), paths.json)} (also report.md / report.json, the latest); ` +
      `targets ${s.MET} met, ${s['NOT MET']} not met, ${s['NOT MEASURED']} not measured; ` +
      `${failed.length ? `steps failed: ${failed.map((x) => x.name).join(', ')}` : 'every step exited 0'}\n`,
  );
  return failed.length ? 1 : 0;
}

runIfMain(import.meta.url, 'make bench', main);
