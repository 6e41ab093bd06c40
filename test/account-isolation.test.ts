// Isolation: every endpoint across two accounts. Another account's record gives 404 with
// {message}, never its data, and nothing of it changes.
import t from 'tap';
import { accountApp, accountPg, client, dump, makeRequest, newAccount } from './helpers/account.js';

const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const ABI = [{ type: 'function', name: 'f', inputs: [], outputs: [], stateMutability: 'view' }];

t.test('two accounts see and touch only their own records', async (t) => {
  const pg = await accountPg(t);
  const app = await accountApp(t, pg);
  const call = client(app.handle);

  const alice = await newAccount(pg, 'alice@example.org', 'Alice');
  const bob = await newAccount(pg, 'bob@example.org', 'Bob');
  const aKey = (await call('POST', '/user/api-keys', { token: alice.token, body: { name: 'alice key' } })).body.data;
  const bKey = (await call('POST', '/user/api-keys', { token: bob.token, body: { name: 'bob key' } })).body.data;

  // Alice's records.
  const watched = addr(0xa11ce);
  const aWatch = (await call('POST', '/user/watchlist', { token: aKey.api_key, body: { address_hash: watched, name: 'alice watch' } })).body.data;
  const aTag = (await call('POST', '/user/tags/address', { token: aKey.api_key, body: { address_hash: watched, name: 'alice tag' } })).body.data;
  const aAbi = (await call('POST', '/user/custom-abis', { token: aKey.api_key, body: { contract_address_hash: watched, name: 'alice abi', abi: ABI } })).body
    .data;
  const aliceView = async () => ({
    info: (await call('GET', '/user/info', { token: aKey.api_key })).body,
    keys: (await call('GET', '/user/api-keys', { token: aKey.api_key })).body.data.map((k: { id: string; name: string }) => [k.id, k.name]),
    watch: (await call('GET', '/user/watchlist', { token: aKey.api_key })).body,
    tags: (await call('GET', '/user/tags/address', { token: aKey.api_key })).body,
    abis: (await call('GET', '/user/custom-abis', { token: aKey.api_key })).body,
  });
  const before = await aliceView();
  const dumpBefore = await dump(pg);

  await t.test("Bob's lists hold none of Alice's records", async (t) => {
    const info = await call('GET', '/user/info', { token: bKey.api_key });
    t.equal(info.body.data.name, 'Bob');
    t.equal(info.body.data.email, 'bob@example.org');
    const keys = await call('GET', '/user/api-keys', { token: bKey.api_key });
    t.same(keys.body.data.map((k: { id: string }) => k.id), [bKey.id]);
    const w = await call('GET', '/user/watchlist', { token: bKey.api_key });
    t.same(w.body.data.items, []);
    t.equal(w.body.data.pagination.total, 0);
    t.same((await call('GET', '/user/tags/address', { token: bKey.api_key })).body.data, []);
    t.same((await call('GET', '/user/custom-abis', { token: bKey.api_key })).body.data, []);
    for (const r of [w, keys, info]) {
      t.notOk(r.raw.includes('alice'), 'no trace of Alice');
      t.notOk(r.raw.includes(aWatch.id === '1' ? '"id":"1"' : `"${aWatch.id}"`), "no Alice's ids");
    }
  });

  await t.test("Bob addressing Alice's records by id gets 404 {message}", async (t) => {
    const tries: [string, string, unknown?][] = [
      ['PATCH', `/user/watchlist/${aWatch.id}`, { name: 'bob was here' }],
      ['PATCH', `/user/watchlist/${aWatch.id}`, { notification_methods: { email: false, webhook: false } }],
      ['DELETE', `/user/watchlist/${aWatch.id}`],
      ['DELETE', `/user/tags/address/${aTag.id}`],
      ['DELETE', `/user/custom-abis/${aAbi.id}`],
      ['DELETE', `/user/api-keys/${aKey.id}`],
    ];
    for (const [m, p, body] of tries) {
      for (const token of [bKey.api_key, bob.token]) {
        const r = await call(m, p, { token, body });
        t.equal(r.status, 404, `${m} ${p}`);
        t.same(Object.keys(r.body), ['message']);
        t.notOk(r.raw.includes('alice'), 'no data of the record');
      }
    }
  });

  await t.test("Bob's records of the same address are his own", async (t) => {
    const w = await call('POST', '/user/watchlist', { token: bKey.api_key, body: { address_hash: watched, name: 'bob watch' } });
    t.equal(w.status, 201);
    t.not(w.body.data.id, aWatch.id, 'a new entry, not Alice’s');
    const tg = await call('POST', '/user/tags/address', { token: bKey.api_key, body: { address_hash: watched, name: 'bob tag' } });
    t.equal(tg.status, 201);
    t.not(tg.body.data.id, aTag.id);
    const ab = await call('POST', '/user/custom-abis', { token: bKey.api_key, body: { contract_address_hash: watched, name: 'bob abi', abi: ABI } });
    t.equal(ab.status, 201);
    t.not(ab.body.data.id, aAbi.id);
    t.same(await aliceView(), before, "Alice's view is unchanged");
    // Bob's own ids work for Bob, not for Alice.
    t.equal((await call('DELETE', `/user/tags/address/${tg.body.data.id}`, { token: aKey.api_key })).status, 404);
    t.equal((await call('DELETE', `/user/custom-abis/${ab.body.data.id}`, { token: aKey.api_key })).status, 404);
    t.equal((await call('PATCH', `/user/watchlist/${w.body.data.id}`, { token: aKey.api_key, body: { name: 'x' } })).status, 404);
    t.equal((await call('DELETE', `/user/api-keys/${bKey.id}`, { token: aKey.api_key })).status, 404);
    t.equal((await call('DELETE', `/user/tags/address/${tg.body.data.id}`, { token: bKey.api_key })).status, 200);
    t.equal((await call('DELETE', `/user/custom-abis/${ab.body.data.id}`, { token: bKey.api_key })).status, 200);
    t.equal((await call('DELETE', `/user/watchlist/${w.body.data.id}`, { token: bKey.api_key })).status, 200);
  });

  await t.test('identify() tells the accounts apart', async (t) => {
    t.equal((await app.identify(makeRequest('GET', '/api/v2/stats', { token: aKey.api_key })))?.userId, alice.userId);
    t.equal((await app.identify(makeRequest('GET', '/api/v2/stats', { token: bKey.api_key })))?.userId, bob.userId);
  });

  await t.test("Bob deleting his account leaves Alice's intact", async (t) => {
    t.equal((await call('DELETE', '/user', { token: bKey.api_key })).status, 200);
    t.same(await aliceView(), before);
    const after = await dump(pg);
    const mine = (rows: unknown[]) => (rows as { user_id?: unknown; id?: unknown }[]).filter((r) => String(r.user_id ?? r.id) === alice.userId);
    for (const table of ['watchlist', 'address_tags', 'custom_abis']) t.same(mine(after[table]), mine(dumpBefore[table]), table);
    t.same(
      (after.users as { id: unknown }[]).map((u) => String(u.id)),
      [alice.userId],
      'only Alice is left',
    );
  });
});
