// The ingest pipeline's parts measured alone, over the same bytes, to say where the time goes:
// JSON.parse alone (the headline baseline), decode + encode alone (one thread, objects already
// parsed), the worker pool alone (HTTP + parse + decode + encode, no database), ClickHouse
// inserts alone (the very table bytes the workers produced, inserted as the indexer does), and
// PostgreSQL point inserts alone (the very point rows the workers built, committed per group).

import { performance } from 'node:perf_hooks';
import { SummaryBuilder, decodeBlockBundle } from '../src/chain/bundle.js';
import { TableWriter } from '../src/chain/clickhouse-encode.js';
import { PointSink } from '../src/chain/point-rows.js';
import { TABLE_NAMES, type TableName } from '../src/chain/clickhouse-rows.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from '../src/chain/wire.js';
import type { IngestPool } from '../src/indexer/pool.js';
import { GROUP_MIN_RANGES } from '../src/indexer/indexer.js';
import { groupTraces } from '../src/rpc/fetch.js';
import type { ClickHouseStore } from '../src/storage/clickhouse/store.js';
import { insertChainRanges } from '../src/storage/clickhouse/chain.js';
import type { PgStore } from '../src/storage/postgres/store.js';
import { insertPoints } from '../src/storage/postgres/points.js';
import type { IngestResult, IngestTask } from '../workers/ingest.js';
import { blockKey, lookup, type BlockMethod, type ResponseStore } from './responses.js';
import { median } from './report.js';

export type Variant = 'geth' | 'erigon';

export const traceMethodOf = (v: Variant): BlockMethod => (v === 'geth' ? 'debug_traceBlockByNumber' : 'trace_block');

/** Responses the indexer fetches for blocks 0..head with this variant (what it parses). */
export function fetchedKeys(head: number, variant: Variant): string[] {
  const keys: string[] = [];
  for (let n = 0; n <= head; n++) {
    keys.push(blockKey('eth_getBlockByNumber/full', n), blockKey('eth_getBlockReceipts', n));
    if (n > 0) keys.push(blockKey(traceMethodOf(variant), n));
  }
  return keys;
}

/**
 * JSON.parse of every response in `keys` once per pass, one thread, timed around JSON.parse
 * only (the utf-8 decoding of the bytes is outside the timer); the median of `passes` passes.
 */
export function parseOnly(store: ResponseStore, keys: string[], passes: number): { seconds: number; bytes: number; all: number[] } {
  const bufs = keys.map((k) => lookup(store, k)).filter((b): b is Buffer => b !== undefined);
  const bytes = bufs.reduce((a, b) => a + b.length, 0);
  const all: number[] = [];
  let sink = 0;
  for (let p = 0; p < passes; p++) {
    let ms = 0;
    for (const b of bufs) {
      const s = b.toString('utf8');
      const t = performance.now();
      const v = JSON.parse(s) as unknown;
      ms += performance.now() - t;
      if (Array.isArray(v)) sink += v.length;
    }
    all.push(ms / 1000);
  }
  if (sink < 0) console.log(sink); // keeps the parsed values observable
  return { seconds: median(all), bytes, all };
}

/**
 * Decode + encode alone, one thread: per range of `batchBlocks` blocks the responses are parsed
 * first (not timed), then grouping the traces, decodeBlockBundle into a TableWriter (with the
 * point rows built beside it) and the final table buffers and point rows are timed, as the worker
 * does them. Median of `passes` passes.
 */
export function decodeOnly(store: ResponseStore, variant: Variant, batchBlocks: number, passes: number): { seconds: number; all: number[] } {
  const all: number[] = [];
  const mode = variant === 'geth' ? 'callTracer' : 'parity';
  for (let p = 0; p < passes; p++) {
    let ms = 0;
    for (let from = 0; from <= store.head; from += batchBlocks) {
      const to = Math.min(store.head, from + batchBlocks - 1);
      const parsed: { block: RpcBlock<RpcTransaction>; receipts: RpcReceipt[]; traces: unknown }[] = [];
      for (let n = from; n <= to; n++) {
        parsed.push({
          block: JSON.parse(lookup(store, blockKey('eth_getBlockByNumber/full', n))!.toString('utf8')) as RpcBlock<RpcTransaction>,
          receipts: JSON.parse(lookup(store, blockKey('eth_getBlockReceipts', n))!.toString('utf8')) as RpcReceipt[],
          traces: n === 0 ? [] : (JSON.parse(lookup(store, blockKey(traceMethodOf(variant), n))!.toString('utf8')) as unknown),
        });
      }
      const t = performance.now();
      const writer = new TableWriter();
      const sink = new PointSink(writer);
      const summary = new SummaryBuilder();
      for (let i = 0; i < parsed.length; i++) {
        const x = parsed[i]!;
        const n = from + i;
        const traces = n === 0 ? { format: mode, txs: [] } : groupTraces(mode, x.traces, x.block.transactions.length, n);
        decodeBlockBundle({ block: x.block, receipts: x.receipts, traces: traces as never }, sink, summary);
      }
      writer.toBuffers();
      sink.points.build();
      summary.build();
      ms += performance.now() - t;
    }
    all.push(ms / 1000);
  }
  return { seconds: median(all), all };
}

/**
 * The worker pool alone: the indexer's own tasks run again through the same pool, with the
 * indexer's window (2 tasks per thread in flight), results dropped. Wall seconds.
 */
export async function workersOnly(pool: IngestPool, tasks: IngestTask[]): Promise<number> {
  const t0 = performance.now();
  const window = Math.max(2, pool.threads * 2);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      await pool.run(task);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, tasks.length) }, lane));
  return (performance.now() - t0) / 1000;
}

/** Ranges per insert in insertsOnly: the indexer's catch-up groups. */
export const INSERT_GROUP = GROUP_MIN_RANGES;

/**
 * ClickHouse inserts alone: the chain tables are emptied, then the ranges' table bytes are
 * inserted again in chain order, INSERT_GROUP ranges per insert with insertChainRanges (what the
 * indexer's catch-up commit does, without the PostgreSQL checkpoint). Wall seconds.
 */
export async function insertsOnly(ch: ClickHouseStore, results: Pick<IngestResult, 'tables'>[]): Promise<number> {
  for (const t of TABLE_NAMES) await ch.command(`TRUNCATE TABLE ${t}`);
  const t0 = performance.now();
  for (let i = 0; i < results.length; i += INSERT_GROUP) {
    await insertChainRanges(ch, results.slice(i, i + INSERT_GROUP).map((r) => r.tables as Partial<Record<TableName, Uint8Array>>));
  }
  return (performance.now() - t0) / 1000;
}

/**
 * PostgreSQL point inserts alone: the point tables are emptied, then the ranges' point rows are
 * inserted again in chain order, INSERT_GROUP ranges per transaction with insertPoints (what the
 * indexer's commit adds to its checkpoint's transaction for them). Wall seconds.
 */
export async function pointInsertsOnly(pg: PgStore, results: Pick<IngestResult, 'points'>[]): Promise<number> {
  await pg.query('TRUNCATE point_transactions, point_blocks');
  const t0 = performance.now();
  for (let i = 0; i < results.length; i += INSERT_GROUP) {
    const group = results.slice(i, i + INSERT_GROUP).map((r) => r.points);
    await pg.tx((c) => insertPoints(c, group));
  }
  return (performance.now() - t0) / 1000;
}
