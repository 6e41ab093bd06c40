// A bad node: transient failures are retried and indexing completes; a persistent failure or a
// malformed answer stops that range with nothing of it committed; a node without trace methods
// is indexed without internal transactions, and the status says so.
import t, { type Test } from 'tap';
import { withDevnet } from './helpers/devnet.js';
import { rpc } from './helpers/rpc.js';
import { tmpDir } from './helpers/tmp.js';
import { startReplayRpc, type ReplayServer } from './helpers/replay-rpc.js';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { createIndexer, type Indexer } from '../src/indexer/indexer.js';
import { indexingStatus, indexerStall } from '../src/storage/indexing-status.js';
import type { Logger } from '../src/log.js';
import { recordingLogger } from './helpers/node-in-front.js';
import type { RpcVariant } from '../src/rpc/client.js';

const PROXIED = ['eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockReceipts', 'eth_getTransactionReceipt', 'trace_block', 'debug_traceBlockByNumber', 'trace_replayBlockTransactions'];

/** A node in front of anvil that the test can make misbehave. */
async function proxy(t: Test, upstream: string): Promise<ReplayServer> {
  const srv = await startReplayRpc();
  t.teardown(() => srv.close());
  for (const m of PROXIED) srv.handle(m, async (params) => ({ result: await rpc(upstream, m, params) }));
  return srv;
}

async function withIndexer(t: Test, url: string, variant: RpcVariant, fn: (ix: Indexer, stores: Awaited<ReturnType<typeof openStores>>) => Promise<void>, log?: Logger) {
  const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
  try {
    await migrateAll(stores);
    const ix = createIndexer({
      ch: stores.ch, pg: stores.pg, pending: false, batchBlocks: 4, workers: 1, pollMs: 50, log,
      rpc: { url, variant, timeoutMs: 1000, maxRetries: 6 },
    });
    await ix.start();
    try {
      await fn(ix, stores);
    } finally {
      await ix.stop();
    }
  } finally {
    await stores.close();
  }
}

const count = async (stores: Awaited<ReturnType<typeof openStores>>, sql: string) => Number((await stores.ch.query<{ n: string }>(sql))[0].n);

t.test('transient failures are retried and everything is indexed', async (t) => {
  const devnet = await withDevnet(t);
  const node = await proxy(t, devnet.url);
  const head = Number(await rpc<string>(devnet.url, 'eth_blockNumber'));
  node.fault({ method: 'eth_getBlockReceipts', status: 429, headers: { 'retry-after': '0' }, times: 2 });
  node.fault({ method: 'eth_getBlockReceipts', status: 503, times: 2 });
  node.fault({ method: 'eth_getBlockReceipts', malformed: true });
  node.fault({ method: 'trace_block', delayMs: 1500 }); // longer than the 1 s timeout
  node.fault({ method: 'eth_getBlockByNumber', drop: true });
  await withIndexer(t, node.url, 'erigon', async (ix, stores) => {
    await ix.waitFor(head, 90_000);
    t.equal(await count(stores, 'SELECT count() AS n FROM transactions'), devnet.scenario.counts.txs, 'every transaction');
    t.equal(await count(stores, 'SELECT count() AS n FROM logs'), devnet.scenario.counts.logs, 'every log');
    t.equal(await count(stores, 'SELECT count() AS n FROM blocks'), head + 1, 'every block once');
  });
  const outcomes = node.log.map((l) => l.outcome).join(' ');
  for (const f of ['429', '503', 'malformed', 'drop']) t.match(outcomes, f, `fault ${f} was served`);
});

