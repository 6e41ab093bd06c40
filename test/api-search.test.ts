// /api/v2/search and /search/quick on the indexed devnet scenario with the derived lanes run to
// completion (tokens with their names, symbols and holder counts): a transaction by hash, a block
// by number and by hash, an address (known or not, and a token's address), a token by a piece of
// its name and of its symbol, exact matches first then holder count, paging to the end, the quick
// variant's bound, the empty list for unknown and malformed queries, the item shapes (strict, per
// type, from ../shared/spec/blockscout-api-v2.md §3.9) and the OpenAPI document, and fuzz.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { withDevnet } from './helpers/devnet.js';
import { embeddedStores } from './helpers/stores.js';
import { rpcCall, request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate, type Schema } from './helpers/openapi.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createDerived } from '../src/derived/scheduler.js';
import { createApiApp, type ApiApp } from '../src/api/app.js';
import { createLogger, type Logger } from '../src/log.js';
import type { PgStore } from '../src/storage/postgres/store.js';
import { balance } from '../src/api/serializers/search.js';
import { likeLiteral } from '../src/storage/postgres/reads/search.js';

const V2 = '/api/v2';

async function waitFor(cond: () => Promise<boolean>, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting for the derived lanes');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Indexer + derived lanes over the devnet scenario, settled; the API app over the stores. */
async function fixture(t: Test) {
  const devnet = await withDevnet(t);
  const stores = await embeddedStores(t);
  const head = Number(await rpcCall<string>(devnet.url, 'eth_blockNumber'));
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: devnet.url, variant: 'geth' }, batchBlocks: 8, workers: 1, pollMs: 100, pending: false });
  const derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, pollMs: 50, rangeBlocks: 10, nftTimeoutMs: 500, nftMaxAttempts: 1 });
  derived.attach(indexer);
  t.teardown(async () => {
    await derived.stop();
    await indexer.stop();
  });
  await indexer.start();
  derived.start();
  await indexer.waitFor(head, 120_000);
  await waitFor(async () => {
    const [r] = await stores.pg.query<{ n: number }>(
      `SELECT ((SELECT block_number FROM indexer_checkpoints LIMIT 1) IS DISTINCT FROM (SELECT block_number FROM derived_cursors WHERE lane = 'accounting'))::int
            + (SELECT count(*) FROM tokens WHERE metadata_fetched_at IS NULL OR supply_stale)::int AS n`,
    );
    return Number(r.n) === 0;
  });
  // Tokens are added between searches below: every search reads what changed first (the bound's
  // own behaviour is test/token-search.test.ts's).
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 16, tokenSearchStaleMs: 0 });
  app.attach(indexer);
  const get = async (app: ApiApp, pathAndQuery: string) => {
    const reply = await app.handle(request(pathAndQuery));
    const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    return { status: reply.status, body: text ? JSON.parse(text) : undefined };
  };
  return { devnet, stores, indexer, head, app, get: (p: string) => get(app, p), getWith: get };
}

const q = (s: string) => `${V2}/search?q=${encodeURIComponent(s)}`;
const quick = (s: string) => `${V2}/search/quick?q=${encodeURIComponent(s)}`;

