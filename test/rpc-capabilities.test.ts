// detectCapabilities per node variant, and fetchBlockRange's receipt fallback.
import t from 'tap';
import { createRpcClient } from '../src/rpc/client.js';
import { detectCapabilities } from '../src/rpc/capabilities.js';
import { fetchBlockRange } from '../src/rpc/fetch.js';
import { startReplayRpc, type ReplayServer } from './helpers/replay-rpc.js';

async function node(
  t: { teardown: (fn: () => unknown) => void },
  has: { blockReceipts?: boolean; debug?: boolean; trace?: boolean; traceFails?: boolean },
): Promise<ReplayServer> {
  const s = await startReplayRpc();
  t.teardown(() => s.close());
  s.handle('eth_blockNumber', () => ({ result: '0x10' }));
  if (has.blockReceipts) s.handle('eth_getBlockReceipts', () => ({ result: [] }));
  if (has.debug) s.handle('debug_traceBlockByNumber', () => ({ result: [] }));
  if (has.trace) {
    s.handle('trace_block', () =>
      has.traceFails ? { error: { code: -32000, message: 'historical state not available' } } : { result: [] },
    );
  }
  return s;
}

const client = (url: string, variant: 'geth' | 'erigon' | 'anvil' = 'geth') =>
  createRpcClient({ url, variant, retryBaseMs: 1, maxRetries: 1 });

t.test('geth with debug_* and block receipts', async (t) => {
  const s = await node(t, { blockReceipts: true, debug: true });
  const caps = await detectCapabilities(client(s.url), 'geth');
  t.match(caps, { blockReceipts: true, receipts: 'block', traces: 'callTracer', traceMethod: 'debug_traceBlockByNumber', probeBlock: 16 });
});

t.test('erigon prefers trace_block', async (t) => {
  const s = await node(t, { blockReceipts: true, debug: true, trace: true });
  const caps = await detectCapabilities(client(s.url, 'erigon'));
  t.match(caps, { traces: 'parity', traceMethod: 'trace_block' });
});

t.test('anvil answers both; a node without block receipts falls back per transaction', async (t) => {
  const s = await node(t, { debug: true });
  const caps = await detectCapabilities(client(s.url, 'anvil'));
  t.match(caps, { blockReceipts: false, receipts: 'transaction', traces: 'callTracer' });
  t.ok(caps.notes.some((n) => /trace_block not available/.test(n)));
  t.ok(caps.notes.some((n) => /eth_getBlockReceipts not available/.test(n)));
});

t.test('no trace method: internal transactions off, reported, not fatal', async (t) => {
  const s = await node(t, { blockReceipts: true, trace: true, traceFails: true });
  const caps = await detectCapabilities(client(s.url, 'erigon'), 'erigon', 5);
  t.match(caps, { traces: 'off', traceMethod: null, probeBlock: 5 });
  t.ok(caps.notes.some((n) => /trace_block failed: historical state not available/.test(n)));
  t.ok(caps.notes.some((n) => /internal transactions are off/.test(n)));
});

t.test('a node that is down is an error, not "no capabilities"', async (t) => {
  const s = await node(t, {});
  const url = s.url;
  await s.close();
  await t.rejects(detectCapabilities(client(url)), { name: 'RpcError', kind: 'network' });
});

t.test('fetchBlockRange: eth_getBlockReceipts missing -> per-transaction receipts', async (t) => {
  const s = await startReplayRpc();
  t.teardown(() => s.close());
  const block = {
    number: '0x5',
    hash: '0xb5',
    parentHash: '0xb4',
    timestamp: '0x1',
    transactions: [
      { hash: '0xt1', blockHash: '0xb5', transactionIndex: '0x0' },
      { hash: '0xt2', blockHash: '0xb5', transactionIndex: '0x1' },
    ],
  };
  s.add('eth_getBlockByNumber', ['0x5', true], block);
  s.add('eth_getTransactionReceipt', ['0xt1'], { transactionHash: '0xt1', logs: [] });
  s.add('eth_getTransactionReceipt', ['0xt2'], { transactionHash: '0xt2', logs: [] });
  const c = client(s.url);
  const r = await fetchBlockRange(c, 5, 5, { receipts: 'block', traces: 'off' });
  t.equal(r.receiptsFellBack, true);
  t.same(r.bundles[0]!.receipts!.map((x) => x.transactionHash), ['0xt1', '0xt2']);
  t.equal(s.calls('eth_getBlockReceipts'), 1);
  t.equal(s.calls('eth_getTransactionReceipt'), 2);
  await t.rejects(fetchBlockRange(c, 6, 6, { receipts: 'transaction', traces: 'off' }), /no recorded response|not found/);
  await t.rejects(fetchBlockRange(c, 6, 5, { receipts: 'transaction', traces: 'off' }), RangeError);
});
