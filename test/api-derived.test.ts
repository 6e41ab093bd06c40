// Derived data in the address endpoints of the public API v2, on the devnet scenario with the
// derived lanes at rest: coin balances equal eth_getBalance at the head and their history equals
// eth_getBalance at every block shown; counters equal the node's transactions, receipts and
// blocks; contracts carry their creator and creation; token balances, tokens and NFTs equal
// balanceOf/ownerOf; token transfers on every route carry the token's derived record; strict
// OpenAPI conformance of every page; bad input is never a 500.
import t from 'tap';
import { encodeFunctionData, parseAbi, parseEther, createWalletClient, http as viemHttp, type Address, type Hex } from 'viem';
import { apiWithDerived, checkConformance, errorCollector, fuzzRoutes, walk, type ConformanceCase } from './helpers/api-derived.js';
import { devAccount } from './helpers/devnet.js';
import { minedIn } from './helpers/rpc.js';
import { loadOpenApi, OPENAPI_FILE } from './helpers/openapi.js';
import { createApiApp } from '../src/api/app.js';

const V2 = '/api/v2';
const ZERO = '0x0000000000000000000000000000000000000000';
const ABI = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function balanceOf(address, uint256) view returns (uint256)',
  'function ownerOf(uint256) view returns (address)',
]);

interface NodeTx { hash: string; from: string; to: string | null; blockNumber: string }
interface NodeReceipt { transactionHash: string; from: string; gasUsed: string; contractAddress: string | null; status: string }

const hex = (n: number) => `0x${n.toString(16)}`;

