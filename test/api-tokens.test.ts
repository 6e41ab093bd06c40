// Token endpoints of the public API v2 on the devnet scenario with the derived lanes at rest:
// strict OpenAPI conformance of every page; holders and counters equal what the node says
// (balanceOf, the transfer logs); q and type filter the list; paging over holders, transfers,
// instances and the list returns each item once; NFT instances equal ownerOf; bad input is
// never a 500.
import t from 'tap';
import { createPublicClient, createWalletClient, decodeAbiParameters, encodeFunctionData, http as viemHttp, parseAbi, type Address, type Hex } from 'viem';
import { apiWithDerived, checkConformance, errorCollector, fuzzRoutes, walk, type ConformanceCase, type DerivedApiFixture } from './helpers/api-derived.js';
import { compileContracts, devAccount, TOPIC_TRANSFER, TOPIC_TRANSFER_BATCH, TOPIC_TRANSFER_SINGLE } from './helpers/devnet.js';
import { loadOpenApi, OPENAPI_FILE } from './helpers/openapi.js';
import { createApiApp } from '../src/api/app.js';
import { holderBalance } from '../src/api/routes/csv-export.js';
import { parseCsv } from '../src/api/serializers/csv.js';
import { grantAdmin } from '../src/storage/postgres/public-names.js';
import { newAccount } from './helpers/account.js';
import { request } from './helpers/api.js';

const V2 = '/api/v2';

const ABI = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
  'function ownerOf(uint256) view returns (address)',
]);

interface NodeLog { address: string; topics: string[]; data: Hex }

/** Transfer items per token as the node's logs give them (one per id of a TransferBatch). */
function transferItems(logs: NodeLog[]): { from: string; to: string; id: string | null }[] {
  const out: { from: string; to: string; id: string | null }[] = [];
  const addr = (topic: string) => `0x${topic.slice(26)}`.toLowerCase();
  for (const l of logs) {
    if (l.topics[0] === TOPIC_TRANSFER && l.topics.length === 3) out.push({ from: addr(l.topics[1]), to: addr(l.topics[2]), id: null });
    else if (l.topics[0] === TOPIC_TRANSFER && l.topics.length === 4) out.push({ from: addr(l.topics[1]), to: addr(l.topics[2]), id: BigInt(l.topics[3]).toString() });
    else if (l.topics[0] === TOPIC_TRANSFER_SINGLE) {
      const [id] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], l.data);
      out.push({ from: addr(l.topics[2]), to: addr(l.topics[3]), id: id.toString() });
    } else if (l.topics[0] === TOPIC_TRANSFER_BATCH) {
      const [ids] = decodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], l.data);
      for (const id of ids) out.push({ from: addr(l.topics[2]), to: addr(l.topics[3]), id: id.toString() });
    }
  }
  return out;
}

const ZERO = '0x0000000000000000000000000000000000000000';

