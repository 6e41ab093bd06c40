// Piscina task: fetch a block range from the node, check it, decode it, encode the rows.
// No database. Runs in a worker thread; also callable directly (`ingest`).
//
// Transfer: the default export returns the result wrapped with Piscina.move(), listing the
// ArrayBuffer of every table's bytes, so they move to the main thread without a copy. On the
// main thread each `tables[name]` then arrives as a Uint8Array (structured clone turns a Buffer
// into a plain Uint8Array); use `Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength)` for a
// Buffer view. Every table's bytes own their ArrayBuffer (never Node's shared pool).

import { BroadcastChannel, threadId } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { SummaryBuilder, decodeBlockBundle, type BlockInfo, type IngestSummary } from '../src/chain/bundle.js';
import { TableWriter } from '../src/chain/clickhouse-encode.js';
import { PointSink, type PointBatch } from '../src/chain/point-rows.js';
import { NAMED_RANGE_BLOCKS_MAX, NamedAddresses, type RangeNames } from '../src/chain/named-addresses.js';
import type { TableName } from '../src/chain/clickhouse-rows.js';
import { TABLE_NAMES } from '../src/chain/clickhouse-rows.js';
import { createRpcClient, type MethodStats, type RpcClient, type RpcVariant } from '../src/rpc/client.js';
import { fetchBlockRange } from '../src/rpc/fetch.js';

export interface IngestRpcConfig {
  url: string;
  traceUrl?: string;
  variant: RpcVariant;
  timeoutMs?: number;
  maxRetries?: number;
  batchSize?: number;
  concurrency?: number;
}

export interface IngestTask {
  /** First block, inclusive. */
  from: number;
  /** Last block, inclusive. */
  to: number;
  rpc: IngestRpcConfig;
  /** callTracer = debug_traceBlockByNumber; parity = trace_block; parity-replay = trace_replayBlockTransactions. */
  traces: 'callTracer' | 'parity' | 'parity-replay' | 'off';
  /** 'block' = eth_getBlockReceipts, falling back to per-tx receipts when the node lacks it. */
  receipts: 'block' | 'transaction';
  /**
   * A BroadcastChannel the indexer listens on: after each task this thread's client posts its
   * node-call figures there (RpcReport), so the indexer's metrics count the calls its workers make.
   */
  statsChannel?: string;
}

/** A worker client's figures since it was made (cumulative: a lost or repeated report does no harm). */
export interface RpcReport {
  /** The client: thread and configuration. */
  id: string;
  stats: { calls: number; httpRequests: number; retries: number };
  methods: Record<string, MethodStats>;
}

export interface IngestResult {
  /** RowBinary bytes per table (TableWriter; column order of src/chain/clickhouse-rows.ts). */
  tables: Record<TableName, Uint8Array>;
  /** The point rows of the range (PostgreSQL array literals, src/chain/point-rows.ts). */
  points: PointBatch;
  /** In block order. */
  blocks: BlockInfo[];
  /** Every address the range's rows name, and what they say of them (src/chain/named-addresses.ts); only for short ranges (a head's). */
  named?: RangeNames;
  summary: IngestSummary;
  /** Milliseconds spent fetching (RPC + JSON parsing) and decoding+encoding. */
  timings: { fetchMs: number; decodeMs: number };
  /** True when eth_getBlockReceipts was missing and per-transaction receipts were used. */
  receiptsFellBack: boolean;
}

// One client per RPC config (and stats channel: one indexer's figures are its own) per thread:
// keeps HTTP connections alive between tasks.
const clients = new Map<string, RpcClient>();
const channels = new Map<string, BroadcastChannel>();
function keyOf(cfg: IngestRpcConfig, statsChannel: string | undefined): string {
  return JSON.stringify([cfg.url, cfg.traceUrl, cfg.variant, cfg.timeoutMs, cfg.maxRetries, cfg.batchSize, cfg.concurrency, statsChannel]);
}
function clientFor(cfg: IngestRpcConfig, statsChannel: string | undefined): RpcClient {
  const key = keyOf(cfg, statsChannel);
  let c = clients.get(key);
  if (!c) {
    c = createRpcClient({
      url: cfg.url,
      traceUrl: cfg.traceUrl,
      variant: cfg.variant,
      timeoutMs: cfg.timeoutMs,
      maxRetries: cfg.maxRetries,
      batchSize: cfg.batchSize,
      concurrency: cfg.concurrency,
    });
    clients.set(key, c);
  }
  return c;
}

/**
 * Fetch, check, decode and encode blocks task.from..task.to. Throws (RpcError,
 * ChainDataError) when anything is missing or inconsistent: the range must then be retried as
 * a whole, nothing partial is returned.
 */
export async function ingest(task: IngestTask): Promise<IngestResult> {
  const t0 = performance.now();
  const client = clientFor(task.rpc, task.statsChannel);
  let fetched;
  try {
    fetched = await fetchBlockRange(client, task.from, task.to, {
      receipts: task.receipts,
      traces: task.traces,
    });
  } finally {
    // Failed ranges too: their errors are what an operator looks for.
    if (task.statsChannel) report(task.statsChannel, `${threadId}:${keyOf(task.rpc, task.statsChannel)}`, client);
  }
  const { bundles, receiptsFellBack } = fetched;
  const t1 = performance.now();
  const writer = new TableWriter();
  try {
    const summary = new SummaryBuilder();
    const sink = new PointSink(writer);
    const named = task.to - task.from < NAMED_RANGE_BLOCKS_MAX ? new NamedAddresses(sink) : undefined;
    const blocks: BlockInfo[] = new Array(bundles.length);
    for (let i = 0; i < bundles.length; i++) {
      blocks[i] = decodeBlockBundle(bundles[i]!, named ?? sink, summary);
      bundles[i] = undefined as never; // let the wire objects go early
    }
    const tables = writer.toBuffers();
    const points = sink.points.build();
    const t2 = performance.now();
    return {
      tables,
      points,
      blocks,
      ...(named ? { named: named.names() } : {}),
      summary: summary.build(),
      timings: { fetchMs: Math.round(t1 - t0), decodeMs: Math.round(t2 - t1) },
      receiptsFellBack,
    };
  } finally {
    // The table bytes were copied out: the writer's scratch buffers serve the next range.
    writer.release();
  }
}

function report(name: string, id: string, client: RpcClient): void {
  let ch = channels.get(name);
  if (!ch) {
    ch = new BroadcastChannel(name);
    // Never what keeps a worker alive.
    ch.unref();
    channels.set(name, ch);
  }
  const { calls, httpRequests, retries } = client.stats();
  ch.postMessage({ id, stats: { calls, httpRequests, retries }, methods: client.methods() } satisfies RpcReport);
}

/** The ArrayBuffers of a result's tables, for a transfer list. */
export function transferList(result: IngestResult): ArrayBuffer[] {
  return TABLE_NAMES.map((t) => result.tables[t].buffer as ArrayBuffer);
}

/** Piscina entry point: `ingest`, with the table buffers moved (not copied) to the caller. */
export default async function ingestTask(task: IngestTask): Promise<IngestResult> {
  const result = await ingest(task);
  const list = transferList(result);
  const movable = {
    get [transferableSymbol]() {
      return list;
    },
    get [valueSymbol]() {
      return result;
    },
  };
  return move(movable as never) as unknown as IngestResult;
}
