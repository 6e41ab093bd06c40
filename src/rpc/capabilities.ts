// Probe what a node can do: block receipts, and which trace method works. A node without any
// trace method is not an error: internal transactions are off, and the reasons say why.

import { toHex } from '../chain/hex.js';
import type { RpcClient, RpcVariant } from './client.js';
import { RpcError, isMethodNotFound } from './errors.js';
import { CALL_TRACER, type ReceiptsMode } from './fetch.js';

export type TraceMethod = 'debug_traceBlockByNumber' | 'trace_block' | 'trace_replayBlockTransactions';

export interface Capabilities {
  /** eth_getBlockReceipts works. */
  blockReceipts: boolean;
  receipts: ReceiptsMode;
  /** The trace format to index with; 'off' when no trace method works. */
  traces: 'callTracer' | 'parity' | 'parity-replay' | 'off';
  traceMethod: TraceMethod | null;
  /** Block the probes ran on. */
  probeBlock: number;
  /** Human-readable findings (one line each), e.g. why traces are off. */
  notes: string[];
}

const CANDIDATES: Record<RpcVariant, TraceMethod[]> = {
  geth: ['debug_traceBlockByNumber', 'trace_block'],
  erigon: ['trace_block', 'trace_replayBlockTransactions', 'debug_traceBlockByNumber'],
  nethermind: ['trace_block', 'trace_replayBlockTransactions', 'debug_traceBlockByNumber'],
  besu: ['trace_block', 'trace_replayBlockTransactions', 'debug_traceBlockByNumber'],
  anvil: ['trace_block', 'debug_traceBlockByNumber'],
};

const FORMAT: Record<TraceMethod, Capabilities['traces']> = {
  debug_traceBlockByNumber: 'callTracer',
  trace_block: 'parity',
  trace_replayBlockTransactions: 'parity-replay',
};

function paramsFor(method: TraceMethod, block: string): unknown[] {
  if (method === 'debug_traceBlockByNumber') return [block, CALL_TRACER];
  if (method === 'trace_replayBlockTransactions') return [block, ['trace']];
  return [block];
}

/**
 * Probe `client` (as node `variant`). Transport failures (node down after retries) throw;
 * missing methods and failing tracers do not. `probeBlock` defaults to the head.
 */
export async function detectCapabilities(
  client: RpcClient,
  variant: RpcVariant = client.variant,
  probeBlock?: number,
): Promise<Capabilities> {
  const notes: string[] = [];
  const head = probeBlock ?? Number(await client.request<string>('eth_blockNumber'));
  const block = toHex(head);

  let blockReceipts = false;
  try {
    const r = await client.request<unknown>('eth_getBlockReceipts', [block]);
    blockReceipts = Array.isArray(r);
    if (!blockReceipts) notes.push('eth_getBlockReceipts returned no array: receipts fetched per transaction');
  } catch (err) {
    if (!(err instanceof RpcError) || err.kind !== 'rpc') throw err;
    notes.push(
      isMethodNotFound(err)
        ? 'eth_getBlockReceipts not available: receipts fetched per transaction'
        : `eth_getBlockReceipts failed (${err.detail}): receipts fetched per transaction`,
    );
  }

  let traceMethod: TraceMethod | null = null;
  for (const m of CANDIDATES[variant] ?? CANDIDATES.geth) {
    try {
      await client.request<unknown>(m, paramsFor(m, block), { trace: true });
      traceMethod = m;
      break;
    } catch (err) {
      if (!(err instanceof RpcError) || err.kind !== 'rpc') throw err;
      // geth refuses to trace the genesis block: the method exists.
      if (head === 0 && /genesis/i.test(err.detail)) {
        traceMethod = m;
        break;
      }
      notes.push(isMethodNotFound(err) ? `${m} not available` : `${m} failed: ${err.detail}`);
    }
  }
  if (!traceMethod) notes.push(`no trace method works at ${client.traceUrl}: internal transactions are off`);
  return {
    blockReceipts,
    receipts: blockReceipts ? 'block' : 'transaction',
    traces: traceMethod ? FORMAT[traceMethod] : 'off',
    traceMethod,
    probeBlock: head,
    notes,
  };
}
