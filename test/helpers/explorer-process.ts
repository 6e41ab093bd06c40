// An `explorer` command run as its own process (any build of it: this checkout's or an older
// release's), in its own process group, so that a test's teardown ends it, its children and the
// embedded PostgreSQL it started even when the test fails half-way.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

/** This build's CLI, beside the compiled tests (build/, build-up/...: whichever runs the test). */
export const THIS_CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/bin/explorer.js');

/** A minimal environment: nothing of the caller's settings leaks into the explorer's. */
export function explorerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...extra };
}

/** Runs a short command (migrate, account create) to its end. */
export function runExplorer(cli: string, args: string[], env: Record<string, string>, timeoutMs = 120_000) {
  return spawnSync(process.execPath, [cli, ...args], { env: explorerEnv(env), encoding: 'utf8', timeout: timeoutMs });
}

export interface ExplorerProcess {
  /** Resolves once the process logged `readyLine`; rejects if it exits first or after the timeout. */
  ready: Promise<void>;
  /** Everything it printed so far (stdout and stderr). */
  log(): string;
  /** SIGTERM, then its exit code (a clean stop is 0). */
  stop(): Promise<number | null>;
  pid: number;
}

export function startExplorerProcess(
  t: Test,
  cli: string,
  args: string[],
  env: Record<string, string>,
  opts: { readyLine?: string; timeoutMs?: number } = {},
): ExplorerProcess {
  const readyLine = opts.readyLine ?? 'running; press Ctrl-C to stop';
  const child = spawn(process.execPath, [cli, ...args], { env: explorerEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const pid = child.pid!;
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The embedded PostgreSQL runs in a process group of its own: its pid is taken from the data
  // directory while it exists (a temporary directory may be gone by the time teardowns run).
  const postgresPids = new Set<number>();
  const notePostgres = () => {
    if (!env.DATA_DIR) return;
    try {
      const owner = JSON.parse(fs.readFileSync(path.join(env.DATA_DIR, 'postgres.owner'), 'utf8')) as { postgresPid?: number };
      if (owner.postgresPid) postgresPids.add(owner.postgresPid);
    } catch {
      /* not started yet, or stopped */
    }
  };
  t.teardown(() => {
    notePostgres();
    for (const p of [-pid, ...postgresPids]) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`explorer ${args.join(' ')} not ready in time:\n${out}`)), opts.timeoutMs ?? 180_000);
    const check = () => {
      if (out.includes(readyLine)) {
        notePostgres();
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`explorer ${args.join(' ')} exited (${code}) before it was ready:\n${out}`));
    });
  });
  ready.catch(() => undefined);
  return {
    ready,
    log: () => out,
    pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** GET a JSON answer of a running explorer's API; throws on any status but 200. */
export async function getJson<T = any>(base: string, pathAndQuery: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${base}${pathAndQuery}`, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${pathAndQuery}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Polls `fn` until it returns true (errors count as false), at most `timeoutMs`. */
export async function waitFor(what: string, fn: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    try {
      if (await fn()) return;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

/**
 * The API's answers a backup or an upgrade must keep, each as text: every block up to `head` with
 * its transactions, their token transfers and logs, the block list, `address`'s transactions and
 * token transfers, `more` public paths, and `accountPaths` of the Account API asked with `auth`.
 */
export async function apiAnswers(
  api: string,
  o: { head: number; address: string; more?: string[]; accountPaths: string[]; auth: Record<string, string> },
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const get = async (p: string, h: Record<string, string> = {}) => {
    const body = await getJson(api, p, h);
    out.set(p, JSON.stringify(body));
    return body;
  };
  for (let n = 0; n <= o.head; n++) {
    await get(`/api/v2/blocks/${n}`);
    for (const tx of (await get(`/api/v2/blocks/${n}/transactions`)).items) {
      await get(`/api/v2/transactions/${tx.hash}`);
      await get(`/api/v2/transactions/${tx.hash}/token-transfers`);
      await get(`/api/v2/transactions/${tx.hash}/logs`);
    }
  }
  await get('/api/v2/blocks?type=block');
  await get(`/api/v2/addresses/${o.address}/transactions`);
  await get(`/api/v2/addresses/${o.address}/token-transfers`);
  for (const p of o.more ?? []) await get(p);
  for (const p of o.accountPaths) await get(`/account/api/v1${p}`, o.auth);
  return out;
}

/**
 * Waits until two readings 3 s apart agree (the derived lanes fill in token metadata, holders and
 * balances after the blocks, and a derived change clears the API's caches, so none hides it);
 * false when they still differ after `timeoutMs`.
 */
export async function settles(read: () => Promise<Map<string, string>>, timeoutMs = 120_000): Promise<boolean> {
  for (let prev = await read(), until = Date.now() + timeoutMs; Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 3000));
    const next = await read();
    if ([...next].every(([p, body]) => prev.get(p) === body)) return true;
    prev = next;
  }
  return false;
}
