// Pre-serialized JSON-RPC results of a synthetic chain: every answer the indexer can ask for is
// turned into bytes ONCE, before anything is timed. The replay server only looks them up and
// writes them; the benchmark parses the very same bytes for its JSON.parse-only baseline.
//
// Layout: segments of at most SEGMENT_BYTES holding the results back to back (one Buffer, or one
// file read back, cannot pass 2-4 GiB: 4,800 blocks with traces are ~5.4 GB), and an index
// key -> [segment, offset, length]. Saved as files `<path>.<segment>` and `<path>.json` (index and
// counts) for the server process.

import { readFileSync, writeFileSync } from 'node:fs';
import { SynthChain, addCounts, emptyCounts, type ChainCounts, type SynthOptions } from './synth.js';

/** At most this many bytes per segment: under readFileSync's 2 GiB limit. */
const SEGMENT_BYTES = 1 << 30;

/** Methods with a pre-serialized result per block. */
export type BlockMethod =
  | 'eth_getBlockByNumber/full'
  | 'eth_getBlockByNumber/hashes'
  | 'eth_getBlockReceipts'
  | 'debug_traceBlockByNumber'
  | 'trace_block';

export const BLOCK_METHODS: readonly BlockMethod[] = [
  'eth_getBlockByNumber/full',
  'eth_getBlockByNumber/hashes',
  'eth_getBlockReceipts',
  'debug_traceBlockByNumber',
  'trace_block',
];

export const blockKey = (method: BlockMethod, n: number): string => `${method}/${n}`;

export interface ResponseStore {
  head: number;
  options: SynthOptions;
  counts: ChainCounts;
  /** Bytes of every result, back to back, in segments. */
  data: Buffer[];
  /** key -> [segment, offset, length] in `data`. */
  index: Map<string, [number, number, number]>;
  /** Total bytes per method over all blocks. */
  bytesPerMethod: Record<BlockMethod, number>;
}

/** The result bytes for `key` (a view into the store, not a copy), or undefined. */
export function lookup(store: ResponseStore, key: string): Buffer | undefined {
  const e = store.index.get(key);
  return e ? store.data[e[0]]!.subarray(e[1], e[1] + e[2]) : undefined;
}

/**
 * Generates the chain block by block and serializes each answer once (the objects are dropped
 * right after, so memory holds only bytes). `traces` limits the trace formats serialized (the
 * other is then unknown to the server); `onBlock` is called after each block (progress);
 * `segmentBytes` bounds a segment (tests).
 */
export function buildResponseStore(
  opts: SynthOptions,
  what: { traces?: 'callTracer' | 'parity' | 'both'; onBlock?: (n: number) => void; segmentBytes?: number } = {},
): ResponseStore {
  const traces = what.traces ?? 'both';
  const segmentBytes = what.segmentBytes ?? SEGMENT_BYTES;
  const chain = new SynthChain(opts);
  const segments: Buffer[] = [];
  let chunks: Buffer[] = [];
  const index = new Map<string, [number, number, number]>();
  const counts = emptyCounts();
  const bytesPerMethod = Object.fromEntries(BLOCK_METHODS.map((m) => [m, 0])) as Record<BlockMethod, number>;
  let offset = 0;
  const put = (method: BlockMethod, n: number, json: string) => {
    const buf = Buffer.from(json, 'utf8');
    if (offset + buf.length > segmentBytes && chunks.length) {
      segments.push(Buffer.concat(chunks, offset));
      chunks = [];
      offset = 0;
    }
    chunks.push(buf);
    index.set(blockKey(method, n), [segments.length, offset, buf.length]);
    offset += buf.length;
    bytesPerMethod[method] += buf.length;
  };
  for (let n = chain.first; n <= chain.head; n++) {
    const b = chain.next();
    addCounts(counts, b.counts);
    put('eth_getBlockByNumber/full', n, JSON.stringify(b.block));
    put('eth_getBlockByNumber/hashes', n, JSON.stringify({ ...b.block, transactions: b.block.transactions.map((t) => t.hash) }));
    put('eth_getBlockReceipts', n, JSON.stringify(b.receipts));
    // geth refuses to trace the genesis block; the indexer never asks for it.
    if (n > 0 && traces !== 'parity') put('debug_traceBlockByNumber', n, JSON.stringify(b.callTracer));
    if (traces !== 'callTracer') put('trace_block', n, JSON.stringify(b.parity));
    what.onBlock?.(n);
  }
  segments.push(Buffer.concat(chunks, offset));
  return { head: chain.head, options: chain.opts, counts, data: segments, index, bytesPerMethod };
}

interface StoreMeta {
  head: number;
  options: SynthOptions;
  counts: ChainCounts;
  bytesPerMethod: Record<BlockMethod, number>;
  segments: number;
  index: [string, number, number, number][];
}

export function saveResponseStore(store: ResponseStore, path: string): void {
  store.data.forEach((segment, i) => writeFileSync(`${path}.${i}`, segment));
  const meta: StoreMeta = {
    head: store.head,
    options: store.options,
    counts: store.counts,
    bytesPerMethod: store.bytesPerMethod,
    segments: store.data.length,
    index: [...store.index].map(([k, [s, o, l]]) => [k, s, o, l]),
  };
  writeFileSync(path + '.json', JSON.stringify(meta));
}

export function loadResponseStore(path: string): ResponseStore {
  const meta = JSON.parse(readFileSync(path + '.json', 'utf8')) as StoreMeta;
  const data = Array.from({ length: meta.segments }, (_, i) => readFileSync(`${path}.${i}`));
  return {
    head: meta.head,
    options: meta.options,
    counts: meta.counts,
    bytesPerMethod: meta.bytesPerMethod,
    data,
    index: new Map(meta.index.map(([k, s, o, l]) => [k, [s, o, l]])),
  };
}
