// Abuse limits in front of both APIs: made-up credentials are throttled before they are looked
// up and an unknown key costs one query however often it is sent; bodies are not buffered before
// the credential and the route's body limit are checked, a 413 closes the connection, one client
// has a bounded number of requests in progress, and 300 connections announcing 1 MiB each do not
// grow the process; personalised answers never turn odd input into a 500.
import t, { type Test } from 'tap';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { accountApp, accountPg, makeRequest, newAccount } from './helpers/account.js';
import { rawExchange } from './helpers/raw-http.js';
import { createGateway } from '../src/api/gateway.js';
import { startServer, type RunningServer } from '../src/api/server.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import { createLogger, type Logger } from '../src/log.js';
import type { ApiReply, ApiRequest } from '../src/api/http.js';
import type { PgStore } from '../src/storage/postgres/store.js';

const json = (status: number, body: unknown): ApiReply => ({ status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) });

/** The store, counting the credential lookups (API keys and sessions by digest). */
function countingLookups(pg: PgStore): { pg: PgStore; lookups: () => number } {
  let n = 0;
  const proxy = new Proxy(pg, {
    get(target, k, receiver) {
      if (k === 'query') {
        return (sql: string, params?: unknown[]) => {
          if (/FROM (api_keys|sessions) WHERE (secret_hash|token_hash) = \$1/.test(sql)) n++;
          return target.query(sql, params);
        };
      }
      const v = Reflect.get(target, k, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { pg: proxy, lookups: () => n };
}

const randomKey = () => 'ek_' + crypto.randomBytes(32).toString('base64url');

function errorLog(errors: string[]): Logger {
  const log: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`),
    child: () => log,
  };
  return log;
}

t.test('made-up credentials: 429 with Retry-After before any lookup; an unknown key is looked up once', async (t) => {
  const base = await accountPg(t);
  const { pg, lookups } = countingLookups(base);
  const account = await accountApp(t, pg);
  const { token: session } = await newAccount(base, 'abuse@example.org');
  const created = await account.handle(makeRequest('POST', '/account/api/v1/user/api-keys', { token: session, body: { name: 'k' } }));
  const key = JSON.parse(String(created.body)).data.api_key as string;
  // A clock that does not move: no bucket refills during the test, so the counts are exact.
  const limiter = new RateLimiter({ anonymousPerSecond: 10, keyPerSecond: 50, clock: { now: () => 1_000_000 } });
  const gw = createGateway({ api: { handle: async () => json(200, { ok: true }) }, account, limiter });
  const get = (ip: string, token: string) => gw({ ...makeRequest('GET', '/api/v2/stats', { token }), ip });

  t.equal((await get('203.0.113.7', key)).status, 200, 'a valid key works');
  const before = lookups();
  const statuses = new Map<number, number>();
  let retryAfter: string | undefined;
  for (let i = 0; i < 500; i++) {
    const r = await get('203.0.113.7', randomKey());
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    if (r.status === 429) retryAfter ??= r.headers['retry-after'];
  }
  const made = lookups() - before;
  // The IP's unverified-credential bucket holds 15 (1.5 s at 10/s); the valid key's first use
  // took one: 14 lookups, then refusals.
  t.equal(statuses.get(401), 14, `the first made-up keys get 401 (${JSON.stringify([...statuses])})`);
  t.equal(statuses.get(429), 486, 'then 429');
  t.ok(Number(retryAfter) >= 1, `with Retry-After (${retryAfter})`);
  t.equal(made, 14, `only those were looked up (${made} lookups for 500 requests)`);
  t.equal((await get('203.0.113.7', key)).status, 200, 'a key seen valid before still works from that IP');
  t.equal((await get('198.51.100.1', randomKey())).status, 401, 'another IP is not affected');

  // The same unknown key from many addresses: remembered as unknown, one query.
  const unknown = randomKey();
  const start = lookups();
  for (let i = 0; i < 300; i++) {
    const r = await get(`10.1.${i >> 8}.${i & 255}`, unknown);
    if (r.status !== 401) t.fail(`an unknown key from a fresh IP: 401, got ${r.status}`);
  }
  t.equal(lookups() - start, 1, 'one lookup for 300 uses of one unknown key');

  // A session token that is malformed never reaches the database either.
  const s0 = lookups();
  t.equal((await get('192.0.2.9', 'es_short')).status, 401);
  t.equal(lookups(), s0, 'a malformed token costs no lookup');
});

t.test('personalised answers: odd search input is never a 500', async (t) => {
  const pg = await accountPg(t);
  const account = await accountApp(t, pg);
  const owner = await newAccount(pg, 'search@example.org');
  const tag = await account.handle(
    makeRequest('POST', '/account/api/v1/user/tags/address', { token: owner.token, body: { address_hash: '0x' + 'ab'.repeat(20), name: 'my tag' } }),
  );
  t.equal(tag.status, 201);
  const errors: string[] = [];
  const searchBody = (req: ApiRequest) => (req.path.endsWith('/quick') ? [] : { items: [], next_page_params: null });
  const gw = createGateway({
    api: { handle: async (req) => json(200, searchBody(req)) },
    account,
    pg,
    limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }),
    log: errorLog(errors),
  });
  for (const q of ['\u0000', 'my\u0000tag', '\ud800', 'my tag\udfff', '%', '_', '\\', 'x'.repeat(201), ' ', 'MY TAG', "'; --", '😀']) {
    for (const path of ['/api/v2/search', '/api/v2/search/quick']) {
      const r = await gw({ ...makeRequest('GET', path, { token: owner.token }), query: new URLSearchParams([['q', q]]) });
      t.equal(r.status, 200, `${path} q=${JSON.stringify(q.slice(0, 20))}: 200`);
      JSON.parse(String(r.body));
    }
  }
  const found = await gw(makeRequest('GET', '/api/v2/search?q=MY%20TAG', { token: owner.token }));
  t.match(JSON.parse(String(found.body)).items[0], { name: 'my tag' }, 'the owner still finds the tag');
  t.same(errors, [], 'nothing was logged as a failure');
});

/** A server on a free port with the gateway in front of the real Account API (real credentials). */
async function accountServer(t: Test, opts: { maxRequestsPerClient?: number } = {}) {
  const pg = await accountPg(t);
  const account = await accountApp(t, pg);
  let accountCalls = 0;
  const counted = { handle: (req: ApiRequest) => ((accountCalls += 1), account.handle(req)), identify: account.identify.bind(account) };
  const gw = createGateway({ api: { handle: async () => json(200, { ok: true }) }, account: counted, limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }) });
  const server = await startServer({ front: gw, handle: gw, host: '127.0.0.1', port: 0, log: createLogger('abuse'), ...opts });
  t.teardown(() => server.close());
  const { token } = await newAccount(pg, 'body@example.org');
  return { server, token, calls: () => accountCalls };
}

const head = (method: string, path: string, headers: Record<string, string | number>) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

t.test('bodies: credentials and the body limit are checked before a byte of body is read', async (t) => {
  const { server, token, calls } = await accountServer(t);
  const port = server.port;
  const tags = '/account/api/v1/user/tags/address';

  // Headers only: the answer must come without the body.
  const invalid = await rawExchange(port, head('POST', tags, { authorization: `Bearer ${randomKey()}`, 'content-length': 200 * 1024 }), { waitMs: 3000, responses: 1 });
  t.equal(invalid.responses[0]?.status, 401, 'an invalid key is refused before its body is sent');
  const missing = await rawExchange(port, head('POST', tags, { 'content-length': 100 }), { waitMs: 3000, responses: 1 });
  t.equal(missing.responses[0]?.status, 401, 'no credential on an authenticated Account API endpoint: refused before the body');
  t.same(JSON.parse(missing.responses[0]?.body ?? '{}'), { message: 'Invalid API key' });

  const tooBig = await rawExchange(port, head('POST', tags, { authorization: `Bearer ${token}`, 'content-length': 1024 * 1024 }), { waitMs: 3000 });
  t.equal(tooBig.responses[0]?.status, 413, 'a valid session announcing 1 MiB: 413 at once');
  t.ok(tooBig.closed && tooBig.ms < 2500, `and the connection is closed (${tooBig.ms} ms)`);

  const publicBody = await rawExchange(port, head('POST', '/api/v2/blocks', { 'content-length': 10 }) + '0123456789', { waitMs: 3000 });
  t.equal(publicBody.responses[0]?.status, 413, 'the public API takes no body');
  t.ok(publicBody.closed, 'closed');

  // A chunked body that grows past the limit: 413 and the connection closed while the client is
  // still sending (the rest is not read).
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const frame = Buffer.concat([Buffer.from(chunk.length.toString(16) + '\r\n'), chunk, Buffer.from('\r\n')]);
  let sent = 0;
  const chunked = await rawExchange(port, head('POST', tags, { authorization: `Bearer ${token}`, 'transfer-encoding': 'chunked' }), {
    waitMs: 8000,
    then: (s) => {
      const pump = () => {
        while (sent < 64 && !s.destroyed) {
          sent++;
          if (!s.write(frame)) return void s.once('drain', pump);
        }
        if (!s.destroyed) s.write('0\r\n\r\n');
      };
      pump();
    },
  });
  // The 413 is written before the close, but a reset can reach the client before it reads it.
  t.ok(chunked.responses.length === 0 || chunked.responses[0].status === 413, 'a chunked body over 256 KiB: 413 (when it arrives)');
  t.ok(chunked.closed && chunked.ms < 7000, `the connection is closed rather than read to the end (${chunked.ms} ms, ${sent} of 64 chunks written)`);
  t.equal(calls(), 0, 'the Account API handler never ran');

  // The normal case still works on a kept connection: body read, then the next request.
  const body = JSON.stringify({ address_hash: '0x' + '12'.repeat(20), name: 'ok' });
  const ok = await rawExchange(
    port,
    head('POST', tags, { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }) + body,
    { waitMs: 5000, responses: 1 },
  );
  t.equal(ok.responses[0]?.status, 201, 'a valid body under the limit is read and handled');
  t.equal(calls(), 1);
});

t.test('one client has at most maxRequestsPerClient requests in progress', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started = 0;
  const server: RunningServer = await startServer({
    handle: async () => {
      started++;
      await gate;
      return json(200, { ok: true });
    },
    host: '127.0.0.1',
    port: 0,
    maxRequestsPerClient: 4,
    log: createLogger('abuse'),
  });
  t.teardown(() => server.close());
  const results = Array.from({ length: 10 }, () => rawExchange(server.port, head('GET', '/slow', {}), { waitMs: 2500 }));
  // Every connection's request has been seen (or refused) before the gate opens.
  await new Promise((r) => setTimeout(r, 500));
  release();
  const all = await Promise.all(results);
  const codes = all.map((r) => r.responses[0]?.status).sort();
  t.same(codes, [200, 200, 200, 200, 429, 429, 429, 429, 429, 429], 'four in progress, the others refused');
  t.equal(started, 4, 'the handler ran for four');
  const refused = all.find((r) => r.responses[0]?.status === 429)!;
  t.equal(refused.responses[0].headers['retry-after'], '1', 'with Retry-After');
  t.ok(refused.closed, 'and the connection closed');
  t.equal((await rawExchange(server.port, head('GET', '/after', {}), { waitMs: 3000, responses: 1 })).responses[0]?.status, 200, 'the count goes down again');
});

/** A line of /proc/<pid>/status in bytes (VmRSS: resident now; VmHWM: resident at most). */
function memOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Starts measuring a process's peak resident memory; stop() returns it (bytes). */
function peakMeter(pid: number): { stop(): number } {
  // Writing 5 to clear_refs resets VmHWM (Linux 4.0+); otherwise sample VmRSS often.
  let hwm = false;
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    hwm = true;
  } catch {
    hwm = false;
  }
  let peak = memOf(pid, 'VmRSS');
  const timer = setInterval(() => (peak = Math.max(peak, memOf(pid, 'VmRSS'))), 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, hwm ? memOf(pid, 'VmHWM') : 0);
    },
  };
}

t.test('300 connections announcing 1 MiB each do not grow the server', { skip: fs.existsSync('/proc/self/status') ? false : 'needs /proc' }, async (t) => {
  const script = fileURLToPath(new URL('./helpers/body-server.js', import.meta.url));
  const VALID_KEY = randomKey();
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BODY_SERVER_KEY: VALID_KEY } });
  t.teardown(() => {
    child.stdin?.end();
    child.kill();
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(JSON.parse(line).port);
    });
    child.on('exit', (c) => reject(new Error(`body server exited ${c}`)));
  });
  // Warm up (code paths compiled, first buffers allocated), then the baseline.
  for (let i = 0; i < 5; i++) await rawExchange(port, head('GET', '/api/v2/x', {}), { responses: 1 });
  const baseline = memOf(child.pid!, 'VmRSS');
  const meter = peakMeter(child.pid!);
  const body = Buffer.alloc(1024 * 1024, 0x61); // one buffer, written to every socket
  const sockets = await Promise.all(
    Array.from(
      { length: 300 },
      () =>
        new Promise<{ closed: boolean }>((resolve) => {
          const s = net.connect(port, '127.0.0.1');
          let settled = false;
          const done = () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ closed: true });
          };
          s.on('error', done);
          s.on('close', done);
          s.on('data', () => {});
          s.write(head('POST', '/account/api/v1/user/custom-abis', { authorization: `Bearer ${VALID_KEY}`, 'content-length': body.length }));
          s.write(body, () => s.end());
          // Cleared when the socket closes: a pending timer would keep this process alive 20 s.
          const timer = setTimeout(() => {
            s.destroy();
            done();
          }, 20_000);
        }),
    ),
  );
  t.equal(sockets.length, 300);
  const grown = meter.stop() - baseline;
  t.ok(grown < 32 * 1024 * 1024, `peak resident memory grew by ${(grown / 1048576).toFixed(1)} MiB (at most 32 MiB)`);
});
