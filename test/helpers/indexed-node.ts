// Any node (anvil's OP mode, Hardhat's EDR, a replay server) indexed into fresh embedded stores,
// with the derived lanes (coin balances, counters) run to rest and the API app on top: what the
// OP Stack tests compare with the node's own answers. One per test file (chDB: one data
// directory per process).
import type { Test } from 'tap';
import { embeddedStores } from './stores.js';
import { request } from './api.js';
import { rpc } from './rpc.js';
import { createIndexer, type Indexer, type IndexerOptions } from '../../src/indexer/indexer.js';
import { createDerived } from '../../src/derived/scheduler.js';
import { createApiApp, type ApiApp } from '../../src/api/app.js';
import { createLogger } from '../../src/log.js';
import { createRpcClient } from '../../src/rpc/client.js';
import type { Stores } from '../../src/storage/stores.js';
import type { RpcVariant } from '../../src/rpc/client.js';

export interface IndexedNode {
  stores: Stores;
  indexer: Indexer;
  app: ApiApp;
  /** Indexes up to the node's head and lets every lane come to rest; the head. */
  catchUp(): Promise<number>;
  get(path: string): Promise<{ status: number; body: any; text: string; headers: Record<string, string> }>;
}

export async function indexNode(t: Test, url: string, opts: { variant?: RpcVariant; indexer?: Partial<IndexerOptions> } = {}): Promise<IndexedNode> {
  const stores = await embeddedStores(t);
  const indexer = createIndexer({
    ch: stores.ch,
    pg: stores.pg,
    rpc: { url, variant: opts.variant ?? 'geth', timeoutMs: 5000, maxRetries: 1 },
    batchBlocks: 8,
    workers: 1,
    pollMs: 50,
    pending: false,
    log: createLogger('indexer').child('test'),
    ...opts.indexer,
  });
  const derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, pollMs: 50, rangeBlocks: 16, log: createLogger('derived').child('test') });
  derived.attach(indexer);
  const node = createRpcClient({ url, timeoutMs: 5000, maxRetries: 1 });
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 0, rpc: node });
  const detach = app.attach(indexer, derived);
  t.teardown(async () => {
    detach();
    await derived.stop();
    await indexer.stop();
  });
  await indexer.start();
  derived.start();
  const catchUp = async () => {
    const h = Number(await rpc<string>(url, 'eth_blockNumber'));
    await indexer.waitFor(h, 120_000);
    await derived.settle(120_000);
    return h;
  };
  const get = async (path: string) => {
    const reply = await app.handle(request(path));
    let text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    // A streamed answer (the CSV exports) in full.
    if (reply.stream) for await (const chunk of reply.stream) text += Buffer.from(chunk).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: reply.status, body, text, headers: (reply.headers ?? {}) as Record<string, string> };
  };
  return { stores, indexer, app, catchUp, get };
}