// Strict item shapes per type (../shared/spec/blockscout-api-v2.md §3.9.1; the OpenAPI document
// only says "object").
const nstr = { type: 'string', nullable: true };
const checksummed = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' };
const hash = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
const iso = { type: 'string', format: 'date-time', pattern: '\\.\\d{6}Z$' };
const obj = (properties: Record<string, Schema>): Schema => ({ type: 'object', additionalProperties: false, required: Object.keys(properties), properties });
const ITEM: Record<string, Schema> = {
  token: obj({
    type: { type: 'string', enum: ['token'] },
    name: nstr,
    symbol: nstr,
    address_hash: checksummed,
    token_url: { type: 'string', pattern: '^/token/0x[0-9a-fA-F]{40}$' },
    address_url: { type: 'string', pattern: '^/address/0x[0-9a-fA-F]{40}$' },
    icon_url: nstr,
    token_type: { type: 'string', enum: ['ERC-20', 'ERC-721', 'ERC-1155'] },
    is_smart_contract_verified: { type: 'boolean' },
    exchange_rate: nstr,
    total_supply: { type: 'string', nullable: true, pattern: '^([1-9][0-9]*|0)$' },
    circulating_market_cap: nstr,
    is_verified_via_admin_panel: { type: 'boolean' },
    certified: { type: 'boolean' },
    priority: { type: 'integer', enum: [2] },
    reputation: { type: 'string', enum: ['ok', 'scam'] },
    is_smart_contract_address: { type: 'boolean' },
  }),
  address: obj({
    type: { type: 'string', enum: ['address'] },
    name: nstr,
    address_hash: checksummed,
    url: { type: 'string', pattern: '^/address/0x[0-9a-fA-F]{40}$' },
    is_smart_contract_verified: { type: 'boolean' },
    ens_info: { type: 'object', nullable: true },
    certified: { type: 'boolean' },
    priority: { type: 'integer', enum: [0] },
    reputation: { type: 'string', enum: ['ok', 'scam'] },
    is_smart_contract_address: { type: 'boolean' },
  }),
  block: obj({
    type: { type: 'string', enum: ['block'] },
    block_number: { type: 'integer', minimum: 0 },
    block_hash: hash,
    url: { type: 'string', pattern: '^/block/0x[0-9a-f]{64}$' },
    timestamp: iso,
    block_type: { type: 'string', enum: ['block', 'uncle', 'reorg'] },
    priority: { type: 'integer', enum: [3] },
  }),
  transaction: obj({
    type: { type: 'string', enum: ['transaction'] },
    transaction_hash: hash,
    url: { type: 'string', pattern: '^/tx/0x[0-9a-f]{64}$' },
    timestamp: { ...iso, nullable: true },
    priority: { type: 'integer', enum: [0] },
  }),
};

/** Extra tokens (test-only rows) for ranking, paging and symbol pieces. */
async function addTokens(pg: PgStore, rows: { address: string; name: string | null; symbol: string | null; holders: number; type?: string }[]) {
  for (const r of rows) {
    await pg.query(
      `INSERT INTO tokens (address, type, name, symbol, decimals, total_supply, holder_count, first_seen_block, metadata_fetched_at, metadata_next_at, supply_stale)
       VALUES ($1, $2, $3, $4, 18, 1000, $5, 0, now(), NULL, false)`,
      [r.address, r.type ?? 'ERC-20', r.name, r.symbol, r.holders],
    );
  }
}

const addr = (i: number, prefix = 'ab') => `0x${prefix}${i.toString(16).padStart(38, '0')}`;

