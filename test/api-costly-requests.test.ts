// Requests that read many rows pay for them (issue #29, item 10), on a synthetic address with
// ~27,000 transactions: while one client starts a CSV export of it every 125 ms, another client's
// requests keep their latency (p99 under P99_BOUND_MS; before, exports of such an address ran
// unpriced and unbounded and the other client's p99 was several seconds); a client gets at most
// EXPORTS_PER_CLIENT exports at once and the server EXPORTS_AT_ONCE, beyond that 429 with
// Retry-After; an export's rows and a deep Etherscan page's rows are charged to the client's bucket.
import t from 'tap';
import http from 'node:http';
import { embeddedStores } from './helpers/stores.js';
import { generateApiChain } from '../bench/api-chain.js';
import { insertChainRows } from '../src/storage/clickhouse/chain.js';
import { createApiApp } from '../src/api/app.js';
import { createGateway } from '../src/api/gateway.js';
import { startServer } from '../src/api/server.js';
import { RateLimiter, clientIp } from '../src/ratelimit/rate-limiter.js';
import { CSV_ROWS_PER_TOKEN, EXPORTS_AT_ONCE, EXPORTS_PER_CLIENT } from '../src/api/routes/csv-export.js';
import { ETHERSCAN_ROWS_PER_TOKEN } from '../src/api/etherscan/etherscan-app.js';
import { createLogger } from '../src/log.js';
import type { ApiRequest } from '../src/api/http.js';

/**
 * The other client's p99 while exports run. Measured on a loaded 2-core machine: 130-250 ms with
 * the limits (before: 3-8 s, with every export answered 200).
 */
const P99_BOUND_MS = 1500;

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

