// Which answers the app hands to its API threads (src/api/app.ts, THREAD_MIN_BYTES): a route is
// tried there until the size of its answers is known, then only routes with large answers go;
// what the threads return is served as the app's own; news reaches the threads as the app hears it.
import t from 'tap';
import { EventEmitter } from 'node:events';
import { createApiApp, type RouteThreads, type ThreadNews } from '../../../src/api/app.js';
import type { RouteDef } from '../../../src/api/router.js';
import type { CachedResponse } from '../../../src/cache/response-cache.js';
import { createLogger } from '../../../src/log.js';
import { request } from '../../helpers/api.js';

const routes: RouteDef[] = [
  { pattern: '/big', handler: async () => ({ body: { items: 'x'.repeat(20_000) }, policy: 'volatile' }) },
  { pattern: '/small/:n', path: { n: { kind: 'digits' } }, handler: async ({ path }) => ({ body: { n: String(path.n) }, policy: 'volatile' }) },
];

function fakeThreads() {
  const asked: string[] = [];
  const heard: ThreadNews[] = [];
  const threads: RouteThreads = {
    compute(pattern, path): Promise<CachedResponse> {
      asked.push(`${pattern} ${JSON.stringify(path)}`);
      const body = pattern === '/big' ? { items: 'x'.repeat(20_000), from: 'thread' } : { n: String(path.n), from: 'thread' };
      return Promise.resolve({ status: 200, body: Buffer.from(JSON.stringify(body)), policy: 'volatile' });
    },
    tell: (n) => void heard.push(n),
  };
  return { threads, asked, heard };
}

const stores = { ch: { query: async () => [] }, pg: { query: async () => [], pool: { query: async () => ({ rows: [] }) } } } as never;

t.test('large answers in a thread, small ones here once known', async (t) => {
  const f = fakeThreads();
  const app = createApiApp({ ...(stores as object), log: createLogger('test'), cacheMaxMb: 0, routes, threads: f.threads, threadMinBytes: 8 * 1024 } as never);
  const body = async (p: string) => {
    const r = await app.handle(request(p));
    t.equal(r.status, 200, p);
    return JSON.parse(String(r.body)) as { from?: string };
  };
  t.equal((await body('/api/v2/small/1')).from, 'thread', 'a route not seen yet: tried in a thread');
  t.equal((await body('/api/v2/small/2')).from, undefined, 'its answers are small: computed here from then on');
  t.equal((await body('/api/v2/big')).from, 'thread', 'a large answer');
  t.equal((await body('/api/v2/big')).from, 'thread', 'stays in a thread');
  t.same(f.asked, ['/small/:n {"n":"1"}', '/big {}', '/big {}'], 'cast parameters handed over');

  const events = new EventEmitter();
  const detach = app.attach(events);
  events.emit('block', { summary: { createdContracts: [{ address: '0x' + '11'.repeat(20) }] } });
  events.emit('reorg');
  events.emit('derived');
  events.emit('verified', { ok: true });
  app.publicNamesChanged();
  app.setIconOrigin('http://localhost:1');
  detach();
  t.same(f.heard, [
    { kind: 'attached', attached: true },
    { kind: 'block', createdContracts: ['0x' + '11'.repeat(20)] },
    { kind: 'reorg' },
    { kind: 'derived' },
    { kind: 'verified' },
    { kind: 'names' },
    { kind: 'icon-origin', origin: 'http://localhost:1' },
    { kind: 'attached', attached: false },
  ], 'the threads hear what the app hears, in order');
});

t.test('no thread to take it: computed here', async (t) => {
  const threads: RouteThreads = { compute: () => undefined, tell: () => undefined };
  const app = createApiApp({ ...(stores as object), log: createLogger('test'), cacheMaxMb: 0, routes, threads, threadMinBytes: 0 } as never);
  const r = await app.handle(request('/api/v2/big'));
  t.equal(r.status, 200);
  t.equal((JSON.parse(String(r.body)) as { from?: string }).from, undefined);
});

t.test('a thread that fails: 500 with the API error body, logged', async (t) => {
  const threads: RouteThreads = { compute: () => Promise.reject(new Error('API thread exited (1)')), tell: () => undefined };
  const lines: string[] = [];
  const log = { ...createLogger('test'), error: (m: string, f?: object) => void lines.push(`${m} ${JSON.stringify(f)}`) };
  const app = createApiApp({ ...(stores as object), log, cacheMaxMb: 0, routes, threads, threadMinBytes: 0 } as never);
  const r = await app.handle(request('/api/v2/big'));
  t.equal(r.status, 500);
  t.match(String(r.body), /Internal server error/i);
  t.match(lines.join('\n'), /API thread exited/);
});
