// `make bench-ingest`: the real indexer (worker pool, embedded ClickHouse and PostgreSQL) indexes
// a synthetic mainnet-like chain (bench/synth.ts) from a replay JSON-RPC server that answers
// from pre-serialized bytes in its own process (bench/replay-server.ts). The indexer commits
// each group's point rows to PostgreSQL with its checkpoint (issue #30), so the figures include
// them. Prints blocks/s, txs/s, rows/s; then, unless BENCH_BREAKDOWN=0, each part of the pipeline
// alone (bench/parts.ts) and the CPU per thread, to say where the time goes; the storage each
// table takes per transaction after merges; and the targets (bench/report.ts) beside their
// ceilings from the same run: ingest >= 0.85 x the pipeline bound of its own parts (worker pool,
// ClickHouse inserts and PostgreSQL point inserts sharing the cores: 1/(1/pool + 1/inserts +
// 1/point inserts)), >= 20,000 txs/s with traces, <= 1.5 KB stored per transaction,
// and with several sizes, the larger runs keeping the smallest's rate. JSON.parse alone is
// printed beside it for information. Verifies that what is stored equals what was generated;
// exits 1 when it does not or anything fails.
//
// Environment: BENCH_BLOCKS (default 300, about 51,000 txs; a comma list such as 300,1200,4800
// runs each size in turn from empty stores and prints the growth), BENCH_VARIANT (geth =
// debug_traceBlockByNumber with callTracer, erigon = trace_block), BENCH_WORKERS (0 = CPUs),
// BENCH_BATCH_BLOCKS (20), BENCH_RPC_CONCURRENCY (8), BENCH_SEED, BENCH_PARSE_PASSES (3),
// BENCH_PARTS_PASSES (3: the pool alone, the inserts alone and the point inserts alone,
// alternating; the median counts),
// BENCH_BREAKDOWN (1), BENCH_KEEP=1 keeps the temporary directory, BENCH_DERIVED=1 runs the
// derived-data lanes and the watchlist matcher beside the indexer (their cost on block ingest).
// BENCH_RPC_URL=<node> with BENCH_FROM and BENCH_TO indexes that node's blocks FROM..TO instead
// of the synthetic chain, after fetching each method alone from the node (bench/node-rate.ts)
// to print the node's own rate beside the indexer's. BENCH_PROCESSES=1,2 runs bench/ingest-multi.ts
// instead: 1 and 2 `explorer indexer` processes sharing one store, beside one alone.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createIndexer, type BlockEvent, type Indexer } from '../src/indexer/indexer.js';
import { createDerived, type Derived } from '../src/derived/scheduler.js';
import { WatchlistMatcher } from '../src/notify/watchlist.js';
import { createIngestPool, type IngestPool } from '../src/indexer/pool.js';
import { openStores, migrateAll, type Stores } from '../src/storage/stores.js';
import type { ClickHouseStore } from '../src/storage/clickhouse/store.js';
import { TABLE_NAMES, type TableName } from '../src/chain/clickhouse-rows.js';
import { toHex } from '../src/chain/hex.js';
import { setLogLevel, type Logger } from '../src/log.js';
import type { IngestResult, IngestTask } from '../workers/ingest.js';
import { buildResponseStore, saveResponseStore, type BlockMethod, type ResponseStore } from './responses.js';
import { forkReplayServer, type ReplayServer } from './replay-server.js';
import { INSERT_GROUP, decodeOnly, fetchedKeys, insertsOnly, parseOnly, pointInsertsOnly, traceMethodOf, workersOnly, type Variant } from './parts.js';
import { CpuAccount, listCpu, loadavg, machineInfo, threadCpu, type MachineInfo, type ProcCpu } from './sysinfo.js';
import { nodeBound, nodeRates, type MethodRate } from './node-rate.js';
import { evaluate, ingestTargets, medianBy, pipelineBound, redactUrl, targetLine } from './report.js';
import { engineNice, engineNiceLine, envInt, envList, runIfMain } from './run-main.js';

/** chDB's threads at the explorer's CLICKHOUSE_ENGINE_NICE. */
const ENGINE_NICE = engineNice();

