// Storage per transaction (issue #21: <= 1.5 KB compressed per tx with traces in ClickHouse; issue #30: <= 2.0 KB per tx in both stores with PostgreSQL's point rows): the benchmark chain stored, merged, and its bytes per table and column divided by its transactions.
//
// The chain is bench/synth.ts's (the one bench/ingest.ts indexes, same seed), with callTracer
// traces. Each block's answers go through JSON (as the indexer receives them), then through the
// ingest worker's own decode and encode (decodeBlockBundle into a TableWriter behind a PointSink,
// per range of 20 blocks, as workers/ingest.ts) and the indexer's commit (insertChainRanges, then
// the ranges' point rows with insertPoints in one PostgreSQL transaction), into embedded
// ClickHouse and PostgreSQL migrated with sql/. No RPC server or worker pool: the stored rows are
// the same and the run takes seconds. Then every MergeTree table is merged (OPTIMIZE TABLE ...
// FINAL) and system.parts (active parts) and system.columns give the compressed and uncompressed
// bytes; the point tables are vacuumed (as autovacuum leaves them) and their heap, TOAST, free
// space and visibility maps and indexes measured in PostgreSQL.
//
// Environment: STORAGE_BLOCKS (default 300, about 51,000 txs), STORAGE_SEED (bench/ingest.ts's
// default), STORAGE_UPTO=NNNN applies the ClickHouse migrations up to that number only (to
// measure a schema before a migration on the same chain), STORAGE_COLUMNS=0 leaves out the
// per-column lines, STORAGE_KEEP=1 keeps the data directory (its path is printed), STORAGE_DIR=<dir>
// measures an existing data directory holding clickhouse/ and postgres/ (what STORAGE_KEEP=1
// kept, or an explorer's DATA_DIR; no indexing; database `explorer`).
// Exits 1 when the stored counts differ from the generated chain.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SummaryBuilder, decodeBlockBundle } from '../src/chain/bundle.js';
import { TableWriter } from '../src/chain/clickhouse-encode.js';
import type { TableName } from '../src/chain/clickhouse-rows.js';
import { PointSink, type PointBatch } from '../src/chain/point-rows.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from '../src/chain/wire.js';
import { groupTraces } from '../src/rpc/fetch.js';
import { insertChainRanges } from '../src/storage/clickhouse/chain.js';
import type { ClickHouseStore } from '../src/storage/clickhouse/store.js';
import type { PgStore } from '../src/storage/postgres/store.js';
import { insertPoints } from '../src/storage/postgres/points.js';
import { openStores, type Stores } from '../src/storage/stores.js';
import { migrateClickHouse, migratePostgres } from '../src/storage/migrate.js';
import { sqlDir } from '../src/paths.js';
import { setLogLevel } from '../src/log.js';
import { SynthChain, addCounts, emptyCounts, type ChainCounts } from './synth.js';
import { loadavg, machineInfo } from './sysinfo.js';
import { TARGETS, evaluate, targetLine, type Target } from './report.js';
import { envInt, runIfMain } from './run-main.js';

const RANGE_BLOCKS = 20;
const GROUP_RANGES = 8;

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export interface TableBytes {
  table: string;
  rows: number;
  parts: number;
  compressed: number;
  uncompressed: number;
  onDisk: number;
}

/** A PostgreSQL point table's bytes, by where they lie. */
export interface PgTableBytes {
  table: string;
  rows: number;
  /** The heap's main fork. */
  heap: number;
  /** The TOAST table with its index (rows too wide for a page: long calldata). */
  toast: number;
  /** The heap's free space and visibility maps. */
  maps: number;
  indexes: number;
  /** All of the above: pg_total_relation_size. */
  total: number;
}

export interface ColumnBytes {
  table: string;
  column: string;
  type: string;
  codec: string;
  compressed: number;
  uncompressed: number;
}

/**
 * Generates the chain and stores it as the indexer does (worker decode + encode with the point
 * rows beside, grouped ClickHouse inserts, then the group's point rows in one PostgreSQL
 * transaction). Returns the generated counts and the time of each store's inserts.
 */
