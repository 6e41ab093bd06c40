// The API on an indexed devnet, for tests: anvil runs the deterministic scenario, the indexer
// indexes it into embedded stores (chDB + PostgreSQL), and the API app is built on top and
// attached to the indexer's events. Everything is stopped when the test ends.
// One per test file: chDB allows one data directory per process.
import type { Test } from 'tap';
import { withDevnet, type Devnet } from './devnet.js';
import { embeddedStores } from './stores.js';
import { createIndexer, type Indexer } from '../../src/indexer/indexer.js';
import { createApiApp, type ApiApp } from '../../src/api/app.js';
import type { ApiReply } from '../../src/api/http.js';
import type { Stores } from '../../src/storage/stores.js';
import { createLogger } from '../../src/log.js';
import { createRpcClient } from '../../src/rpc/client.js';

export interface ApiFixture {
  devnet: Devnet;
  stores: Stores;
  indexer: Indexer;
  app: ApiApp;
  /** Node head indexed before the fixture was returned. */
  head: number;
  /** GET a path (with query) through app.handle; the body parsed as JSON. */
  get(pathAndQuery: string, headers?: Record<string, string>): Promise<{ status: number; body: any; reply: ApiReply }>;
  /** JSON-RPC call to the devnet node. */
  rpc<T>(method: string, params?: unknown[]): Promise<T>;
}

export async function rpcCall<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Parses '/api/v2/x?a=1&a=2' into the request shape (repeated keys kept). */
export function request(pathAndQuery: string, method = 'GET', headers: Record<string, string> = {}) {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : pathAndQuery.slice(q + 1));
  return { method, path, query, headers, ip: '127.0.0.1' };
}

export async function apiOnDevnet(t: Test, opts: { cacheMaxMb?: number; variant?: 'geth' | 'erigon' } = {}): Promise<ApiFixture> {
  const devnet = await withDevnet(t);
  const stores = await embeddedStores(t);
  const rpc = <T>(method: string, params: unknown[] = []) => rpcCall<T>(devnet.url, method, params);
  const head = Number(await rpc<string>('eth_blockNumber'));
  const indexer = createIndexer({
    ch: stores.ch,
    pg: stores.pg,
    rpc: { url: devnet.url, variant: opts.variant ?? 'geth' },
    batchBlocks: 8,
    workers: 1,
    pollMs: 100,
    pending: false,
    log: createLogger('indexer').child('test'),
  });
  // The node as `explorer start` gives it to the API (is_contract of unknown addresses, state-change balances).
  const node = createRpcClient({ url: devnet.url, timeoutMs: 5000, maxRetries: 1 });
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: opts.cacheMaxMb ?? 16, rpc: node });
  const detach = app.attach(indexer);
  t.teardown(async () => {
    detach();
    await indexer.stop();
  });
  await indexer.start();
  await indexer.waitFor(head, 120_000);
  const get = async (pathAndQuery: string, headers?: Record<string, string>) => {
    const reply = await app.handle(request(pathAndQuery, 'GET', headers));
    const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    return { status: reply.status, body: text ? JSON.parse(text) : undefined, reply };
  };
  return { devnet, stores, indexer, app, head, get, rpc };
}
