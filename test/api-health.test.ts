// Health checks over HTTP on an indexed devnet: liveness answers while the process does; readiness
// and /api/health report each store and the index's lag behind the node, 503 when the index is
// more than the bound behind or the node's head cannot be learnt, and never cached; Blockscout's
// /api/v1/health paths answer the same.
import t from 'tap';
import { apiWithDerived } from './helpers/api-derived.js';
import { DEFAULT_READY_MAX_LAG_BLOCKS } from '../src/api/health.js';

t.test('liveness and readiness', async (t) => {
  const f = await apiWithDerived(t, { serve: true });
  const base = `http://127.0.0.1:${f.server!.port}`;
  const get = async (path: string, method = 'GET') => {
    const res = await fetch(`${base}${path}`, { method });
    const text = await res.text();
    return { status: res.status, cache: res.headers.get('cache-control'), body: text ? JSON.parse(text) : null };
  };
  const ctx = f.server!.app.ctx as unknown as { rpc: unknown };
  const node = ctx.rpc;
  t.teardown(() => void (ctx.rpc = node));

  t.same(await get('/api/health/liveness'), { status: 200, cache: 'no-store', body: { healthy: true } }, 'liveness');
  const ready = await get('/api/health');
  t.equal(ready.status, 200);
  t.equal(ready.cache, 'no-store', 'never cached');
  t.match(ready.body, {
    healthy: true,
    checks: { postgres: { ok: true }, clickhouse: { ok: true }, indexer: { ok: true, indexed_block: f.head, node_block: f.head, lag_blocks: 0, max_lag_blocks: DEFAULT_READY_MAX_LAG_BLOCKS } },
  });
  for (const path of ['/api/health/readiness', '/api/v1/health', '/api/v1/health/readiness', '/api/health/']) t.equal((await get(path)).status, 200, path);
  t.same(await get('/api/health', 'HEAD'), { status: 200, cache: 'no-store', body: null }, 'HEAD: no body');

  // The node runs ahead of the index (the API's node answers a higher head).
  const behind = DEFAULT_READY_MAX_LAG_BLOCKS + 5;
  ctx.rpc = { request: async (m: string) => (m === 'eth_blockNumber' ? `0x${(f.head + behind).toString(16)}` : null), batch: async () => [] };
  let r = await get('/api/health/readiness');
  t.equal(r.status, 503, 'behind by more than the bound: not ready');
  t.match(r.body.checks.indexer, { ok: false, lag_blocks: behind, error: `the index is ${behind} blocks behind the node` });
  t.equal((await get('/api/health/liveness')).status, 200, 'but alive');
  ctx.rpc = { request: async () => `0x${(f.head + DEFAULT_READY_MAX_LAG_BLOCKS).toString(16)}`, batch: async () => [] };
  t.equal((await get('/api/health')).status, 200, 'at the bound: ready');

  ctx.rpc = { request: async () => Promise.reject(new Error('connection refused')), batch: async () => [] };
  r = await get('/api/health');
  t.equal(r.status, 503, 'the node does not answer: not ready');
  t.match(r.body.checks.indexer, { ok: false, error: 'connection refused' });

  ctx.rpc = undefined;
  r = await get('/api/health');
  t.equal(r.status, 200, 'an API without a node is ready on its stores and index alone');
  t.match(r.body.checks.indexer, { ok: true, node_block: null, lag_blocks: null });
});