export async function storeSyntheticChain(
  stores: { ch: ClickHouseStore; pg: PgStore },
  blocks: number,
  seed: number,
): Promise<{ counts: ChainCounts; insertS: number; insertCpuS: number; pointInsertS: number }> {
  let insertMs = 0;
  let insertCpuUs = 0;
  let pointMs = 0;
  const chain = new SynthChain({ blocks, seed });
  const counts = emptyCounts();
  let group: Partial<Record<TableName, Uint8Array>>[] = [];
  let points: PointBatch[] = [];
  for (let from = 0; from <= chain.head; from += RANGE_BLOCKS) {
    const to = Math.min(chain.head, from + RANGE_BLOCKS - 1);
    const writer = new TableWriter();
    const sink = new PointSink(writer);
    const summary = new SummaryBuilder();
    for (let n = from; n <= to; n++) {
      const b = chain.next();
      addCounts(counts, b.counts);
      // Through JSON, as the worker gets them from the node.
      const block = JSON.parse(JSON.stringify(b.block)) as RpcBlock<RpcTransaction>;
      const receipts = JSON.parse(JSON.stringify(b.receipts)) as RpcReceipt[];
      const traces = n === 0 ? { format: 'callTracer', txs: [] } : groupTraces('callTracer', JSON.parse(JSON.stringify(b.callTracer)), block.transactions.length, n);
      decodeBlockBundle({ block, receipts, traces: traces as never }, sink, summary);
    }
    group.push(writer.toBuffers());
    points.push(sink.points.build());
    if (group.length === GROUP_RANGES || to === chain.head) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      await insertChainRanges(stores.ch, group);
      const d = process.cpuUsage(cpu);
      insertCpuUs += d.user + d.system;
      insertMs += performance.now() - t;
      const batches = points;
      const p = performance.now();
      await stores.pg.tx((c) => insertPoints(c, batches));
      pointMs += performance.now() - p;
      group = [];
      points = [];
    }
  }
  return { counts, insertS: insertMs / 1000, insertCpuS: insertCpuUs / 1e6, pointInsertS: pointMs / 1000 };
}

/** The point tables' bytes (sql/postgres/0016_point_rows.sql), after a VACUUM ANALYZE as autovacuum would leave them. */
export async function pointTableBytes(pg: PgStore): Promise<PgTableBytes[]> {
  const tables = ['point_transactions', 'point_blocks'];
  await pg.query(`VACUUM ANALYZE ${tables.join(', ')}`);
  const out: PgTableBytes[] = [];
  for (const table of tables) {
    const [r] = await pg.query<{ rows: string; heap: string; toast: string; maps: string; indexes: string; total: string }>(
      `SELECT (SELECT count(*) FROM ${table}) AS rows, pg_relation_size(c.oid, 'main') AS heap,
              coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0) AS toast,
              pg_relation_size(c.oid, 'fsm') + pg_relation_size(c.oid, 'vm') AS maps,
              pg_indexes_size(c.oid) AS indexes, pg_total_relation_size(c.oid) AS total
       FROM pg_class c WHERE c.oid = $1::regclass`,
      [table],
    );
    if (!r) throw new Error(`no table ${table}`);
    out.push({ table, rows: Number(r.rows), heap: Number(r.heap), toast: Number(r.toast), maps: Number(r.maps), indexes: Number(r.indexes), total: Number(r.total) });
  }
  return out;
}

/** Merges every MergeTree table of the database into its final parts. */
export async function mergeAll(ch: ClickHouseStore): Promise<void> {
  const tables = await ch.query<{ name: string }>(`SELECT name FROM system.tables WHERE database = '${ch.database}' AND engine LIKE '%MergeTree%'`);
  for (const t of tables) await ch.command(`OPTIMIZE TABLE ${t.name} FINAL`);
}

