// Bad input: random JSON, wrong types, huge strings, unusual Unicode, missing fields, invalid
// JSON, oversize bodies, custom ABIs at and over their caps, odd headers, paths, methods and
// paging values. Every answer is a 2xx or a 4xx with a JSON {message}, never a 5xx; and a refused
// request leaves the stored data exactly as it was (a dump of every account table before and after).
import t from 'tap';
import { accountApp, accountPg, dump, makeRequest, newAccount, parseReply, smtpSink, BASE, type CallOptions } from './helpers/account.js';

// A small deterministic PRNG (mulberry32): failures are reproducible from the seed.
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  return { next, int, pick };
}

const SEED = Number(process.env.ACCOUNT_FUZZ_SEED ?? 20240611);
const R = prng(SEED);

const KEYS = [
  'name', 'address_hash', 'contract_address_hash', 'abi', 'notification_settings', 'notification_methods', 'email', 'code',
  'message', 'signature', 'native', 'ERC-20', 'ERC-721', 'ERC-1155', 'incoming', 'outgoing', 'webhook', 'type', 'inputs',
  'outputs', 'components', 'stateMutability', '__proto__', 'constructor', 'toString', '', 'x'.repeat(300), 'é', '0',
] as const;

const STRINGS = [
  '', ' ', '\t', 'a', 'x'.repeat(35), 'x'.repeat(36), 'x'.repeat(256), 'y'.repeat(100_000), '0x', '0x' + 'a'.repeat(40), '0x' + 'A'.repeat(40),
  '0x' + 'g'.repeat(40), '0x' + 'a'.repeat(39), '0x' + 'a'.repeat(41), 'a'.repeat(42), '0X' + 'a'.repeat(40), '\u0000', 'nul\u0000inside',
  '\ud800', 'lone \udc00 low', '😀'.repeat(35), '😀'.repeat(36), 'مرحبا', '\u202eevil', 'Ω≈ç√∫', '𝕏', 'line\nbreak', '<script>', "'; DROP TABLE users; --",
  '[]', '[{"type":"function"}]', '[{"type":"event","name":"E","inputs":[]}]', '{', 'true', 'null', '1e999', '-1', '123456', 'a@b.co', 'UPPER@EXAMPLE.ORG',
  'x@y', '@', 'ek_' + 'A'.repeat(43), 'es_' + 'A'.repeat(43),
] as const;

const NUMBERS = [0, -0, 1, -1, 1.5, 2 ** 31, 2 ** 53 + 1, 1e308, -1e308, Number.MIN_VALUE] as const;

function randomJson(depth = 0): unknown {
  const k = R.int(depth > 3 ? 5 : 8);
  switch (k) {
    case 0:
      return null;
    case 1:
      return R.next() < 0.5;
    case 2:
      return R.pick(NUMBERS);
    case 3:
    case 4:
      return R.pick(STRINGS);
    case 5:
      return Array.from({ length: R.int(4) }, () => randomJson(depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = R.int(5); i > 0; i--) o[R.pick(KEYS)] = randomJson(depth + 1);
      return o;
    }
  }
}

const VALID = {
  address: () => '0x' + Array.from({ length: 40 }, () => R.pick('0123456789abcdefABCDEF'.split(''))).join(''),
  settings: () => ({ native: { incoming: R.next() < 0.5, outgoing: R.next() < 0.5 } }),
  abi: () => [{ type: 'event', name: 'Ev', inputs: [{ name: 'a', type: 'uint256', indexed: true }] }],
};

/** A body for an endpoint: valid fields with one or more of them broken, or random JSON. */
function bodyFor(fields: Record<string, () => unknown>): unknown {
  if (R.next() < 0.3) return randomJson();
  const o: Record<string, unknown> = {};
  for (const [k, make] of Object.entries(fields)) {
    const roll = R.next();
    if (roll < 0.15) continue; // missing
    o[k] = roll < 0.55 ? make() : randomJson(1);
  }
  if (R.next() < 0.1) o[R.pick(KEYS)] = randomJson(2); // an unknown or repeated field
  return o;
}

