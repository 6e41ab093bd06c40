// A client of the Account API written from ../shared/spec/SERVICE.md alone (sections Account API,
// Authentication, Errors, Limits, States and transitions, Resources). It knows nothing of the
// implementation: it sends plain requests to the service's handle() and checks what the spec
// says. The only thing it is handed is a session token (the spec does not show how one is got).
import t from 'tap';
import type { Test } from 'tap';
import { specService, client, type Res } from './helpers/account.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Errors: `{message: string}`, no data wrapper. */
function isError(t: Test, r: Res, status: number, what: string) {
  t.equal(r.status, status, `${what}: HTTP ${status}`);
  t.type(r.body?.message, 'string', `${what}: body has a message`);
  t.notOk(r.body && 'data' in r.body, `${what}: no data wrapper on an error`);
}

const ERC20_ABI = [
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'event',
    name: 'Transfer',
    anonymous: false,
    inputs: [
      { name: 'from', type: 'address', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'value', type: 'uint256', indexed: false },
    ],
  },
];

t.test('the Account API as SERVICE.md describes it', async (t) => {
  const svc = await specService(t);
  const call = client(svc.handle);
  const session = await svc.sessionToken('spec@example.org');

  await t.test('Authentication: a missing, invalid or unknown key gives 401 "Invalid API key"', async (t) => {
    for (const [what, headers] of [
      ['no header', {}],
      ['not bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['unknown key', { authorization: 'Bearer 0123456789abcdef' }],
    ] as const) {
      for (const [m, p] of [
        ['GET', '/user/info'],
        ['GET', '/user/api-keys'],
        ['POST', '/user/api-keys'],
        ['GET', '/user/watchlist'],
        ['GET', '/user/tags/address'],
        ['GET', '/user/custom-abis'],
      ]) {
        const r = await call(m, p, { headers: { ...headers }, body: m === 'POST' ? { name: 'x' } : undefined });
        isError(t, r, 401, `${m} ${p} with ${what}`);
        t.equal(r.body.message, 'Invalid API key');
      }
    }
  });

  let apiKey = '';
  let keyId = '';
  await t.test('API key: POST /user/api-keys with a session token -> active, secret returned once', async (t) => {
    const r = await call('POST', '/user/api-keys', { token: session, body: { name: 'spec key' } });
    t.equal(r.status, 201);
    t.match(r.body.data.id, UUID, 'id is a UUID string');
    t.equal(r.body.data.name, 'spec key');
    t.type(r.body.data.api_key, 'string');
    t.ok(r.body.data.api_key.length >= 16, 'a secret worth the name');
    apiKey = r.body.data.api_key;
    keyId = r.body.data.id;
    const bad = await call('POST', '/user/api-keys', { token: session, body: {} });
    isError(t, bad, 400, 'name is required');
  });

  await t.test('User: GET /user/info', async (t) => {
    const r = await call('GET', '/user/info', { token: apiKey });
    t.equal(r.status, 200);
    t.type(r.body.data.name, 'string');
    t.equal(r.body.data.name, 'Spec Client');
    t.equal(r.body.data.email, 'spec@example.org');
    t.type(r.body.data.nickname, 'string');
    t.match(r.body.data.registered_at, ISO);
  });

  await t.test('API keys: the list never returns a secret', async (t) => {
    // A key made with the API key itself works too.
    const second = await call('POST', '/user/api-keys', { token: apiKey, body: { name: 'second' } });
    t.equal(second.status, 201);
    const r = await call('GET', '/user/api-keys', { token: apiKey });
    t.equal(r.status, 200);
    t.ok(Array.isArray(r.body.data), 'data is an array');
    t.equal(r.body.data.length, 2);
    const mine = r.body.data.find((k: any) => k.id === keyId);
    t.ok(mine);
    t.equal(mine.name, 'spec key');
    t.match(mine.created_at, ISO);
    t.ok(mine.last_used_at === null || ISO.test(mine.last_used_at), 'last_used_at is null or ISO-8601');
    for (const k of r.body.data) t.notOk('api_key' in k, 'no api_key field in the list');
    t.notOk(r.raw.includes(apiKey), 'the secret is nowhere in the list');
    t.notOk(r.raw.includes(second.body.data.api_key), 'nor the second one');
    // Revoke the second key: 200, then 401 at once.
    const del = await call('DELETE', `/user/api-keys/${second.body.data.id}`, { token: apiKey });
    t.equal(del.status, 200);
    isError(t, await call('GET', '/user/info', { token: second.body.data.api_key }), 401, 'revoked key');
    isError(t, await call('DELETE', `/user/api-keys/${second.body.data.id}`, { token: apiKey }), 404, 'revoked key again');
    isError(t, await call('DELETE', '/user/api-keys/00000000-0000-4000-8000-000000000000', { token: apiKey }), 404, 'unknown key id');
    const after = await call('GET', '/user/api-keys', { token: apiKey });
    t.same(after.body.data.map((k: any) => k.id), [keyId]);
  });

  await t.test('Watchlist: POST new, POST again (updated, no duplicate), PATCH, DELETE', async (t) => {
    const a = addr(0xabc);
    const r1 = await call('POST', '/user/watchlist', { token: apiKey, body: { address_hash: a, name: 'first' } });
    t.equal(r1.status, 201);
    t.type(r1.body.data.id, 'string');
    t.ok(same(r1.body.data.address_hash, a));
    const id = r1.body.data.id;

    const settings = {
      native: { incoming: true, outgoing: false },
      'ERC-20': { incoming: false, outgoing: true },
      'ERC-721': { incoming: true, outgoing: true },
      'ERC-1155': { incoming: false, outgoing: false },
    };
    const r2 = await call('POST', '/user/watchlist', {
      token: apiKey,
      body: { address_hash: a.toUpperCase().replace('0X', '0x'), name: 'renamed', notification_settings: settings, notification_methods: { email: false, webhook: true } },
    });
    t.equal(r2.status, 201, 'POST of a watched address');
    t.equal(r2.body.data.id, id, 'the existing entry');
    let list = await call('GET', '/user/watchlist', { token: apiKey });
    t.equal(list.status, 200);
    t.equal(list.body.data.items.length, 1, 'no duplicate');
    let item = list.body.data.items[0];
    t.equal(item.id, id);
    t.ok(same(item.address_hash, a));
    t.equal(item.name, 'renamed');
    t.same(item.notification_settings, settings);
    t.same(item.notification_methods, { email: false, webhook: true });
    t.same(list.body.data.pagination, { total: 1, skip: 0, limit: 100, hasMore: false }, 'defaults skip 0, limit 100');

    // PATCH: omitted fields keep their values; provided settings replace the old ones.
    const p1 = await call('PATCH', `/user/watchlist/${id}`, { token: apiKey, body: { name: 'patched' } });
    t.equal(p1.status, 200);
    list = await call('GET', '/user/watchlist', { token: apiKey });
    item = list.body.data.items[0];
    t.equal(item.name, 'patched');
    t.same(item.notification_settings, settings, 'settings kept');
    t.same(item.notification_methods, { email: false, webhook: true }, 'methods kept');
    const allOn = {
      native: { incoming: true, outgoing: true },
      'ERC-20': { incoming: true, outgoing: true },
      'ERC-721': { incoming: true, outgoing: true },
      'ERC-1155': { incoming: true, outgoing: true },
    };
    const p2 = await call('PATCH', `/user/watchlist/${id}`, { token: apiKey, body: { notification_settings: allOn } });
    t.equal(p2.status, 200);
    item = (await call('GET', '/user/watchlist', { token: apiKey })).body.data.items[0];
    t.equal(item.name, 'patched', 'name kept');
    t.same(item.notification_settings, allOn, 'settings replaced');
    const p3 = await call('PATCH', `/user/watchlist/${id}`, { token: apiKey, body: { notification_methods: { email: true, webhook: false } } });
    t.equal(p3.status, 200);
    item = (await call('GET', '/user/watchlist', { token: apiKey })).body.data.items[0];
    t.same(item.notification_methods, { email: true, webhook: false });
    t.same(item.notification_settings, allOn);

    isError(t, await call('POST', '/user/watchlist', { token: apiKey, body: { address_hash: '0x1234', name: 'x' } }), 400, 'malformed address');
    isError(t, await call('POST', '/user/watchlist', { token: apiKey, body: { address_hash: addr(5) } }), 400, 'missing name');
    isError(t, await call('POST', '/user/watchlist', { token: apiKey, body: { name: 'x' } }), 400, 'missing address');
    isError(t, await call('PATCH', '/user/watchlist/999999', { token: apiKey, body: { name: 'x' } }), 404, 'PATCH unknown id');

    const d = await call('DELETE', `/user/watchlist/${id}`, { token: apiKey });
    t.equal(d.status, 200);
    list = await call('GET', '/user/watchlist', { token: apiKey });
    t.same(list.body.data.items, []);
    t.equal(list.body.data.pagination.total, 0);
    t.equal(list.body.data.pagination.hasMore, false);
    isError(t, await call('DELETE', `/user/watchlist/${id}`, { token: apiKey }), 404, 'DELETE removed entry');
  });

  await t.test('Watchlist paging loop: skip += limit while hasMore', async (t) => {
    const want = new Set<string>();
    for (let i = 1; i <= 23; i++) {
      const r = await call('POST', '/user/watchlist', { token: apiKey, body: { address_hash: addr(0x1000 + i), name: `w${i}` } });
      t.equal(r.status, 201);
      want.add(r.body.data.id);
    }
    for (const limit of [1, 5, 10, 23, 100]) {
      const seen: string[] = [];
      let skip = 0;
      let pages = 0;
      for (;;) {
        const r = await call('GET', `/user/watchlist?skip=${skip}&limit=${limit}`, { token: apiKey });
        t.equal(r.status, 200);
        const p = r.body.data.pagination;
        t.equal(p.total, 23);
        t.equal(p.skip, skip);
        t.equal(p.limit, limit);
        t.type(p.hasMore, 'boolean');
        t.ok(r.body.data.items.length <= limit);
        for (const it of r.body.data.items) {
          seen.push(it.id);
          t.type(it.name, 'string');
          t.ok(it.address_hash.startsWith('0x'));
          t.type(it.notification_settings, 'object');
        }
        pages++;
        if (!p.hasMore) break;
        skip += limit;
        if (pages > 100) throw new Error('paging does not end');
      }
      t.equal(seen.length, 23, `limit ${limit}: every entry once`);
      t.same(new Set(seen), want);
      t.equal(pages, Math.ceil(23 / limit), `limit ${limit}: pages`);
    }
    const past = await call('GET', '/user/watchlist?skip=50&limit=10', { token: apiKey });
    t.equal(past.status, 200);
    t.same(past.body.data.items, []);
    t.equal(past.body.data.pagination.hasMore, false);
    for (const q of ['skip=-1', 'limit=0', 'limit=-5', 'skip=abc', 'limit=1.5', 'skip=1e3']) {
      isError(t, await call('GET', `/user/watchlist?${q}`, { token: apiKey }), 400, `bad paging ${q}`);
    }
  });

  await t.test('Address tags: POST new, POST again (updated in place), duplicate names, DELETE', async (t) => {
    const a = addr(0x7a9);
    const r1 = await call('POST', '/user/tags/address', { token: apiKey, body: { address_hash: a, name: 'cold wallet' } });
    t.equal(r1.status, 201);
    t.type(r1.body.data.id, 'string');
    const r2 = await call('POST', '/user/tags/address', { token: apiKey, body: { address_hash: a, name: 'hot wallet' } });
    t.equal(r2.status, 201);
    t.equal(r2.body.data.id, r1.body.data.id, 'same record');
    const r3 = await call('POST', '/user/tags/address', { token: apiKey, body: { address_hash: addr(0x7aa), name: 'hot wallet' } });
    t.equal(r3.status, 201, 'duplicate names are allowed');
    t.not(r3.body.data.id, r1.body.data.id);
    const max = 'x'.repeat(35);
    t.equal((await call('POST', '/user/tags/address', { token: apiKey, body: { address_hash: addr(0x7ab), name: max } })).status, 201, '35 characters');
    isError(t, await call('POST', '/user/tags/address', { token: apiKey, body: { address_hash: addr(0x7ac), name: max + 'x' } }), 400, '36 characters');
    isError(t, await call('POST', '/user/tags/address', { token: apiKey, body: { address_hash: 'nope', name: 'x' } }), 400, 'malformed address');
    const list = await call('GET', '/user/tags/address', { token: apiKey });
    t.equal(list.status, 200);
    t.ok(Array.isArray(list.body.data));
    t.equal(list.body.data.length, 3);
    const tag = list.body.data.find((x: any) => x.id === r1.body.data.id);
    t.ok(same(tag.address_hash, a));
    t.equal(tag.name, 'hot wallet');
    const d = await call('DELETE', `/user/tags/address/${r1.body.data.id}`, { token: apiKey });
    t.equal(d.status, 200);
    t.equal((await call('GET', '/user/tags/address', { token: apiKey })).body.data.length, 2);
    isError(t, await call('DELETE', `/user/tags/address/${r1.body.data.id}`, { token: apiKey }), 404, 'deleted tag');
  });

  await t.test('Custom ABIs: POST new, POST again (replaced), ABI as a string, bad ABIs', async (t) => {
    const c = addr(0xc0de);
    const r1 = await call('POST', '/user/custom-abis', { token: apiKey, body: { contract_address_hash: c, name: 'token', abi: ERC20_ABI } });
    t.equal(r1.status, 201);
    t.type(r1.body.data.id, 'string');
    let list = await call('GET', '/user/custom-abis', { token: apiKey });
    t.equal(list.status, 200);
    t.equal(list.body.data.length, 1);
    t.ok(same(list.body.data[0].contract_address_hash, c));
    t.equal(list.body.data[0].name, 'token');
    t.ok(Array.isArray(list.body.data[0].abi), 'abi is returned as an array');
    t.same(list.body.data[0].abi, ERC20_ABI);
    const smaller = [ERC20_ABI[1]];
    const r2 = await call('POST', '/user/custom-abis', {
      token: apiKey,
      body: { contract_address_hash: c, name: 'events only', abi: JSON.stringify(smaller) },
    });
    t.equal(r2.status, 201);
    list = await call('GET', '/user/custom-abis', { token: apiKey });
    t.equal(list.body.data.length, 1, 'one per contract');
    t.equal(list.body.data[0].name, 'events only');
    t.same(list.body.data[0].abi, smaller, 'replaced; the stringified array is returned as an array');
    isError(t, await call('POST', '/user/custom-abis', { token: apiKey, body: { contract_address_hash: c, name: 'x', abi: '[{"type":' } }), 400, 'unparsable ABI');
    isError(t, await call('POST', '/user/custom-abis', { token: apiKey, body: { contract_address_hash: c, name: 'x', abi: [{ type: 'nope' }] } }), 400, 'invalid item');
    isError(t, await call('POST', '/user/custom-abis', { token: apiKey, body: { contract_address_hash: c, name: 'x', abi: { type: 'function' } } }), 400, 'not an array');
    isError(t, await call('POST', '/user/custom-abis', { token: apiKey, body: { contract_address_hash: c, name: 'x' } }), 400, 'abi required');
    isError(t, await call('POST', '/user/custom-abis', { token: apiKey, body: { contract_address_hash: '0xzz', name: 'x', abi: ERC20_ABI } }), 400, 'bad address');
    t.same((await call('GET', '/user/custom-abis', { token: apiKey })).body.data[0].abi, smaller, 'refused uploads changed nothing');
  });

  await t.test('Errors: resources of no account give 404 with {message}', async (t) => {
    for (const [m, p] of [
      ['PATCH', '/user/watchlist/123456789'],
      ['DELETE', '/user/watchlist/123456789'],
      ['DELETE', '/user/tags/address/123456789'],
      ['DELETE', '/user/api-keys/7d5f0a4e-4c3b-4a8e-9f55-0d0d7d7d7d7d'],
    ]) {
      isError(t, await call(m, p, { token: apiKey, body: m === 'PATCH' ? { name: 'x' } : undefined }), 404, `${m} ${p}`);
    }
  });

  await t.test('Revoking the key in use: requests with it return 401 at once', async (t) => {
    const del = await call('DELETE', `/user/api-keys/${keyId}`, { token: apiKey });
    t.equal(del.status, 200);
    const r = await call('GET', '/user/info', { token: apiKey });
    isError(t, r, 401, 'after revocation');
    t.equal(r.body.message, 'Invalid API key');
  });
});
