// API pieces without stores: parameter casting and Blockscout's error bodies, paging, the
// response cache (single flight, byte bound, no stale store across a block), the router, and the
// uWS server around a stub handler (body cap, thrown handler, aborted client).
import t from 'tap';
import net from 'node:net';
import http from 'node:http';
import { castParams, canonicalParams } from '../src/api/params.js';
import { ValidationError } from '../src/api/errors.js';
import { makePage, pageSize } from '../src/api/paging.js';
import { ResponseCache } from '../src/cache/response-cache.js';
import { Router } from '../src/api/router.js';
import { startServer } from '../src/api/server.js';
import { isoTimestamp, checksum, percent } from '../src/api/serializers/common.js';
import { decodeRevert } from '../src/api/serializers/transaction.js';
import { createLogger } from '../src/log.js';
import type { ApiReply, ApiRequest } from '../src/api/http.js';

function errorsOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.body;
    throw e;
  }
  return null;
}

t.test('parameters cast as OpenApiSpex does, with its error bodies', async (t) => {
  const q = (s: string) => new URLSearchParams(s);
  const specs = { items_count: { kind: 'int', min: 1n, max: 50n }, filter: { kind: 'enum', values: ['a', 'b'] } } as const;
  t.same(castParams({}, {}, q('items_count=5&filter=a'), specs).query, { items_count: 5n, filter: 'a' });
  t.same(castParams({}, {}, q('items_count=5&items_count=7'), specs).query, { items_count: 7n }, 'repeated key: last wins');
  t.same(errorsOf(() => castParams({}, {}, q('foo=1&items_count=x'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/foo' }, detail: 'Unexpected field: foo' }],
  }, 'an unknown parameter is reported alone');
  t.same(errorsOf(() => castParams({}, {}, q('items_count=x'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/items_count' }, detail: 'Invalid integer. Got: string' }],
  });
  t.same(errorsOf(() => castParams({}, {}, q('items_count=0'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/items_count' }, detail: '0 is smaller than inclusive minimum 1' }],
  });
  t.same(errorsOf(() => castParams({}, {}, q('filter=c'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/filter' }, detail: 'Invalid value for enum' }],
  });
  t.same(castParams({}, {}, q('apikey=k&key=s'), specs).query, { apikey: 'k', key: 's' }, 'apikey and key are declared everywhere');
  t.ok(errorsOf(() => castParams({}, {}, q('__proto__=1'), specs)), '__proto__ is just an unknown field');
  const addr = { address_hash_param: { kind: 'address' } } as const;
  t.same(errorsOf(() => castParams({ address_hash_param: '0x12' }, addr, q(''), {})), {
    errors: [{ title: 'Invalid value', source: { pointer: '/address_hash_param' }, detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/' }],
  });
  t.same(castParams({ address_hash_param: '0xABCDEFabcdef0000000000000000000000000000' }, addr, q(''), {}).path, {
    address_hash_param: '0xabcdefabcdef0000000000000000000000000000',
  }, 'hashes are lower-cased');
  const block = { id: { kind: 'blockId' } } as const;
  t.same(castParams({ id: '12' }, block, q(''), {}).path, { id: { number: 12n } });
  t.equal((errorsOf(() => castParams({ id: 'x' }, block, q(''), {})) as { errors: unknown[] }).errors.length, 3, 'block id: three errors');
  const dt = { inserted_at: { kind: 'datetime' } } as const;
  t.ok(castParams({}, {}, q('inserted_at=2024-01-01T00:00:00.123456Z'), dt));
  for (const bad of ['2024-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01', 'yesterday']) {
    t.ok(errorsOf(() => castParams({}, {}, q(`inserted_at=${bad}`), dt)), `not a date-time: ${bad}`);
  }
  const types = { type: { kind: 'tokenTypes' } } as const;
  t.same(castParams({}, {}, q('type=[erc-20,ERC-721]'), types).query, { type: ['ERC-20', 'ERC-721'] });
  t.same(castParams({}, {}, q('type='), types).query, { type: [] });
  const a = castParams({}, {}, q('filter=a&items_count=05'), specs);
  const b = castParams({}, {}, q('items_count=5&filter=a&apikey=z'), specs);
  t.equal(canonicalParams(a), canonicalParams(b), 'cache key: sorted, cast, without apikey');
});

t.test('paging', async (t) => {
  t.equal(pageSize({}), 50);
  t.equal(pageSize({ items_count: 7n }), 7);
  const rows = [1, 2, 3, 4];
  const p = makePage(rows, 3, (rs) => rs.map((r) => r * 10), (r) => ({ n: r }), { echo: { filter: 'x' } });
  t.same(p, { items: [10, 20, 30], next_page_params: { filter: 'x', items_count: 3, n: 3 } }, 'cursor of the last item, keys sorted');
  t.same(makePage([1, 2], 3, (rs) => rs, (r) => ({ n: r })), { items: [1, 2], next_page_params: null }, 'last page: null');
  t.same(makePage([1, 2, 3], 2, (rs) => rs, (r) => ({ n: r }), { itemsCount: false }).next_page_params, { n: 2 }, 'without items_count');
});

t.test('serializer helpers', async (t) => {
  t.equal(isoTimestamp(1665412470), '2022-10-10T14:34:30.000000Z');
  t.equal(checksum('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'), '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  t.equal(percent(1n, 4n), 25);
  t.equal(percent(1n, 0n), 0);
  const reason = decodeRevert('0x08c379a0' + '0'.repeat(62) + '20' + '0'.repeat(63) + '2' + '6869'.padEnd(64, '0'));
  t.same(reason, { method_id: '08c379a0', method_call: 'Error(string reason)', parameters: [{ name: 'reason', type: 'string', value: 'hi' }] });
  t.same(decodeRevert('0xdeadbeef'), { raw: '0xdeadbeef' }, 'a custom error stays raw');
  t.same(decodeRevert('0x08c379a0ff'), { raw: '0x08c379a0ff' }, 'malformed Error(string) stays raw');
});

t.test('response cache', async (t) => {
  const body = (s: string) => Buffer.from(s);
  const c = new ResponseCache({ maxBytes: 10_000 });
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow = async () => {
    runs++;
    await gate;
    return { status: 200, body: body('x'), policy: 'volatile' as const };
  };
  const a = c.get('k', slow);
  const b = c.get('k', slow);
  release();
  const [ra, rb] = await Promise.all([a, b]);
  t.equal(runs, 1, 'single flight');
  t.same([ra.source, rb.source], ['miss', 'shared']);
  t.equal((await c.get('k', slow)).source, 'hit');

  // A computation that started before a block is neither stored nor joined afterwards.
  let release2!: () => void;
  const gate2 = new Promise<void>((r) => (release2 = r));
  const old = c.get('list', async () => {
    await gate2;
    return { status: 200, body: body('old'), policy: 'volatile' };
  });
  c.invalidate('block');
  const fresh = c.get('list', async () => ({ status: 200, body: body('new'), policy: 'volatile' }));
  release2();
  t.equal((await old).body.toString(), 'old', 'the early caller gets what it asked for');
  t.equal((await fresh).body.toString(), 'new', 'a caller after the block does not join the old computation');
  t.equal((await c.get('list', async () => ({ status: 200, body: body('newer'), policy: 'volatile' }))).body.toString(), 'new', 'the new result is cached');

  // Blocks drop volatile entries, keep stable ones; a reorg drops everything.
  await c.get('detail', async () => ({ status: 200, body: body('d'), policy: 'stable' }));
  c.invalidate('block');
  t.equal((await c.get('list', async () => ({ status: 200, body: body('after'), policy: 'volatile' }))).source, 'miss', 'volatile dropped by a block');
  t.equal((await c.get('detail', async () => ({ status: 200, body: body('d2'), policy: 'stable' }))).source, 'hit', 'stable kept across a block');
  c.invalidate('reorg');
  t.equal((await c.get('detail', async () => ({ status: 200, body: body('d3'), policy: 'stable' }))).source, 'miss', 'stable dropped by a reorg');
  t.equal((await c.get('none', async () => ({ status: 200, body: body('n'), policy: 'none' }))).source, 'miss');
  t.equal((await c.get('none', async () => ({ status: 200, body: body('n'), policy: 'none' }))).source, 'miss', "policy 'none' is never stored");

  // Bounded by bytes.
  const small = new ResponseCache({ maxBytes: 4096 });
  for (let i = 0; i < 100; i++) await small.get(`k${i}`, async () => ({ status: 200, body: Buffer.alloc(500), policy: 'stable' }));
  t.ok(small.bytes <= 4096, `at most 4096 bytes held (${small.bytes})`);
  t.ok(small.size < 10, 'old entries evicted');
  // A failed computation is not cached and reaches every waiter.
  await t.rejects(c.get('err', async () => Promise.reject(new Error('boom'))), /boom/);
  t.equal((await c.get('err', async () => ({ status: 200, body: body('ok'), policy: 'volatile' }))).source, 'miss');
});

t.test('router: literals before parameters', async (t) => {
  const r = new Router([
    { pattern: '/transactions/:transaction_hash_param', handler: async () => ({ body: 'param', policy: 'none' }) },
    { pattern: '/transactions/stats', handler: async () => ({ body: 'literal', policy: 'none' }) },
  ]);
  t.equal(r.match(['transactions', 'stats'])?.def.pattern, '/transactions/stats');
  t.same(r.match(['transactions', '0x%41'])?.pathValues, { transaction_hash_param: '0xA' }, 'segments are percent-decoded');
  t.same(r.match(['transactions', '%ZZ'])?.pathValues, { transaction_hash_param: '%ZZ' }, 'a malformed escape stays as is');
  t.equal(r.match(['transactions']), null);
});

t.test('server around a stub handler', async (t) => {
  const seen: ApiRequest[] = [];
  const handle = async (req: ApiRequest): Promise<ApiReply> => {
    seen.push(req);
    if (req.path === '/throw') throw new Error('secret detail');
    if (req.path === '/slow') await new Promise((r) => setTimeout(r, 200));
    return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'x-a': '1' }, body: JSON.stringify({ n: req.body?.length ?? 0, q: req.query.getAll('a') }) };
  };
  const server = await startServer({ handle, host: '127.0.0.1', port: 0, maxBodyBytes: 1000, log: createLogger('test-server') });
  const call = (method: string, path: string, body?: Buffer) =>
    new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, method, path, agent: false, headers: { connection: 'close' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), headers: res.headers }));
      });
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  try {
    const r = await call('GET', '/x?a=1&a=2');
    t.same([r.status, JSON.parse(r.body), r.headers['x-a']], [200, { n: 0, q: ['1', '2'] }, '1'], 'query keeps repeated keys');
    t.equal(seen[0].method, 'GET');
    t.equal(seen[0].ip.length > 0, true, 'client address');
    const post = await call('POST', '/x', Buffer.alloc(500, 1));
    t.same(JSON.parse(post.body), { n: 500, q: [] }, 'a body under the cap is read');
    const big = await call('POST', '/x', Buffer.alloc(5000, 1)).catch((e) => ({ status: -1, body: String(e), headers: {} }));
    t.ok(big.status === 413 || big.status === -1, `a body over the cap is refused (${big.status})`);
    const thrown = await call('GET', '/throw');
    t.equal(thrown.status, 500);
    t.notMatch(thrown.body, /secret/, 'the 500 body says nothing about the cause');
    // A client that goes away before the answer: the server must not crash writing to it.
    await new Promise<void>((resolve) => {
      const s = net.connect(server.port, '127.0.0.1', () => {
        s.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 20);
      });
    });
    await new Promise((r) => setTimeout(r, 300));
    t.equal((await call('GET', '/x')).status, 200, 'still serving after an aborted request');
  } finally {
    await server.close();
  }
});
