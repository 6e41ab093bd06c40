// `make bench-api`: the public API v2 under load, over a synthetic chain of 1,000,000
// transactions (bench/api-chain.ts: the indexer's rows written straight into embedded ClickHouse
// with the same encoders, then merged) and 100,000 tokens in PostgreSQL. The real API app
// (src/api/app.ts) on the real uWebSockets.js server (src/api/server.ts) runs in this process,
// with the stores; the load generator (bench/api-load.ts) and the bare uWebSockets.js ceiling
// (bench/api-bare.ts) run in their own processes. Every scenario is measured by the same
// generator with the same settings; it prints req/s, p50 and p99 per scenario, the ceiling, the
// share of it the cached endpoint reaches, and the targets (bench/report.ts), issue #21's among
// them: at 8 connections on 1,000,000 txs, p99 < 50 ms and >= 1,000 req/s for a transaction,
// >= 500 req/s for an address's transactions page and a deep page. Exits 1 if anything fails or a
// scenario answers anything but 200.
//
// Environment: BENCH_API_TXS (1000000), BENCH_API_TOKENS (100000), BENCH_API_SECONDS (8 per
// scenario), BENCH_API_WARMUP (2), BENCH_API_CONNECTIONS (32: the cached endpoint and the
// ceiling), BENCH_API_UNCACHED_CONNECTIONS (1,8: each uncached scenario at each), BENCH_API_SEED,
// BENCH_API_KEEP=1 keeps the temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventEmitter } from 'node:events';
import { fork, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openStores, migrateAll, type Stores } from '../src/storage/stores.js';
import type { ClickHouseStore } from '../src/storage/clickhouse/store.js';
import type { PgStore } from '../src/storage/postgres/store.js';
import { insertChainRows } from '../src/storage/clickhouse/chain.js';
import { TABLE_NAMES, type TableName } from '../src/chain/clickhouse-rows.js';
import { setFact } from '../src/storage/postgres/indexer.js';
import { createApiApp, type ApiApp } from '../src/api/app.js';
import { startServer, type RunningServer } from '../src/api/server.js';
import { createGateway } from '../src/api/gateway.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import type { ApiRequest } from '../src/api/http.js';
import { setLogLevel, type Logger } from '../src/log.js';
import { generateApiChain, searchQueries, tokenCatalogue, rng, type ApiChain, type TokenRowSpec } from './api-chain.js';
import { forkBareServer, type BareServer } from './api-bare.js';
import type { LoadJob, LoadResult } from './api-load.js';
import { CpuAccount, listCpu, loadavg, machineInfo } from './sysinfo.js';
import { TARGETS, evaluate, targetLine, type Target } from './report.js';
import { envInt, runIfMain } from './run-main.js';