t.test('derived data in the address endpoints', async (t) => {
  const api = await apiWithDerived(t);
  const s = api.devnet.scenario;
  const head = api.head;
  const lc = (a: string) => a.toLowerCase();

  // The node: every transaction, receipt and block miner.
  const txs: NodeTx[] = [];
  const receipts = new Map<string, NodeReceipt>();
  const miners: string[] = [];
  for (let n = 0; n <= head; n++) {
    const b = await api.rpc<{ miner: string; transactions: NodeTx[] }>('eth_getBlockByNumber', [hex(n), true]);
    miners.push(lc(b.miner));
    txs.push(...b.transactions);
    for (const r of await api.rpc<NodeReceipt[]>('eth_getBlockReceipts', [hex(n)])) receipts.set(r.transactionHash, r);
  }
  const balanceAt = async (a: string, block: number | 'latest') => BigInt(await api.rpc<string>('eth_getBalance', [a, block === 'latest' ? 'latest' : hex(block)])).toString();
  const addresses = (await api.stores.pg.query<{ hash: string }>('SELECT hash FROM addresses ORDER BY hash')).map((r) => r.hash);
  const contracts = Object.values(s.contracts).map(lc);
  const people = [...s.accounts.map(lc), lc(s.freshEoa), lc(s.internalRecipient)];
  const tokens = [s.contracts.DevnetToken, s.contracts.DevnetNFT, s.contracts.DevnetMulti].map(lc);

  // Every (token, holder, id) transfers touched, and the node's positive balances of them.
  const transfers = (await walk(api, `${V2}/token-transfers`)).items;
  const nodeBalances = new Map<string, Map<string, bigint>>(); // holder -> "token|id" -> value
  const pairs = new Set<string>();
  for (const x of transfers) {
    const tok = lc(x.token.address_hash);
    const id = x.token_type === 'ERC-1155' ? x.total.token_id : '';
    for (const h of [lc(x.from.hash), lc(x.to.hash)]) if (h !== ZERO) pairs.add(`${h}|${tok}|${id}`);
  }
  for (const p of pairs) {
    const [h, tok, id] = p.split('|');
    const data = id
      ? encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [h as Address, BigInt(id)] })
      : encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [h as Address] });
    const v = BigInt(await api.rpc<Hex>('eth_call', [{ to: tok, data }, 'latest']));
    if (v > 0n) {
      const m = nodeBalances.get(h) ?? new Map<string, bigint>();
      m.set(`${tok}|${id}`, v);
      nodeBalances.set(h, m);
    }
  }

  await t.test('OpenAPI 200 schemas of every page', { skip: loadOpenApi() ? false : `no OpenAPI document at ${OPENAPI_FILE}` }, async (t) => {
    const doc = loadOpenApi()!;
    const cases: ConformanceCase[] = [
      { template: '/v2/stats', path: `${V2}/stats` },
      { template: '/v2/token-transfers', path: `${V2}/token-transfers?items_count=3`, list: true },
    ];
    for (const a of [...people, ...contracts, `0x${'12'.repeat(20)}`, miners[head]]) {
      cases.push({ template: '/v2/addresses/{address_hash_param}', path: `${V2}/addresses/${a}` });
      cases.push({ template: '/v2/addresses/{address_hash_param}/counters', path: `${V2}/addresses/${a}/counters` });
      cases.push({ template: '/v2/addresses/{address_hash_param}/coin-balance-history', path: `${V2}/addresses/${a}/coin-balance-history?items_count=2`, list: true });
      cases.push({ template: '/v2/addresses/{address_hash_param}/coin-balance-history-by-day', path: `${V2}/addresses/${a}/coin-balance-history-by-day` });
      cases.push({ template: '/v2/addresses/{address_hash_param}/token-balances', path: `${V2}/addresses/${a}/token-balances` });
      cases.push({ template: '/v2/addresses/{address_hash_param}/tokens', path: `${V2}/addresses/${a}/tokens?items_count=1`, list: true });
      cases.push({ template: '/v2/addresses/{address_hash_param}/tokens', path: `${V2}/addresses/${a}/tokens?type=ERC-1155&items_count=1`, list: true });
      cases.push({ template: '/v2/addresses/{address_hash_param}/nft', path: `${V2}/addresses/${a}/nft?items_count=1`, list: true });
      cases.push({ template: '/v2/addresses/{address_hash_param}/token-transfers', path: `${V2}/addresses/${a}/token-transfers?items_count=2`, list: true });
    }
    for (const tx of s.txs) {
      cases.push({ template: '/v2/transactions/{transaction_hash_param}', path: `${V2}/transactions/${tx.hash}` });
      cases.push({ template: '/v2/transactions/{transaction_hash_param}/token-transfers', path: `${V2}/transactions/${tx.hash}/token-transfers?items_count=1`, list: true });
    }
    const r = await checkConformance(doc, api, cases);
    t.same(r.failures, [], `every response conforms (${r.validated} responses)`);
    t.ok(r.secondPages > 20, `following pages validated too (${r.secondPages})`);
  });

  await t.test('coin balances equal eth_getBalance at the head', async (t) => {
    t.ok(addresses.length > 20, `${addresses.length} addresses`);
    const wrong: string[] = [];
    for (const a of addresses) {
      const b = (await api.get(`${V2}/addresses/${a}`)).body;
      const want = await balanceAt(a, 'latest');
      if (b.coin_balance !== want) wrong.push(`${a}: ${b.coin_balance} != ${want}`);
      if (b.exchange_rate !== null) wrong.push(`${a}: exchange_rate ${b.exchange_rate}`);
    }
    t.same(wrong, [], 'every address');
    const stub = (await api.get(`${V2}/addresses/0x${'12'.repeat(20)}`)).body;
    t.same([stub.coin_balance, stub.block_number_balance_updated_at, stub.has_tokens], [null, null, false], 'an address never seen: nulls');
  });

  await t.test('coin balance history equals eth_getBalance at those blocks', async (t) => {
    for (const who of [s.freshEoa, s.internalRecipient, s.accounts[0], s.accounts[1], s.selfDestruct.beneficiary, s.contracts.SelfDestructor]) {
      const a = lc(who);
      const { items, pages } = await walk(api, `${V2}/addresses/${a}/coin-balance-history?items_count=2`);
      const all = (await walk(api, `${V2}/addresses/${a}/coin-balance-history`)).items;
      t.same(items, all, `${a}: paging by two gives the same list`);
      t.equal(pages, Math.max(1, Math.ceil(items.length / 2)), `${a}: pages`);
      t.ok(items.every((x: any, i: number) => i === 0 || items[i - 1].block_number > x.block_number), `${a}: newest first, each block once`);
      // Every block where the node's balance changed, and only those; the oldest entry may be the
      // opening balance (read just before the address first appears: a genesis allocation).
      const changes: number[] = [];
      let prev = 0n;
      for (let b = 0; b <= head; b++) {
        const v = BigInt(await balanceAt(a, b));
        if (v !== prev) changes.push(b);
        prev = v;
      }
      const listed = items.map((x: any) => x.block_number).reverse();
      const opening = listed.length && !changes.includes(listed[0]) ? listed[0] : null;
      if (opening !== null) t.equal(changes[0], 0, `${a}: an opening entry only for a balance it had before`);
      t.same(listed, opening !== null ? [opening, ...changes.slice(1)] : changes, `${a}: one entry per change`);
      for (let i = 0; i < items.length; i++) {
        const x = items[i];
        const older = i + 1 < items.length ? BigInt(items[i + 1].value) : 0n;
        if (x.value !== (await balanceAt(a, x.block_number))) t.fail(`${a}@${x.block_number}: ${x.value}`);
        if (BigInt(x.delta) !== BigInt(x.value) - older) t.fail(`${a}@${x.block_number}: delta ${x.delta}`);
        if (x.transaction_hash !== null) {
          const tx = txs.find((y) => y.hash === x.transaction_hash);
          const rc = receipts.get(x.transaction_hash);
          const touches = tx && Number(tx.blockNumber) === x.block_number && [lc(tx.from), lc(tx.to ?? ''), lc(rc?.contractAddress ?? '')].includes(a);
          if (!touches) t.fail(`${a}@${x.block_number}: ${x.transaction_hash} is not its transaction in that block`);
        }
      }
      const page = (await api.get(`${V2}/addresses/${a}`)).body;
      t.equal(page.block_number_balance_updated_at, items[0]?.block_number ?? null, `${a}: balance updated at its last change`);
      const day = (await api.get(`${V2}/addresses/${a}/coin-balance-history-by-day`)).body;
      t.equal(day.days, 10);
      t.ok(day.items.length >= 1 && day.items.every((d: any) => /^\d{4}-\d{2}-\d{2}$/.test(d.date)), `${a}: days`);
      t.equal(day.items[day.items.length - 1].value, await balanceAt(a, 'latest'), `${a}: the last day ends at the current balance`);
    }
    const none = await api.get(`${V2}/addresses/0x${'12'.repeat(20)}/coin-balance-history`);
    t.same(none.body, { items: [], next_page_params: null });
    const past = await api.get(`${V2}/addresses/${s.accounts[0]}/coin-balance-history?block_number=0`);
    t.same(past.body, { items: [], next_page_params: null }, 'nothing below block 0');
  });

  await t.test('counters equal the node', async (t) => {
    for (const a of [...people, ...contracts, miners[head]]) {
      const mine = txs.filter((x) => lc(x.from) === a || lc(x.to ?? '') === a || lc(receipts.get(x.hash)!.contractAddress ?? '') === a);
      const gas = txs.filter((x) => lc(x.from) === a).reduce((sum, x) => sum + BigInt(receipts.get(x.hash)!.gasUsed), 0n);
      const tt = transfers.filter((x) => lc(x.from.hash) === a || lc(x.to.hash) === a).length;
      const c = (await api.get(`${V2}/addresses/${a}/counters`)).body;
      t.same(
        c,
        { transactions_count: String(mine.length), token_transfers_count: String(tt), gas_usage_count: gas.toString(), validations_count: String(miners.filter((m) => m === a).length) },
        `${a}: counters`,
      );
    }
    t.same((await api.get(`${V2}/addresses/0x${'12'.repeat(20)}/counters`)).body, { transactions_count: '0', token_transfers_count: '0', gas_usage_count: '0', validations_count: '0' });
    const stats = (await api.get(`${V2}/stats`)).body;
    t.equal(stats.total_addresses, String(addresses.length), '/stats total_addresses: every address the chain showed');
  });

  await t.test('contracts: is_contract, creator, creation', async (t) => {
    for (const [name, addr] of Object.entries(s.contracts)) {
      const b = (await api.get(`${V2}/addresses/${addr}`)).body;
      const direct = [...receipts.values()].find((r) => lc(r.contractAddress ?? '') === lc(addr));
      const creator = direct ? direct.from : s.contracts.Factory;
      t.equal(b.is_contract, true, `${name}: a contract`);
      t.equal(lc(b.creator_address_hash ?? ''), lc(creator), `${name}: creator`);
      if (direct) t.equal(b.creation_transaction_hash, direct.transactionHash, `${name}: creation transaction`);
      else t.match(b.creation_transaction_hash, /^0x[0-9a-f]{64}$/, `${name}: created inside a transaction`);
      t.equal(b.creation_status, name === 'SelfDestructor' ? 'selfdestructed' : 'success', `${name}: creation status`);
    }
    for (const a of people) {
      const b = (await api.get(`${V2}/addresses/${a}`)).body;
      // A sender is proven not to be a contract by its transaction; one that only received by the node's code.
      t.same([b.is_contract, b.creation_status, b.creator_address_hash], [false, null, null], `${a}: not a contract`);
    }
    const tok = (await api.get(`${V2}/addresses/${s.contracts.DevnetToken}`)).body.token;
    t.match(tok, { name: 'Devnet Token', symbol: 'DVT', decimals: '18', type: 'ERC-20' });
    t.ok(Number(tok.holders_count) > 0);
    // Lists show it too.
    const list = (await api.get(`${V2}/addresses/${s.contracts.ChildCreate}/internal-transactions`)).body.items;
    t.ok(list.some((x: any) => x.created_contract?.is_contract === true || x.to?.is_contract === true), 'a created contract in a list is a contract');
  });

  await t.test('token balances, tokens and NFTs equal balanceOf and ownerOf', async (t) => {
    for (const a of [...people, ...contracts]) {
      const want = nodeBalances.get(a) ?? new Map<string, bigint>();
      const all = (await api.get(`${V2}/addresses/${a}/token-balances`)).body;
      t.ok(Array.isArray(all), `${a}: a bare array`);
      const got = new Map<string, bigint>(all.map((x: any) => [`${lc(x.token.address_hash)}|${x.token_id ?? ''}`, BigInt(x.value)]));
      t.same(got, want, `${a}: token-balances equal balanceOf`);
      t.ok(all.every((x: any) => x.token_instance === null), `${a}: no instances on token-balances`);
      const paged = await walk(api, `${V2}/addresses/${a}/tokens?items_count=1`);
      t.same(paged.items.map((x: any) => [x.token.address_hash, x.token_id, x.value]), all.map((x: any) => [x.token.address_hash, x.token_id, x.value]), `${a}: /tokens paged one by one = /token-balances`);
      t.ok(paged.items.every((x: any) => (x.token_id === null) === (x.token_instance === null)), `${a}: ERC-1155 balances carry their instance`);
      t.equal(await api.get(`${V2}/addresses/${a}`).then((r) => r.body.has_tokens), want.size > 0, `${a}: has_tokens`);
      for (const type of ['ERC-20', 'ERC-721', 'ERC-1155']) {
        const f = (await walk(api, `${V2}/addresses/${a}/tokens?type=${type}&items_count=2`)).items;
        t.same(f.map((x: any) => x.token.address_hash), all.filter((x: any) => x.token.type === type).map((x: any) => x.token.address_hash), `${a}: type=${type}`);
      }
      // NFTs: ERC-721 ids it owns (ownerOf), ERC-1155 ids it holds.
      const nfts = await walk(api, `${V2}/addresses/${a}/nft?items_count=1`);
      const keys = nfts.items.map((x: any) => `${lc(x.token.address_hash)}|${x.id}`);
      t.equal(new Set(keys).size, keys.length, `${a}: each NFT once`);
      const want1155 = [...want.entries()].filter(([k]) => k.startsWith(lc(s.contracts.DevnetMulti))).map(([k, v]) => `${k}=${v}`);
      t.same(nfts.items.filter((x: any) => x.token_type === 'ERC-1155').map((x: any) => `${lc(x.token.address_hash)}|${x.id}=${x.value}`).sort(), want1155.sort(), `${a}: ERC-1155 NFTs`);
      for (const x of nfts.items.filter((y: any) => y.token_type === 'ERC-721')) {
        const res = await api.rpc<Hex>('eth_call', [{ to: s.contracts.DevnetNFT, data: encodeFunctionData({ abi: ABI, functionName: 'ownerOf', args: [BigInt(x.id)] }) }, 'latest']);
        t.equal(`0x${res.slice(26)}`, a, `${a}: owns NFT #${x.id}`);
        t.equal(x.value, '1');
      }
      const owned721 = want.get(`${lc(s.contracts.DevnetNFT)}|`) ?? 0n;
      t.equal(BigInt(nfts.items.filter((x: any) => x.token_type === 'ERC-721').length), owned721, `${a}: as many ERC-721 as balanceOf`);
      const only = (await walk(api, `${V2}/addresses/${a}/nft?type=ERC-1155`)).items;
      t.ok(only.every((x: any) => x.token_type === 'ERC-1155'), `${a}: nft type filter`);
    }
  });

  await t.test('token transfers on every route carry the derived token', async (t) => {
    const dvt = lc(s.contracts.DevnetToken);
    const check = (items: any[], where: string) => {
      const bad = items.filter((x) => x.token.holders_count === null || (lc(x.token.address_hash) === dvt && (x.token.name !== 'Devnet Token' || x.token.decimals !== '18')));
      t.same(bad, [], `${where}: token objects from the tokens table`);
      const erc20 = items.filter((x) => x.token_type === 'ERC-20');
      t.ok(erc20.every((x) => x.total.decimals === '18'), `${where}: ERC-20 totals carry decimals`);
    };
    check(transfers, '/token-transfers');
    check((await walk(api, `${V2}/addresses/${s.accounts[1]}/token-transfers?items_count=3`)).items, '/addresses/{h}/token-transfers');
    const withTransfers = s.txs.filter((x) => transfers.some((y: any) => y.transaction_hash === x.hash));
    for (const tx of withTransfers) {
      check((await api.get(`${V2}/transactions/${tx.hash}/token-transfers`)).body.items, `/transactions/${tx.hash}/token-transfers`);
      check((await api.get(`${V2}/transactions/${tx.hash}`)).body.token_transfers, `/transactions/${tx.hash}`);
    }
  });

  await t.test('a new block: balances and counters follow', async (t) => {
    const wallet = createWalletClient({ account: devAccount(3), transport: viemHttp(api.devnet.url) });
    const to = lc(s.freshEoa);
    const before = (await api.get(`${V2}/addresses/${to}/counters`)).body;
    const hash = await wallet.sendTransaction({ chain: null, to: to as Address, value: parseEther('0.01') });
    // The node answers the hash before it has mined the block: catching up to its head at once
    // could stop at the block before (the CI run of 2026-11-24 17:36 did, and read the old balance).
    const h = await minedIn(api.devnet.url, hash);
    t.ok((await api.catchUp()) >= h, `indexed and settled through block ${h}`);
    const b = (await api.get(`${V2}/addresses/${to}`)).body;
    t.equal(b.coin_balance, await balanceAt(to, 'latest'), 'the new balance');
    t.equal(b.block_number_balance_updated_at, h, 'changed in the new block');
    const after = (await api.get(`${V2}/addresses/${to}/counters`)).body;
    t.equal(Number(after.transactions_count), Number(before.transactions_count) + 1, 'one more transaction');
    const first = (await api.get(`${V2}/addresses/${to}/coin-balance-history?items_count=1`)).body.items[0];
    t.same([first.block_number, first.delta], [h, parseEther('0.01').toString()], 'history: the new entry first');
  });

  await t.test('fuzz: no 500, no hang', async (t) => {
    const { log, errors } = errorCollector();
    const app = createApiApp({ ch: api.stores.ch, pg: api.stores.pg, log, cacheMaxMb: 4 });
    const patterns = [
      '/addresses/:address_hash_param',
      '/addresses/:address_hash_param/counters',
      '/addresses/:address_hash_param/coin-balance-history',
      '/addresses/:address_hash_param/coin-balance-history-by-day',
      '/addresses/:address_hash_param/token-balances',
      '/addresses/:address_hash_param/tokens',
      '/addresses/:address_hash_param/nft',
      '/stats',
    ];
    const r = await fuzzRoutes(app, patterns, {
      validSegments: [...people.slice(0, 4), ...contracts.slice(0, 3), `0x${'12'.repeat(20)}`],
      values: [...tokens, '1', '7', String(head)],
    });
    t.same(r.failures, [], `no failure in ${r.count} requests (${JSON.stringify([...r.statuses].sort())})`);
    t.same(r.slow, [], 'none slower than 3 s');
    t.same(errors, [], 'nothing logged as a server error');
    t.ok((r.statuses.get(200) ?? 0) > 100 && (r.statuses.get(422) ?? 0) > 100, 'answers and validation errors both exercised');
  });
});
