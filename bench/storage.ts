// Storage per transaction (issue #21: <= 1.5 KB compressed per tx with traces): the benchmark chain stored, merged, and its bytes per table and column divided by its transactions.
//
// The chain is bench/synth.ts's (the one bench/ingest.ts indexes, same seed), with callTracer
// traces. Each block's answers go through JSON (as the indexer receives them), then through the
// ingest worker's own decode and encode (decodeBlockBundle into a TableWriter, per range of 20
// blocks) and the indexer's insert (insertChainRanges), into embedded ClickHouse migrated with
// sql/clickhouse. No RPC server, PostgreSQL or worker pool: the stored rows are the same and the
// run takes seconds. Then every MergeTree table is merged (OPTIMIZE TABLE ... FINAL) and
// system.parts (active parts) and system.columns give the compressed and uncompressed bytes.
//
// Environment: STORAGE_BLOCKS (default 300, about 51,000 txs), STORAGE_SEED (bench/ingest.ts's
// default), STORAGE_UPTO=NNNN applies the ClickHouse migrations up to that number only (to
// measure a schema before a migration on the same chain), STORAGE_COLUMNS=0 leaves out the
// per-column lines, STORAGE_KEEP=1 keeps the data directory (its path is printed), STORAGE_DIR=<dir>
// measures an existing ClickHouse data directory (no indexing; database `explorer`).
// Exits 1 when the stored counts differ from the generated chain.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SummaryBuilder, decodeBlockBundle } from '../src/chain/bundle.js';
import { TableWriter } from '../src/chain/clickhouse-encode.js';
import type { TableName } from '../src/chain/clickhouse-rows.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from '../src/chain/wire.js';
import { groupTraces } from '../src/rpc/fetch.js';
import { insertChainRanges } from '../src/storage/clickhouse/chain.js';
import { openClickHouse, type ClickHouseStore } from '../src/storage/clickhouse/store.js';
import { migrateClickHouse } from '../src/storage/migrate.js';
import { sqlDir } from '../src/paths.js';
import { setLogLevel } from '../src/log.js';
import { SynthChain, addCounts, emptyCounts, type ChainCounts } from './synth.js';
import { loadavg, machineInfo } from './sysinfo.js';
import { envInt, runIfMain } from './run-main.js';

/** Issue #21's storage target, bytes per transaction (1.5 KB). */
export const STORAGE_TARGET_BYTES_PER_TX = 1500;
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

export interface ColumnBytes {
  table: string;
  column: string;
  type: string;
  codec: string;
  compressed: number;
  uncompressed: number;
}

/**
 * Generates the chain and stores it as the indexer does (worker decode + encode, grouped
 * inserts). Returns the generated counts.
 */
export async function storeSyntheticChain(ch: ClickHouseStore, blocks: number, seed: number): Promise<{ counts: ChainCounts; insertS: number; insertCpuS: number }> {
  let insertMs = 0;
  let insertCpuUs = 0;
  const chain = new SynthChain({ blocks, seed });
  const counts = emptyCounts();
  let group: Partial<Record<TableName, Uint8Array>>[] = [];
  for (let from = 0; from <= chain.head; from += RANGE_BLOCKS) {
    const to = Math.min(chain.head, from + RANGE_BLOCKS - 1);
    const writer = new TableWriter();
    const summary = new SummaryBuilder();
    for (let n = from; n <= to; n++) {
      const b = chain.next();
      addCounts(counts, b.counts);
      // Through JSON, as the worker gets them from the node.
      const block = JSON.parse(JSON.stringify(b.block)) as RpcBlock<RpcTransaction>;
      const receipts = JSON.parse(JSON.stringify(b.receipts)) as RpcReceipt[];
      const traces = n === 0 ? { format: 'callTracer', txs: [] } : groupTraces('callTracer', JSON.parse(JSON.stringify(b.callTracer)), block.transactions.length, n);
      decodeBlockBundle({ block, receipts, traces: traces as never }, writer, summary);
    }
    group.push(writer.toBuffers());
    if (group.length === GROUP_RANGES || to === chain.head) {
      const t = performance.now();
      const cpu = process.cpuUsage();
      await insertChainRanges(ch, group);
      const d = process.cpuUsage(cpu);
      insertCpuUs += d.user + d.system;
      insertMs += performance.now() - t;
      group = [];
    }
  }
  return { counts, insertS: insertMs / 1000, insertCpuS: insertCpuUs / 1e6 };
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
  const dataDir = existing ?? path.join(tmp, 'clickhouse');
  let ch: ClickHouseStore | undefined;
  let failure: string | undefined;
  try {
    ch = await openClickHouse({ database: 'explorer', dataDir });
    let counts: ChainCounts | undefined;
    let insertS: number | undefined;
    let insertCpuS: number | undefined;
    if (!existing) {
      const mig = await migrateClickHouse(ch, migrationsUpTo(upto, tmp));
      out(`schema: ClickHouse migrations ${mig.applied.join(', ')}`);
      const t0 = performance.now();
      const stored = await storeSyntheticChain(ch, blocks, seed);
      counts = stored.counts;
      insertS = stored.insertS;
      insertCpuS = stored.insertCpuS;
      out(
        `chain: ${fmt(blocks)} blocks + genesis, seed ${seed}, callTracer traces: ${fmt(counts.txs)} txs, ${fmt(counts.logs)} logs, ${fmt(counts.tokenTransfers)} token transfers, ` +
          `${fmt(counts.internalTxs)} internal txs, ${fmt(counts.withdrawals)} withdrawals (decoded, encoded and inserted in ${fmt((performance.now() - t0) / 1000, 1)} s, ` +
          `of which inserts ${fmt(stored.insertS, 1)} s, ${fmt(stored.insertCpuS, 1)} CPU-s of this process (chDB is embedded); timings depend on the machine's load)`,
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
    const met = per(total) <= STORAGE_TARGET_BYTES_PER_TX;
    out(`total: ${fmt(per(total), 1)} bytes/tx compressed (${fmt(total / 1e6, 1)} MB; ${fmt(per(totalU), 1)} bytes/tx uncompressed; ${fmt(per(totalD), 1)} bytes/tx on disk with marks and indexes)`);
    out(`target <= 1.5 KB/tx: ${met ? 'MET' : 'NOT MET'} (${fmt(per(total), 1)} bytes/tx)`);
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
          mergeS,
          mergeCpuS,
          bytesPerTx: per(total),
          target: { bytesPerTx: STORAGE_TARGET_BYTES_PER_TX, met },
          tables: tables.map((t) => ({ ...t, bytesPerTx: per(t.compressed) })),
          columns: withColumns ? cols.map((x) => ({ ...x, bytesPerTx: per(x.compressed) })) : undefined,
          verified: !failure,
        }),
    );
  } finally {
    await ch?.close().catch(() => undefined);
    // An existing directory is never removed; the temporary one holds nothing for it then.
    if (keep && !existing) process.stderr.write(`kept ${dataDir}\n`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
  return failure ? 1 : 0;
}

runIfMain(import.meta.url, 'bench-storage', main);
