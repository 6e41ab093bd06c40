// `make bench-ingest`: the real indexer (worker pool, embedded ClickHouse and PostgreSQL) indexes
// a synthetic mainnet-like chain (bench/synth.ts) from a replay JSON-RPC server that answers
// from pre-serialized bytes in its own process (bench/replay-server.ts). Prints blocks/s, txs/s,
// rows/s, then the rate of JSON.parse alone over the same bytes in this process, and the ratio
// of the two (the headline). Then, unless BENCH_BREAKDOWN=0, each part of the pipeline alone
// (bench/parts.ts) and the CPU per thread, to say where the time goes. Verifies that what is
// stored equals what was generated; exits 1 when it does not or anything fails.
//
// Environment: BENCH_BLOCKS (default 300, about 51,000 txs), BENCH_VARIANT (geth =
// debug_traceBlockByNumber with callTracer, erigon = trace_block), BENCH_WORKERS (0 = CPUs),
// BENCH_BATCH_BLOCKS (20), BENCH_RPC_CONCURRENCY (8), BENCH_SEED, BENCH_PARSE_PASSES (3),
// BENCH_BREAKDOWN (1), BENCH_KEEP=1 keeps the temporary directory, BENCH_DERIVED=1 runs the
// derived-data lanes and the watchlist matcher beside the indexer (their cost on block ingest).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createIndexer, type BlockEvent, type Indexer } from '../src/indexer/indexer.js';
import { createDerived, type Derived } from '../src/derived/scheduler.js';
import { WatchlistMatcher } from '../src/notify/watchlist.js';
import { createIngestPool, type IngestPool } from '../src/indexer/pool.js';
import { openStores, migrateAll, type Stores } from '../src/storage/stores.js';
import type { ClickHouseStore } from '../src/storage/clickhouse/store.js';
import { TABLE_NAMES, type TableName } from '../src/chain/clickhouse-rows.js';
import { setLogLevel, type Logger } from '../src/log.js';
import type { IngestResult, IngestTask } from '../workers/ingest.js';
import { buildResponseStore, saveResponseStore, type BlockMethod } from './responses.js';
import { forkReplayServer, type ReplayServer } from './replay-server.js';
import { INSERT_GROUP, decodeOnly, fetchedKeys, insertsOnly, parseOnly, traceMethodOf, workersOnly, type Variant } from './parts.js';
import { CpuAccount, listCpu, loadavg, machineInfo, threadCpu, type ProcCpu } from './sysinfo.js';