/** Active parts' bytes per table: compressed data (the target's measure), uncompressed, and on disk (with marks and indexes). */
export async function tableBytes(ch: ClickHouseStore): Promise<TableBytes[]> {
  const rows = await ch.query<{ table: string; rows: string; parts: string; c: string; u: string; d: string }>(
    `SELECT table, sum(rows) AS rows, count() AS parts, sum(data_compressed_bytes) AS c, sum(data_uncompressed_bytes) AS u, sum(bytes_on_disk) AS d ` +
      `FROM system.parts WHERE database = '${ch.database}' AND active GROUP BY table ORDER BY c DESC`,
  );
  return rows.map((r) => ({ table: r.table, rows: Number(r.rows), parts: Number(r.parts), compressed: Number(r.c), uncompressed: Number(r.u), onDisk: Number(r.d) }));
}

/** Per-column bytes (system.columns; zero for columns of compact parts, which store them together). */
export async function columnBytes(ch: ClickHouseStore): Promise<ColumnBytes[]> {
  const rows = await ch.query<{ table: string; name: string; type: string; codec: string; c: string; u: string }>(
    `SELECT table, name, type, compression_codec AS codec, data_compressed_bytes AS c, data_uncompressed_bytes AS u ` +
      `FROM system.columns WHERE database = '${ch.database}' ORDER BY table, c DESC`,
  );
  return rows.map((r) => ({ table: r.table, column: r.name, type: r.type, codec: r.codec, compressed: Number(r.c), uncompressed: Number(r.u) }));
}

/** The migrations directory, or a copy of it holding the files up to `upto` only. */
function migrationsUpTo(upto: string | undefined, tmp: string): string {
  const dir = sqlDir('clickhouse');
  if (!upto) return dir;
  const out = path.join(tmp, 'migrations');
  fs.mkdirSync(out, { recursive: true });
  for (const f of fs.readdirSync(dir)) if (f.endsWith('.sql') && f.slice(0, 4) <= upto) fs.copyFileSync(path.join(dir, f), path.join(out, f));
  return out;
}