t.test('token endpoints on the devnet scenario', async (t) => {
  let zeta = '' as Address;
  const api: DerivedApiFixture = await apiWithDerived(t, {
    // More holders and tokens than the scenario has: equal balances (ties in the holder order),
    // a second ERC-20, one ERC-1155 holder with two ids of the same balance, more ERC-721 ids.
    before: async (devnet) => {
      const artifacts = await compileContracts();
      const owner = devAccount(0);
      const wallet = createWalletClient({ account: owner, transport: viemHttp(devnet.url) });
      const pub = createPublicClient({ transport: viemHttp(devnet.url) });
      const send = async (to: Address, abi: any, functionName: string, args: unknown[]) => {
        const hash = await wallet.sendTransaction({ chain: null, to, data: encodeFunctionData({ abi, functionName, args }) });
        const rc = await pub.waitForTransactionReceipt({ hash });
        if (rc.status !== 'success') throw new Error(`${functionName} failed`);
      };
      const hash = await wallet.deployContract({ chain: null, abi: artifacts.DevnetToken.abi, bytecode: artifacts.DevnetToken.bytecode, args: ['Zeta Points', 'zPTS'] });
      zeta = (await pub.waitForTransactionReceipt({ hash })).contractAddress!;
      const s = devnet.scenario;
      const acc = (i: number) => devAccount(i).address;
      await send(zeta, artifacts.DevnetToken.abi, 'mint', [acc(5), 7n * 10n ** 18n]);
      await send(zeta, artifacts.DevnetToken.abi, 'mint', [acc(6), 7n * 10n ** 18n]);
      await send(zeta, artifacts.DevnetToken.abi, 'mint', [acc(7), 3n * 10n ** 18n]);
      await send(s.contracts.DevnetToken, artifacts.DevnetToken.abi, 'mint', [acc(8), 42n * 10n ** 18n]);
      await send(s.contracts.DevnetToken, artifacts.DevnetToken.abi, 'mint', [acc(9), 42n * 10n ** 18n]);
      await send(s.contracts.DevnetMulti, artifacts.DevnetMulti.abi, 'mint', [acc(5), 7n, 4n, '0x']);
      await send(s.contracts.DevnetMulti, artifacts.DevnetMulti.abi, 'mint', [acc(5), 8n, 4n, '0x']);
      await send(s.contracts.DevnetMulti, artifacts.DevnetMulti.abi, 'mint', [acc(6), 9n, 1n, '0x']);
      for (const id of [10n, 11n, 12n, 13n]) await send(s.contracts.DevnetNFT, artifacts.DevnetNFT.abi, 'mint', [acc(6), id]);
    },
  });
  const s = api.devnet.scenario;
  const tokens = [s.contracts.DevnetToken, s.contracts.DevnetNFT, s.contracts.DevnetMulti, zeta].map((a) => a.toLowerCase());
  const call = async (to: string, data: Hex) => api.rpc<Hex>('eth_call', [{ to, data }, 'latest']);

  // What the node says, per token: its transfer items and every positive balance.
  const node = new Map<string, { items: ReturnType<typeof transferItems>; balances: Map<string, bigint>; type: string }>();
  for (const tok of tokens) {
    const logs = await api.rpc<NodeLog[]>('eth_getLogs', [{ address: tok, fromBlock: '0x0', toBlock: 'latest' }]);
    const items = transferItems(logs);
    const type = (await api.get(`${V2}/tokens/${tok}`)).body.type as string;
    const balances = new Map<string, bigint>();
    const keys = new Set<string>();
    for (const x of items) for (const h of [x.from, x.to]) if (h !== ZERO) keys.add(`${h}|${type === 'ERC-1155' ? x.id : ''}`);
    for (const k of keys) {
      const [h, id] = k.split('|');
      const data = id
        ? encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [h as Address, BigInt(id)] })
        : encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [h as Address] });
      const v = BigInt(await call(tok, data));
      if (v > 0n) balances.set(k, v);
    }
    node.set(tok, { items, balances, type });
  }

  await t.test('OpenAPI 200 schemas of every page', { skip: loadOpenApi() ? false : `no OpenAPI document at ${OPENAPI_FILE}` }, async (t) => {
    const doc = loadOpenApi()!;
    const cases: ConformanceCase[] = [
      { template: '/v2/tokens/', path: `${V2}/tokens`, list: true },
      { template: '/v2/tokens/', path: `${V2}/tokens?items_count=1`, list: true },
      { template: '/v2/tokens/', path: `${V2}/tokens?items_count=1&q=devnet`, list: true },
      { template: '/v2/tokens/', path: `${V2}/tokens?items_count=1&type=ERC-20,ERC-1155`, list: true },
      { template: '/v2/tokens/', path: `${V2}/tokens?items_count=1&sort=holders_count&order=asc`, list: true },
      { template: '/v2/tokens/', path: `${V2}/tokens?limit=2`, list: true },
    ];
    for (const a of [devAccount(5).address, devAccount(6).address]) {
      cases.push({ template: '/v2/addresses/{address_hash_param}/nft/collections', path: `${V2}/addresses/${a}/nft/collections?items_count=1`, list: true });
    }
    for (const tok of tokens) {
      cases.push({ template: '/v2/tokens/{address_hash_param}', path: `${V2}/tokens/${tok}` });
      cases.push({ template: '/v2/tokens/{address_hash_param}/counters', path: `${V2}/tokens/${tok}/counters` });
      cases.push({ template: '/v2/tokens/{address_hash_param}/transfers', path: `${V2}/tokens/${tok}/transfers?items_count=2`, list: true });
      cases.push({ template: '/v2/tokens/{address_hash_param}/holders', path: `${V2}/tokens/${tok}/holders?items_count=1`, list: true });
      cases.push({ template: '/v2/tokens/{address_hash_param}/instances', path: `${V2}/tokens/${tok}/instances?items_count=1`, list: true });
      for (const x of new Set(node.get(tok)!.items.map((i) => i.id).filter((i) => i !== null))) {
        cases.push({ template: '/v2/tokens/{address_hash_param}/instances/{token_id_param}', path: `${V2}/tokens/${tok}/instances/${x}` });
        cases.push({ template: '/v2/tokens/{address_hash_param}/instances/{token_id_param}/holders', path: `${V2}/tokens/${tok}/instances/${x}/holders?items_count=1`, list: true });
      }
    }
    const r = await checkConformance(doc, api, cases);
    t.same(r.failures, [], `every response conforms (${r.validated} responses)`);
    t.ok(r.secondPages > 20, `following pages validated too (${r.secondPages})`);
  });

  await t.test('holders and counters equal the node', async (t) => {
    for (const tok of tokens) {
      const n = node.get(tok)!;
      const { items, pages } = await walk(api, `${V2}/tokens/${tok}/holders?items_count=1`);
      const got = new Map(items.map((h: any) => [`${h.address.hash.toLowerCase()}|${h.token_id ?? ''}`, BigInt(h.value)]));
      t.equal(got.size, items.length, `${tok}: each holder item once`);
      t.same(got, n.balances, `${tok}: holders equal balanceOf`);
      t.equal(pages, Math.max(1, items.length), `${tok}: one item a page`);
      const order = items.map((h: any) => [BigInt(h.value), h.address.hash.toLowerCase(), h.token_id ?? '']);
      t.ok(
        order.every((k, i) => i === 0 || order[i - 1][0] > k[0] || (order[i - 1][0] === k[0] && (order[i - 1][1] > k[1] || (order[i - 1][1] === k[1] && BigInt(order[i - 1][2]) > BigInt(k[2]))))),
        `${tok}: value desc, address desc, id desc`,
      );
      const big = await walk(api, `${V2}/tokens/${tok}/holders`);
      t.same(big.items, items, `${tok}: the same holders in one page`);
      const c = (await api.get(`${V2}/tokens/${tok}/counters`)).body;
      const holders = new Set([...n.balances.keys()].map((k) => k.split('|')[0])).size;
      t.same(c, { token_holders_count: String(holders), transfers_count: String(n.items.length) }, `${tok}: counters`);
      const one = (await api.get(`${V2}/tokens/${tok}`)).body;
      t.equal(one.holders_count, String(holders), `${tok}: holders_count on the token`);
    }
    const dvt = (await api.get(`${V2}/tokens/${s.contracts.DevnetToken}`)).body;
    t.match(dvt, { name: 'Devnet Token', symbol: 'DVT', decimals: '18', type: 'ERC-20', exchange_rate: null, icon_url: null });
    const supply = await call(s.contracts.DevnetToken, encodeFunctionData({ abi: parseAbi(['function totalSupply() view returns (uint256)']), functionName: 'totalSupply' }));
    t.equal(dvt.total_supply, BigInt(supply).toString(), 'total supply equals totalSupply()');
    const multi = (await walk(api, `${V2}/tokens/${s.contracts.DevnetMulti}/holders?items_count=1`)).items;
    t.ok(multi.filter((h: any) => h.address.hash === devAccount(5).address).length === 2, 'an ERC-1155 holder of two ids appears once per id');
  });

  await t.test('holders/csv: every holder in the list\'s order, balances in the token\'s units', async (t) => {
    const text = async (path: string) => {
      const r = await api.get(path);
      let out = '';
      for await (const c of r.reply.stream ?? []) out += Buffer.from(c).toString('utf8');
      return { status: r.status, headers: r.reply.headers, out };
    };
    for (const tok of tokens) {
      const listed = (await walk(api, `${V2}/tokens/${tok}/holders`)).items;
      const decimals = (await api.get(`${V2}/tokens/${tok}`)).body.decimals;
      const got = await text(`${V2}/tokens/${tok}/holders/csv`);
      t.equal(got.status, 200, `${tok}: 200`);
      t.equal(got.headers['content-type'], 'application/csv; charset=utf-8', `${tok}: CSV, as the address exports`);
      const rows = parseCsv(got.out);
      t.same(rows[0], ['HolderAddress', 'Balance'], `${tok}: Blockscout's header`);
      t.same(
        rows.slice(1),
        listed.map((h: any) => [h.address.hash, holderBalance(h.value, decimals === null ? null : Number(decimals))]),
        `${tok}: ${listed.length} holders as /holders lists them`,
      );
    }
    t.equal(holderBalance('100000000000000000000', 18), '100.0', 'a whole balance: one zero after the point');
    t.equal(holderBalance('1234567890', 6), '1234.56789', 'trailing zeros dropped');
    t.equal(holderBalance('5', 3), '0.005', 'below one');
    t.equal(holderBalance('7', null), '7.0', 'no decimals: whole units');
    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/holders/csv?from_period=2024-01-01&to_period=2024-12-31&recaptcha_response=x`)).status, 200, 'Blockscout\'s own parameters are taken');
    t.equal((await api.get(`${V2}/tokens/0x${'12'.repeat(20)}/holders/csv`)).status, 404, 'not a token: 404');
    t.equal((await api.get(`${V2}/tokens/0x12/holders/csv`)).status, 422, 'not an address: 422');
    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/holders/csv?bogus=1`)).status, 422, 'an unknown parameter: 422');
  });

  await t.test('transfers: each once, newest first, equal the node', async (t) => {
    for (const tok of tokens) {
      const n = node.get(tok)!;
      const one = await walk(api, `${V2}/tokens/${tok}/transfers?items_count=1`);
      const all = await walk(api, `${V2}/tokens/${tok}/transfers`);
      t.same(one.items, all.items, `${tok}: paging one by one gives the same list`);
      const keys = all.items.map((x: any) => `${x.block_number}|${x.log_index}|${x.total?.token_id ?? ''}`);
      t.equal(new Set(keys).size, keys.length, `${tok}: each transfer once`);
      t.equal(all.items.length, n.items.length, `${tok}: every transfer of the node`);
      t.same(
        all.items.map((x: any) => `${x.from.hash.toLowerCase()}>${x.to.hash.toLowerCase()}#${x.total?.token_id ?? ''}`).sort(),
        n.items.map((x) => `${x.from}>${x.to}#${x.id ?? ''}`).sort(),
        `${tok}: the same transfers`,
      );
      t.ok(all.items.every((x: any, i: number, l: any[]) => i === 0 || l[i - 1].block_number > x.block_number || (l[i - 1].block_number === x.block_number && l[i - 1].log_index >= x.log_index)), `${tok}: newest first`);
      t.ok(all.items.every((x: any) => x.token.address_hash.toLowerCase() === tok && x.token.holders_count !== null), `${tok}: the token object is the derived one`);
    }
    const dvt = (await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/transfers?items_count=1`)).body.items[0];
    t.match(dvt.token, { name: 'Devnet Token', symbol: 'DVT', decimals: '18' });
    t.equal(dvt.total.decimals, '18', 'ERC-20 total carries the decimals');
  });

  await t.test('the token list: q, type, order, paging', async (t) => {
    const names = async (q: string) => (await walk(api, `${V2}/tokens?items_count=1&${q}`)).items.map((x: any) => x.address_hash.toLowerCase()).sort();
    const [dvt, dnft, multi, zpts] = tokens;
    t.same(await names('q=devnet'), [dvt, dnft].sort(), 'q matches names, case-insensitively');
    t.same(await names('q=DEVNET%20t'), [dvt], 'q is a substring');
    t.same(await names('q=dvt'), [dvt], 'q matches symbols, case-insensitively');
    t.same(await names('q=PTS'), [zpts], 'q=PTS matches zPTS');
    t.same(await names('q=nft'), [dnft], 'q=nft');
    t.same(await names('q=%25'), [], 'a % in q is literal');
    t.same(await names('q=_'), [], 'an _ in q is literal');
    t.same(await names('q=%00'), [], 'a NUL in q matches nothing');
    t.same(await names('type=ERC-20'), [dvt, zpts].sort(), 'type=ERC-20');
    t.same(await names('type=ERC-721,ERC-1155'), [dnft, multi].sort(), 'type=ERC-721,ERC-1155');
    t.same(await names('type=[erc-1155]'), [multi], 'type in brackets, any case');
    t.same(await names('type=ERC-404'), [], 'type=ERC-404: none here');
    t.same(await names('q=devnet&type=ERC-721'), [dnft], 'q and type together');

    const all = (await walk(api, `${V2}/tokens`)).items;
    t.equal(all.length, 4, 'every token');
    const paged = await walk(api, `${V2}/tokens?items_count=1`);
    t.same(paged.items, all, 'paging one by one gives the same list');
    t.equal(paged.pages, 4);
    const key = (x: any) => [Number(x.holders_count), x.name === null ? 1 : 0, x.name ?? '', x.address_hash.toLowerCase()] as const;
    const cmp = (a: readonly (number | string)[], b: readonly (number | string)[]) => {
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
      return 0;
    };
    t.ok(all.every((x: any, i: number) => i === 0 || cmp([-key(all[i - 1])[0], ...key(all[i - 1]).slice(1)], [-key(x)[0], ...key(x).slice(1)]) < 0), 'holders desc, then named A-Z, unnamed last');
    const asc = (await walk(api, `${V2}/tokens?items_count=1&sort=holders_count&order=asc`)).items;
    t.ok(asc.every((x: any, i: number) => i === 0 || Number(asc[i - 1].holders_count) <= Number(x.holders_count)), 'sort=holders_count&order=asc');
    t.same(new Set(asc.map((x: any) => x.address_hash)), new Set(all.map((x: any) => x.address_hash)), 'the same tokens ascending');

    const first = (await api.get(`${V2}/tokens?items_count=1&q=devnet`)).body;
    t.same(Object.keys(first.next_page_params).sort(), ['contract_address_hash', 'fiat_value', 'holders_count', 'is_name_null', 'items_count', 'market_cap', 'name', 'q'], 'Blockscout cursor keys, q echoed');
    t.equal(typeof first.next_page_params.holders_count, 'number');
    const limited = (await api.get(`${V2}/tokens?limit=1`)).body;
    t.same([limited.items.length, limited.next_page_params], [1, null], 'limit: one short page, no next');
  });

  await t.test('NFT instances', async (t) => {
    const nft = s.contracts.DevnetNFT.toLowerCase();
    const { items, pages } = await walk(api, `${V2}/tokens/${nft}/instances?items_count=1`);
    const ids = items.map((x: any) => BigInt(x.id));
    const nodeIds = [...new Set(node.get(nft)!.items.map((x) => BigInt(x.id!)))].sort((a, b) => (a > b ? -1 : 1));
    t.same(ids, nodeIds, 'every id ever transferred, id desc');
    t.equal(pages, ids.length);
    for (const x of items) {
      let owner: string | null = null;
      try {
        const res = await call(nft, encodeFunctionData({ abi: ABI, functionName: 'ownerOf', args: [BigInt(x.id)] }));
        owner = `0x${res.slice(26)}`.toLowerCase();
      } catch {
        owner = null; // burned
      }
      t.equal(x.owner?.hash.toLowerCase() ?? null, owner, `owner of #${x.id} equals ownerOf`);
      t.equal(x.is_unique, true);
      t.equal(x.token.address_hash.toLowerCase(), nft);
    }
    const withData = items.find((x: any) => x.id === String(s.nft.dataUriTokenId));
    t.ok(withData.metadata && typeof withData.metadata === 'object', 'metadata of the data: URI');
    t.match(withData.image_url, /^data:image\/svg\+xml/, 'image_url from its metadata');
    t.equal(withData.media_url, withData.image_url);
    const single = (await api.get(`${V2}/tokens/${nft}/instances/${s.nft.dataUriTokenId}`)).body;
    t.same({ ...single, token_type: undefined, value: undefined }, { ...withData, token_type: undefined, value: undefined }, 'the single instance equals its list item');
    t.match(single, { token_type: 'ERC-721', value: '1' });
    const mine = await walk(api, `${V2}/tokens/${nft}/instances?holder_address_hash=${devAccount(6).address}&items_count=2`);
    t.same(mine.items.map((x: any) => x.id), ['13', '12', '11', '10'], 'holder_address_hash: the ids it owns');

    const multi = s.contracts.DevnetMulti.toLowerCase();
    const m = (await walk(api, `${V2}/tokens/${multi}/instances?items_count=2`)).items;
    t.same(m.map((x: any) => x.id), ['9', '8', '7', '3', '2', '1'], 'ERC-1155 ids desc');
    const nine = m.find((x: any) => x.id === '9');
    t.same([nine.is_unique, nine.owner?.hash], [true, devAccount(6).address], 'an id one address holds one of: unique, with its owner');
    const one = m.find((x: any) => x.id === '1');
    t.same([one.is_unique, one.owner], [false, null], 'an id several hold: not unique, no owner');
    const v = (await api.get(`${V2}/tokens/${multi}/instances/1`)).body.value;
    const supply1 = [...node.get(multi)!.balances].filter(([k]) => k.endsWith('|1')).reduce((a, [, x]) => a + x, 0n);
    t.equal(v, supply1.toString(), 'value of an ERC-1155 instance: what its holders hold');

    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/instances/1`)).status, 404, 'an ERC-20 has no instances');
    t.same((await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/instances`)).body, { items: [], next_page_params: null });
    t.equal((await api.get(`${V2}/tokens/${nft}/instances/999`)).status, 404, 'an id never seen');
    t.same((await api.get(`${V2}/tokens/${nft}/instances?unique_token=-1`)).body, { items: [], next_page_params: null });
  });

  await t.test('an instance\'s holders, and an address\'s NFT collections', async (t) => {
    const nft = s.contracts.DevnetNFT.toLowerCase();
    const multi = s.contracts.DevnetMulti.toLowerCase();
    // Each ERC-1155 id: the token's holders of that id, walked one a page; an ERC-721 id: its owner.
    const holders = (await walk(api, `${V2}/tokens/${multi}/holders`)).items;
    for (const id of ['1', '2', '3', '7', '8', '9']) {
      const got = (await walk(api, `${V2}/tokens/${multi}/instances/${id}/holders?items_count=1`)).items;
      t.same(got, holders.filter((h: any) => h.token_id === id), `ERC-1155 #${id}: its holders, value desc`);
    }
    const owned = (await walk(api, `${V2}/tokens/${nft}/instances`)).items.filter((x: any) => x.owner);
    for (const x of owned.slice(0, 3)) {
      const got = await api.get(`${V2}/tokens/${nft}/instances/${x.id}/holders`);
      t.same(got.body.items.map((h: any) => [h.address.hash, h.value, h.token_id]), [[x.owner.hash, '1', x.id]], `ERC-721 #${x.id}: its owner`);
    }
    t.equal((await api.get(`${V2}/tokens/${s.contracts.DevnetToken}/instances/1/holders`)).status, 404, 'an ERC-20 has no instances');
    t.equal((await api.get(`${V2}/tokens/${s.accounts[1]}/instances/1/holders`)).status, 404, 'not a token');

    // Collections: the address's NFT list grouped by token (ERC-721 first, token asc), each with
    // how many it holds and its first nine instances by id desc.
    for (const a of [devAccount(5).address, devAccount(6).address, s.accounts[1]]) {
      const list = (await walk(api, `${V2}/addresses/${a}/nft`)).items;
      const expected: { token: string; type: string; amount: string; ids: string[]; values: string[] }[] = [];
      for (const it of list) {
        let c = expected.find((e) => e.token === it.token.address_hash && e.type === it.token_type);
        if (!c) expected.push((c = { token: it.token.address_hash, type: it.token_type, amount: '0', ids: [], values: [] }));
        c.ids.push(it.id);
        c.values.push(it.value);
      }
      for (const c of expected) {
        // ERC-721: the instances held (its balance); ERC-1155: the ids held. Both one list item each.
        c.amount = String(c.ids.length);
        c.ids = c.ids.slice(0, 9);
        c.values = c.values.slice(0, 9);
      }
      const walked = (await walk(api, `${V2}/addresses/${a}/nft/collections?items_count=1`)).items;
      t.same(
        walked.map((c: any) => ({ token: c.token.address_hash, type: c.token.type, amount: c.amount, ids: c.token_instances.map((i: any) => i.id), values: c.token_instances.map((i: any) => i.value) })),
        expected,
        `${a}: ${expected.length} collections as its NFT list groups them, one a page`,
      );
      t.ok(walked.every((c: any) => c.token_instances.every((i: any) => i.token === null && i.token_type === c.token.type)), `${a}: instances without a token of their own`);
    }
    const only = (await walk(api, `${V2}/addresses/${devAccount(5).address}/nft/collections?type=ERC-1155`)).items;
    t.ok(only.length > 0 && only.every((c: any) => c.token.type === 'ERC-1155'), 'type=ERC-1155: only those');
    t.equal((await api.get(`${V2}/addresses/0x12/nft/collections`)).status, 422, 'not an address: 422');
  });

  await t.test('refetch-metadata: queued for the NFT lane, once per cooldown; a collection by an admin only', async (t) => {
    const nft = s.contracts.DevnetNFT.toLowerCase();
    const multi = s.contracts.DevnetMulti.toLowerCase();
    const patch = async (path: string, viewer?: string) => {
      const r = await api.app.handle({ ...request(path, 'PATCH'), viewer });
      return { status: r.status, body: JSON.parse(String(r.body)) };
    };
    const state = async (token: string, id: string) =>
      (await api.stores.pg.query<{ queued: boolean; attempts: number }>('SELECT metadata_next_at IS NOT NULL AS queued, metadata_attempts AS attempts FROM nft_instances WHERE token = $1 AND token_id = $2', [token, id]))[0];
    // The lane has fetched what it could: nothing of #10 is queued now.
    await api.stores.pg.query("UPDATE nft_instances SET metadata_next_at = NULL, metadata_fetched_at = now() - interval '1 hour' WHERE token = $1 AND token_id = '10'", [nft]);
    t.same(await patch(`${V2}/tokens/${nft}/instances/10/refetch-metadata?recaptcha_response=x`), { status: 200, body: { message: 'OK' } }, 'an instance: OK');
    t.same(await state(nft, '10'), { queued: true, attempts: 0 }, 'and it is back in the lane\'s queue');
    t.same(await patch(`${V2}/tokens/${nft}/instances/10/refetch-metadata`), { status: 200, body: { message: 'Metadata refetch was requested recently' } }, 'again at once: nothing more is done');
    // The NFT lane (running, polling every 50 ms) may take #10 up now and count an attempt (its URI
    // fails at once): let it finish, then set the state this step needs, a fetch moments ago.
    for (let i = 0; i < 100 && (await state(nft, '10'))?.queued; i++) await new Promise((r) => setTimeout(r, 50));
    await api.stores.pg.query("UPDATE nft_instances SET metadata_next_at = NULL, metadata_fetched_at = now(), metadata_attempts = 0 WHERE token = $1 AND token_id = '10'", [nft]);
    t.equal((await patch(`${V2}/tokens/${nft}/instances/10/refetch-metadata`)).body.message, 'Metadata refetch was requested recently', 'fetched moments ago: not again before the cooldown');
    t.same(await state(nft, '10'), { queued: false, attempts: 0 }, 'and not queued');
    t.equal((await patch(`${V2}/tokens/${nft}/instances/999/refetch-metadata`)).status, 404, 'an id never seen: 404');
    t.equal((await patch(`${V2}/tokens/${s.contracts.DevnetToken}/instances/1/refetch-metadata`)).status, 404, 'an ERC-20: 404');
    t.equal((await patch(`${V2}/tokens/${nft}/instances/abc/refetch-metadata`)).status, 422, 'not an id: 422');
    t.equal((await patch(`${V2}/tokens/${nft}/instances/10/refetch-metadata?bogus=1`)).status, 422, 'an unknown parameter: 422');
    t.equal((await api.app.handle(request(`${V2}/tokens/${nft}/instances/10/refetch-metadata`))).status, 400, 'GET is not the method');
    const preflight = await api.app.handle(request(`${V2}/tokens/${nft}/instances/10/refetch-metadata`, 'OPTIONS'));
    t.equal(preflight.headers['access-control-allow-methods'], 'PATCH, OPTIONS', 'its preflight allows PATCH');

    await api.stores.pg.query('UPDATE nft_instances SET metadata_next_at = NULL WHERE token = $1', [multi]);
    t.same(await patch(`${V2}/tokens/${multi}/instances/refetch-metadata`), { status: 401, body: { message: 'Unauthorized' } }, 'a collection, anonymous: 401');
    const plain = await newAccount(api.stores.pg, 'plain@tokens.test');
    t.equal((await patch(`${V2}/tokens/${multi}/instances/refetch-metadata`, plain.userId)).status, 401, 'a collection, not an admin: 401');
    const admin = await newAccount(api.stores.pg, 'admin@tokens.test');
    await grantAdmin(api.stores.pg, admin.userId, 'test', new Date());
    const n = (await api.stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM nft_instances WHERE token = $1', [multi]))[0].n;
    t.same(await patch(`${V2}/tokens/${multi}/instances/refetch-metadata`, admin.userId), { status: 200, body: { message: `OK: ${n} instances queued` } }, `a collection by an admin: its ${n} instances queued`);
    t.equal((await api.stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM nft_instances WHERE token = $1 AND metadata_next_at IS NOT NULL', [multi]))[0].n, n, 'every one');
  });

  await t.test('not a token', async (t) => {
    for (const sub of ['', '/counters', '/holders', '/instances', '/transfers']) {
      const r = await api.get(`${V2}/tokens/${s.accounts[1]}${sub}`);
      t.same([r.status, r.body], [404, { message: 'Not found' }], `/tokens/{eoa}${sub}: 404`);
    }
    const bad = await api.get(`${V2}/tokens/0x12/holders`);
    t.equal(bad.status, 422);
  });

  await t.test('fuzz: no 500, no hang', async (t) => {
    const { log, errors } = errorCollector();
    const app = createApiApp({ ch: api.stores.ch, pg: api.stores.pg, log, cacheMaxMb: 4 });
    const r = await fuzzRoutes(app, app.router.definitions.map((d) => d.pattern).filter((p) => p.startsWith('/tokens')), {
      validSegments: [...tokens, s.accounts[0], `0x${'12'.repeat(20)}`, '1', '2', '9', '0', '13'],
      values: [...tokens, 'devnet', 'DVT'],
    });
    t.same(r.failures, [], `no failure in ${r.count} requests (${JSON.stringify([...r.statuses].sort())})`);
    t.same(r.slow, [], 'none slower than 3 s');
    t.same(errors, [], 'nothing logged as a server error');
    t.ok((r.statuses.get(200) ?? 0) > 100 && (r.statuses.get(422) ?? 0) > 100, 'answers and validation errors both exercised');
  });
});