function envList(name: string, def: number[]): number[] {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const xs = v.split(',').map((x) => Number(x.trim()));
  if (!xs.length || xs.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name} must be a comma list of integers >= 1, got ${JSON.stringify(v)}`);
  return [...new Set(xs)].sort((a, b) => a - b);
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(2) : n.toFixed(1)) : 'n/a');

function benchLogger(onError: (msg: string) => void, scope = 'api'): Logger {
  const line = (level: string, msg: string, fields?: Record<string, unknown>) =>
    process.stderr.write(`${level} [${scope}] ${msg}${fields ? ' ' + JSON.stringify(fields) : ''}\n`);
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (m, f) => line('warn', m, f),
    error: (m, f) => {
      line('error', m, f);
      onError(`${m}${f ? ' ' + JSON.stringify(f) : ''}`);
    },
    child: (s) => benchLogger(onError, `${scope}:${s}`),
  };
}

/** The load generator process: one job at a time. */
interface Generator {
  pid: number;
  run(job: LoadJob): Promise<LoadResult>;
  close(): Promise<void>;
}

function forkGenerator(): Promise<Generator> {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'api-load.js');
  const child: ChildProcess = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', () =>
      resolve({
        pid: child.pid!,
        run: (job) =>
          new Promise((res, rej) => {
            const onExit = (code: number | null) => rej(new Error(`load generator exited (${code})`));
            child.once('exit', onExit);
            child.once('message', (m: { result?: LoadResult; error?: string }) => {
              child.off('exit', onExit);
              if (m.result) res(m.result);
              else rej(new Error(m.error ?? 'load generator failed'));
            });
            child.send({ job });
          }),
        close: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.disconnect();
          }),
      }),
    );
  });
}

async function insertTokens(stores: Stores, tokens: readonly TokenRowSpec[]): Promise<void> {
  for (let i = 0; i < tokens.length; i += 10_000) {
    const part = tokens.slice(i, i + 10_000);
    await stores.pg.query(
      `INSERT INTO tokens (address, type, name, symbol, decimals, total_supply, holder_count, first_seen_block, metadata_fetched_at, metadata_next_at, supply_stale)
       SELECT a, t, n, s, d, ts::numeric, h, 0, now(), NULL, false
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::smallint[], $6::text[], $7::bigint[]) AS x(a, t, n, s, d, ts, h)`,
      [
        part.map((x) => x.address),
        part.map((x) => x.type),
        part.map((x) => x.name),
        part.map((x) => x.symbol),
        part.map((x) => x.decimals),
        part.map((x) => x.totalSupply),
        part.map((x) => x.holders),
      ],
    );
  }
  // Settled as autovacuum leaves it: statistics, and the trigram indexes' pending lists merged.
  await stores.pg.query('VACUUM ANALYZE tokens');
}

/** Requests being handled (the stores close only when none is). */
let inflight = 0;

/** Store and request counters, to say what one request of a scenario costs. */
const tally = { requests: 0, chQueries: 0, chMs: 0, pgQueries: 0, pgMs: 0 };
/** When set, every store query is recorded (one request, profiled alone). */
let trace: { ms: number; store: string; sql: string }[] | null = null;
const sqlHead = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 110);

function countedStores(s: Stores): { ch: ClickHouseStore; pg: PgStore } {
  const ch: ClickHouseStore = {
    ...s.ch,
    async query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
      const t = performance.now();
      try {
        return await s.ch.query<T>(sql, params);
      } finally {
        tally.chQueries++;
        tally.chMs += performance.now() - t;
        trace?.push({ ms: performance.now() - t, store: 'ClickHouse', sql: sqlHead(sql) });
      }
    },
  };
  const pg: PgStore = {
    ...s.pg,
    pool: s.pg.pool,
    async query(sql, params) {
      const t = performance.now();
      try {
        return await s.pg.query(sql, params);
      } finally {
        tally.pgQueries++;
        tally.pgMs += performance.now() - t;
        trace?.push({ ms: performance.now() - t, store: 'PostgreSQL', sql: sqlHead(sql) });
      }
    },
  } as PgStore;
  return { ch, pg };
}

/** An in-process request to an app (no socket), for the checks before the load. */
function apiRequest(pathAndQuery: string): ApiRequest {
  const u = new URL(`http://x${pathAndQuery}`);
  return { method: 'GET', path: u.pathname, query: u.searchParams, headers: {}, ip: '127.0.0.1' };
}

interface Scenario {
  name: string;
  /** What the line says about it. */
  note: string;
  server: 'bare' | 'cached' | 'uncached' | 'limited';
  paths: string[];
  connections: number;
  /** Counted against the uncached p99 target. */
  uncached?: boolean;
  search?: boolean;
}

