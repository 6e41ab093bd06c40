// RPC client: batching, bounded concurrency, retries (429, 5xx, timeouts, dropped connections,
// malformed JSON, transient JSON-RPC errors), no retry on deterministic errors, clear errors.
import t from 'tap';
import { createRpcClient, type RpcClientOptions } from '../../../src/rpc/client.js';
import { backoffMs } from '../../../src/retry.js';

const backoffDelay = (attempt: number, baseMs: number, maxMs: number) => backoffMs(attempt, { baseMs, maxMs });
import { RpcError, isMethodNotFound } from '../../../src/rpc/errors.js';
import { redactUrl } from '../../../src/rpc/url.js';
import { startReplayRpc, type ReplayServer } from '../../helpers/replay-rpc.js';

async function withServer(t: { teardown: (fn: () => unknown) => void }): Promise<ReplayServer> {
  const s = await startReplayRpc();
  t.teardown(() => s.close());
  s.add('eth_chainId', [], '0x1');
  s.handle('eth_getBalance', (params) => ({ result: `0x${Number(params[0]).toString(16)}` }));
  return s;
}

const fast = (url: string, extra: Partial<RpcClientOptions> = {}) =>
  createRpcClient({ url, retryBaseMs: 5, retryMaxMs: 20, timeoutMs: 2000, maxRetries: 3, ...extra });

t.test('a plain call', async (t) => {
  const s = await withServer(t);
  const c = fast(s.url);
  t.equal(await c.request('eth_chainId'), '0x1');
  t.equal(s.log.length, 1);
  t.equal(s.log[0]!.batch, false, 'a single call is not sent as a batch');
});

t.test('HTTP 429 twice then success is retried', async (t) => {
  const s = await withServer(t);
  s.fault({ status: 429, times: 2, headers: { 'retry-after': '0' } });
  const retries: string[] = [];
  const c = fast(s.url, { onRetry: (i) => retries.push(i.reason) });
  t.equal(await c.request('eth_chainId'), '0x1');
  t.same(s.log.map((l) => l.outcome), ['http 429', 'http 429', 'ok']);
  t.same(retries, ['HTTP 429', 'HTTP 429']);
  t.equal(c.stats().retries, 2);
});

t.test('HTTP 500 and 503 then success is retried; exhausted retries give a clear error', async (t) => {
  const s = await withServer(t);
  s.fault({ status: 500 });
  s.fault({ status: 503 });
  const c = fast(s.url);
  t.equal(await c.request('eth_chainId'), '0x1');
  t.equal(s.log.length, 3);

  s.fault({ status: 502, times: 10 });
  const err = await c.request('eth_chainId').catch((e: unknown) => e);
  t.type(err, RpcError);
  const e = err as RpcError;
  t.equal(e.kind, 'http');
  t.equal(e.status, 502);
  t.equal(e.method, 'eth_chainId');
  t.equal(e.attempts, 4, '1 try + 3 retries');
  t.match(e.message, /eth_chainId at http:\/\/127\.0\.0\.1:\d+\/ failed: HTTP 502/);
});

t.test('a client error status (400) is not retried', async (t) => {
  const s = await withServer(t);
  s.fault({ status: 400 });
  const c = fast(s.url);
  const e = (await c.request('eth_chainId').catch((x: unknown) => x)) as RpcError;
  t.type(e, RpcError);
  t.equal(e.status, 400);
  t.equal(s.log.length, 1);
});

t.test('a timeout is retried', async (t) => {
  const s = await withServer(t);
  s.fault({ delayMs: 600 });
  const c = fast(s.url, { timeoutMs: 150 });
  const t0 = Date.now();
  t.equal(await c.request('eth_chainId'), '0x1');
  t.ok(Date.now() - t0 >= 150, 'waited for the timeout');
  t.equal(s.received, 2, 'sent twice');

  s.fault({ delayMs: 400, times: 5 });
  const c2 = fast(s.url, { timeoutMs: 100, maxRetries: 1 });
  const e = (await c2.request('eth_chainId').catch((x: unknown) => x)) as RpcError;
  t.type(e, RpcError);
  t.equal(e.kind, 'timeout');
  t.match(e.message, /timed out/);
});

t.test('a dropped connection is retried', async (t) => {
  const s = await withServer(t);
  s.fault({ drop: true });
  const c = fast(s.url);
  t.equal(await c.request('eth_chainId'), '0x1');
  t.same(s.log.map((l) => l.outcome), ['drop', 'ok']);
});

t.test('method not found (-32601) is not retried and gives a clear error', async (t) => {
  const s = await withServer(t);
  const c = fast(s.url);
  const e = (await c.request('eth_getBlockReceipts', ['0x1']).catch((x: unknown) => x)) as RpcError;
  t.type(e, RpcError);
  t.equal(e.kind, 'rpc');
  t.equal(e.code, -32601);
  t.equal(e.method, 'eth_getBlockReceipts');
  t.equal(e.url, s.url);
  t.match(e.message, /^eth_getBlockReceipts at http:\/\/127\.0\.0\.1:\d+\/ failed: JSON-RPC error -32601: method not found: the method eth_getBlockReceipts does not exist/);
  t.ok(isMethodNotFound(e));
  t.equal(s.calls('eth_getBlockReceipts'), 1, 'asked once');
  t.equal(c.stats().retries, 0);
});

