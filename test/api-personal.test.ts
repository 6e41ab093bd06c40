// Effects of the Account API on the public API: with the owner's key or session, address objects
// carry the owner's private tags and watchlist names, and the owner's custom ABI decodes a
// contract's transaction inputs and logs. Nobody else sees them; the shared cache never leaks.
import t from 'tap';
import { parseAbi } from 'viem';
import { apiOnDevnet } from './helpers/api.js';
import { newAccount } from './helpers/account.js';
import { createAccountApp } from '../src/account/app.js';
import { createGateway } from '../src/api/gateway.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';

const ERC20 = [
  'function transfer(address to, uint256 amount) returns (bool)',
  // Worded unlike the standard table (value), to tell the owner's decoding from everyone's.
  'event Transfer(address indexed from, address indexed to, uint256 amount)',
];

t.test('private tags, watchlist names and custom ABIs only for their owner', async (t) => {
  const fx = await apiOnDevnet(t);
  const account = createAccountApp({ pg: fx.stores.pg });
  await account.ready();
  t.teardown(() => account.close());
  const handle = createGateway({ api: fx.app, account, pg: fx.stores.pg, limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }) });
  const get = async (path: string, token?: string) => {
    const r = await handle({
      method: 'GET',
      path: path.split('?')[0],
      query: new URLSearchParams(path.split('?')[1] ?? ''),
      headers: token ? { authorization: `Bearer ${token}` } : {},
      ip: '127.0.0.1',
    });
    return { status: r.status, body: JSON.parse(String(r.body)) };
  };
  const post = async (path: string, token: string, body: unknown) => {
    const r = await account.handle({
      method: 'POST',
      path: `/account/api/v1${path}`,
      query: new URLSearchParams(),
      headers: { authorization: `Bearer ${token}`, host: 'explorer.test', 'content-type': 'application/json' },
      ip: '127.0.0.1',
      body: Buffer.from(JSON.stringify(body)),
    });
    t.equal(r.status, 201, `POST ${path}`);
  };

  // An ERC-20 transfer (not a mint) of the scenario.
  const token = fx.devnet.scenario.contracts.DevnetToken.toLowerCase();
  const [tr] = await fx.stores.ch.query<{ transaction_hash: string; from: string; to: string }>(
    `SELECT transaction_hash, from, to FROM token_transfers WHERE token_address = '${token}' AND kind = 'token_transfer' ORDER BY block_number LIMIT 1`,
  );
  const path = `/api/v2/transactions/${tr.transaction_hash}`;
  const anonBefore = await get(path);
  t.equal(anonBefore.status, 200);
  t.same(anonBefore.body.from.private_tags, []);

  const owner = await newAccount(fx.stores.pg, 'owner@example.org');
  const stranger = await newAccount(fx.stores.pg, 'stranger@example.org');
  await post('/user/tags/address', owner.token, { address_hash: tr.from, name: 'my sender' });
  await post('/user/watchlist', owner.token, { address_hash: token, name: 'watched one' }); // the transaction's `to`
  await post('/user/custom-abis', owner.token, { contract_address_hash: token, name: 'erc20', abi: JSON.stringify(parseAbi(ERC20)) });

  const mine = await get(path, owner.token);
  t.equal(mine.status, 200);
  t.same(mine.body.from.private_tags, [{ address_hash: tr.from, display_name: 'my sender', label: 'my sender' }], 'the owner sees the private tag');
  t.same(mine.body.to.watchlist_names, [{ display_name: 'watched one', label: 'watched one' }], 'and the watchlist name');
  t.equal(mine.body.method, 'transfer', 'the custom ABI names the method');
  t.equal(mine.body.decoded_input?.method_call, 'transfer(address to, uint256 amount)');
  t.equal(mine.body.decoded_input?.parameters?.[0]?.name, 'to');
  const logs = await get(`${path}/logs`, owner.token);
  const transferLog = logs.body.items.find((l: { decoded: unknown }) => l.decoded);
  t.equal(transferLog?.decoded?.method_call, 'Transfer(address indexed from, address indexed to, uint256 amount)', 'and decodes its logs');

  for (const [who, tok] of [['anonymous', undefined], ['another account', stranger.token]] as const) {
    const r = await get(path, tok);
    t.same(r.body.from.private_tags, [], `${who}: no private tags`);
    t.same(r.body.to.watchlist_names, [], `${who}: no watchlist names`);
    // Everyone gets the standard-interface table's wording; only the owner the custom ABI's.
    t.equal(r.body.decoded_input?.method_call, 'transfer(address to, uint256 value)', `${who}: the standard decoding, not the custom ABI's`);
    t.equal(r.body.method, 'transfer', `${who}: named by the standard table`);
    const theirLogs = await get(`${path}/logs`, tok);
    t.equal(theirLogs.body.items.find((l: { decoded: unknown }) => l.decoded)?.decoded?.method_call, 'Transfer(address indexed from, address indexed to, uint256 value)', `${who}: the standard log decoding`);
  }
  const anonList = await get(`/api/v2/addresses/${tr.from}/transactions`);
  t.notOk(JSON.stringify(anonList.body).includes('my sender'), 'lists do not leak either');
  const ownerList = await get(`/api/v2/addresses/${tr.from}/transactions`, owner.token);
  t.ok(JSON.stringify(ownerList.body).includes('my sender'), 'while the owner sees the tag in lists');

  // Private tags are searchable by their owner only.
  const mySearch = await get('/api/v2/search?q=SENDER', owner.token);
  t.equal(mySearch.status, 200);
  t.match(mySearch.body.items[0], { type: 'address', name: 'my sender' }, 'the owner finds the tagged address by a piece of its tag');
  t.equal(mySearch.body.items[0].address_hash.toLowerCase(), tr.from);
  const myQuick = await get('/api/v2/search/quick?q=my%20se', owner.token);
  t.match(myQuick.body[0], { type: 'address', name: 'my sender' }, 'also in quick search');
  for (const tok of [undefined, stranger.token]) {
    const r = await get('/api/v2/search?q=SENDER', tok);
    t.notOk(JSON.stringify(r.body).includes('my sender'), 'nobody else finds it');
  }

  // A first tag, written through the gateway right after a page seen without personal data: the
  // very next response carries it (what the one-step "add private tag" of the address page needs).
  const newcomer = await newAccount(fx.stores.pg, 'newcomer@example.org');
  const before = await get(`/api/v2/addresses/${tr.to}`, newcomer.token);
  t.same(before.body.private_tags, [], 'no tag before');
  const added = await handle({
    method: 'POST',
    path: '/account/api/v1/user/tags/address',
    query: new URLSearchParams(),
    headers: { authorization: `Bearer ${newcomer.token}`, 'content-type': 'application/json' },
    ip: '127.0.0.1',
    body: Buffer.from(JSON.stringify({ address_hash: tr.to, name: 'first tag' })),
  });
  t.equal(added.status, 201);
  const after = await get(`/api/v2/addresses/${tr.to}`, newcomer.token);
  t.same(after.body.private_tags.map((x: { label: string }) => x.label), ['first tag'], 'the next response has the first tag at once');
});