const RAW_BODIES: (string | Buffer)[] = [
  '',
  '{',
  '{"name":',
  '{"name":"a"} trailing',
  'null',
  '[]',
  '"text"',
  '123',
  '{"name":"a",}',
  "{'name':'a'}",
  '\uFEFF{"name":"a"}',
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
  Buffer.from('{"name":"\xff"}', 'latin1'),
  '['.repeat(50_000),
  '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
  '{"name":"a","name":"b"}',
];

t.test('bad input gives 4xx {message}, never 5xx, and changes nothing', async (t) => {
  const pg = await accountPg(t);
  const smtp = await smtpSink(t);
  const app = await accountApp(t, pg, {
    usageFlushMs: 3_600_000, // no last_used_at write during the run: dumps compare exactly
    smtp: { url: `smtp://127.0.0.1:${smtp.port}`, from: 'fuzz@explorer.test' },
  });
  const { token: session } = await newAccount(pg, 'fuzz@example.org');
  const key = JSON.parse(String((await app.handle(makeRequest('POST', `${BASE}/user/api-keys`, { token: session, body: { name: 'fuzz' } }))).body)).data;
  const watch = JSON.parse(
    String((await app.handle(makeRequest('POST', `${BASE}/user/watchlist`, { token: key.api_key, body: { address_hash: VALID.address(), name: 'w' } }))).body),
  ).data;
  t.ok(watch.id, 'a watchlist entry to PATCH');

  const endpoints: { method: string; path: string; fields: Record<string, () => unknown>; auth: boolean }[] = [
    { method: 'POST', path: '/user/api-keys', fields: { name: () => 'k' }, auth: true },
    { method: 'POST', path: '/user/watchlist', fields: { address_hash: VALID.address, name: () => 'n', notification_settings: VALID.settings, notification_methods: () => ({ email: true }) }, auth: true },
    { method: 'PATCH', path: `/user/watchlist/${watch.id}`, fields: { name: () => 'p', notification_settings: VALID.settings, notification_methods: () => ({ webhook: false }) }, auth: true },
    { method: 'POST', path: '/user/tags/address', fields: { address_hash: VALID.address, name: () => 'tag' }, auth: true },
    { method: 'POST', path: '/user/custom-abis', fields: { contract_address_hash: VALID.address, name: () => 'abi', abi: VALID.abi }, auth: true },
    { method: 'POST', path: '/auth/siwe/verify', fields: { message: () => 'hello', signature: () => '0x' + '00'.repeat(65) }, auth: false },
    { method: 'POST', path: '/auth/email/code', fields: { email: () => `f${R.int(1e9)}@example.org` }, auth: false },
    { method: 'POST', path: '/auth/email/verify', fields: { email: () => 'fuzz@example.org', code: () => '123456' }, auth: false },
  ];

  let refused = 0;
  let accepted = 0;
  let baseline = await dump(pg);

  const check = async (what: string, method: string, path: string, o: CallOptions) => {
    const reply = await app.handle(makeRequest(method, path, o));
    const r = parseReply(reply);
    if (r.status >= 500) {
      t.fail(`${what}: ${method} ${path} gave ${r.status}: ${r.raw.slice(0, 300)} (seed ${SEED})`);
      return;
    }
    if (r.status >= 400) {
      refused++;
      const okShape = typeof r.body === 'object' && r.body !== null && typeof r.body.message === 'string' && Object.keys(r.body).length === 1;
      if (!okShape) t.fail(`${what}: ${method} ${path} ${r.status} body is not {message}: ${r.raw.slice(0, 200)}`);
      if (!String(reply.headers['content-type']).startsWith('application/json')) t.fail(`${what}: not JSON`);
      const now = await dump(pg);
      // GET /auth/siwe/nonce is not refused; nothing else may change on a refusal.
      if (JSON.stringify(now) !== JSON.stringify(baseline)) {
        t.fail(`${what}: ${method} ${path} was refused (${r.status}) but changed stored data (seed ${SEED})`);
        baseline = now;
      }
    } else {
      accepted++;
      baseline = await dump(pg);
    }
  };

  await t.test('random and broken bodies on every endpoint that takes one', async (t) => {
    for (let round = 0; round < 40; round++) {
      for (const ep of endpoints) {
        const body = bodyFor(ep.fields);
        await check(`round ${round} body ${JSON.stringify(body)?.slice(0, 120)}`, ep.method, BASE + ep.path, { token: ep.auth ? key.api_key : undefined, body });
      }
    }
    t.pass(`${refused} refused, ${accepted} accepted`);
  });

  await t.test('invalid JSON, invalid UTF-8, deep nesting, oversize', async (t) => {
    for (const ep of endpoints) {
      for (const raw of RAW_BODIES) {
        await check(`raw ${String(raw).slice(0, 40)}`, ep.method, BASE + ep.path, { token: ep.auth ? key.api_key : undefined, rawBody: raw });
      }
      const big = Buffer.alloc(300 * 1024, 0x20);
      const r = await app.handle(makeRequest(ep.method, BASE + ep.path, { token: ep.auth ? key.api_key : undefined, rawBody: big }));
      t.equal(r.status, 413, `${ep.method} ${ep.path}: oversize body`);
      t.type(JSON.parse(String(r.body)).message, 'string');
    }
    // A body just under the cap is parsed (and refused for its content, not its size).
    const nearly = JSON.stringify({ name: 'x'.repeat(250 * 1024) });
    const r = parseReply(await app.handle(makeRequest('POST', `${BASE}/user/tags/address`, { token: key.api_key, rawBody: nearly })));
    t.equal(r.status, 400);
  });

  await t.test('odd credentials and headers', async (t) => {
    const auths = [
      '', 'Bearer', 'Bearer ', 'Bearer  ', 'bearer x', 'Bearer ' + 'A'.repeat(10_000), 'Bearer ek_' + 'A'.repeat(43), 'Bearer es_' + 'A'.repeat(43),
      'Bearer ek_' + '!'.repeat(43), 'Bearer ' + key.api_key + 'x', 'Bearer ' + key.api_key.slice(0, -1), 'Basic ' + Buffer.from('a:b').toString('base64'),
      'Bearer ' + key.api_key + ' extra', 'Bearer 😀', 'Bearer \u0000', 'Token ' + key.api_key, key.api_key,
    ];
    for (const a of auths) {
      for (const [m, p] of [
        ['GET', '/user/info'],
        ['POST', '/user/api-keys'],
        ['DELETE', `/user/watchlist/${watch.id}`],
      ]) {
        const r = parseReply(await app.handle(makeRequest(m, BASE + p, { headers: { authorization: a }, body: m === 'POST' ? { name: 'n' } : undefined })));
        t.equal(r.status, 401, `${m} ${p} with authorization ${JSON.stringify(a.slice(0, 30))}`);
        t.same(r.body, { message: 'Invalid API key' });
      }
    }
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '😀']) {
      await check(`content-type ${ct}`, 'POST', `${BASE}/user/tags/address`, { token: key.api_key, rawBody: 'name=a&address_hash=b', headers: { 'content-type': ct } });
    }
  });

  await t.test('custom ABI sizes: item cap, empty tuples, deep tuples', async (t) => {
    const item = (i: number, inputs: unknown[] = [{ name: 'a', type: 'uint256' }]) => ({ type: 'function', name: `f${i}`, inputs, outputs: [] });
    const tuple = (depth: number): unknown => (depth === 0 ? { name: 'x', type: 'uint8' } : { name: 'x', type: 'tuple', components: [tuple(depth - 1)] });
    const cases: [string, unknown, number][] = [
      ['1001 items', Array.from({ length: 1001 }, (_, i) => item(i)), 400],
      ['1000 items, as a string', JSON.stringify(Array.from({ length: 1000 }, (_, i) => item(i))), 201],
      ['an empty tuple', [item(0, [{ name: 'x', type: 'tuple', components: [] }])], 400],
      ['an array of empty tuples', [item(0, [{ name: 'x', type: 'tuple[1000000]', components: [] }])], 400],
      ['tuples 17 deep', [item(0, [tuple(17)])], 400],
      ['tuples 16 deep', [item(0, [tuple(16)])], 201],
    ];
    for (const [what, abi, status] of cases) {
      const body = { contract_address_hash: VALID.address(), name: 'sizes', abi };
      const r = parseReply(await app.handle(makeRequest('POST', `${BASE}/user/custom-abis`, { token: key.api_key, body })));
      t.equal(r.status, status, `${what}: ${status}`);
      if (r.status === 201) baseline = await dump(pg);
      else await check(what, 'POST', `${BASE}/user/custom-abis`, { token: key.api_key, body });
    }
  });

  await t.test('paths, methods and paging values', async (t) => {
    const paths = [
      '/user/watchlist/%', '/user/watchlist/%zz', '/user/watchlist/-1', '/user/watchlist/0', '/user/watchlist/1.5', '/user/watchlist/99999999999999999999999',
      '/user/watchlist/' + '9'.repeat(500), '/user/watchlist/abc', '/user/watchlist/%31', '/user/api-keys/not-a-uuid', '/user/api-keys/' + '0'.repeat(36),
      '/user/tags/address/..', '/user/custom-abis/%00', '/user/info/extra', '/user/nope', '/nope', '', '/auth', '/auth/siwe', '/auth/email/verify/x',
    ];
    for (const p of paths) {
      for (const m of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
        await check(`path ${p}`, m, BASE + p, { token: key.api_key, body: m === 'POST' || m === 'PATCH' ? { name: 'n' } : undefined });
      }
    }
    const wrong = parseReply(await app.handle(makeRequest('PUT', `${BASE}/user/watchlist`, { token: key.api_key, body: {} })));
    t.equal(wrong.status, 405, 'a known path with a wrong method: 405');
    t.match(wrong.headers.allow, 'GET');
    const unknown = parseReply(await app.handle(makeRequest('GET', `${BASE}/user/unknown`, { token: key.api_key })));
    t.equal(unknown.status, 404, 'an unknown path: 404');
    t.type(unknown.body.message, 'string');
    for (const m of ['TRACE', 'CONNECT', 'get', '', 'HEAD', 'X'.repeat(1000)]) {
      await check(`method ${m.slice(0, 10)}`, m, `${BASE}/user/info`, { token: key.api_key });
    }
    const values = ['', '-1', '0', '1', '1000', '1001', '2147483648', '1e2', '0x10', ' 1', '1 ', '+1', '١', 'NaN', 'Infinity', '9'.repeat(400), '%00', '😀'];
    for (let i = 0; i < 80; i++) {
      const q = new URLSearchParams();
      if (R.next() < 0.8) q.append('skip', R.pick(values));
      if (R.next() < 0.8) q.append('limit', R.pick(values));
      if (R.next() < 0.1) q.append('limit', R.pick(values));
      await check(`paging ${q}`, 'GET', `${BASE}/user/watchlist?${q}`, { token: key.api_key });
    }
    const r = parseReply(await app.handle(makeRequest('GET', `${BASE}/user/watchlist?limit=1001`, { token: key.api_key })));
    t.equal(r.status, 400, 'limit above the cap of 1000 is refused, not clamped');
    t.match(r.body.message, '1000');
  });

  t.ok(refused > 500, `refused ${refused} requests`);
});