t.test('malformed JSON: retried, then a clear error', async (t) => {
  const s = await withServer(t);
  s.fault({ malformed: true });
  const c = fast(s.url);
  t.equal(await c.request('eth_chainId'), '0x1', 'one bad body then success');
  t.equal(s.log.length, 2);

  s.fault({ malformed: true, times: 10 });
  const e = (await c.request('eth_chainId').catch((x: unknown) => x)) as RpcError;
  t.type(e, RpcError);
  t.equal(e.kind, 'parse');
  t.equal(e.attempts, 4);
  t.match(e.message, /eth_chainId at .* failed: malformed JSON in response/);
  t.equal(s.log.length, 2 + 4);
});

t.test('batches: split by batchSize, results in order, per-call errors', async (t) => {
  const s = await withServer(t);
  const c = fast(s.url, { batchSize: 20 });
  const calls = Array.from({ length: 45 }, (_, i) => ({ method: 'eth_getBalance', params: [i] }));
  const out = await c.batchOrThrow<string>(calls);
  t.same(out, calls.map((_, i) => `0x${i.toString(16)}`));
  t.equal(s.log.length, 3);
  t.same(s.log.map((l) => [l.batch, l.methods.length]).sort(), [[true, 20], [true, 20], [true, 5]].sort());

  const mixed = await c.batch([{ method: 'eth_chainId' }, { method: 'nope_nothing' }, { method: 'eth_chainId' }]);
  t.equal(mixed[0]!.ok, true);
  t.equal(mixed[1]!.ok, false);
  t.equal(!mixed[1]!.ok && mixed[1]!.error.code, -32601);
  t.equal(mixed[2]!.ok, true);
  await t.rejects(c.batchOrThrow([{ method: 'eth_chainId' }, { method: 'nope_nothing' }]), { code: -32601, method: 'nope_nothing' });
});

t.test('a transient JSON-RPC error in a batch is retried for that call only', async (t) => {
  const s = await withServer(t);
  let failed = 0;
  s.handle('eth_flaky', () => (failed++ < 2 ? { error: { code: -32005, message: 'rate limit exceeded' } } : { result: 'ok' }));
  const c = fast(s.url);
  const out = await c.batchOrThrow([{ method: 'eth_chainId' }, { method: 'eth_flaky' }]);
  t.same(out, ['0x1', 'ok']);
  t.equal(s.calls('eth_chainId'), 1, 'the good call is not repeated');
  t.equal(s.calls('eth_flaky'), 3);
});

t.test('bounded concurrency', async (t) => {
  const s = await withServer(t);
  s.handle('eth_slow', async () => {
    await new Promise((r) => setTimeout(r, 30));
    return { result: 1 };
  });
  const c = fast(s.url, { concurrency: 2, batchSize: 1 });
  await Promise.all(Array.from({ length: 8 }, () => c.request('eth_slow')));
  t.equal(s.maxConcurrent, 2, 'never more than 2 requests in flight');
  t.equal(c.stats().maxInFlight, 2);
  t.equal(s.log.length, 8);
});

t.test('the trace URL is separate and defaults to the main URL', async (t) => {
  const main = await withServer(t);
  const traces = await withServer(t);
  traces.add('trace_block', ['0x1'], []);
  const c = fast(main.url, { traceUrl: traces.url });
  t.same(await c.request('trace_block', ['0x1'], { trace: true }), []);
  t.equal(traces.calls('trace_block'), 1);
  t.equal(main.calls('trace_block'), 0);
  const d = fast(main.url);
  t.equal(d.traceUrl, d.url);
});

t.test('errors never show credentials', async (t) => {
  const s = await withServer(t);
  const key = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const u = new URL(s.url);
  const url = `http://user:hunter2@${u.host}/v3/${key}?apikey=zzsecret`;
  const c = fast(url);
  t.equal(await c.request('eth_chainId'), '0x1', 'the real URL is used');
  const e = (await c.request('eth_nothing').catch((x: unknown) => x)) as RpcError;
  t.type(e, RpcError);
  t.notMatch(e.message, /hunter2|a1b2c3d4|zzsecret/);
  t.notMatch(e.url, /hunter2|a1b2c3d4|zzsecret/);
  t.equal(c.url, `http://${u.host}/v3/***?apikey=***`);
  t.equal(redactUrl('https://u:p@h.example/rpc'), 'https://h.example/rpc');
});

t.test('backoff grows exponentially with jitter', async (t) => {
  for (let a = 1; a <= 5; a++) {
    const d = backoffDelay(a, 100, 100_000);
    const full = 100 * 2 ** (a - 1);
    t.ok(d >= full / 2 && d <= full, `attempt ${a}: ${d} in [${full / 2}, ${full}]`);
  }
  t.ok(backoffDelay(30, 100, 1000) <= 1000, 'capped');
  const seen = new Set(Array.from({ length: 20 }, () => backoffDelay(3, 100, 10_000)));
  t.ok(seen.size > 1, 'jittered');
});

t.test('a node that rejects batches as a whole gives the error per call, not retried', async (t) => {
  const { createServer } = await import('node:http');
  let hits = 0;
  const srv = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported' } }));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { srv.closeAllConnections(); srv.close(() => r()); }));
  const port = (srv.address() as { port: number }).port;
  const c = fast(`http://127.0.0.1:${port}/`);
  const out = await c.batch([{ method: 'eth_chainId' }, { method: 'eth_blockNumber' }]);
  t.same(out.map((o) => !o.ok && o.error.code), [-32600, -32600]);
  t.equal(hits, 1, 'not retried');
});