export async function main(): Promise<number> {
  const blocks = envInt('STORAGE_BLOCKS', 300, 1);
  const seed = envInt('STORAGE_SEED', 20_240_601);
  const upto = process.env.STORAGE_UPTO || undefined;
  if (upto && !/^\d{4}$/.test(upto)) throw new Error(`STORAGE_UPTO must be a migration number such as 0004, got ${JSON.stringify(upto)}`);
  const withColumns = process.env.STORAGE_COLUMNS !== '0';
  const existing = process.env.STORAGE_DIR || undefined;
  const keep = process.env.STORAGE_KEEP === '1';
  const machine = machineInfo();
  const out = (line: string) => process.stdout.write(line + '\n');
  setLogLevel('warn');

  out('storage benchmark (node build/bench/storage.js)');
  out(`date: ${new Date().toISOString()}`);
  out(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memGiB} GiB RAM, ${machine.os}, node ${machine.node}; load average ${loadavg()} (bytes do not depend on load)`);

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-storage-'));
  const dataDir = existing ?? path.join(tmp, 'data');
  let stores: Stores | undefined;
  let failure: string | undefined;
  try {
    // An existing directory must hold both stores: opening it would otherwise create an empty PostgreSQL there.
    if (existing && !['clickhouse', 'postgres'].every((d) => fs.existsSync(path.join(existing, d)))) {
      throw new Error(`STORAGE_DIR ${existing} must hold clickhouse/ and postgres/ (an explorer DATA_DIR, or what STORAGE_KEEP=1 kept)`);
    }
    stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
    const { ch, pg } = stores;
    let counts: ChainCounts | undefined;
    let insertS: number | undefined;
    let insertCpuS: number | undefined;
    let pointInsertS: number | undefined;
    if (!existing) {
      const pgMig = await migratePostgres(pg);
      const mig = await migrateClickHouse(ch, migrationsUpTo(upto, tmp));
      out(`schema: ClickHouse migrations ${mig.applied.join(', ')}; PostgreSQL migrations ${pgMig.applied.join(', ')}`);
      const t0 = performance.now();
      const stored = await storeSyntheticChain(stores, blocks, seed);
      counts = stored.counts;
      insertS = stored.insertS;
      insertCpuS = stored.insertCpuS;
      pointInsertS = stored.pointInsertS;
      out(
        `chain: ${fmt(blocks)} blocks + genesis, seed ${seed}, callTracer traces: ${fmt(counts.txs)} txs, ${fmt(counts.logs)} logs, ${fmt(counts.tokenTransfers)} token transfers, ` +
          `${fmt(counts.internalTxs)} internal txs, ${fmt(counts.withdrawals)} withdrawals (decoded, encoded and inserted in ${fmt((performance.now() - t0) / 1000, 1)} s, ` +
          `of which ClickHouse inserts ${fmt(stored.insertS, 1)} s, ${fmt(stored.insertCpuS, 1)} CPU-s of this process (chDB is embedded), PostgreSQL point inserts ${fmt(stored.pointInsertS, 1)} s; ` +
          `timings depend on the machine's load)`,
      );
    } else {
      out(`schema and rows: the existing data directory ${existing}`);
    }
    const t1 = performance.now();
    const cpu1 = process.cpuUsage();
    await mergeAll(ch);
    const cpuM = process.cpuUsage(cpu1);
    const mergeCpuS = (cpuM.user + cpuM.system) / 1e6;
    const mergeS = (performance.now() - t1) / 1000;
    out(`merged: OPTIMIZE TABLE ... FINAL of every MergeTree table in ${fmt(mergeS, 1)} s, ${fmt(mergeCpuS, 1)} CPU-s`);

    const [c] = await ch.query<{ n: string }>('SELECT count() AS n FROM transactions');
    const txs = Number(c?.n ?? 0);
    if (counts && txs !== counts.txs) failure = `stored ${txs} transactions, generated ${counts.txs}`;
    if (!txs) throw new Error('no transactions stored');
    const tables = await tableBytes(ch);
    const per = (b: number) => b / txs;
    const total = tables.reduce((a, t) => a + t.compressed, 0);
    const totalU = tables.reduce((a, t) => a + t.uncompressed, 0);
    const totalD = tables.reduce((a, t) => a + t.onDisk, 0);

    out(`per table, bytes per transaction (${fmt(txs)} txs), active parts after the merge (system.parts):`);
    out('  table                              rows  parts   compressed  uncompressed  ratio   on disk');
    for (const t of tables) {
      out(
        `  ${t.table.padEnd(30)} ${fmt(t.rows).padStart(9)} ${String(t.parts).padStart(5)} ${fmt(per(t.compressed), 1).padStart(12)} ${fmt(per(t.uncompressed), 1).padStart(13)} ` +
          `${(t.uncompressed / Math.max(1, t.compressed)).toFixed(1).padStart(6)} ${fmt(per(t.onDisk), 1).padStart(9)}`,
      );
    }
    out(`  ${'total'.padEnd(30)} ${''.padStart(9)} ${''.padStart(5)} ${fmt(per(total), 1).padStart(12)} ${fmt(per(totalU), 1).padStart(13)} ${(totalU / total).toFixed(1).padStart(6)} ${fmt(per(totalD), 1).padStart(9)}`);

    const cols = withColumns ? await columnBytes(ch) : [];
    if (withColumns) {
      out('per column, bytes per transaction, compressed / uncompressed, codec (system.columns; columns of compact parts show 0):');
      for (const t of tables) {
        const tc = cols.filter((x) => x.table === t.table);
        if (!tc.length) continue;
        out(`  ${t.table} (${fmt(per(t.compressed), 1)} B/tx):`);
        for (const x of tc) {
          out(`    ${x.column.padEnd(26)} ${fmt(per(x.compressed), 1).padStart(9)} ${fmt(per(x.uncompressed), 1).padStart(10)}  ${x.type}${x.codec ? ` ${x.codec}` : ''}`);
        }
      }
    }
    out(`total: ${fmt(per(total), 1)} bytes/tx compressed (${fmt(total / 1e6, 1)} MB; ${fmt(per(totalU), 1)} bytes/tx uncompressed; ${fmt(per(totalD), 1)} bytes/tx on disk with marks and indexes)`);

    // PostgreSQL's point rows: pages on disk (PostgreSQL compresses only values over ~2 KB).
    const pgTables = await pointTableBytes(pg);
    const pgTotal = pgTables.reduce((a, t) => a + t.total, 0);
    const pointTxs = pgTables.find((t) => t.table === 'point_transactions')!.rows;
    if (pointTxs !== txs) failure ??= `${pointTxs} point rows of transactions, ${txs} transactions in ClickHouse`;
    out(`PostgreSQL point tables, bytes per transaction (${fmt(txs)} txs) after VACUUM ANALYZE (pg_relation_size, the TOAST table, the free space and visibility maps, pg_indexes_size):`);
    out('  table                              rows       heap      toast     maps    indexes      total');
    const pgLine = (name: string, rows: string, t: Pick<PgTableBytes, 'heap' | 'toast' | 'maps' | 'indexes' | 'total'>) =>
      out(
        `  ${name.padEnd(30)} ${rows.padStart(9)} ${fmt(per(t.heap), 1).padStart(10)} ${fmt(per(t.toast), 1).padStart(10)} ${fmt(per(t.maps), 1).padStart(8)} ` +
          `${fmt(per(t.indexes), 1).padStart(10)} ${fmt(per(t.total), 1).padStart(10)}`,
      );
    for (const t of pgTables) pgLine(t.table, fmt(t.rows), t);
    const sum = (k: 'heap' | 'toast' | 'maps' | 'indexes' | 'total') => pgTables.reduce((a, t) => a + t[k], 0);
    pgLine('total', '', { heap: sum('heap'), toast: sum('toast'), maps: sum('maps'), indexes: sum('indexes'), total: pgTotal });
    const both = total + pgTotal;
    out(`both stores: ClickHouse ${fmt(per(total), 1)} (compressed parts) + PostgreSQL ${fmt(per(pgTotal), 1)} (point tables with their indexes) = ${fmt(per(both), 1)} bytes/tx`);

    const targets: Target[] = [
      { area: 'storage', name: 'ClickHouse: compressed bytes per transaction after merges, all tables', unit: 'B/tx', value: per(total), bound: TARGETS.storageBytesPerTx, kind: 'atMost', boundIs: 'target (1.5 KB)' },
      { area: 'storage', name: 'both stores: ClickHouse compressed parts + PostgreSQL point tables, per transaction', unit: 'B/tx', value: per(both), bound: TARGETS.storageBothBytesPerTx, kind: 'atMost', boundIs: 'target (2.0 KB)' },
    ];
    const evaluated = targets.map(evaluate);
    for (const e of evaluated) out(targetLine(e));
    if (failure) out(`verification FAILED: ${failure}`);
    out(
      'json: ' +
        JSON.stringify({
          date: new Date().toISOString(),
          machine,
          blocks: existing ? undefined : blocks,
          seed: existing ? undefined : seed,
          upto,
          txs,
          insertS,
          insertCpuS,
          pointInsertS,
          mergeS,
          mergeCpuS,
          bytesPerTx: per(total),
          postgresBytesPerTx: per(pgTotal),
          bothBytesPerTx: per(both),
          tables: tables.map((t) => ({ ...t, bytesPerTx: per(t.compressed) })),
          postgresTables: pgTables.map((t) => ({ ...t, bytesPerTx: per(t.total) })),
          columns: withColumns ? cols.map((x) => ({ ...x, bytesPerTx: per(x.compressed) })) : undefined,
          targets: evaluated,
          verified: !failure,
        }),
    );
  } finally {
    await stores?.close().catch(() => undefined);
    // An existing directory is never removed; the temporary one holds nothing for it then.
    if (keep && !existing) process.stderr.write(`kept ${dataDir}\n`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
  return failure ? 1 : 0;
}

runIfMain(import.meta.url, 'bench-storage', main);
