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
import { addressesTransactions } from '../src/storage/clickhouse/reads/transactions.js';
import { pointAddressesTransactions } from '../src/storage/postgres/points.js';

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

  // The watchlist's transactions: the watched addresses' transactions, newest first, for the
  // owner only (Blockscout's 401 without an account).
  const walkAll = async (first: string, tok?: string) => {
    const out: { hash: string; block_number: number; position: number; to: { watchlist_names: unknown } }[] = [];
    let next: Record<string, unknown> | null = null;
    do {
      const q = new URLSearchParams(first.split('?')[1] ?? '');
      for (const [k, v] of Object.entries(next ?? {})) q.set(k, String(v));
      const r = await get(`${first.split('?')[0]}?${q}`, tok);
      t.equal(r.status, 200, `${first}: 200`);
      out.push(...r.body.items);
      next = r.body.next_page_params;
    } while (next);
    return out;
  };
  const ofAddress = await walkAll(`/api/v2/addresses/${token}/transactions`);
  t.ok(ofAddress.length >= 3, `the watched token has transactions (${ofAddress.length})`);
  const watched1 = await walkAll('/api/v2/transactions/watchlist?items_count=2', owner.token);
  t.same(watched1.map((x) => x.hash), ofAddress.map((x) => x.hash), 'one watched address: its transactions, two a page');
  t.same(watched1[0].to.watchlist_names, [{ display_name: 'watched one', label: 'watched one' }], 'with the watchlist names on them');
  await post('/user/watchlist', owner.token, { address_hash: tr.from, name: 'watched sender' });
  const ofSender = await walkAll(`/api/v2/addresses/${tr.from}/transactions`);
  const union = [...new Map([...ofAddress, ...ofSender].map((x) => [x.hash, x])).values()].sort((a, b) => b.block_number - a.block_number || b.position - a.position);
  const watched2 = await walkAll('/api/v2/transactions/watchlist?items_count=3', owner.token);
  t.same(watched2.map((x) => x.hash), union.map((x) => x.hash), 'two watched addresses: their transactions merged, each once, newest first');
  // Both stores' reads of several addresses agree (ClickHouse's serves while the upgrade's fill runs).
  for (const before of [undefined, { block: BigInt(union[2].block_number), index: BigInt(union[2].position) }]) {
    const ch = await addressesTransactions(fx.stores.ch, [token, tr.from], { before, limit: 4 });
    const pg = await pointAddressesTransactions(fx.stores.pg, [token, tr.from], { before, limit: 4 });
    t.same(ch.map((x) => x.hash), pg.map((x) => x.tx.hash), `ClickHouse and the point rows list the same four ${before ? 'after a cursor' : 'newest'}`);
    t.same(pg.map((x) => x.tx.hash), union.slice(before ? 3 : 0, (before ? 3 : 0) + 4).map((x) => x.hash), 'as the API lists them');
  }
  const mainPage = await get('/api/v2/main-page/transactions/watchlist', owner.token);
  t.same(mainPage.body.map((x: { hash: string }) => x.hash), union.slice(0, 6).map((x) => x.hash), 'the main page: the newest six');
  t.strictSame((await get('/api/v2/transactions/watchlist')).body, { message: 'Unauthorized' }, 'anonymous: Blockscout\'s 401 body');
  t.equal((await get('/api/v2/transactions/watchlist')).status, 401, 'anonymous: 401');
  t.equal((await get('/api/v2/main-page/transactions/watchlist')).status, 401, 'the main page too');
  t.strictSame((await get('/api/v2/transactions/watchlist', stranger.token)).body, { items: [], next_page_params: null }, 'an account watching nothing: none');
  t.equal((await get('/api/v2/transactions/watchlist?items_count=99', owner.token)).status, 422, 'items_count past 50: 422');

  // A metadata refetch is a PATCH with a small body (Blockscout's frontend sends its reCAPTCHA token).
  const refetch = (size: number) =>
    handle({
      method: 'PATCH',
      path: `/api/v2/tokens/${token}/instances/1/refetch-metadata`,
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json' },
      ip: '127.0.0.1',
      body: Buffer.from(JSON.stringify({ recaptcha_response: 'x'.repeat(size) })),
    });
  t.equal((await refetch(100)).status, 404, 'a refetch with its small body reaches the API (an ERC-20 has no instance: 404)');
  t.equal((await refetch(5000)).status, 413, 'a larger body is refused');

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