/** " (median of 3 passes: 2.41, 2.37, 2.52 s)" after a part's figure (nothing for one pass). */
const passesNote = (all: number[]): string => (all.length > 1 ? ` (median of ${all.length} passes: ${all.map((x) => x.toFixed(2)).join(', ')} s)` : '');
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
  results: Pick<IngestResult, 'tables' | 'points'>[];
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
        cap.results.push({ tables: r.tables, points: r.points });
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

interface Settings {
  variant: Variant;
  workers: number;
  batchBlocks: number;
  concurrency: number;
  seed: number;
  passes: number;
  /** Passes of the pool alone, the inserts alone and the point inserts alone (BENCH_PARTS_PASSES); the median counts. */
  partsPasses: number;
  breakdown: boolean;
  keep: boolean;
  withDerived: boolean;
  machine: MachineInfo;
  /** An operator's node (BENCH_RPC_URL) and its range, instead of the synthetic chain. */
  node?: { url: string; from: number; to: number };
}

/** What one run gives the summary, the targets and the json line. */
interface RunResult {
  failure?: string;
  /** Blocks asked for (BENCH_BLOCKS, or the node's range), as the targets name the run. */
  blocks: number;
  txs: number;
  txsPerS: number;
  /** Pipeline bound of the parts (NaN without the breakdown). */
  boundTxsPerS: number;
  storageBytesPerTx: number;
  nodeBlocksPerS?: number;
  figures: Record<string, unknown>;
}

/** Compressed bytes of active parts per table after OPTIMIZE ... FINAL of every MergeTree table. */
async function storageAfterMerges(ch: ClickHouseStore): Promise<{ table: string; rows: number; parts: number; compressed: number; uncompressed: number }[]> {
  const tables = await ch.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = '${ch.database}' AND engine LIKE '%MergeTree%'`);
  for (const t of tables) await ch.command(`OPTIMIZE TABLE ${t.name} FINAL`);
  // The bytes count only if the active parts hold each table's rows exactly once (no part left
  // behind by the merge, none counted twice): checked against count(), a few retries, else it fails.
  let mismatch = '';
  for (let attempt = 0; attempt < 10; attempt++) {
    const parts = await ch.query<{ table: string; rows: string; parts: string; c: string; u: string }>(
      `SELECT table, sum(rows) AS rows, count() AS parts, sum(data_compressed_bytes) AS c, sum(data_uncompressed_bytes) AS u FROM system.parts ` +
        `WHERE database = '${ch.database}' AND active GROUP BY table ORDER BY c DESC`,
    );
    const out = parts.map((p) => ({ table: p.table, rows: Number(p.rows), parts: Number(p.parts), compressed: Number(p.c), uncompressed: Number(p.u) }));
    mismatch = '';
    for (const t of out) {
      const n = await count(ch, `SELECT count() AS n FROM ${t.table}`);
      if (n !== t.rows) mismatch += ` ${t.table}: ${t.rows} rows in active parts, ${n} counted;`;
    }
    if (!mismatch) return out;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`storage: system.parts disagrees with the tables' counts:${mismatch}`);
}