t.test('search on the devnet scenario', async (t) => {
  const api = await fixture(t);
  const s = api.devnet.scenario;
  const doc = loadOpenApi();
  const problems: string[] = [];
  /** Validates a /search or /search/quick body: the document's schema, then each item strictly. */
  const check = (path: string, body: any, quickList: boolean) => {
    if (doc) {
      const errs = validate(doc, responseSchema(doc, quickList ? '/v2/search/quick' : '/v2/search'), body);
      if (errs.length) problems.push(`${path}: ${errs.slice(0, 5).join('; ')}`);
    }
    const items = quickList ? body : body.items;
    for (const it of items) {
      const schema = ITEM[it.type];
      if (!schema) problems.push(`${path}: unknown item type ${it.type}`);
      else if (doc) {
        const errs = validate(doc, schema, it);
        if (errs.length) problems.push(`${path}: ${errs.slice(0, 5).join('; ')}`);
      }
    }
    if (!quickList) {
      t.ok(body.items.length <= 50, 'at most 50 items a page');
      for (let i = 1; i < body.items.length; i++) if (body.items[i - 1].priority < body.items[i].priority) problems.push(`${path}: not ordered by priority`);
    } else t.ok(body.length <= 50, 'quick: at most 50 items');
  };
  const search = async (text: string) => {
    const r = await api.get(q(text));
    t.equal(r.status, 200, `search ${JSON.stringify(text.slice(0, 40))}: 200`);
    check(q(text), r.body, false);
    const k = await api.get(quick(text));
    t.equal(k.status, 200, `quick ${JSON.stringify(text.slice(0, 40))}: 200`);
    check(quick(text), k.body, true);
    return { page: r.body, quick: k.body as any[] };
  };

  await t.test('a transaction by hash (any case), mined and pending', async (t) => {
    for (const tx of [s.txs[0], s.failedTx, s.txs[s.txs.length - 1]]) {
      const node = await rpcCall<{ blockNumber: string }>(api.devnet.url, 'eth_getTransactionByHash', [tx.hash]);
      const block = await rpcCall<{ timestamp: string }>(api.devnet.url, 'eth_getBlockByNumber', [node.blockNumber, false]);
      for (const text of [tx.hash, tx.hash.toUpperCase().replace('0X', '0x'), `  ${tx.hash} `]) {
        const r = await search(text);
        const items = r.page.items.filter((i: any) => i.type === 'transaction');
        t.equal(items.length, 1, 'one transaction item');
        t.equal(items[0]?.transaction_hash, tx.hash.toLowerCase());
        t.equal(items[0]?.url, `/tx/${tx.hash.toLowerCase()}`);
        t.equal(items[0]?.timestamp, new Date(Number(block.timestamp) * 1000).toISOString().replace('Z', '000Z'), 'the block time');
        t.equal(r.page.next_page_params, null);
        t.same(r.quick, r.page.items, 'quick gives the same items');
      }
    }
    const { replacePendingPool } = await import('../src/storage/postgres/indexer.js');
    const pendingHash = `0x${'5a'.repeat(32)}`;
    await replacePendingPool(api.stores.pg, [
      { hash: pendingHash, from: s.accounts[1]!.toLowerCase(), to: null, nonce: 99, value: '0', gas: '21000', gasPrice: '1', maxFeePerGas: null, maxPriorityFeePerGas: null, type: 0, input: '0x' },
    ]);
    const r = await search(pendingHash);
    t.same(r.page.items, [{ type: 'transaction', transaction_hash: pendingHash, url: `/tx/${pendingHash}`, timestamp: null, priority: 0 }], 'a pending transaction');
    await replacePendingPool(api.stores.pg, []);
    t.same((await api.get(q(pendingHash))).body.items, [], 'gone from the pool: not found (the miss was not cached)');
  });

  await t.test('a block by number and by hash', async (t) => {
    for (const n of [0, 1, api.head]) {
      const b = await rpcCall<{ hash: string; timestamp: string }>(api.devnet.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
      const want = {
        type: 'block',
        block_number: n,
        block_hash: b.hash,
        url: `/block/${b.hash}`,
        timestamp: new Date(Number(b.timestamp) * 1000).toISOString().replace('Z', '000Z'),
        block_type: 'block',
        priority: 3,
      };
      const byNumber = await search(String(n));
      t.same(byNumber.page.items.filter((i: any) => i.type === 'block'), [want], `block ${n} by number`);
      t.same(byNumber.page.items[0], want, 'the block first (priority 3)');
      const byHash = await search(b.hash);
      t.same(byHash.page.items, [want], `block ${n} by hash`);
      t.same(byHash.quick, [want]);
    }
    t.same((await search(String(api.head + 1000))).page.items, [], 'a height not stored: nothing');
    t.same((await search('99999999999999999999999999')).page.items, [], 'beyond 64 bits: nothing');
  });

  await t.test('an address: known or not; a token address also gives its token', async (t) => {
    const eoa = s.accounts[0]!;
    let r = await search(eoa.toLowerCase());
    t.same(r.page.items.map((i: any) => [i.type, i.address_hash, i.is_smart_contract_address]), [['address', eoa, false]], 'an account (checksummed)');
    t.equal(r.page.items[0].url, `/address/${eoa}`);
    const unknown = '0x' + '12'.repeat(20);
    r = await search(unknown);
    t.same(r.page.items.map((i: any) => [i.type, i.address_hash.toLowerCase()]), [['address', unknown]], 'an address the chain never showed');
    const token = s.contracts.DevnetToken;
    r = await search(token);
    t.same(
      r.page.items.map((i: any) => [i.type, i.address_hash, i.is_smart_contract_address]),
      [
        ['token', token, true],
        ['address', token, true],
      ],
      'a token contract: the token, then the address',
    );
    t.equal(r.page.items[0].name, 'Devnet Token');
    t.equal(r.page.items[0].symbol, 'DVT');
    t.equal(r.page.items[0].token_type, 'ERC-20');
    const supply = await rpcCall<string>(api.devnet.url, 'eth_call', [{ to: token, data: '0x18160ddd' }, 'latest']);
    t.equal(r.page.items[0].total_supply, BigInt(supply).toString(), 'total supply as the node says');
    r = await search(s.contracts.Reverter);
    t.same(r.page.items.map((i: any) => [i.type, i.is_smart_contract_address]), [['address', true]], 'a contract that is not a token');
  });

  await t.test('the start of an address: the addresses the chain has seen starting with it, from an index', async (t) => {
    const token = s.contracts.DevnetToken;
    // "0x5FbDB2" (issue #33): the token contract's address, any case.
    for (const text of [token.slice(0, 8), token.slice(0, 8).toLowerCase(), token.slice(0, 20).toUpperCase().replace('0X', '0x')]) {
      const r = await search(text);
      const addrs = r.page.items.filter((i: any) => i.type === 'address');
      t.ok(addrs.length >= 1, `${text}: some address`);
      t.ok(addrs.every((i: any) => i.address_hash.toLowerCase().startsWith(text.toLowerCase())), `${text}: every address found starts with it`);
      t.same(addrs.find((i: any) => i.address_hash === token) && [addrs.find((i: any) => i.address_hash === token).is_smart_contract_address], [true], `${text}: the token contract, as a contract`);
      t.ok(r.quick.some((i: any) => i.type === 'address' && i.address_hash === token), `${text}: quick finds it too`);
    }
    const eoa = s.accounts[0]!;
    const r = await search(eoa.slice(0, 12));
    t.same(r.page.items.filter((i: any) => i.address_hash === eoa).map((i: any) => [i.type, i.is_smart_contract_address]), [['address', false]], 'an account by the start of its address');
    // Every address with that start, as the store has them.
    const [{ n }] = await api.stores.pg.query<{ n: number }>(`SELECT count(*)::int AS n FROM addresses WHERE hash LIKE $1`, [`${eoa.slice(0, 6).toLowerCase()}%`]);
    const all = await search(eoa.slice(0, 6));
    t.equal(all.page.items.filter((i: any) => i.type === 'address').length, Math.min(n, 10), `${eoa.slice(0, 6)}: the ${n} addresses starting with it (at most 10)`);
    t.same((await search('0x0000dead')).page.items, [], 'a start no address has: nothing');
    t.same((await search('0x5fb')).page.items, [], 'three hex digits say too little: nothing');

    // Served by a range of the addresses table's primary key, not a scan: with 50,000 more
    // addresses the planner walks addresses_pkey and reads only the hits.
    await api.stores.pg.query(
      `INSERT INTO addresses (hash, first_seen_block) SELECT '0x' || md5(i::text) || substr(md5((-i)::text), 1, 8), 0 FROM generate_series(1, 50000) i ON CONFLICT DO NOTHING`,
    );
    await api.stores.pg.query('ANALYZE addresses');
    try {
      const plan = await api.stores.pg.query<{ 'QUERY PLAN': unknown }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) SELECT a.hash FROM addresses a WHERE a.hash >= $1 AND a.hash < $2 ORDER BY a.hash LIMIT 10`,
        ['0x5fbdb2', '0x5fbdb2g'],
      );
      const text = JSON.stringify(plan[0]!['QUERY PLAN']);
      t.match(text, /"Index Name":"addresses_pkey"/, 'the primary key index serves the range');
      t.notMatch(text, /Seq Scan/, 'no scan of the table');
      const start = performance.now();
      // The made-up address of i = 1, as the INSERT above wrote it.
      const one = `0x${createHash('md5').update('1').digest('hex')}${createHash('md5').update('-1').digest('hex').slice(0, 8)}`;
      const hits = await api.get(quick(one.slice(0, 8)));
      t.equal(hits.status, 200);
      const found = hits.body.filter((i: any) => i.type === 'address').map((i: any) => i.address_hash.toLowerCase());
      t.ok(found.includes(one), `${one.slice(0, 8)}: the address starting with it, among 50,000`);
      t.ok(found.every((h: string) => h.startsWith(one.slice(0, 8))), 'and only addresses starting with it');
      t.comment(`quick search by a prefix among ${50000 + n}+ addresses: ${(performance.now() - start).toFixed(1)} ms`);
    } finally {
      // The same 50,000 made-up hashes (md5 digits: none is a devnet address).
      await api.stores.pg.query(`DELETE FROM addresses WHERE hash IN (SELECT '0x' || md5(i::text) || substr(md5((-i)::text), 1, 8) FROM generate_series(1, 50000) i)`);
    }
  });

  await t.test('a token by a piece of its name or symbol, any case; exact matches first, then holders', async (t) => {
    for (const text of ['evnet tok', 'DEVNET TOKEN', 'Devnet Token', 'dvt', 'DVT', 'Token']) {
      const r = await search(text);
      t.ok(r.page.items.some((i: any) => i.type === 'token' && i.address_hash === s.contracts.DevnetToken), `${JSON.stringify(text)} finds the ERC-20`);
      t.ok(r.quick.some((i: any) => i.address_hash === s.contracts.DevnetToken), `${JSON.stringify(text)} quick`);
    }
    const nft = await search('devnet nf');
    t.same(nft.page.items.map((i: any) => [i.address_hash, i.token_type]), [[s.contracts.DevnetNFT, 'ERC-721']], 'the NFT by its name');
    const both = await search('devnet');
    t.same(new Set(both.page.items.map((i: any) => i.address_hash)), new Set([s.contracts.DevnetToken, s.contracts.DevnetNFT]), 'both named tokens');
    await addTokens(api.stores.pg, [
      { address: addr(1), name: 'Gamma', symbol: 'GAM', holders: 5 },
      { address: addr(2), name: 'Gamma Ray', symbol: 'GRAY', holders: 100 },
      { address: addr(3), name: 'Omega gamma', symbol: 'OMG', holders: 50 },
      { address: addr(4), name: 'Something', symbol: 'GAMMA', holders: 1 },
      { address: addr(5), name: 'Alpha Beta', symbol: 'ZYXWV', holders: 7 },
      { address: addr(6), name: '100% real_token', symbol: 'R_T', holders: 7 },
      { address: addr(7), name: null, symbol: 'NONAME', holders: 3, type: 'ERC-721' },
    ]);
    api.app.cache?.clear();
    const g = await search('GAMMA');
    t.same(
      g.page.items.map((i: any) => i.name),
      ['Gamma', 'Something', 'Gamma Ray', 'Omega gamma'],
      'exact name/symbol matches first (by holders), then the others by holders',
    );
    t.same(g.quick.map((i: any) => i.name), ['Gamma', 'Something', 'Gamma Ray', 'Omega gamma'], 'quick: same order');
    t.same((await search('yxw')).page.items.map((i: any) => i.symbol), ['ZYXWV'], 'a piece of a symbol');
    t.same((await search('%')).page.items, [], 'LIKE wildcards are literal: % alone');
    t.same((await search('0% r')).page.items.map((i: any) => i.symbol), ['R_T'], '% inside a query is a literal character');
    t.same((await search('a_b')).page.items, [], '_ is a literal character ("Alpha Beta" does not contain a_b)');
    t.same((await search('l_token')).page.items.map((i: any) => i.symbol), ['R_T'], '_ matches itself');
    t.same((await search('noname')).page.items.map((i: any) => [i.name, i.symbol, i.token_type]), [[null, 'NONAME', 'ERC-721']], 'a token without a name');
    t.same((await search('GA')).page.items, [], 'two characters: exact matches only (none here)');
    await addTokens(api.stores.pg, [{ address: addr(8), name: 'Op Token', symbol: 'OP', holders: 9 }]);
    api.app.cache?.clear();
    t.same((await search('op')).page.items.map((i: any) => i.symbol), ['OP'], 'two characters: an exact symbol');
    t.same((await search('123')).page.items, [], 'a number (3+ digits) with no block and no token');
  });

  await t.test('paging: every matching token once, in rank order; quick at most 50', async (t) => {
    const rows = Array.from({ length: 123 }, (_, i) => ({ address: addr(i, 'cd'), name: `Pagetest ${i}`, symbol: `PT${i}`, holders: (i * 37) % 41 }));
    await addTokens(api.stores.pg, rows);
    api.app.cache?.clear();
    const seen: any[] = [];
    let next: Record<string, string> | null = null;
    let pages = 0;
    do {
      const u = new URL(`http://x${q('pagetest')}`);
      if (next) for (const [k, v] of Object.entries(next)) u.searchParams.set(k, v);
      const r = await api.get(u.pathname + u.search);
      t.equal(r.status, 200);
      check(u.pathname + u.search, r.body, false);
      seen.push(...r.body.items);
      next = r.body.next_page_params;
      if (next) {
        t.equal(next.next_page_params_type, 'search');
        t.equal(next.q, 'pagetest');
        t.ok(Object.values(next).every((v) => typeof v === 'string'), 'flattened string values');
      }
      pages++;
    } while (next && pages < 10);
    t.equal(pages, 3, '50 + 50 + 23');
    t.equal(seen.length, 123, 'every token');
    t.equal(new Set(seen.map((i) => i.address_hash)).size, 123, 'each once');
    const want = [...rows].sort((a, b) => b.holders - a.holders || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((r) => r.name);
    t.same(seen.map((i) => i.name), want, 'holders descending, then names A-Z');
    const k = await api.get(quick('pagetest'));
    t.equal(k.body.length, 50, 'quick: 50 of 123');
    t.same(k.body.map((i: any) => i.name), want.slice(0, 50), 'quick: the best 50');
    // More matches than the trigram path collects (src/storage/postgres/reads/search.ts
    // SPARSE_MAX): the rank index is walked, page after page.
    const dense = Array.from({ length: 2050 }, (_, i) => ({ address: addr(i, 'de'), name: `Densetest ${i}`, symbol: null, holders: (i * 7919) % 97 }));
    await addTokens(api.stores.pg, dense);
    api.app.cache?.clear();
    const walked: any[] = [];
    next = null;
    pages = 0;
    do {
      const u = new URL(`http://x${q('densetest')}`);
      if (next) for (const [key, v] of Object.entries(next)) u.searchParams.set(key, v === null ? 'null' : v);
      const r = await api.get(u.pathname + u.search);
      walked.push(...r.body.items);
      next = r.body.next_page_params;
      pages++;
    } while (next && pages < 100);
    t.equal(walked.length, 2050, 'every dense match');
    t.equal(new Set(walked.map((i) => i.address_hash)).size, 2050, 'each once');
    const denseWant = [...dense].sort((a, b) => b.holders - a.holders || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((r) => r.name);
    t.same(walked.map((i) => i.name), denseWant, 'dense: rank order across 41 pages');
    // Paging with an exact-match zone: 'PT1' equals one symbol, and is a piece of 33 others.
    const all: any[] = [];
    next = null;
    do {
      const u = new URL(`http://x${q('pt1')}`);
      if (next) for (const [key, v] of Object.entries(next)) u.searchParams.set(key, v);
      const r = await api.get(u.pathname + u.search);
      all.push(...r.body.items);
      next = r.body.next_page_params;
    } while (next);
    t.equal(all[0].symbol, 'PT1', 'the exact match first');
    t.equal(all.length, rows.filter((r) => r.symbol.toLowerCase().includes('pt1')).length, 'every match of pt1');
  });

  await t.test('the legacy /api/v1/search answers as /api/v2/search, page after page', async (t) => {
    for (const text of ['pagetest', s.txs[0].hash, s.contracts.DevnetToken, '1', 'nothing-like-this']) {
      let next: Record<string, string> | null = null;
      let pages = 0;
      do {
        const params: URLSearchParams = new URLSearchParams({ q: text, ...(next ?? {}) });
        const [v1, v2]: { status: number; body: any }[] = await Promise.all([api.get(`/api/v1/search?${params}`), api.get(`${V2}/search?${params}`)]);
        t.strictSame([v1.status, v1.body], [v2.status, v2.body], `${text.slice(0, 12)} page ${pages + 1}: the same answer`);
        next = v2.body.next_page_params;
        pages++;
      } while (next && pages < 10);
    }
    t.equal((await api.get('/api/v1/search?q=x&bogus=1')).status, 422, 'an undeclared parameter: 422, as on v2');
    t.equal((await api.get('/api/v1/nothing-here')).status, 404, 'anything else under /api/v1 stays a 404');
  });

  await t.test('unknown and malformed queries: an empty list, never an error', async (t) => {
    const texts = [
      '', ' ', 'zzzzqqqq', '0x12', '0x' + 'g'.repeat(64), '0x' + 'a'.repeat(63), '0x' + 'a'.repeat(41), '\u0000abc', 'a'.repeat(5000), '💥💥💥', "' OR 1=1 --",
      '%%%', '___', '\\', '{h:String}', '-1', '1.5', '0x' + 'ab'.repeat(32), 'null', 'undefined',
    ];
    for (const text of texts) {
      const r = await api.get(q(text));
      t.equal(r.status, 200, `${JSON.stringify(text.slice(0, 20))}: 200`);
      t.same(r.body, { items: [], next_page_params: null }, `${JSON.stringify(text.slice(0, 20))}: empty`);
      const k = await api.get(quick(text));
      t.equal(k.status, 200);
      t.same(k.body, [], 'quick: []');
    }
    for (const path of [`${V2}/search`, `${V2}/search/quick`, `${V2}/search?q=`, `${V2}/search?next_page_params_type=search`, `${V2}/search?q=devnet&token[name]=x`]) {
      const r = await api.get(path);
      t.equal(r.status, 200, `${path}: 200`);
      t.same(r.body, path.includes('quick') ? [] : { items: [], next_page_params: null }, `${path}: empty`);
    }
    const bad = [
      'token[address_hash]=0x12&token[exact]=true&token[holder_count]=1',
      'token[address_hash]=0x' + 'ab'.repeat(20) + '&token[exact]=maybe&token[holder_count]=1',
      'token[address_hash]=0x' + 'ab'.repeat(20) + '&token[exact]=false&token[holder_count]=-5',
      'token[address_hash]=0x' + 'ab'.repeat(20) + '&token[exact]=false&token[holder_count]=' + '9'.repeat(40),
      'token[exact]=false',
    ];
    for (const b of bad) {
      const r = await api.get(`${q('devnet')}&${b}`);
      t.equal(r.status, 200, `bad cursor ${b.slice(0, 40)}: 200`);
      t.same(r.body, { items: [], next_page_params: null }, 'bad cursor: empty');
    }
    const r = await api.get(`${q('devnet')}&foo=1`);
    t.equal(r.status, 422, 'an undeclared parameter is a 422, as on every endpoint');
  });

  await t.test('fuzz: no 500', async (t) => {
    const errors: string[] = [];
    const log: Logger = { debug() {}, info() {}, warn() {}, error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`), child: () => log };
    const app = createApiApp({ ch: api.stores.ch, pg: api.stores.pg, log, cacheMaxMb: 0 });
    const pieces = ['', ' ', '0x', 'a', 'DVT', 'devnet', '%', '_', '\\', '\u0000', '💥', 'é', '1', '007', '-', '0X', 'ff', s.txs[0]!.hash.slice(2, 30), '[', ']', '&', '='];
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    const keys = ['q', 'next_page_params_type', 'token[address_hash]', 'token[exact]', 'token[holder_count]', 'token[name]', 'label[name]', 'x'];
    for (let i = 0; i < 600; i++) {
      const u = new URLSearchParams();
      const n = 1 + rnd(4);
      for (let k = 0; k < n; k++) {
        let v = '';
        for (let j = rnd(6); j > 0; j--) v += pieces[rnd(pieces.length)];
        u.append(keys[rnd(keys.length)]!, v);
      }
      for (const path of ['/search', '/search/quick']) {
        const reply = await app.handle(request(`${V2}${path}?${u.toString()}`));
        if (reply.status >= 500) t.fail(`${reply.status} for ${path}?${u.toString().slice(0, 200)}`);
        if (reply.status === 200 && (path === '/search' ? true : false)) {
          const body = JSON.parse(reply.body.toString());
          if (!Array.isArray(body.items)) t.fail('no items');
        }
      }
    }
    t.same(errors, [], 'nothing logged as a server error');
  });

  t.same(problems, [], 'every response conforms (OpenAPI document and strict item shapes)');
});

t.test('balance: equal shares, unused shares to the others, at most max', async (t) => {
  const mk = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
  t.same(balance([mk(1, 'a'), mk(100, 't')], 50), ['a0', ...mk(49, 't')]);
  t.same(balance([mk(30, 'a'), mk(30, 'b')], 50).length, 50);
  t.same(balance([mk(30, 'a'), mk(30, 'b')], 50).filter((x) => x.startsWith('a')).length, 25);
  t.same(balance([mk(3, 'a'), mk(10, 'b'), mk(60, 'c')], 50).length, 50);
  t.same(balance([[], mk(2, 'b')], 50), ['b0', 'b1']);
  t.same(balance([mk(5, 'a'), mk(5, 'b'), mk(5, 'c')], 2).length, 2);
  t.same(balance([], 50), []);
  t.equal(likeLiteral('a%b_c\\d'), 'a\\%b\\_c\\\\d');
});