t.test('a persistent failure stops at the range before it; nothing of the range is committed', async (t) => {
  const devnet = await withDevnet(t);
  const node = await proxy(t, devnet.url);
  const head = Number(await rpc<string>(devnet.url, 'eth_blockNumber'));
  let broken = true;
  // Receipts of block 10 fail with a JSON-RPC error; block 14's come back one short.
  node.handle('eth_getBlockReceipts', async (params) => {
    const n = Number(params[0]);
    const r = await rpc<unknown[]>(devnet.url, 'eth_getBlockReceipts', params);
    if (broken && n === 10) return { error: { code: -32000, message: 'header not found' } };
    if (broken && n === 14 && r.length > 0) return { result: r.slice(1) };
    return { result: r };
  });
  await withIndexer(t, node.url, 'erigon', async (ix, stores) => {
    await ix.waitFor(7, 30_000);
    await new Promise((r) => setTimeout(r, 2500)); // several retries of the broken range
    t.equal(ix.committed, 7, 'stopped after the last good range (8-11 holds block 10)');
    t.equal(await count(stores, 'SELECT count() AS n FROM blocks WHERE number >= 8'), 0, 'no block of the failing range');
    t.equal(await count(stores, 'SELECT count() AS n FROM transactions WHERE block_number >= 8'), 0, 'no tx of it');
    t.equal(await count(stores, 'SELECT count() AS n FROM logs WHERE block_number >= 8'), 0, 'no log of it');
    const status = await indexingStatus(stores.pg, stores.ch);
    t.equal(status.finished_indexing_blocks, false, 'status is not finished');
    t.equal(status.details.committed_block, 7);
    broken = false;
    await ix.waitFor(head, 60_000);
    t.equal(await count(stores, 'SELECT count() AS n FROM transactions'), devnet.scenario.counts.txs, 'recovers once the node does');
  });
});

t.test('the node head moving back below a range being fetched is no failure: the index follows the node', async (t) => {
  const devnet = await withDevnet(t);
  const node = await proxy(t, devnet.url);
  const head = Number(await rpc<string>(devnet.url, 'eth_blockNumber'));
  // The head is said to be 6 blocks ahead of what the node serves until a block beyond the real
  // head is asked for (a balancer's nodes that disagree, or a branch that a reorg replaced with a
  // shorter one); from then on the answer is the truth.
  let ahead = true;
  let calls = 0;
  node.handle('eth_blockNumber', async () => {
    const real = Number(await rpc<string>(devnet.url, 'eth_blockNumber'));
    calls++;
    return { result: `0x${(ahead ? real + 6 : real).toString(16)}` };
  });
  node.handle('eth_getBlockByNumber', async (params) => {
    const b = await rpc<unknown>(devnet.url, 'eth_getBlockByNumber', params);
    if (b === null) ahead = false;
    return { result: b };
  });
  const warnings: string[] = [];
  const errors: string[] = [];
  await withIndexer(t, node.url, 'erigon', async (ix, stores) => {
    await ix.waitFor(head, 60_000);
    t.equal(await count(stores, 'SELECT count() AS n FROM transactions'), devnet.scenario.counts.txs, 'every transaction');
    t.equal(await count(stores, 'SELECT count() AS n FROM blocks'), head + 1, 'every block once');
    t.equal(await indexerStall(stores.pg), null, 'no stall recorded');
  }, recordingLogger('indexer', warnings, errors));
  t.ok(calls > 1, 'the head was read again');
  t.ok(warnings.some((m) => /head moved back/.test(m)), 'said, as a warning');
  t.same(errors, [], 'no error logged');
});

t.test('a node without trace methods: indexed without internal transactions, and said', async (t) => {
  const devnet = await withDevnet(t);
  const node = await proxy(t, devnet.url);
  for (const m of ['trace_block', 'debug_traceBlockByNumber', 'trace_replayBlockTransactions']) node.disable(m);
  const head = Number(await rpc<string>(devnet.url, 'eth_blockNumber'));
  await withIndexer(t, node.url, 'geth', async (ix, stores) => {
    t.equal(ix.caps?.traces, 'off');
    await ix.waitFor(head, 60_000);
    t.equal(await count(stores, 'SELECT count() AS n FROM transactions'), devnet.scenario.counts.txs, 'every transaction');
    t.equal(await count(stores, 'SELECT count() AS n FROM internal_transactions'), 0, 'no internal transactions invented');
    const status = await indexingStatus(stores.pg, stores.ch);
    t.equal(status.details.internal_transactions, 'off');
    t.equal(status.indexed_internal_transactions_ratio, null);
    t.equal(status.indexed_blocks_ratio, '1.00');
    t.match(status.details.notes.join('\n'), /internal transactions are off/);
  });
});