async function runOnce(blocksWanted: number, s: Settings, out: (line: string) => void): Promise<RunResult> {
  const { variant, workers, batchBlocks, concurrency, seed, passes, partsPasses, breakdown, keep, withDerived, machine, node } = s;
  const traceM = traceMethodOf(variant);
  // 1. The chain, serialized once, before anything is timed (or the operator's node, measured alone first).
  let store: ResponseStore | undefined;
  let keys: string[] = [];
  let fetchedBytes = 0;
  let nodeRate: { rates: MethodRate[]; bound: number } | undefined;
  const firstBlock = node ? node.from : 0;
  const head = node ? node.to : blocksWanted;
  const blocks = node ? node.to - node.from + 1 : blocksWanted + 1;
  if (!node) {
    const g0 = performance.now();
    store = buildResponseStore({ blocks: blocksWanted, seed }, { traces: variant === 'geth' ? 'callTracer' : 'parity' });
    const c = store.counts;
    const genS = (performance.now() - g0) / 1000;
    out(
      `chain: ${fmt(blocksWanted)} blocks + genesis, ${fmt(c.txs)} txs (${fmt(c.txs / blocksWanted, 1)}/block), ${fmt(c.logs)} logs (${fmt(c.logs / blocksWanted, 1)}/block), ` +
        `${fmt(c.tokenTransfers)} token transfers, ${fmt(c.internalTxs)} internal txs, ${fmt(c.withdrawals)} withdrawals, ${fmt(c.failedTxs)} failed txs ` +
        `(generated and serialized in ${genS.toFixed(1)} s)`,
    );
    out(`tx mix: ${Object.entries(c.kinds).map(([k, v]) => `${k} ${((100 * v) / c.txs).toFixed(1)}%`).join(', ')}`);
    keys = fetchedKeys(store.head, variant);
    const per = (m: BlockMethod) => store!.bytesPerMethod[m];
    fetchedBytes = per('eth_getBlockByNumber/full') + per('eth_getBlockReceipts') + per(traceM);
    out(
      `responses fetched: ${fmt(mb(fetchedBytes), 1)} MB (blocks ${fmt(mb(per('eth_getBlockByNumber/full')), 1)}, receipts ${fmt(mb(per('eth_getBlockReceipts')), 1)}, ` +
        `${traceM} ${fmt(mb(per(traceM)), 1)}), ${fmt(fetchedBytes / c.txs)} bytes/tx`,
    );
  } else {
    out(`chain: the node at ${redactUrl(node.url)}, blocks ${fmt(node.from)}..${fmt(node.to)} (${fmt(blocks)} blocks)`);
    const r = await nodeRates(node.url, variant, node.from, node.to, concurrency);
    nodeRate = { rates: r.rates, bound: nodeBound(r.rates) };
    fetchedBytes = r.rates.reduce((a, x) => a + x.bytes, 0);
    out(`node capabilities: receipts ${r.caps.receipts}, traces ${r.caps.traces}${r.caps.traceMethod ? ` (${r.caps.traceMethod})` : ''}${r.caps.notes.length ? `; ${r.caps.notes.join('; ')}` : ''}`);
    out(
      `node alone (each method by itself, ${concurrency} requests in flight, bodies read, not parsed; run first, so the ingest finds the node's caches warm): ` +
        r.rates.map((x) => `${x.method} ${fmt(x.blocksPerS, 1)} blocks/s (${fmt(mb(x.bytes), 1)} MB in ${fmt(x.seconds, 2)} s${x.errors ? `, ${x.errors} errors` : ''})`).join(', ') +
        `; all of them per block, one after another: ${fmt(nodeRate.bound, 1)} blocks/s`,
    );
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-'));
  let server: (ReplayServer & { pid: number }) | undefined;
  let stores: Stores | undefined;
  let pool: IngestPool | undefined;
  let indexer: Indexer | undefined;
  let failure: string | undefined;
  // Targets name a run by the size asked for (BENCH_BLOCKS, genesis not counted) or the node's range.
  const result: RunResult = { blocks: node ? blocks : blocksWanted, txs: 0, txsPerS: NaN, boundTxsPerS: NaN, storageBytesPerTx: NaN, figures: {} };
  try {
    let url = node?.url ?? '';
    let srvPid = -1;
    if (store) {
      const storePath = path.join(dir, 'responses.bin');
      saveResponseStore(store, storePath);
      server = await forkReplayServer(storePath);
      srvPid = server.pid;
      url = server.url;
    }
    stores = await openStores({ dataDir: path.join(dir, 'data'), clickhouseDatabase: 'explorer', clickhouseEngineNice: ENGINE_NICE });
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
      rpc: { url, variant, concurrency, maxRetries: 2 },
      firstBlock,
      batchBlocks,
      pool: p,
      pollMs: 200,
      pending: false,
      log,
    }));
    if (node) {
      // The node's head is capped at BENCH_TO on the indexer's own client (its workers fetch
      // blocks by number), so it indexes FROM..TO only and the rates, parts and counts agree.
      const rpc = ix.rpc as { request: <T>(method: string, params?: unknown[]) => Promise<T> };
      const request = rpc.request.bind(rpc);
      rpc.request = async <T,>(method: string, params?: unknown[]): Promise<T> => {
        const r = await request<T>(method, params);
        return (method === 'eth_blockNumber' && Number(r) > node.to ? toHex(node.to) : r) as T;
      };
    }
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
        (server ? `replay server in its own process (pid ${srvPid}) sharing the same ${machine.cores} cores` : `the node at ${redactUrl(url)}`) +
        '; embedded chDB + PostgreSQL',
    );

    // 2. Timed: from start() until the head is committed.
    const srv0 = server ? await server.stats() : undefined;
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
    await Promise.race([ix.waitFor(head, Math.max(600_000, blocks * 2_000)), failed]);
    const wall = (performance.now() - t0) / 1000;
    const elu = performance.eventLoopUtilization(elu0);
    const cpu = acct.end();
    const srv1 = server ? await server.stats() : undefined;
    await ix.stop();
    await derived?.stop();
    await matcher?.stop();
    if (derived) out(`derived lanes: on, beside the indexer (items done during ingest: ${JSON.stringify(derived.counts)}; ms in steps: ${JSON.stringify(Object.fromEntries(Object.entries(derived.stepMs).map(([k, v]) => [k, Math.round(v)])))})`);
    else out('derived lanes: off (BENCH_DERIVED=1 runs them beside the indexer)');
    indexer = undefined;
    cap.on = false;

    // 3. What is stored, counted in ClickHouse, against what was generated (or, against a node,
    //    that the range is there).
    const inRange = (col: string) => (node ? ` WHERE ${col} BETWEEN ${node.from} AND ${node.to}` : '');
    const stored = Object.fromEntries(TABLE_NAMES.map((t) => [t, 0])) as Record<TableName, number>;
    for (const t of TABLE_NAMES) stored[t] = await count(stores.ch, `SELECT count() AS n FROM ${t}`);
    const rows = TABLE_NAMES.reduce((a, t) => a + stored[t], 0);
    const txs = store ? store.counts.txs : await count(stores.ch, `SELECT count() AS n FROM transactions${inRange('block_number')}`);
    if (store) {
      const c = store.counts;
      const checks: [string, number, number][] = [
        ['blocks', stored.blocks, c.blocks],
        ['transactions', stored.transactions, c.txs],
        ['logs', stored.logs, c.logs],
        ['token transfers', stored.token_transfers, c.tokenTransfers],
        ['internal transactions', await count(stores.ch, 'SELECT count() AS n FROM internal_transactions WHERE trace_index > 0'), c.internalTxs],
        ['withdrawals', stored.withdrawals, c.withdrawals],
        ['failed transactions', await count(stores.ch, 'SELECT count() AS n FROM transactions WHERE status = 0'), c.failedTxs],
        ['rows (stored vs produced by the workers)', rows, TABLE_NAMES.reduce((a, t) => a + produced[t], 0)],
        ['point rows of transactions (PostgreSQL)', Number((await stores.pg.query<{ n: string }>('SELECT count(*) AS n FROM point_transactions'))[0]?.n), c.txs],
        ['point rows of blocks (PostgreSQL)', Number((await stores.pg.query<{ n: string }>('SELECT count(*) AS n FROM point_blocks'))[0]?.n), c.blocks],
      ];
      const bad = checks.filter(([, got, want]) => got !== want);
      if (bad.length) failure = `stored counts differ from the generated chain: ${bad.map(([n, g, w]) => `${n} ${g} != ${w}`).join('; ')}`;
    } else {
      const got = await count(stores.ch, `SELECT count() AS n FROM blocks${inRange('number')}`);
      if (got !== blocks) failure = `stored ${got} blocks of the ${blocks} in ${node!.from}..${node!.to}`;
    }
    if (firstError) failure ??= `the indexer logged an error: ${firstError}`;

    // 4. Storage: every MergeTree table merged, compressed bytes of its active parts per tx.
    const storage = await storageAfterMerges(stores.ch);
    const storedBytes = storage.reduce((a, x) => a + x.compressed, 0);
    const storageTxs = txs;
    result.storageBytesPerTx = storedBytes / storageTxs;

    // 5. Optional: the pool alone and the inserts alone, same tasks and bytes.
    // Each part runs BENCH_PARTS_PASSES times, alternating, and the median pass of each counts: a
    // single pass of 1-3 s moved the bound by up to a third between back-to-back runs.
    type Part = { s: number; all: number[]; cpu: string };
    let parts: { workers: Part; inserts: Part; points: Part } | undefined;
    if (breakdown && !failure) {
      const passes = { workers: [] as { s: number; cpu: string }[], inserts: [] as { s: number; cpu: string }[], points: [] as { s: number; cpu: string }[] };
      const timed = async (into: { s: number; cpu: string }[], run: () => Promise<number>) => {
        const a = new CpuAccount(threadLabel, childLabel);
        const s = await run();
        const c = a.end();
        into.push({ s, cpu: listCpu([...c.threads, ...c.children]) });
      };
      const st = stores;
      for (let i = 0; i < partsPasses; i++) {
        await timed(passes.workers, () => workersOnly(p, cap.tasks));
        await timed(passes.inserts, () => insertsOnly(st.ch, cap.results));
        await timed(passes.points, () => pointInsertsOnly(st.pg, cap.results));
      }
      const part = (xs: { s: number; cpu: string }[]): Part => {
        const mid = medianBy(xs, (x) => x.s);
        return { s: mid.s, all: xs.map((x) => x.s), cpu: mid.cpu };
      };
      parts = { workers: part(passes.workers), inserts: part(passes.inserts), points: part(passes.points) };
    }
    cap.results.length = 0;
    await p.destroy();
    pool = undefined;
    await stores.close();
    stores = undefined;
    await server?.close();
    server = undefined;

    // 6. JSON.parse alone over the same bytes, this process, everything else stopped (the
    //    synthetic chain only: a node's bytes are not kept).
    const parse = store ? parseOnly(store, keys, passes) : undefined;
    const decode = breakdown && store ? decodeOnly(store, variant, batchBlocks, 1) : undefined;

    const blocksS = blocks / wall;
    const txsS = txs / wall;
    const rowsS = rows / wall;
    const parseTxsS = parse ? txs / parse.seconds : NaN;
    const ratio = txsS / parseTxsS;
    const srvCpu = srv0 && srv1 ? (srv1.cpuUserUs + srv1.cpuSystemUs - srv0.cpuUserUs - srv0.cpuSystemUs) / 1e6 : 0;
    const others = cpu.machineBusy - cpu.process - cpu.children.reduce((a, [, v]) => a + v, 0);
    const poolTxsS = parts ? txs / parts.workers.s : NaN;
    const insertsTxsS = parts ? txs / parts.inserts.s : NaN;
    const pointsTxsS = parts ? txs / parts.points.s : NaN;
    const bound = pipelineBound(poolTxsS, insertsTxsS, pointsTxsS);

    out(`ingest: ${fmt(wall, 2)} s wall (indexer.start() until waitFor(${head}) resolved)`);
    out(`blocks/s: ${fmt(blocksS, 1)}`);
    out(`txs/s: ${fmt(txsS)}`);
    out(`rows/s: ${fmt(rowsS)} (${fmt(rows)} rows in ${TABLE_NAMES.length} tables, counted in ClickHouse; ${fmt(rows / txs, 1)} rows/tx)`);
    if (nodeRate) {
      out(
        `node vs indexer: the node alone serves ${fmt(nodeRate.bound, 1)} blocks/s (every method once per block, one after another), the indexer ingested ${fmt(blocksS, 1)} blocks/s ` +
          `= ${fmt(blocksS / nodeRate.bound, 2)} x the node's rate; ${blocksS >= 0.9 * nodeRate.bound ? 'the node is the limit' : 'the indexer is the limit'}`,
      );
    }
    if (parse) {
      out(
        `parse-only: ${fmt(parseTxsS)} txs/s (JSON.parse alone of the same ${fmt(mb(parse.bytes), 1)} MB in one thread: ${fmt(parse.seconds, 2)} s, ` +
          `${fmt(mb(parse.bytes) / parse.seconds)} MB/s; median of ${passes} passes: ${parse.all.map((x) => x.toFixed(2)).join(', ')} s)`,
      );
      out(`ratio ingest/parse-only: ${ratio.toFixed(3)} (information, not a target)`);
    }
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
    if (parts) {
      out(`parts alone (same bytes; compare with ingest ${fmt(wall, 2)} s):`);
      if (parse) out(`  JSON.parse, 1 thread: ${fmt(parse.seconds, 2)} s = ${fmt(parseTxsS)} txs/s`);
      if (decode) out(`  decode + encode (parsed objects -> table bytes), 1 thread: ${fmt(decode.seconds, 2)} s = ${fmt(txs / decode.seconds)} txs/s`);
      out(`  worker pool (HTTP + parse + decode + encode, no database), ${p.threads} threads: ${fmt(parts.workers.s, 2)} s = ${fmt(poolTxsS)} txs/s${passesNote(parts.workers.all)}; cpu s: ${parts.workers.cpu}`);
      out(`  ClickHouse inserts (the same ${fmt(mb(ins.bytes), 1)} MB, groups of ${INSERT_GROUP} ranges as the indexer commits them, in order): ${fmt(parts.inserts.s, 2)} s = ${fmt(insertsTxsS)} txs/s, ${fmt(rows / parts.inserts.s)} rows/s${passesNote(parts.inserts.all)}; cpu s: ${parts.inserts.cpu}`);
      out(
        `  PostgreSQL point inserts (the same ranges' point rows, groups of ${INSERT_GROUP} ranges in one transaction each, in order): ` +
          `${fmt(parts.points.s, 2)} s = ${fmt(pointsTxsS)} txs/s${passesNote(parts.points.all)}; cpu s: ${parts.points.cpu}`,
      );
      // The stages share the same cores, so each transaction costs the pool's time and each
      // store's inserts' time one after the other: the pipeline cannot beat 1/(1/pool + 1/inserts + 1/point inserts).
      out(`  pipeline bound of these parts sharing ${machine.cores} cores, 1/(1/pool + 1/inserts + 1/point inserts): ${fmt(bound)} txs/s; ingest reached ${fmt(txsS / bound, 2)} of it`);
    }
    if (srv0 && srv1) out(`replay server: ${fmt(srv1.httpRequests - srv0.httpRequests)} HTTP requests, ${fmt(srv1.calls - srv0.calls)} calls, ${fmt(mb(srv1.bytesOut - srv0.bytesOut), 1)} MB sent`);
    out(`stored rows per table: ${TABLE_NAMES.map((t) => `${t} ${stored[t]}`).join(', ')}`);
    out(`row bytes per table (MB): ${TABLE_NAMES.map((t) => `${t} ${fmt(mb(cap.bytesPerTable[t]), 1)}`).join(', ')}`);
    out(
      `storage after OPTIMIZE ... FINAL, compressed bytes of active parts per transaction (system.parts): ` +
        storage.map((x) => `${x.table} ${fmt(x.compressed / storageTxs)}`).join(', ') +
        `; total ${fmt(storedBytes / storageTxs)} bytes/tx (${fmt(mb(storedBytes), 1)} MB compressed, ${fmt(mb(storage.reduce((a, x) => a + x.uncompressed, 0)), 1)} MB uncompressed)`,
    );
    out(
      failure
        ? `verification FAILED: ${failure}`
        : store
          ? 'verified: stored blocks, txs, logs, token transfers, internal txs, withdrawals, failed txs, rows and the point rows of blocks and txs equal the generated chain'
          : `verified: every block of ${node!.from}..${node!.to} stored, no indexer error (a node's chain has no generated counts to compare)`,
    );
    Object.assign(result, { failure, txs, txsPerS: txsS, boundTxsPerS: bound, nodeBlocksPerS: nodeRate?.bound });
    result.figures = {
      variant,
      source: node ? { rpcUrl: redactUrl(node.url), from: node.from, to: node.to } : 'synthetic',
      blocks,
      txs,
      logs: store?.counts.logs ?? stored.logs,
      rows,
      wallSeconds: wall,
      blocksPerS: blocksS,
      txsPerS: txsS,
      rowsPerS: rowsS,
      parseOnlyTxsPerS: parse ? parseTxsS : undefined,
      parseOnlyMBperS: parse ? mb(parse.bytes) / parse.seconds : undefined,
      ratio: parse ? ratio : undefined,
      fetchedMB: mb(fetchedBytes),
      cpu: { process: cpu.process, server: srvCpu, machineBusy: cpu.machineBusy, others, threads: Object.fromEntries(cpu.threads) },
      mainThreadElu: elu.utilization,
      insertInFlightS: ins.ms / 1000,
      parts: parts
        ? {
            parseS: parse?.seconds,
            decodeS: decode?.seconds,
            workersS: parts.workers.s,
            workersAllS: parts.workers.all,
            insertsS: parts.inserts.s,
            insertsAllS: parts.inserts.all,
            pointInsertsS: parts.points.s,
            pointInsertsAllS: parts.points.all,
            poolTxsPerS: poolTxsS,
            insertsTxsPerS: insertsTxsS,
            pointInsertsTxsPerS: pointsTxsS,
            boundTxsPerS: bound,
          }
        : undefined,
      storage: { bytesPerTx: storedBytes / storageTxs, tables: storage.map((x) => ({ ...x, bytesPerTx: x.compressed / storageTxs })) },
      node: nodeRate ? { rates: nodeRate.rates, blocksPerS: nodeRate.bound } : undefined,
      verified: !failure,
    };
  } catch (e) {
    failure = (e as Error).stack ?? String(e);
    result.failure = failure;
    process.stderr.write(`bench-ingest failed: ${failure}\n`);
  } finally {
    await indexer?.stop().catch(() => undefined);
    await pool?.destroy().catch(() => undefined);
    await stores?.close().catch(() => undefined);
    await server?.close().catch(() => undefined);
    if (keep) process.stderr.write(`kept ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

export async function main(): Promise<number> {
  // BENCH_PROCESSES=1,2: several `explorer indexer` processes sharing one store (bench/ingest-multi.ts).
  if (process.env.BENCH_PROCESSES) return (await import('./ingest-multi.js')).main();
  const node = process.env.BENCH_RPC_URL
    ? { url: process.env.BENCH_RPC_URL, from: envInt('BENCH_FROM', -1, 0), to: envInt('BENCH_TO', -1, 0) }
    : undefined;
  if (node && (node.from < 0 || node.to < node.from)) throw new Error('BENCH_RPC_URL needs BENCH_FROM and BENCH_TO (integers, FROM <= TO): the range of blocks to index');
  const sizes = node ? [node.to - node.from + 1] : envList('BENCH_BLOCKS', [300]);
  const variant = (process.env.BENCH_VARIANT || 'geth') as Variant;
  if (variant !== 'geth' && variant !== 'erigon') throw new Error(`BENCH_VARIANT must be geth or erigon, got ${JSON.stringify(variant)}`);
  const machine = machineInfo();
  const s: Settings = {
    variant,
    workers: envInt('BENCH_WORKERS', 0),
    batchBlocks: envInt('BENCH_BATCH_BLOCKS', 20, 1),
    concurrency: envInt('BENCH_RPC_CONCURRENCY', 8, 1),
    seed: envInt('BENCH_SEED', 20_240_601),
    passes: envInt('BENCH_PARSE_PASSES', 3, 1),
    partsPasses: envInt('BENCH_PARTS_PASSES', 3, 1),
    breakdown: process.env.BENCH_BREAKDOWN !== '0',
    keep: process.env.BENCH_KEEP === '1',
    withDerived: process.env.BENCH_DERIVED === '1',
    machine,
    node,
  };
  setLogLevel('warn');
  const out = (line: string) => process.stdout.write(line + '\n');

  out('ingest benchmark (make bench-ingest)');
  out(`date: ${new Date().toISOString()}`);
  out(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memGiB} GiB RAM, ${machine.os}, node ${machine.node}`);
  out(`load average before: ${loadavg()}`);
  out(engineNiceLine(ENGINE_NICE));

  const runs: RunResult[] = [];
  for (const n of sizes) {
    if (sizes.length > 1) out(`== ${fmt(n)} blocks`);
    runs.push(await runOnce(n, s, out));
  }
  const failure = runs.find((r) => r.failure)?.failure;
  if (sizes.length > 1) {
    const first = runs[0]!;
    out(`growth: ${runs.map((r) => `${fmt(r.blocks)} blocks ${fmt(r.txsPerS)} txs/s (${fmt(r.txsPerS / first.txsPerS, 2)} x)`).join(', ')}`);
  }
  const targets = failure ? [] : ingestTargets(runs, { synthetic: !node, breakdown: s.breakdown, variant });
  const evaluated = targets.map(evaluate);
  out(`targets: ${evaluated.length ? evaluated.map((e) => `${e.name}: ${e.verdict}`).join('; ') : 'not evaluated (the run failed)'}`);
  for (const e of evaluated) out(targetLine(e));
  out(`load average after: ${loadavg()}`);
  // One json line: the first run's figures at the top (as before sizes could be listed), every run, the targets.
  out(
    'json: ' +
      JSON.stringify({
        date: new Date().toISOString(),
        machine,
        ...runs[0]!.figures,
        runs: runs.length > 1 ? runs.map((r) => r.figures) : undefined,
        targets: evaluated,
        verified: !failure,
      }),
  );
  return failure ? 1 : 0;
}

runIfMain(import.meta.url, 'bench-ingest', main);