export async function main(): Promise<number> {
  const txs = envInt('BENCH_API_TXS', 1_000_000, 1);
  const tokenCount = envInt('BENCH_API_TOKENS', 100_000, 1);
  const seconds = envInt('BENCH_API_SECONDS', 8, 1);
  const warmup = envInt('BENCH_API_WARMUP', 2, 0);
  const connections = envInt('BENCH_API_CONNECTIONS', 32, 1);
  const uncachedLevels = envList('BENCH_API_UNCACHED_CONNECTIONS', [1, 8]);
  const uncachedConnections = Math.max(...uncachedLevels);
  const seed = envInt('BENCH_API_SEED', 20_241_122);
  const keep = process.env.BENCH_API_KEEP === '1';
  setLogLevel('warn');
  const machine = machineInfo();
  const out = (s: string) => process.stdout.write(s + '\n');
  out('API benchmark (make bench-api)');
  out(`date: ${new Date().toISOString()}`);
  out(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memGiB} GiB RAM, ${machine.os}, node ${machine.node}`);
  out(`load average before: ${loadavg()}`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-api-'));
  let stores: Stores | undefined;
  const servers: RunningServer[] = [];
  let bare: BareServer | undefined;
  let gen: Generator | undefined;
  let failure: string | undefined;
  let firstError: string | undefined;
  const log = benchLogger((m) => (firstError ??= m));
  try {
    stores = await openStores({ dataDir: path.join(dir, 'data'), clickhouseDatabase: 'explorer' });
    await migrateAll(stores);
    const st = stores;

    // 1. The chain, written as the indexer's rows; one insert in flight while the next range is generated.
    const g0 = performance.now();
    let pending: Promise<void> = Promise.resolve();
    const chain: ApiChain = await generateApiChain({ txs, seed }, async (tables) => {
      await pending;
      pending = insertChainRows(st.ch, tables);
    });
    await pending;
    const genS = (performance.now() - g0) / 1000;
    const rowsTotal = TABLE_NAMES.reduce((a, t) => a + (chain.rows[t] ?? 0), 0);
    out(
      `chain: ${fmt(chain.blocks)} blocks, ${fmt(chain.txs)} txs (${fmt(chain.txs / chain.blocks)}/block), ${fmt(rowsTotal)} rows in ${TABLE_NAMES.length} tables ` +
        `(${fmt(chain.bytes / 1e6)} MB RowBinary), generated and inserted in ${fmt(genS, 1)} s ` +
        `(the indexer's rows from bench/api-chain.ts with the same TableWriter encoders, inserted with insertChainRows; not indexed from JSON-RPC)`,
    );
    const o0 = performance.now();
    for (const t of TABLE_NAMES) await st.ch.command(`OPTIMIZE TABLE ${t} FINAL`);
    out(`merged: OPTIMIZE TABLE ... FINAL on every chain table in ${fmt((performance.now() - o0) / 1000, 1)} s (no background merges during the load)`);
    const counted = await st.ch.query<{ n: string }>('SELECT count() AS n FROM transactions');
    if (Number(counted[0]?.n) !== chain.txs) throw new Error(`stored ${counted[0]?.n} transactions, generated ${chain.txs}`);
    out(`busy address: ${chain.busy}, ${fmt(chain.busyTxs)} transactions`);
    await setFact(st.pg, 'capabilities', { traces: 'callTracer' });

    // 2. Tokens.
    const t0 = performance.now();
    const catalogue = tokenCatalogue(tokenCount, chain.tokens, seed + 1);
    await insertTokens(st, catalogue);
    out(`tokens: ${fmt(tokenCount)} in PostgreSQL (names "Adjective Noun[ Suffix]", heavy-tailed holder counts), inserted and analyzed in ${fmt((performance.now() - t0) / 1000, 1)} s`);

    // 3. The API: a cached instance (CACHE_MAX_MB 256) and an uncached one (0), both attached to
    //    an event source that stays quiet (between two blocks); uWS servers in this process.
    const events = new EventEmitter();
    const wrapped = countedStores(st);
    const cachedApp = createApiApp({ ...wrapped, log, cacheMaxMb: 256 });
    const uncachedApp = createApiApp({ ...wrapped, log, cacheMaxMb: 0 });
    cachedApp.attach(events);
    uncachedApp.attach(events);
    const serve = async (app: ApiApp) => {
      const handle = async (req: ApiRequest) => {
        tally.requests++;
        inflight++;
        try {
          return await app.handle(req);
        } finally {
          inflight--;
        }
      };
      const s = await startServer({ handle, host: '127.0.0.1', port: 0, log });
      servers.push(s);
      return s.port;
    };
    // The cached app behind the rate limiter (limits high enough never to refuse): what the
    // limiter costs per request.
    const limitedGateway = createGateway({ api: cachedApp, limiter: new RateLimiter({ anonymousPerSecond: 1e9, keyPerSecond: 1e9 }) });
    const ports = {
      cached: await serve(cachedApp),
      uncached: await serve(uncachedApp),
      limited: await serve({ handle: limitedGateway } as unknown as ApiApp),
      bare: 0,
    };
    const CACHED_PATH = '/api/v2/main-page/blocks';
    const sample = await cachedApp.handle(apiRequest(CACHED_PATH));
    if (sample.status !== 200) throw new Error(`${CACHED_PATH}: ${sample.status}`);
    const body = Buffer.isBuffer(sample.body) ? sample.body : Buffer.from(sample.body);
    bare = await forkBareServer(body, sample.headers);
    ports.bare = bare.port;
    gen = await forkGenerator();

    const r = rng(seed + 2);
    const pick = <T>(xs: readonly T[], n: number): T[] => Array.from({ length: n }, () => xs[Math.floor(r() * xs.length)]!);
    const busyPage = `/api/v2/addresses/${chain.busy}/transactions`;
    const scenarios: Scenario[] = [
      { name: 'bare uWS ceiling', note: `static ${fmt(body.length)}-byte body, same headers, own process`, server: 'bare', paths: [CACHED_PATH], connections },
      { name: `cached GET ${CACHED_PATH}`, note: 'response cache hit', server: 'cached', paths: [CACHED_PATH], connections },
      { name: `cached GET ${CACHED_PATH} through the rate limiter`, note: 'token bucket per IP, never refusing', server: 'limited', paths: [CACHED_PATH], connections },
      { name: 'uncached address transactions page', note: `GET ${busyPage.replace(chain.busy, '{busy}')}, first page, ${fmt(chain.busyTxs)} txs`, server: 'uncached', paths: [busyPage], connections: uncachedConnections, uncached: true },
      {
        name: 'uncached block',
        note: 'GET /api/v2/blocks/{random height}',
        server: 'uncached',
        paths: pick(Array.from({ length: chain.blocks }, (_, i) => i), 2000).map((n) => `/api/v2/blocks/${n}`),
        connections: uncachedConnections,
        uncached: true,
      },
      {
        name: 'uncached transaction',
        note: 'GET /api/v2/transactions/{random hash}',
        server: 'uncached',
        paths: pick(chain.sampleTxs, 2000).map((h) => `/api/v2/transactions/${h}`),
        connections: uncachedConnections,
        uncached: true,
      },
      {
        name: 'uncached deep page',
        note: `GET ${busyPage.replace(chain.busy, '{busy}')}?block_number=..&index=.. at the busy address's 101st oldest transaction (${fmt(chain.busyTxs - 101)} newer ones before it)`,
        server: 'uncached',
        paths: [`${busyPage}?block_number=${chain.deepCursor.block}&index=${chain.deepCursor.index}`],
        connections: uncachedConnections,
        uncached: true,
      },
      {
        name: 'uncached /search/quick',
        note: `GET /api/v2/search/quick?q={typed piece of a name, a symbol, a miss}, ${fmt(tokenCount)} tokens`,
        server: 'uncached',
        paths: searchQueries(catalogue, 3000, seed + 3).map((q) => `/api/v2/search/quick?q=${encodeURIComponent(q)}`),
        connections: uncachedConnections,
        search: true,
      },
    ];
    // Each scenario answers 200 before it is loaded; one request of each uncached one is
    // profiled alone (its store queries, slowest first).
    const profiles = new Map<string, string>();
    for (const sc of scenarios) {
      if (sc.server === 'bare') continue;
      const app = sc.server === 'cached' ? cachedApp : uncachedApp;
      for (const p of sc.paths.slice(0, 5)) {
        const reply = await app.handle(apiRequest(p));
        if (reply.status !== 200) throw new Error(`${p}: status ${reply.status} ${String(reply.body).slice(0, 200)}`);
      }
      if (sc.server === 'uncached') {
        trace = [];
        const t = performance.now();
        await app.handle(apiRequest(sc.paths[1] ?? sc.paths[0]!));
        const total = performance.now() - t;
        const q = trace;
        trace = null;
        const slow = [...q].sort((a, b) => b.ms - a.ms).slice(0, 3);
        profiles.set(
          sc.name,
          `one request alone: ${ms(total)} ms, ${q.length} store queries (${ms(q.reduce((a, x) => a + x.ms, 0))} ms); slowest: ` +
            slow.map((x) => `${ms(x.ms)} ms ${x.store} \`${x.sql}\``).join('; '),
        );
      }
    }
    // The uncached scenarios at each concurrency (1: a request's latency alone; more: under load).
    const expanded: Scenario[] = [];
    for (const sc of scenarios) {
      if (sc.server !== 'uncached') expanded.push(sc);
      else for (const c of uncachedLevels) expanded.push({ ...sc, connections: c });
    }
    out(
      `load: ${seconds} s per scenario after ${warmup} s of warm-up; closed-loop keep-alive connections (one request in flight each): ` +
        `${connections} for the ceiling and the cached endpoint, ${uncachedLevels.join(' then ')} for the uncached ones; ` +
        `generator pid ${gen.pid} (raw sockets, bench/api-load.ts), API in this process (pid ${process.pid}), ceiling in pid ${bare.pid}`,
    );

    const results: { sc: Scenario; res: LoadResult; cpu: string; apiCpu: number; others: number }[] = [];
    for (const sc of expanded) {
      if (profiles.has(sc.name)) {
        out(`${sc.name}: ${profiles.get(sc.name)}`);
        profiles.delete(sc.name);
      }
      const acct = new CpuAccount(
        (tid, p) => (tid === process.pid ? 'api main thread' : p.comm === 'node' ? 'node helpers' : `chDB ${p.comm}`),
        (pid, p) => (pid === gen!.pid ? 'generator' : pid === bare!.pid ? 'ceiling' : p.comm),
      );
      for (const k of Object.keys(tally) as (keyof typeof tally)[]) tally[k] = 0;
      const res = await gen.run({ host: '127.0.0.1', port: ports[sc.server], paths: sc.paths, connections: sc.connections, warmupMs: warmup * 1000, durationMs: seconds * 1000 });
      const cpu = acct.end();
      const children = cpu.children.reduce((a, [, v]) => a + v, 0);
      const others = cpu.machineBusy - cpu.process - children;
      results.push({ sc, res, cpu: listCpu([...cpu.threads, ...cpu.children]), apiCpu: cpu.process, others });
      const bad = Object.entries(res.statuses).filter(([s]) => s !== '200');
      out(
        `${sc.name}: ${fmt(res.rps)} req/s, p50 ${ms(res.p50ms)} ms, p99 ${ms(res.p99ms)} ms (p90 ${ms(res.p90ms)}, max ${ms(res.maxMs)}; ${fmt(res.requests)} requests, ` +
          `${sc.connections} connection${sc.connections === 1 ? '' : 's'}; ${sc.note})`,
      );
      const per = (x: number) => (tally.requests ? x / tally.requests : 0);
      const storeLine =
        sc.server === 'bare'
          ? ''
          : `; per request: ${per(tally.chQueries).toFixed(1)} ClickHouse queries (${per(tally.chMs).toFixed(1)} ms summed), ` +
            `${per(tally.pgQueries).toFixed(1)} PostgreSQL queries (${per(tally.pgMs).toFixed(1)} ms summed)`;
      out(`  cpu s (warm-up included): ${listCpu([...cpu.threads, ...cpu.children])}; other processes ${others.toFixed(1)} of ${((res.seconds + warmup) * machine.cores).toFixed(0)} core-s${storeLine}`);
      if (bad.length || res.errors) {
        failure ??= `${sc.name}: ${bad.map(([s, n]) => `${n} x ${s}`).join(', ')}${res.errors ? ` ${res.errors} connection errors` : ''}`;
      }
    }
    const ceiling = results[0]!.res;
    const cached = results[1]!.res;
    const ratio = cached.rps / ceiling.rps;
    const verdict = (ok: boolean) => (ok ? 'MET' : 'NOT MET');
    const uncachedAt = (c: number) => Math.max(...results.filter((x) => x.sc.uncached && x.sc.connections === c).map((x) => x.res.p99ms));
    const searchAt = (c: number) => results.find((x) => x.sc.search && x.sc.connections === c)!.res.p99ms;
    out(`cached / ceiling: ${ratio.toFixed(2)} (${fmt(cached.rps)} / ${fmt(ceiling.rps)} req/s)`);
    const limited = results[2]!.res;
    const limiterCost = 1 - limited.rps / cached.rps;
    out(`rate limiter cost on the cached endpoint: ${(limiterCost * 100).toFixed(1)}% (${fmt(limited.rps)} vs ${fmt(cached.rps)} req/s; target < 5%: ${limiterCost < 0.05 ? 'MET' : 'NOT MET'})`);
    out(
      `targets: cached >= 0.5 x ceiling: ${verdict(ratio >= 0.5)} (${ratio.toFixed(2)}); ` +
        `uncached p99 < 50 ms: ${uncachedLevels.map((c) => `${verdict(uncachedAt(c) < 50)} at ${c} connection${c === 1 ? '' : 's'} (worst ${ms(uncachedAt(c))} ms)`).join(', ')}; ` +
        `/search/quick p99 < 20 ms: ${uncachedLevels.map((c) => `${verdict(searchAt(c) < 20)} at ${c} (${ms(searchAt(c))} ms)`).join(', ')}`,
    );
    // Issue #21's read targets, each figure beside its bound, and the ones above, for the report.
    const targets: Target[] = [
      { area: 'api', name: 'cached endpoint req/s over the bare uWS ceiling', unit: 'req/s', value: cached.rps, bound: 0.5 * ceiling.rps, kind: 'atLeast', boundIs: '0.5 x the bare uWS ceiling, same run' },
      { area: 'api', name: 'rate limiter cost on the cached endpoint', unit: '', value: limiterCost, bound: 0.05, kind: 'below', boundIs: 'target (5%)' },
      ...uncachedLevels.map((c): Target => ({ area: 'api', name: `worst uncached p99 at ${c} connection${c === 1 ? '' : 's'}`, unit: 'ms', value: uncachedAt(c), bound: TARGETS.uncachedP99Ms, kind: 'below', boundIs: 'target' })),
      ...uncachedLevels.map((c): Target => ({ area: 'api', name: `/search/quick p99 at ${c} connection${c === 1 ? '' : 's'}`, unit: 'ms', value: searchAt(c), bound: 20, kind: 'below', boundIs: 'target' })),
    ];
    const atTarget = (name: string) => results.find((x) => x.sc.name === name && x.sc.connections === TARGETS.uncachedConnections)?.res;
    const size = chain.txs === TARGETS.uncachedTxs ? undefined : `on ${fmt(chain.txs)} txs; the target is on ${fmt(TARGETS.uncachedTxs)}`;
    const missing = uncachedLevels.includes(TARGETS.uncachedConnections) ? undefined : `not run at ${TARGETS.uncachedConnections} connections (BENCH_API_UNCACHED_CONNECTIONS)`;
    for (const [name, label, rps] of [
      ['uncached transaction', 'a transaction', TARGETS.transactionRps],
      ['uncached address transactions page', "an address's transactions page", TARGETS.addressPageRps],
      ['uncached deep page', 'a deep page', TARGETS.deepPageRps],
    ] as const) {
      const res = atTarget(name);
      const note = missing ?? size;
      const c = TARGETS.uncachedConnections;
      targets.push(
        { area: 'api', name: `uncached ${label}: p99 at ${c} connections`, unit: 'ms', value: res?.p99ms ?? null, bound: TARGETS.uncachedP99Ms, kind: 'below', boundIs: 'target', note },
        { area: 'api', name: `uncached ${label}: req/s at ${c} connections`, unit: 'req/s', value: res?.rps ?? null, bound: rps, kind: 'atLeast', boundIs: 'target', note },
      );
    }
    const evaluated = targets.map(evaluate);
    for (const e of evaluated) out(targetLine(e));
    if (firstError) failure ??= `the API logged an error: ${firstError}`;
    out(`load average after: ${loadavg()}`);
    out(
      'json: ' +
        JSON.stringify({
          date: new Date().toISOString(),
          machine,
          txs: chain.txs,
          blocks: chain.blocks,
          tokens: tokenCount,
          rows: rowsTotal,
          loadSeconds: seconds,
          connections,
          uncachedConnections: uncachedLevels,
          scenarios: results.map(({ sc, res, apiCpu, others }) => ({ name: sc.name, connections: sc.connections, rps: res.rps, p50ms: res.p50ms, p99ms: res.p99ms, requests: res.requests, statuses: res.statuses, apiCpuS: apiCpu, othersCpuS: others })),
          cachedOverCeiling: ratio,
          targets: evaluated,
        }),
    );
  } catch (e) {
    failure = (e as Error).stack ?? String(e);
    process.stderr.write(`bench-api failed: ${failure}\n`);
  } finally {
    await gen?.close().catch(() => undefined);
    await bare?.close().catch(() => undefined);
    for (const s of servers) await s.close().catch(() => undefined);
    // Requests cut short by the generator's end may still be running: let them finish first.
    for (let i = 0; inflight > 0 && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
    await stores?.close().catch(() => undefined);
    if (keep) process.stderr.write(`kept ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
  if (failure) process.stderr.write(`bench-api: ${failure.split('\n')[0]}\n`);
  return failure ? 1 : 0;
}

runIfMain(import.meta.url, 'bench-api', main);