function envInt(name: string, def: number, min = 0): number {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(v)}`);
  return n;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const mb = (bytes: number) => bytes / 1e6;

/** A logger that keeps the benchmark's output clean: warnings and errors only, to stderr. */
function benchLogger(onError: (msg: string) => void, scope = 'indexer'): Logger {
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

interface Capture {
  tasks: IngestTask[];
  bytesPerTable: Record<TableName, number>;
  results: Pick<IngestResult, 'tables'>[];
  count: number;
  fetchMs: number;
  decodeMs: number;
  on: boolean;
}

/** Pool wrapper: the real pool, plus each task, its table bytes and the worker's own timings. */
function capturingPool(inner: IngestPool, cap: Capture): IngestPool {
  return {
    threads: inner.threads,
    async run(task) {
      const r = await inner.run(task);
      if (cap.on) {
        cap.count++;
        cap.fetchMs += r.timings.fetchMs;
        cap.decodeMs += r.timings.decodeMs;
        cap.tasks.push(task);
        for (const t of TABLE_NAMES) cap.bytesPerTable[t] += r.tables[t]?.byteLength ?? 0;
        cap.results.push({ tables: r.tables });
      }
      return r;
    },
    destroy: () => inner.destroy(),
  };
}

/** ClickHouse wrapper: the time during which at least one insert was in flight. */
function timedClickHouse(ch: ClickHouseStore, acc: { ms: number; inserts: number; bytes: number }): ClickHouseStore {
  let active = 0;
  let since = 0;
  return {
    ...ch,
    async insertRaw(table, bytes, columns, format) {
      if (active++ === 0) since = performance.now();
      acc.inserts++;
      for (const b of Array.isArray(bytes) ? bytes : [bytes]) acc.bytes += (b as Uint8Array).byteLength;
      try {
        await ch.insertRaw(table, bytes, columns, format);
      } finally {
        if (--active === 0) acc.ms += performance.now() - since;
      }
    },
  };
}

async function count(ch: ClickHouseStore, sql: string): Promise<number> {
  const [r] = await ch.query<{ n: string }>(sql);
  return Number(r?.n ?? 0);
}

export async function main(): Promise<number> {
  const blocks = envInt('BENCH_BLOCKS', 300, 1);
  const variant = (process.env.BENCH_VARIANT || 'geth') as Variant;
  if (variant !== 'geth' && variant !== 'erigon') throw new Error(`BENCH_VARIANT must be geth or erigon, got ${JSON.stringify(variant)}`);
  const workers = envInt('BENCH_WORKERS', 0);
  const batchBlocks = envInt('BENCH_BATCH_BLOCKS', 20, 1);
  const concurrency = envInt('BENCH_RPC_CONCURRENCY', 8, 1);
  const seed = envInt('BENCH_SEED', 20_240_601);
  const passes = envInt('BENCH_PARSE_PASSES', 3, 1);
  const breakdown = process.env.BENCH_BREAKDOWN !== '0';
  const keep = process.env.BENCH_KEEP === '1';
  const withDerived = process.env.BENCH_DERIVED === '1';
  setLogLevel('warn');
  const machine = machineInfo();
  const out = (s: string) => process.stdout.write(s + '\n');

  out('ingest benchmark (make bench-ingest)');
  out(`date: ${new Date().toISOString()}`);
  out(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memGiB} GiB RAM, ${machine.os}, node ${machine.node}`);
  out(`load average before: ${loadavg()}`);

  // 1. The chain, serialized once, before anything is timed.
  const g0 = performance.now();
  const store = buildResponseStore({ blocks, seed }, { traces: variant === 'geth' ? 'callTracer' : 'parity' });
  const c = store.counts;
  const genS = (performance.now() - g0) / 1000;
  out(
    `chain: ${fmt(blocks)} blocks + genesis, ${fmt(c.txs)} txs (${fmt(c.txs / blocks, 1)}/block), ${fmt(c.logs)} logs (${fmt(c.logs / blocks, 1)}/block), ` +
      `${fmt(c.tokenTransfers)} token transfers, ${fmt(c.internalTxs)} internal txs, ${fmt(c.withdrawals)} withdrawals, ${fmt(c.failedTxs)} failed txs ` +
      `(generated and serialized in ${genS.toFixed(1)} s)`,
  );
  out(`tx mix: ${Object.entries(c.kinds).map(([k, v]) => `${k} ${((100 * v) / c.txs).toFixed(1)}%`).join(', ')}`);
  const keys = fetchedKeys(store.head, variant);
  const per = (m: BlockMethod) => store.bytesPerMethod[m];
  const traceM = traceMethodOf(variant);
  const fetchedBytes = per('eth_getBlockByNumber/full') + per('eth_getBlockReceipts') + per(traceM);
  out(
    `responses fetched: ${fmt(mb(fetchedBytes), 1)} MB (blocks ${fmt(mb(per('eth_getBlockByNumber/full')), 1)}, receipts ${fmt(mb(per('eth_getBlockReceipts')), 1)}, ` +
      `${traceM} ${fmt(mb(per(traceM)), 1)}), ${fmt(fetchedBytes / c.txs)} bytes/tx`,
  );

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-'));
  let server: (ReplayServer & { pid: number }) | undefined;
  let stores: Stores | undefined;
  let pool: IngestPool | undefined;
  let indexer: Indexer | undefined;
  let failure: string | undefined;
  try {
    const storePath = path.join(dir, 'responses.bin');
    saveResponseStore(store, storePath);
    server = await forkReplayServer(storePath);
    const srvPid = server.pid;
    stores = await openStores({ dataDir: path.join(dir, 'data'), clickhouseDatabase: 'explorer' });
    await migrateAll(stores);

    const cap: Capture = { tasks: [], bytesPerTable: Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>, results: [], count: 0, fetchMs: 0, decodeMs: 0, on: true };
    const ins = { ms: 0, inserts: 0, bytes: 0 };
    const tidsBefore = new Set(threadCpu().keys());
    const p = (pool = capturingPool(createIngestPool(workers), cap));
    // The pool's threads start at once: the thread ids new since then are the ingest workers.
    let workerTids = new Set<number>();
    for (let i = 0; i < 50 && workerTids.size < p.threads; i++) {
      await new Promise((r) => setTimeout(r, 50));
      workerTids = new Set([...threadCpu().keys()].filter((t) => !tidsBefore.has(t)));
    }
    const threadLabel = (tid: number, x: ProcCpu) =>
      tid === process.pid
        ? 'main thread'
        : workerTids.has(tid)
          ? 'ingest workers'
          : x.comm === 'node'
            ? 'other node threads (libuv pool: chDB insert calls; V8 GC helpers)'
            : `chDB ${x.comm}`;
    const childLabel = (pid: number, x: ProcCpu) => (pid === srvPid ? 'replay server' : x.comm);

    const ch = timedClickHouse(stores.ch, ins);
    let firstError: string | undefined;
    let rejectRun: ((e: Error) => void) | undefined;
    const log = benchLogger((m) => {
      firstError ??= m;
      rejectRun?.(new Error(`indexer error: ${m}`));
    });
    const ix = (indexer = createIndexer({
      ch,
      pg: stores.pg,
      rpc: { url: server.url, variant, concurrency, maxRetries: 2 },
      batchBlocks,
      pool: p,
      pollMs: 200,
      pending: false,
      log,
    }));
    const produced = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;
    ix.on('block', (e: BlockEvent) => {
      for (const t of TABLE_NAMES) produced[t] += e.summary.rows[t];
    });
    const failed = new Promise<never>((_, reject) => {
      rejectRun = reject;
      ix.on('error', (e) => reject(e));
    });
    failed.catch(() => undefined);

    out(
      `indexer: variant ${variant} (${variant === 'geth' ? 'debug_traceBlockByNumber, callTracer' : 'trace_block, parity traces'}), ` +
        `${p.threads} worker threads, ${batchBlocks} blocks per task, rpc concurrency ${concurrency}; ` +
        `replay server in its own process (pid ${srvPid}) sharing the same ${machine.cores} cores; embedded chDB + PostgreSQL`,
    );

    // 2. Timed: from start() until the head is committed.
    const srv0 = await server.stats();
    const acct = new CpuAccount(threadLabel, childLabel);
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    let derived: Derived | undefined;
    let matcher: WatchlistMatcher | undefined;
    if (withDerived) {
      derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: ix.rpc });
      derived.attach(ix);
      matcher = new WatchlistMatcher(stores.pg);
      await matcher.start();
      matcher.attach(ix);
    }
    await Promise.race([ix.start(), failed]);
    derived?.start();
    await Promise.race([ix.waitFor(store.head, Math.max(600_000, blocks * 2_000)), failed]);
    const wall = (performance.now() - t0) / 1000;
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = acct.end();
    const srv1 = await server.stats();
    await ix.stop();
    await derived?.stop();
    await matcher?.stop();
    if (derived) out(`derived lanes: on, beside the indexer (items done during ingest: ${JSON.stringify(derived.counts)}; ms in steps: ${JSON.stringify(Object.fromEntries(Object.entries(derived.stepMs).map(([k, v]) => [k, Math.round(v)])))})`);
    else out('derived lanes: off (BENCH_DERIVED=1 runs them beside the indexer)');
    indexer = undefined;
    cap.on = false;

    // 3. What is stored, counted in ClickHouse, against what was generated.
    const stored = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;
    for (const t of TABLE_NAMES) stored[t] = await count(stores.ch, `SELECT count() AS n FROM ${t}`);
    const rows = TABLE_NAMES.reduce((a, t) => a + stored[t], 0);
    const checks: [string, number, number][] = [
      ['blocks', stored.blocks, c.blocks],
      ['transactions', stored.transactions, c.txs],
      ['logs', stored.logs, c.logs],
      ['token transfers', stored.token_transfers, c.tokenTransfers],
      ['internal transactions', await count(stores.ch, 'SELECT count() AS n FROM internal_transactions WHERE trace_index > 0'), c.internalTxs],
      ['withdrawals', stored.withdrawals, c.withdrawals],
      ['failed transactions', await count(stores.ch, 'SELECT count() AS n FROM transactions WHERE status = 0'), c.failedTxs],
      ['rows (stored vs produced by the workers)', rows, TABLE_NAMES.reduce((a, t) => a + produced[t], 0)],
    ];
    const bad = checks.filter(([, got, want]) => got !== want);
    if (firstError) failure = `the indexer logged an error: ${firstError}`;
    if (bad.length) failure = `stored counts differ from the generated chain: ${bad.map(([n, g, w]) => `${n} ${g} != ${w}`).join('; ')}`;

    // 4. Optional: the pool alone and the inserts alone, same tasks and bytes.
    let parts: { workersS: number; workersCpu: string; insertsS: number; insertsCpu: string; insertsCpuS: number } | undefined;
    if (breakdown && !failure) {
      const a1 = new CpuAccount(threadLabel, childLabel);
      const workersS = await workersOnly(p, cap.tasks);
      const workersCpu = a1.end();
      const a2 = new CpuAccount(threadLabel, childLabel);
      const insertsS = await insertsOnly(stores.ch, cap.results);
      const insertsCpu = a2.end();
      parts = {
        workersS,
        workersCpu: listCpu([...workersCpu.threads, ...workersCpu.children]),
        insertsS,
        insertsCpu: listCpu([...insertsCpu.threads, ...insertsCpu.children]),
        insertsCpuS: insertsCpu.process,
      };
    }
    cap.results.length = 0;
    await p.destroy();
    pool = undefined;
    await stores.close();
    stores = undefined;
    await server.close();
    server = undefined;

    // 5. JSON.parse alone over the same bytes, this process, everything else stopped.
    const parse = parseOnly(store, keys, passes);
    const decode = breakdown ? decodeOnly(store, variant, batchBlocks, 1) : undefined;

    const blocksS = (blocks + 1) / wall;
    const txsS = c.txs / wall;
    const rowsS = rows / wall;
    const parseTxsS = c.txs / parse.seconds;
    const ratio = txsS / parseTxsS;
    const srvCpu = (srv1.cpuUserUs + srv1.cpuSystemUs - srv0.cpuUserUs - srv0.cpuSystemUs) / 1e6;
    const others = cpu.machineBusy - cpu.process - cpu.children.reduce((a, [, v]) => a + v, 0);

    out(`ingest: ${fmt(wall, 2)} s wall (indexer.start() until waitFor(${store.head}) resolved)`);
    out(`blocks/s: ${fmt(blocksS, 1)}`);
    out(`txs/s: ${fmt(txsS)}`);
    out(`rows/s: ${fmt(rowsS)} (${fmt(rows)} rows in ${TABLE_NAMES.length} tables, counted in ClickHouse; ${fmt(rows / c.txs, 1)} rows/tx)`);
    out(
      `parse-only: ${fmt(parseTxsS)} txs/s (JSON.parse alone of the same ${fmt(mb(parse.bytes), 1)} MB in one thread: ${fmt(parse.seconds, 2)} s, ` +
        `${fmt(mb(parse.bytes) / parse.seconds)} MB/s; median of ${passes} passes: ${parse.all.map((s) => s.toFixed(2)).join(', ')} s)`,
    );
    out(`ratio ingest/parse-only: ${ratio.toFixed(3)}`);
    out(
      `targets: ingest >= 0.5 x parse-only: ${ratio >= 0.5 ? 'MET' : 'NOT MET'} (${ratio.toFixed(3)}); ` +
        `>= 10,000 txs/s with traces: ${txsS >= 10_000 ? 'MET' : 'NOT MET'} (${fmt(txsS)})`,
    );
    out(
      `cpu during ingest: this process ${fmt(cpu.process, 1)} s = ${fmt(cpu.process / wall, 2)} cores; replay server ${fmt(srvCpu, 1)} s; ` +
        `whole machine ${fmt(cpu.machineBusy, 1)} of ${fmt(wall * machine.cores, 1)} core-s, of which other processes (not this benchmark) ${fmt(others, 1)} s`,
    );
    out(`cpu s by thread: ${listCpu(cpu.threads)}; by child process: ${listCpu(cpu.children)}`);
    out(
      `main thread: event loop utilization ${(elu.utilization * 100).toFixed(0)}%; ClickHouse inserts in flight ${fmt(ins.ms / 1000, 2)} s of ${fmt(wall, 2)} s ` +
        `(${fmt(ins.inserts)} inserts, ${fmt(mb(ins.bytes), 1)} MB RowBinary)`,
    );
    out(
      `worker tasks: ${fmt(cap.count)}; their own timings summed: fetch (HTTP + JSON.parse) ${fmt(cap.fetchMs / 1000, 2)} s, decode + encode ${fmt(cap.decodeMs / 1000, 2)} s ` +
        `(2 tasks per thread overlap, so these are not CPU seconds)`,
    );
    if (parts && decode) {
      out(`parts alone (same bytes; compare with ingest ${fmt(wall, 2)} s):`);
      out(`  JSON.parse, 1 thread: ${fmt(parse.seconds, 2)} s = ${fmt(parseTxsS)} txs/s`);
      out(`  decode + encode (parsed objects -> table bytes), 1 thread: ${fmt(decode.seconds, 2)} s = ${fmt(c.txs / decode.seconds)} txs/s`);
      out(`  worker pool (HTTP + parse + decode + encode, no database), ${p.threads} threads: ${fmt(parts.workersS, 2)} s = ${fmt(c.txs / parts.workersS)} txs/s; cpu s: ${parts.workersCpu}`);
      out(`  ClickHouse inserts (the same ${fmt(mb(ins.bytes), 1)} MB, groups of ${INSERT_GROUP} ranges as the indexer commits them, in order): ${fmt(parts.insertsS, 2)} s = ${fmt(c.txs / parts.insertsS)} txs/s, ${fmt(rows / parts.insertsS)} rows/s; cpu s: ${parts.insertsCpu}`);
      // What the ratio target allows: ingest >= 0.5 x parse-only with `cores` cores fully used
      // means at most 2 x cores x (JSON.parse CPU per tx) of CPU per tx for everything.
      const us = (s: number) => (s / c.txs) * 1e6;
      const budget = 2 * machine.cores * us(parse.seconds);
      const floor = us(parse.seconds) + us(parts.insertsCpuS);
      out(
        `  0.5 x parse-only allows ${fmt(budget, 1)} µs of CPU per tx on ${machine.cores} cores for the whole ingest; JSON.parse (${fmt(us(parse.seconds), 1)}) + ` +
          `ClickHouse inserts alone (${fmt(us(parts.insertsCpuS), 1)}, process CPU) already take ${fmt(floor, 1)} µs/tx, ` +
          `decode + encode alone ${fmt(us(decode.seconds), 1)} µs/tx more`,
      );
    }
    out(`replay server: ${fmt(srv1.httpRequests - srv0.httpRequests)} HTTP requests, ${fmt(srv1.calls - srv0.calls)} calls, ${fmt(mb(srv1.bytesOut - srv0.bytesOut), 1)} MB sent`);
    out(`stored rows per table: ${TABLE_NAMES.map((t) => `${t} ${stored[t]}`).join(', ')}`);
    out(`row bytes per table (MB): ${TABLE_NAMES.map((t) => `${t} ${fmt(mb(cap.bytesPerTable[t]), 1)}`).join(', ')}`);
    out(failure ? `verification FAILED: ${failure}` : 'verified: stored blocks, txs, logs, token transfers, internal txs, withdrawals, failed txs and rows equal the generated chain');
    out(`load average after: ${loadavg()}`);
    out(
      'json: ' +
        JSON.stringify({
          date: new Date().toISOString(),
          machine,
          variant,
          blocks: blocks + 1,
          txs: c.txs,
          logs: c.logs,
          rows,
          wallSeconds: wall,
          blocksPerS: blocksS,
          txsPerS: txsS,
          rowsPerS: rowsS,
          parseOnlyTxsPerS: parseTxsS,
          parseOnlyMBperS: mb(parse.bytes) / parse.seconds,
          ratio,
          fetchedMB: mb(fetchedBytes),
          cpu: { process: cpu.process, server: srvCpu, machineBusy: cpu.machineBusy, others, threads: Object.fromEntries(cpu.threads) },
          mainThreadElu: elu.utilization,
          insertInFlightS: ins.ms / 1000,
          parts: parts && decode ? { parseS: parse.seconds, decodeS: decode.seconds, workersS: parts.workersS, insertsS: parts.insertsS } : undefined,
          verified: !failure,
        }),
    );
  } catch (e) {
    failure = (e as Error).stack ?? String(e);
    process.stderr.write(`bench-ingest failed: ${failure}\n`);
  } finally {
    await indexer?.stop().catch(() => undefined);
    await pool?.destroy().catch(() => undefined);
    await stores?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    if (keep) process.stderr.write(`kept ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
  return failure ? 1 : 0;
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  main().then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`bench-ingest failed: ${e.stack ?? e.message}\n`);
      process.exit(1);
    },
  );
}
