// `make bench-ingest-multi` (issue #22): txs/s of 1 and 2 `explorer indexer` processes sharing one
// store (INDEXER_CLAIM_RANGES > 0), beside one process on today's single-process path
// (INDEXER_CLAIM_RANGES=0) through the same kind of store servers, all in one run over the same
// synthetic chain (bench/synth.ts, served by bench/replay-server.ts). The embedded chDB allows one
// process per data directory, so the store is a server: Debian's PostgreSQL and chDB behind
// ClickHouse's HTTP interface (bench/store-servers.ts), both fresh and empty for each run, all on
// the same cores as the indexers: the figures measure what the shared path and a second process
// cost here, not what a cluster of machines gains. Each run is timed from the first process's
// start until PostgreSQL's checkpoint (indexer_checkpoints, lane 'blocks') reaches the head; then
// the stored counts must equal the generated chain, else it exits 1.
//
// Environment: BENCH_BLOCKS (300), BENCH_PROCESSES (1,2: the shared runs, one per process
// count), BENCH_CLAIM_RANGES (4: INDEXER_CLAIM_RANGES of the shared runs, the ranges per group
// insert of the in-process catch-up), BENCH_TOTAL_WORKERS (CPUs: worker threads of all processes
// together, split evenly, at least 1 each), BENCH_BATCH_BLOCKS (20), BENCH_SEED, BENCH_KEEP=1
// keeps the temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openStores, type Stores } from '../src/storage/stores.js';
import { IndexerSession } from '../src/storage/postgres/backfill-ranges.js';
import { SAFETY_DEPTH } from '../src/indexer/shared-catchup.js';
import { buildResponseStore, saveResponseStore, type ResponseStore } from './responses.js';
import { forkReplayServer, type ReplayServer } from './replay-server.js';
import { debianPostgresBin, startChdbHttp, startPostgres, type StoreServer } from './store-servers.js';
import { CpuAccount, listCpu, loadavg, machineInfo, type MachineInfo } from './sysinfo.js';
import { envInt, envList, runIfMain } from './run-main.js';

/** The compiled CLI beside this compiled file (build/bench -> build/src/bin), as `make` runs it. */
const CLI = fileURLToPath(new URL('../src/bin/explorer.js', import.meta.url));

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** One measured configuration. */
export interface Mode {
  processes: number;
  claimRanges: number;
  workersEach: number;
}

export interface RunFigures extends Mode {
  label: string;
  wallSeconds: number;
  blocksPerS: number;
  txsPerS: number;
  /** txs/s over the baseline's (1 process, INDEXER_CLAIM_RANGES=0). */
  vsBaseline: number;
  cpu: { total: number; usPerTx: number; indexers: number[]; postgres: number; chdbHttp: number; replayServer: number; machineBusy: number; others: number };
  verified: boolean;
}

const labelOf = (m: Mode) =>
  `${m.processes} process${m.processes > 1 ? 'es' : ''}, INDEXER_CLAIM_RANGES=${m.claimRanges}${m.claimRanges ? ' (shared catch-up)' : " (baseline: today's single-process path)"}, INDEXER_WORKERS=${m.workersEach}${m.processes > 1 ? ' each' : ''}`;

/** The baseline first, then one shared run per process count; worker threads split evenly. */
export function modes(processes: number[], claimRanges: number, totalWorkers: number): Mode[] {
  const each = (n: number) => Math.max(1, Math.round(totalWorkers / n));
  return [{ processes: 1, claimRanges: 0, workersEach: each(1) }, ...processes.map((n) => ({ processes: n, claimRanges, workersEach: each(n) }))];
}

/** An `explorer indexer` process: its output kept (the tail goes into a failure's message). */
interface Indexer {
  child: ChildProcess;
  pid: number;
  output(): string;
}

