// Fetching what the indexer decodes: blocks with full transactions, receipts (per block via
// eth_getBlockReceipts, or per transaction), traces per node variant. Returns wire data
// grouped per block (BlockBundle); decoding is src/chain's job.

import { ChainDataError } from '../chain/errors.js';
import { toHex } from '../chain/hex.js';
import { gethBlockTraces, parityBlockTraces, parityReplayTraces } from '../chain/traces.js';
import type { BlockBundle } from '../chain/bundle.js';
import type {
  BlockTraces,
  GethTxTrace,
  ParityReplayResult,
  ParityTrace,
  RpcBlock,
  RpcReceipt,
  RpcTransaction,
} from '../chain/wire.js';
import type { RpcClient } from './client.js';
import { isMethodNotFound } from './errors.js';

export type ReceiptsMode = 'block' | 'transaction';
/** callTracer = debug_traceBlockByNumber; parity = trace_block; parity-replay = trace_replayBlockTransactions. */
export type TracesMode = 'callTracer' | 'parity' | 'parity-replay' | 'off';

export const CALL_TRACER = { tracer: 'callTracer' } as const;

/** Blocks [from..to] with full transactions. Throws when one is missing (beyond the head). */
export async function fetchBlocks(client: RpcClient, numbers: readonly number[]): Promise<RpcBlock<RpcTransaction>[]> {
  const blocks = await client.batchOrThrow<RpcBlock<RpcTransaction> | null>(
    numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toHex(n), true] })),
  );
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (!b) throw new ChainDataError('block not found (beyond the head?)', numbers[i]);
    if (Number(b.number) !== numbers[i]) throw new ChainDataError(`node returned block ${Number(b.number)}`, numbers[i]);
  }
  return blocks as RpcBlock<RpcTransaction>[];
}

/** Clients whose node answered eth_getBlockReceipts with "method not found" (asked once). */
const lacksBlockReceipts = new WeakSet<RpcClient>();

/** Receipts of each block via eth_getBlockReceipts; null when the node lacks the method. */
export async function fetchBlockReceipts(
  client: RpcClient,
  numbers: readonly number[],
): Promise<RpcReceipt[][] | null> {
  if (lacksBlockReceipts.has(client)) return null;
  const outs = await client.batch<RpcReceipt[] | null>(
    numbers.map((n) => ({ method: 'eth_getBlockReceipts', params: [toHex(n)] })),
  );
  const res: RpcReceipt[][] = [];
  for (let i = 0; i < outs.length; i++) {
    const o = outs[i]!;
    if (!o.ok) {
      if (isMethodNotFound(o.error)) {
        lacksBlockReceipts.add(client);
        return null;
      }
      throw o.error;
    }
    if (!Array.isArray(o.result)) throw new ChainDataError('eth_getBlockReceipts returned no receipts', numbers[i]);
    res.push(o.result);
  }
  return res;
}

/** Receipts via eth_getTransactionReceipt, grouped like `blocks`. */
export async function fetchTransactionReceipts(
  client: RpcClient,
  blocks: readonly RpcBlock<RpcTransaction>[],
): Promise<RpcReceipt[][]> {
  const calls = [];
  for (const b of blocks) for (const tx of b.transactions) calls.push({ method: 'eth_getTransactionReceipt', params: [tx.hash] });
  const flat = await client.batchOrThrow<RpcReceipt | null>(calls);
  const out: RpcReceipt[][] = [];
  let k = 0;
  for (const b of blocks) {
    const rs: RpcReceipt[] = [];
    for (const tx of b.transactions) {
      const r = flat[k++];
      if (!r) throw new ChainDataError(`receipt of ${tx.hash} not found`, Number(b.number));
      rs.push(r);
    }
    out.push(rs);
  }
  return out;
}

/**
 * Raw trace results per block (not yet grouped per tx). Block 0 is never traced (geth refuses
 * the genesis block; it has no transactions): its entry is [].
 */
async function fetchRawTraces(client: RpcClient, numbers: readonly number[], mode: Exclude<TracesMode, 'off'>): Promise<unknown[]> {
  const idx: number[] = [];
  const calls = [];
  for (let i = 0; i < numbers.length; i++) {
    const n = numbers[i]!;
    if (n === 0) continue;
    idx.push(i);
    if (mode === 'callTracer') calls.push({ method: 'debug_traceBlockByNumber', params: [toHex(n), CALL_TRACER] });
    else if (mode === 'parity') calls.push({ method: 'trace_block', params: [toHex(n)] });
    else calls.push({ method: 'trace_replayBlockTransactions', params: [toHex(n), ['trace']] });
  }
  const res = await client.batchOrThrow<unknown>(calls, { trace: true });
  const out: unknown[] = numbers.map(() => []);
  for (let k = 0; k < idx.length; k++) out[idx[k]!] = res[k];
  return out;
}

/** Raw trace result of one block -> traces grouped per transaction. */
export function groupTraces(mode: Exclude<TracesMode, 'off'>, raw: unknown, txCount: number, blockNumber: number): BlockTraces {
  if (mode === 'callTracer') return gethBlockTraces(raw as GethTxTrace[], blockNumber);
  if (mode === 'parity') return parityBlockTraces(raw as ParityTrace[], txCount, blockNumber);
  return parityReplayTraces(raw as ParityReplayResult[], blockNumber);
}

export interface FetchRangeOptions {
  receipts: ReceiptsMode | 'none';
  traces: TracesMode;
}

export interface FetchRangeResult {
  bundles: BlockBundle[];
  /** True when eth_getBlockReceipts was asked for but missing, and per-tx receipts were used. */
  receiptsFellBack: boolean;
}

/**
 * Blocks from..to (inclusive) with receipts and traces, all requests in parallel where the
 * data allows (per-transaction receipts need the blocks first).
 */
export async function fetchBlockRange(
  client: RpcClient,
  from: number,
  to: number,
  opts: FetchRangeOptions,
): Promise<FetchRangeResult> {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to < from) {
    throw new RangeError(`bad block range ${from}..${to}`);
  }
  const numbers: number[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  const blocksP = fetchBlocks(client, numbers);
  const blockReceiptsP = opts.receipts === 'block' ? fetchBlockReceipts(client, numbers) : Promise.resolve(null);
  const tracesP = opts.traces !== 'off' ? fetchRawTraces(client, numbers, opts.traces) : Promise.resolve(null);
  // Avoid unhandled rejections while awaiting in sequence.
  blockReceiptsP.catch(() => {});
  tracesP.catch(() => {});
  const blocks = await blocksP;
  let receipts: RpcReceipt[][] | null = await blockReceiptsP;
  let receiptsFellBack = false;
  if (opts.receipts === 'transaction' || (opts.receipts === 'block' && receipts === null)) {
    receiptsFellBack = opts.receipts === 'block';
    receipts = await fetchTransactionReceipts(client, blocks);
  }
  const rawTraces = await tracesP;
  const bundles: BlockBundle[] = new Array(blocks.length);
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    const traces =
      rawTraces && opts.traces !== 'off'
        ? numbers[i] === 0
          ? ({ format: opts.traces === 'callTracer' ? 'callTracer' : 'parity', txs: [] } as BlockTraces)
          : groupTraces(opts.traces, rawTraces[i], block.transactions.length, numbers[i]!)
        : null;
    bundles[i] = { block, receipts: receipts ? receipts[i]! : null, traces };
  }
  return { bundles, receiptsFellBack };
}
