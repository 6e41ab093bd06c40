// What the runnable benchmarks share: main() run when the file is the process's entry point (not
// when a test imports it), exiting with its code or 1 with the error's stack; integer settings read
// from the environment; the explorer's CLICKHOUSE_ENGINE_NICE.
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config/settings.js';

/**
 * CLICKHOUSE_ENGINE_NICE as the explorer reads it (default 10, 0-19): the benches that open the
 * embedded store run chDB's threads at the nice the explorer would, and print it.
 */
export function engineNice(): number {
  return loadConfig({ CLICKHOUSE_ENGINE_NICE: process.env.CLICKHOUSE_ENGINE_NICE }).clickhouseEngineNice;
}

/** The line a bench prints about it. */
export const engineNiceLine = (nice: number) => `embedded chDB's own threads at nice ${nice} (CLICKHOUSE_ENGINE_NICE, as the explorer runs them)`;

/** An integer setting from the environment (`def` when unset or empty); anything else throws. */
export function envInt(name: string, def: number, min = 0): number {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

/** A comma list of integers >= 1, e.g. BENCH_BLOCKS=300,1200,4800 (kept in the given order). */
export function envList(name: string, def: number[]): number[] {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const xs = v.split(',').map((x) => Number(x.trim()));
  if (!xs.length || xs.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name} must be a comma list of integers >= 1, got ${JSON.stringify(v)}`);
  return xs;
}

export function runIfMain(moduleUrl: string, name: string, main: () => Promise<number>): void {
  if (!process.argv[1] || pathToFileURL(process.argv[1]).href !== moduleUrl) return;
  main().then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`${name} failed: ${e.stack ?? e.message}\n`);
      process.exit(1);
    },
  );
}