t.test('costly requests', { timeout: 300_000 }, async (t) => {
  const stores = await embeddedStores(t);
  const chain = await generateApiChain({ txs: 34_000, busyShare: 1, seed: 3 }, (tables) => insertChainRows(stores.ch, tables));
  t.ok(chain.busyTxs > 25_000, `the busy address has ${chain.busyTxs} transactions`);
  const log = createLogger('api');
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log, cacheMaxMb: 64 });
  const trusted = new Set(['127.0.0.1']);
  // The default anonymous limit (RATE_LIMIT_ANON=10).
  const limiter = new RateLimiter({ anonymousPerSecond: 10, keyPerSecond: 50 });
  const server = await startServer({
    front: createGateway({ api: app, limiter, trustedProxies: trusted }),
    host: '127.0.0.1',
    port: 0,
    log,
    clientOf: (ip, headers) => clientIp(ip, headers['x-forwarded-for'], trusted),
  });
  t.teardown(() => server.close());
  const exportPath = `/api/v2/addresses/${chain.busy}/transactions/csv?from_period=null&to_period=null`;

  // The same app without rate limits: what the export caps alone do.
  const unlimited = await startServer({
    front: createGateway({ api: app, limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), trustedProxies: trusted }),
    host: '127.0.0.1',
    port: 0,
    log,
    clientOf: (ip, headers) => clientIp(ip, headers['x-forwarded-for'], trusted),
  });
  t.teardown(() => unlimited.close());

  /** A GET as client `ip` (behind the trusted proxy), read to its end. */
  const get = (path: string, ip: string, port = server.port): Promise<Got> =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      http
        .get({ host: '127.0.0.1', port, path, agent: false, headers: { 'x-forwarded-for': ip } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
          res.on('error', reject);
        })
        .on('error', reject);
    });

  await t.test("another client's p99 stays bounded while one client exports", async (t) => {
    const latencies: number[] = [];
    let running = true;
    const other = (async () => {
      for (let i = 0; running; i++) {
        const r = await get(`/api/v2/blocks/${(i % 150) + 1}`, '198.51.100.7');
        if (r.status !== 200) throw new Error(`the other client got ${r.status}`);
        latencies.push(r.ms);
        // Under its own rate (10 per second) whatever the latency.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    // The attack of the issue: a new export every 125 ms for 6 s, none read slowly.
    const exports: Promise<Got>[] = [];
    const end = Date.now() + 6000;
    while (Date.now() < end) {
      exports.push(get(exportPath, '203.0.113.9'));
      await new Promise((resolve) => setTimeout(resolve, 125));
    }
    const answers = await Promise.all(exports);
    running = false;
    await other;
    latencies.sort((a, b) => a - b);
    const p = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]);
    const statuses = new Map<number, number>();
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    t.comment(`exports: ${JSON.stringify([...statuses])}; the other client: ${latencies.length} requests, p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, slowest ${latencies.slice(-5).map(Math.round).join(", ")} ms`);
    t.ok(latencies.length >= 20, `the other client was answered ${latencies.length} times`);
    t.ok(p(0.99) < P99_BOUND_MS, `the other client's p99 ${p(0.99)} ms < ${P99_BOUND_MS} ms`);
    const done = answers.filter((a) => a.status === 200);
    t.ok(done.length >= 1, `${done.length} exports completed`);
    for (const a of done) t.equal(a.body.split('\r\n').length - 2, chain.busyTxs, 'a completed export holds every row');
    const refused = answers.filter((a) => a.status !== 200);
    t.ok(refused.every((a) => a.status === 429 && Number(a.headers['retry-after']) >= 1), 'the others: 429 with Retry-After');
  });

  await t.test('exports at once: per client and in all, beyond them 429 with Retry-After', async (t) => {
    /** An export whose body this client does not read: it stays in progress until closed. */
    const open = (ip: string) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; close(): void }>((resolve, reject) => {
        const req = http.get({ host: '127.0.0.1', port: unlimited.port, path: exportPath, agent: false, headers: { 'x-forwarded-for': ip } }, (res) => {
          res.pause();
          resolve({ status: res.statusCode!, headers: res.headers, close: () => req.destroy() });
        });
        req.on('error', () => undefined);
        req.once('error', reject);
      });
    const mine = [];
    for (let i = 0; i < EXPORTS_PER_CLIENT; i++) mine.push(await open('192.0.2.10'));
    t.same(mine.map((x) => x.status), mine.map(() => 200), `a client's first ${EXPORTS_PER_CLIENT} exports stream`);
    const beyond = await get(exportPath, '192.0.2.10', unlimited.port);
    t.equal(beyond.status, 429, 'one more from the same client: 429');
    t.ok(Number(beyond.headers['retry-after']) >= 1, `with Retry-After (${beyond.headers['retry-after']})`);
    t.match(JSON.parse(beyond.body).message, /Too many CSV exports/);
    const ok = await get(`/api/v2/addresses/${chain.busy}`, '192.0.2.10', unlimited.port);
    t.equal(ok.status, 200, 'its other requests are answered');

    const others = [];
    for (let i = EXPORTS_PER_CLIENT; i < EXPORTS_AT_ONCE; i++) others.push(await open(`192.0.2.${20 + i}`));
    t.ok(others.every((x) => x.status === 200), `other clients fill the server's ${EXPORTS_AT_ONCE}`);
    const full = await get(exportPath, '192.0.2.99', unlimited.port);
    t.equal(full.status, 429, 'a new client beyond them all: 429');
    t.ok(Number(full.headers['retry-after']) >= 1, 'with Retry-After');

    mine[0].close();
    let again: Got | undefined;
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const r = await get(`/api/v2/addresses/${chain.busy}/logs/csv?from_period=null&to_period=null`, '192.0.2.10', unlimited.port);
      if (r.status === 200) {
        again = r;
        break;
      }
    }
    t.equal(again?.status, 200, 'a closed download gives its slot back');
    for (const x of [...mine, ...others]) x.close();
  });

  await t.test('the rows an export or an Etherscan list reads are charged to its client', async (t) => {
    // A clock that does not move: the buckets change only by what is charged.
    const frozen = new RateLimiter({ anonymousPerSecond: 100, keyPerSecond: 0, clock: { now: () => 1_000_000 } });
    const gw = createGateway({ api: app, limiter: frozen });
    const request = (path: string, query: string, ip: string): ApiRequest => ({ method: 'GET', path, query: new URLSearchParams(query), headers: {}, ip });
    const remaining = async (path: string, query: string, ip: string) => {
      const r = await gw(request(path, query, ip));
      if (r.stream) for await (const _chunk of r.stream);
      t.equal(r.status, 200, `${path}?${query.slice(0, 60)}: 200`);
      return Number(r.headers['x-ratelimit-remaining']);
    };
    const list = (offset: number, page = 1) => `module=account&action=txlist&address=${chain.busy}&offset=${offset}&page=${page}`;
    const capacity = 150;

    t.equal(await remaining('/api', list(10), '10.1.0.1'), capacity - 1, 'a shallow page: one token');
    t.equal(await remaining('/api', list(10, 2), '10.1.0.1'), capacity - 2, 'another: one more');
    t.equal(await remaining('/api', list(10_000), '10.1.0.1'), capacity - 3, 'a page of 10,000 rows is admitted with one token');
    const deep = 10_000 / ETHERSCAN_ROWS_PER_TOKEN;
    t.equal(await remaining('/api', list(10, 3), '10.1.0.1'), capacity - 3 - (deep - 1) - 1, `and then costs ${deep} tokens in all`);
    t.equal(await remaining('/api', list(10_000), '10.1.0.2'), capacity - 1, 'the same deep page for another client (from the cache or not)');
    t.equal(await remaining('/api', list(10), '10.1.0.2'), capacity - 1 - (deep - 1) - 1, 'costs it the same');

    t.equal(await remaining(`/api/v2/addresses/${chain.busy}/transactions/csv`, 'from_period=null&to_period=null', '10.1.0.3'), capacity - 1, 'an export is admitted with one token');
    const exported = Math.floor(chain.busyTxs / CSV_ROWS_PER_TOKEN);
    t.equal(await remaining('/api/v2/stats', '', '10.1.0.3'), capacity - 1 - (exported - 1) - 1, `its ${chain.busyTxs} rows cost ${exported} tokens in all`);

    // The default anonymous rate: the deep page's price puts the bucket in debt, and the next
    // request waits for it.
    const small = new RateLimiter({ anonymousPerSecond: 10, keyPerSecond: 0, clock: { now: () => 1_000_000 } });
    const gw10 = createGateway({ api: app, limiter: small });
    t.equal((await gw10(request('/api', list(10_000), '10.1.0.4'))).status, 200, 'at 10 per second, a deep page passes');
    const next = await gw10(request('/api', list(10), '10.1.0.4'));
    t.equal(next.status, 429, 'the next request waits for its price');
    const debt = deep - 1 - (15 - 1);
    t.equal(next.headers['retry-after'], String(Math.ceil((1 + debt) / 10)), `Retry-After says when the debt of ${debt} tokens is refilled`);
  });
});
