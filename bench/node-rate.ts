// The operator's node alone (BENCH_RPC_URL): blocks, block receipts and traces over a range,
// each method fetched by itself with the indexer's concurrency, bodies read but not parsed, so
// the figure is the node's (and the network's) rate, printed beside the indexer's to say which
// side limits an ingest against that node.

import { performance } from 'node:perf_hooks';
import { createRpcClient, type RpcVariant } from '../src/rpc/client.js';
import { detectCapabilities, type Capabilities } from '../src/rpc/capabilities.js';
import { CALL_TRACER } from '../src/rpc/fetch.js';
import { toHex } from '../src/chain/hex.js';

export interface MethodRate {
  method: string;
  blocks: number;
  seconds: number;
  blocksPerS: number;
  bytes: number;
  errors: number;
}

/** The params the indexer sends for a block's traces with `caps.traceMethod`. */
function traceParams(caps: Capabilities, hex: string): unknown[] {
  if (caps.traceMethod === 'debug_traceBlockByNumber') return [hex, CALL_TRACER];
  if (caps.traceMethod === 'trace_replayBlockTransactions') return [hex, ['trace']];
  return [hex];
}

/** One method over from..to, `concurrency` requests in flight, one JSON-RPC call per request. */
export async function fetchAlone(
  url: string,
  method: string,
  params: (hex: string) => unknown[],
  from: number,
  to: number,
  concurrency: number,
): Promise<MethodRate> {
  let next = from;
  let bytes = 0;
  let errors = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (next <= to) {
      const n = next++;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: n, method, params: params(toHex(n)) }),
      });
      const body = Buffer.from(await res.arrayBuffer());
      bytes += body.length;
      // Not parsed (that is the indexer's side); an error reply starts its object with "error"
      // or carries it within the first bytes, which is enough to count failures.
      if (!res.ok || body.subarray(0, 200).includes('"error"')) errors++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, to - from + 1)) }, lane));
  const seconds = (performance.now() - t0) / 1000;
  const blocks = to - from + 1;
  return { method, blocks, seconds, blocksPerS: blocks / seconds, bytes, errors };
}

/** The node's rate per method over from..to, and the capabilities the indexer will use. */
export async function nodeRates(url: string, variant: RpcVariant, from: number, to: number, concurrency: number): Promise<{ caps: Capabilities; rates: MethodRate[] }> {
  const client = createRpcClient({ url, variant, maxRetries: 2 });
  const caps = await detectCapabilities(client, variant, to);
  const rates: MethodRate[] = [];
  rates.push(await fetchAlone(url, 'eth_getBlockByNumber', (h) => [h, true], from, to, concurrency));
  if (caps.blockReceipts) rates.push(await fetchAlone(url, 'eth_getBlockReceipts', (h) => [h], from, to, concurrency));
  if (caps.traceMethod) rates.push(await fetchAlone(url, caps.traceMethod, (h) => traceParams(caps, h), from, to, concurrency));
  return { caps, rates };
}

/**
 * Blocks/s the node can serve when every block needs each method once and the calls of one
 * method do not overlap another's: 1 / sum(1 / rate). What the indexer cannot beat against it
 * (its calls do overlap, so the node may serve a little more).
 */
export function nodeBound(rates: MethodRate[]): number {
  if (!rates.length || rates.some((r) => !(r.blocksPerS > 0))) return NaN;
  return 1 / rates.reduce((a, r) => a + 1 / r.blocksPerS, 0);
}