function startIndexer(env: Record<string, string>): Indexer {
  // Nothing of the caller's settings leaks in: the benchmark names every one it means.
  const child = spawn(process.execPath, [CLI, 'indexer'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, pid: child.pid!, output: () => out };
}

/** SIGTERM (a clean stop), SIGKILL after 10 s; by pid only. */
function stopIndexer(ix: Indexer): Promise<void> {
  const c = ix.child;
  if (c.exitCode !== null || c.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGTERM');
  const timer = setTimeout(() => c.kill('SIGKILL'), 10_000);
  return gone.finally(() => clearTimeout(timer));
}

const count = async (s: Stores, sql: string) => Number((await s.ch.query<{ n: string }>(sql))[0]?.n ?? 0);

const checkpointOf = async (s: Stores): Promise<number> =>
  Number((await s.pg.query<{ block_number: string }>("SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks'"))[0]?.block_number ?? -1);

interface Shared {
  chain: ResponseStore;
  replay: ReplayServer & { pid: number };
  pgBin: string;
  batchBlocks: number;
  machine: MachineInfo;
  out: (line: string) => void;
}

/** One configuration from empty stores: timed ingest to the head, CPU, verification. */
async function runMode(mode: Mode, sh: Shared, dir: string): Promise<Omit<RunFigures, 'vsBaseline'> & { failure?: string }> {
  const { chain, replay, out } = sh;
  const head = chain.head;
  const label = labelOf(mode);
  let pg: StoreServer | undefined;
  let ch: StoreServer | undefined;
  let stores: Stores | undefined;
  let presence: IndexerSession | undefined;
  const procs: Indexer[] = [];
  try {
    [pg, ch] = await Promise.all([startPostgres(sh.pgBin, path.join(dir, 'pg')), startChdbHttp(path.join(dir, 'chdb'))]);
    const env = (name: string): Record<string, string> => ({
      DATABASE_URL: pg!.url,
      CLICKHOUSE_URL: ch!.url,
      DATA_DIR: path.join(dir, `explorer-${name}`),
      ETHEREUM_JSONRPC_HTTP_URL: replay.url,
      ETHEREUM_JSONRPC_VARIANT: 'geth',
      INDEXER_BATCH_BLOCKS: String(sh.batchBlocks),
      INDEXER_WORKERS: String(mode.workersEach),
      INDEXER_CLAIM_RANGES: String(mode.claimRanges),
      // info: the leader's "planned catch-up ranges" lines say how much went through the ranges.
      LOG_LEVEL: 'info',
    });
    const mig = spawnSync(process.execPath, [CLI, 'migrate'], { env: { PATH: process.env.PATH ?? '', ...env('migrate') }, encoding: 'utf8', timeout: 120_000 });
    if (mig.status !== 0) throw new Error(`explorer migrate failed (${mig.status}): ${mig.stderr.slice(-2000)}`);
    stores = await openStores({ databaseUrl: pg.url, clickhouseUrl: ch.url, dataDir: path.join(dir, 'bench-client'), clickhouseDatabase: 'explorer' });
    if (mode.claimRanges) {
      // A leader that sees no other indexer connected catches up in-process, the fastest path:
      // this session stands for one more process from the start, so that one process alone
      // measures the shared path (plan, claim, store, advance), and two share from the first
      // block whichever of them starts first.
      presence = new IndexerSession(stores.pg, 'bench-presence');
      await presence.connect();
    }

    // Timed: from the first process's start until the checkpoint is the head.
    const pids = new Map<number, string>([[replay.pid, 'replay server'], [ch.pid, 'chDB HTTP']]);
    const acct = new CpuAccount(() => 'benchmark process', (pid, p) => pids.get(pid) ?? (p.comm === 'postgres' ? 'PostgreSQL' : p.comm));
    const t0 = performance.now();
    for (let i = 0; i < mode.processes; i++) {
      const ix = startIndexer(env(`indexer-${i + 1}`));
      procs.push(ix);
      pids.set(ix.pid, `indexer ${i + 1}`);
    }
    const deadline = t0 + Math.max(600_000, (head + 1) * 2_000);
    for (;;) {
      const dead = procs.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
      if (dead) throw new Error(`indexer pid ${dead.pid} exited (${dead.child.exitCode ?? dead.child.signalCode}) before the head was committed:\n${dead.output().slice(-3000)}`);
      if ((await checkpointOf(stores)) >= head) break;
      if (performance.now() > deadline) throw new Error(`the checkpoint did not reach ${head} in time (at ${await checkpointOf(stores)})`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const wall = (performance.now() - t0) / 1000;
    const cpu = acct.end();
    const by = new Map(cpu.children);
    const indexers = procs.map((_, i) => by.get(`indexer ${i + 1}`) ?? 0);
    const ours = cpu.process + cpu.children.reduce((a, [, v]) => a + v, 0);
    // The benchmark's own processes (indexers, stores, replay server): steadier than the wall
    // time on a shared machine, since neighbours slow it down without adding to it.
    const benchCpu = indexers.reduce((a, x) => a + x, 0) + (by.get('PostgreSQL') ?? 0) + (by.get('chDB HTTP') ?? 0) + (by.get('replay server') ?? 0);
    const figures = {
      total: benchCpu,
      usPerTx: (benchCpu * 1e6) / chain.counts.txs,
      indexers,
      postgres: by.get('PostgreSQL') ?? 0,
      chdbHttp: by.get('chDB HTTP') ?? 0,
      replayServer: by.get('replay server') ?? 0,
      machineBusy: cpu.machineBusy,
      others: cpu.machineBusy - ours,
    };
    await Promise.all(procs.map(stopIndexer));
    // Warnings and errors are shown, not judged (the stored counts below decide), grouped by
    // level, scope and message (the time and the fields vary), most frequent first, each with
    // its first line's fields.
    const kinds = new Map<string, { n: number; first: string }>();
    for (const p of procs) {
      for (const l of p.output().split('\n')) {
        const m = /^\S+ ((?:warn|error) +\[[^\]]*\] .*?)(?= \w+=|$)/.exec(l);
        if (!m) continue;
        const k = kinds.get(m[1]!) ?? kinds.set(m[1]!, { n: 0, first: l.slice(l.indexOf(' ') + 1).replace(/ +/, ' ') }).get(m[1]!)!;
        k.n++;
      }
    }
    const logged = [...kinds.values()].sort((a, b) => b.n - a.n);
    if (mode.claimRanges) {
      const planned = procs.flatMap((p) => [...p.output().matchAll(/planned catch-up ranges from=(\d+) to=(\d+) ranges=(\d+)/g)]);
      const n = planned.reduce((a, m) => a + Number(m[3]), 0);
      out(
        `shared catch-up: ${n} ranges of ${sh.batchBlocks} blocks planned and claimed` +
          (n ? ` (blocks ${planned[0]![1]}..${planned[planned.length - 1]![2]})` : '') +
          `; the blocks above them, within ${SAFETY_DEPTH} of the head, indexed by the leader as one process does`,
      );
    }
    out(`indexer log, warnings and errors: ${logged.length ? logged.slice(0, 6).map((k) => `${k.n} x ${k.first.slice(0, 300)}`).join('; ') : 'none'}`);

    // What is stored against what was generated; a leftover range would mean one never committed.
    const c = chain.counts;
    const checks: [string, number, number][] = [
      ['blocks', await count(stores, 'SELECT count() AS n FROM blocks'), c.blocks],
      ['transactions', await count(stores, 'SELECT count() AS n FROM transactions'), c.txs],
      ['logs', await count(stores, 'SELECT count() AS n FROM logs'), c.logs],
      ['token transfers', await count(stores, 'SELECT count() AS n FROM token_transfers'), c.tokenTransfers],
      ['internal transactions', await count(stores, 'SELECT count() AS n FROM internal_transactions WHERE trace_index > 0'), c.internalTxs],
      ['withdrawals', await count(stores, 'SELECT count() AS n FROM withdrawals'), c.withdrawals],
      ['catch-up ranges left uncommitted', Number((await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM backfill_ranges'))[0]?.n ?? 0), 0],
    ];
    const bad = checks.filter(([, got, want]) => got !== want);
    const failure = bad.length ? `stored counts differ from the generated chain: ${bad.map(([n, g, w]) => `${n} ${g} != ${w}`).join('; ')}` : undefined;

    const txsS = c.txs / wall;
    out(`ingest: ${fmt(wall, 2)} s wall (first process started until the checkpoint reached block ${head}; process start-up included)`);
    out(`blocks/s: ${fmt((head + 1) / wall, 1)}`);
    out(`txs/s: ${fmt(txsS)}`);
    out(
      `cpu s during ingest: indexers ${indexers.map((x) => x.toFixed(1)).join(' + ')}, PostgreSQL ${figures.postgres.toFixed(1)}, chDB HTTP ${figures.chdbHttp.toFixed(1)}, ` +
        `replay server ${figures.replayServer.toFixed(1)}; whole machine ${fmt(figures.machineBusy, 1)} of ${fmt(wall * sh.machine.cores, 1)} core-s, of which others (not this benchmark) ${fmt(figures.others, 1)}`,
    );
    out(`cpu of the indexers, stores and replay server: ${fmt(benchCpu, 1)} s, ${fmt(figures.usPerTx)} µs per tx`);
    out(`cpu s by child process: ${listCpu(cpu.children)}`);
    out(
      failure
        ? `verification FAILED: ${failure}`
        : 'verified: stored blocks, txs, logs, token transfers, internal txs and withdrawals equal the generated chain; no catch-up range left',
    );
    return { ...mode, label, wallSeconds: wall, blocksPerS: (head + 1) / wall, txsPerS: txsS, cpu: figures, verified: !failure, failure };
  } finally {
    await Promise.all(procs.map(stopIndexer));
    await presence?.close().catch(() => undefined);
    await stores?.close().catch(() => undefined);
    await Promise.all([pg?.stop(), ch?.stop()]);
  }
}

export async function main(): Promise<number> {
  const pgBin = debianPostgresBin();
  if (!pgBin) throw new Error("Debian's postgresql is not installed (apt-get install postgresql): the shared store needs a PostgreSQL server");
  const blocks = envInt('BENCH_BLOCKS', 300, 1);
  const machine = machineInfo();
  const all = modes(envList('BENCH_PROCESSES', [1, 2]), envInt('BENCH_CLAIM_RANGES', 4, 1), envInt('BENCH_TOTAL_WORKERS', machine.cores, 1));
  const batchBlocks = envInt('BENCH_BATCH_BLOCKS', 20, 1);
  const keep = process.env.BENCH_KEEP === '1';
  const out = (line: string) => process.stdout.write(line + '\n');

  out('ingest benchmark, several indexer processes sharing one store (make bench-ingest-multi)');
  out(`date: ${new Date().toISOString()}`);
  out(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memGiB} GiB RAM, ${machine.os}, node ${machine.node}`);
  const loadBefore = loadavg();
  out(`load average before: ${loadBefore}`);
  out(
    `store: a Debian PostgreSQL server (${pgBin}) and chDB behind ClickHouse's HTTP interface (the tests' stand-in, test/helpers/chdb-http-server.ts), ` +
      `fresh for each run, on the same ${machine.cores} cores as the indexer processes and the replay server: ` +
      "these figures measure the shared path's overhead on this machine, not what a cluster of machines gains",
  );
  const chain = buildResponseStore({ blocks, seed: envInt('BENCH_SEED', 20_240_601) }, { traces: 'callTracer' });
  const c = chain.counts;
  out(
    `chain: ${fmt(blocks)} blocks + genesis, ${fmt(c.txs)} txs, ${fmt(c.logs)} logs, ${fmt(c.tokenTransfers)} token transfers, ${fmt(c.internalTxs)} internal txs, ${fmt(c.withdrawals)} withdrawals; ` +
      `geth variant (debug_traceBlockByNumber, callTracer), ${batchBlocks} blocks per range`,
  );
  out(`runs: ${all.map(labelOf).join('; ')} (worker threads of all processes together kept at ${all[0]!.workersEach})`);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingest-multi-'));
  // PostgreSQL runs as the package's user when this runs as root: it must reach its directory.
  fs.chmodSync(dir, 0o755);
  let replay: (ReplayServer & { pid: number }) | undefined;
  const runs: (Omit<RunFigures, 'vsBaseline'> & { failure?: string })[] = [];
  let failure: string | undefined;
  try {
    const storePath = path.join(dir, 'responses.bin');
    saveResponseStore(chain, storePath);
    replay = await forkReplayServer(storePath);
    const sh: Shared = { chain, replay, pgBin, batchBlocks, machine, out };
    for (const [i, m] of all.entries()) {
      out(`== ${labelOf(m)}`);
      const r = await runMode(m, sh, path.join(dir, `run-${i + 1}`));
      runs.push(r);
      failure ??= r.failure;
    }
  } catch (e) {
    failure = (e as Error).stack ?? String(e);
    process.stderr.write(`bench-ingest-multi failed: ${failure}\n`);
  } finally {
    await replay?.close().catch(() => undefined);
    if (keep) process.stderr.write(`kept ${dir}\n`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }

  const base = runs[0]?.txsPerS ?? NaN;
  const figures: RunFigures[] = runs.map(({ failure: _, ...r }) => ({ ...r, vsBaseline: r.txsPerS / base }));
  if (figures.length === all.length) {
    const name = (r: RunFigures) => `${r.processes} process${r.processes > 1 ? 'es' : ''} ${r.claimRanges ? 'shared' : 'alone'}`;
    out(`summary (txs/s, information, no target): ${figures.map((r) => `${name(r)} ${fmt(r.txsPerS)} (${r.vsBaseline.toFixed(2)} x)`).join('; ')}`);
    out(`summary (cpu µs per tx of the indexers, stores and replay server): ${figures.map((r) => `${name(r)} ${fmt(r.cpu.usPerTx)} (${(r.cpu.usPerTx / figures[0]!.cpu.usPerTx).toFixed(2)} x)`).join('; ')}`);
  }
  // A run's own line says "verification FAILED" when the counts differ; this one also covers a run that broke off.
  out(failure ? `FAILED: ${failure.split('\n')[0]}` : 'verified: every run stored exactly the generated chain');
  const loadAfter = loadavg();
  out(`load average after: ${loadAfter}`);
  out(
    'json: ' +
      JSON.stringify({
        date: new Date().toISOString(),
        machine,
        loadBefore,
        loadAfter,
        store: 'PostgreSQL server + chDB behind the ClickHouse HTTP interface, same cores',
        blocks: blocks + 1,
        txs: c.txs,
        runs: figures,
        verified: !failure,
      }),
  );
  return failure ? 1 : 0;
}

runIfMain(import.meta.url, 'bench-ingest-multi', main);
