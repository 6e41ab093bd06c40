// The cost of custom ABIs for everyone: an ABI is read and parsed once per version (not per
// request), its size is capped (1000 items), and decoding per response is bounded (large inputs
// and data beyond a per-response budget stay undecoded). Decodings stay right: the last of 1000
// functions is found, a replaced ABI is used at once, and events of one signature that differ in
// indexed inputs (ERC-20 and ERC-721 Transfer) each decode their own logs.
import t from 'tap';
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, parseAbi, parseAbiItem, type Abi } from 'viem';
import { accountApp, accountPg, makeRequest, newAccount } from './helpers/account.js';
import { personalize } from '../src/api/personalize.js';
import type { PgStore } from '../src/storage/postgres/store.js';

const CONTRACT = '0x' + 'c0'.repeat(20);
const ADDR = (n: number) => '0x' + n.toString(16).padStart(40, '0');

/** The store, counting the queries that read a custom ABI's JSON. */
function countingAbiReads(pg: PgStore): { pg: PgStore; reads: () => number } {
  let n = 0;
  const proxy = new Proxy(pg, {
    get(target, k, receiver) {
      if (k === 'query') {
        return (sql: string, params?: unknown[]) => {
          if (/SELECT[\s\S]*\babi\b[\s\S]*FROM custom_abis/.test(sql)) n++;
          return target.query(sql, params);
        };
      }
      const v = Reflect.get(target, k, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { pg: proxy, reads: () => n };
}

const tx = (input: string, i = 0) => ({
  hash: '0x' + i.toString(16).padStart(64, '0'),
  to: { hash: CONTRACT, private_tags: [], watchlist_names: [] },
  from: { hash: ADDR(1), private_tags: [], watchlist_names: [] },
  raw_input: input,
  decoded_input: null,
  method: input.slice(0, 10),
});

const log = (topics: string[], data: string) => ({ address: { hash: CONTRACT, private_tags: [], watchlist_names: [] }, topics, data, decoded: null });

t.test('custom ABIs: parsed once per version, capped, decoding bounded per response', async (t) => {
  const base = await accountPg(t);
  const { pg, reads } = countingAbiReads(base);
  const app = await accountApp(t, base);
  const owner = await newAccount(base, 'abi@example.org');
  const post = async (abi: unknown) =>
    app.handle(makeRequest('POST', '/account/api/v1/user/custom-abis', { token: owner.token, body: { contract_address_hash: CONTRACT, name: 'big', abi } }));

  // Caps: 1000 items at most; a tuple needs components.
  const filler = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ type: 'function', name: `f${i}`, inputs: [{ name: 'a', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' }));
  const over = await post(filler(1001));
  t.equal(over.status, 400, '1001 items are refused');
  t.match(JSON.parse(String(over.body)).message, /1000/);
  const emptyTuple = await post([{ type: 'function', name: 'g', inputs: [{ name: 'x', type: 'tuple[]', components: [] }], outputs: [] }]);
  t.equal(emptyTuple.status, 400, 'a tuple without components is refused');
  t.match(JSON.parse(String(emptyTuple.body)).message, /components/);

  const transfer = parseAbi(['function transfer(address to, uint256 amount) returns (bool)'])[0];
  const abi1 = [...filler(999), transfer];
  t.equal((await post(abi1)).status, 201, 'exactly 1000 items are accepted');

  const input = encodeFunctionData({ abi: [transfer], functionName: 'transfer', args: [ADDR(2) as `0x${string}`, 5n] });
  const body = JSON.stringify({ items: [tx(input)], next_page_params: null });
  const before = reads();
  for (let i = 0; i < 20; i++) {
    const doc = JSON.parse(String(await personalize(body, owner.userId, pg)));
    if (doc.items[0].method !== 'transfer') t.fail(`request ${i}: not decoded: ${JSON.stringify(doc.items[0]).slice(0, 200)}`);
  }
  t.equal(reads() - before, 1, 'the ABI (the last of its 1000 functions decoded) was read once for 20 requests');

  // Replaced: the new version is read once and used at once.
  const renamed = parseAbi(['function transfer(address recipient, uint256 amount) returns (bool)'])[0];
  t.equal((await post([renamed])).status, 201);
  const r1 = JSON.parse(String(await personalize(body, owner.userId, pg)));
  t.equal(r1.items[0].decoded_input.parameters[0].name, 'recipient', 'the replacement decodes at once');
  await personalize(body, owner.userId, pg);
  t.equal(reads() - before, 2, 'and is read once too');

  // Decoding per response is bounded: 60 inputs of 8 KiB each are not all decoded.
  const store = parseAbiItem('function store(bytes data)');
  const stash = parseAbiItem('event Stash(bytes data)');
  const ercs = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)']);
  const erc721 = { type: 'event', name: 'Transfer', anonymous: false, inputs: [
    { name: 'from', type: 'address', indexed: true },
    { name: 'to', type: 'address', indexed: true },
    { name: 'tokenId', type: 'uint256', indexed: true },
  ] } as const;
  t.equal((await post([store, stash, ...ercs, erc721] as Abi)).status, 201);
  const big = encodeFunctionData({ abi: [store], functionName: 'store', args: [`0x${'ab'.repeat(8 * 1024)}`] });
  const many = JSON.stringify({ items: Array.from({ length: 60 }, (_, i) => tx(big, i)), next_page_params: null });
  const decodedMany = JSON.parse(String(await personalize(many, owner.userId, pg))).items.filter((x: { decoded_input: unknown }) => x.decoded_input).length;
  t.ok(decodedMany > 0 && decodedMany <= 20, `60 inputs of 8 KiB: ${decodedMany} decoded (the response's budget)`);
  const huge = encodeFunctionData({ abi: [store], functionName: 'store', args: [`0x${'cd'.repeat(40 * 1024)}`] });
  const one = JSON.parse(String(await personalize(JSON.stringify({ items: [tx(huge)] }), owner.userId, pg)));
  t.equal(one.items[0].decoded_input, null, 'a 40 KiB input is not decoded');
  const small = encodeFunctionData({ abi: [store], functionName: 'store', args: ['0x01'] });
  const smallOne = JSON.parse(String(await personalize(JSON.stringify({ items: [tx(small)] }), owner.userId, pg)));
  t.equal(smallOne.items[0].method, 'store', 'a small one is');

  const stashTopic = encodeEventTopics({ abi: [stash], eventName: 'Stash' })[0];
  const logs = Array.from({ length: 150 }, () => log([stashTopic], encodeAbiParameters([{ type: 'bytes' }], ['0x0102'])));
  const decodedLogs = JSON.parse(String(await personalize(JSON.stringify({ items: logs }), owner.userId, pg))).items.filter(
    (x: { decoded: unknown }) => x.decoded,
  ).length;
  t.ok(decodedLogs > 0 && decodedLogs <= 100, `150 logs: ${decodedLogs} decoded (at most 100 per response)`);

  // One signature, two events: each log decodes with the one whose indexed inputs fit it.
  const [t0, from, to] = encodeEventTopics({ abi: ercs, eventName: 'Transfer', args: { from: ADDR(3) as `0x${string}`, to: ADDR(4) as `0x${string}` } }) as string[];
  const erc20Log = log([t0, from, to], encodeAbiParameters([{ type: 'uint256' }], [7n]));
  const erc721Log = log([t0, from, to, '0x' + '9'.padStart(64, '0')], '0x');
  const both = JSON.parse(String(await personalize(JSON.stringify({ items: [erc20Log, erc721Log] }), owner.userId, pg)));
  t.equal(both.items[0].decoded?.parameters?.[2]?.name, 'value', 'the ERC-20 Transfer log');
  t.equal(both.items[1].decoded?.parameters?.[2]?.name, 'tokenId', 'the ERC-721 Transfer log');
  t.equal(both.items[1].decoded?.parameters?.[2]?.value, '9');
});
