// Naming calls and logs of contracts without a verified ABI (src/abi/naming.ts): the order of the
// sources (own ABI, standard table, catalogue, the instance's names), the choice among candidates of
// one selector by decoding the actual input, a spoofed collision kept from renaming a standard
// method, events whose indexed inputs a bare signature does not say, and the dump reader.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, parseAbi, parseAbiItem, toFunctionSelector, type Hex } from 'viem';
import { abiSignatures, catalogueCandidates, methodName, nameCall, nameLog, pickCall, type Candidate } from '../../../src/abi/naming.js';
import { canonicalSignature, itemText, parseItemText } from '../../../src/abi/item-text.js';
import { indexAbi } from '../../../src/abi/decode.js';
import { readSignatureDump } from '../../../src/abi/signature-import.js';
import { tmpDir } from '../../helpers/tmp.js';

const A = '0x00000000000000000000000000000000000000aa';
const instance = (cands: Record<string, Candidate[]>) => ({ candidates: (s: string) => cands[s.toLowerCase()] ?? [] });
const cand = (text: string, source: Candidate['source'], origin: string | null = 'x'): Candidate => ({ item: parseItemText(text)!, source, origin });

t.test('sources in order: own verified ABI, standard table, catalogue, instance', async (t) => {
  const deposit = encodeFunctionData({ abi: parseAbi(['function deposit()']), functionName: 'deposit' });
  const named = nameCall(deposit, null);
  t.equal(named?.method, 'deposit', "WETH9's deposit() is in the catalogue");
  t.equal(named?.naming.source, 'catalogue');
  t.match(named?.naming.origin, /^@uniswap\/v2-periphery@\S+ WETH9$|WETH/, 'with where it came from');
  t.same(named?.decoded, { method_call: 'deposit()', method_id: '0xd0e30db0', parameters: [] });

  const own = indexAbi(parseAbi(['function deposit()']));
  t.equal(nameCall(deposit, own)?.naming.source, 'verified_abi', "the contract's own ABI first");

  const transfer = encodeFunctionData({ abi: parseAbi(['function transfer(address to, uint256 value)']), functionName: 'transfer', args: [A, 1n] });
  t.match(nameCall(transfer, null)?.naming, { source: 'catalogue', origin: /@openzeppelin\/contracts@.* standard interfaces/ });

  const frob = parseAbi(['function frobnicate(uint256 x, address who)']);
  const input = encodeFunctionData({ abi: frob, functionName: 'frobnicate', args: [7n, A] });
  t.equal(nameCall(input, null), null, 'an unknown selector is not named');
  const sel = toFunctionSelector(frob[0]);
  const got = nameCall(input, null, instance({ [sel]: [cand('function frobnicate(uint256 x, address who)', 'other_verified_contract', '0x00000000000000000000000000000000000000bb')] }));
  t.equal(got?.method, 'frobnicate');
  t.same(got?.naming, { source: 'other_verified_contract', origin: '0x00000000000000000000000000000000000000bb', signature: 'frobnicate(uint256,address)', other_signatures: [] });
  t.same((got?.decoded?.parameters as { name: string }[]).map((p) => p.name), ['x', 'who']);
  const bare = nameCall(input, null, instance({ [sel]: [cand('function frobnicate(uint256,address)', 'imported', 'dump.csv')] }));
  t.same((bare?.decoded?.parameters as { name: string; value: string }[]).map((p) => [p.name, p.value]), [['', '7'], ['', '0x00000000000000000000000000000000000000AA']], 'a bare signature decodes without names');
});

t.test('a collision: the candidate that decodes the input wins, the other is said', async (t) => {
  // burn(uint256) and collate_propagate_storage(bytes16) share 0x42966c68.
  const burn = cand('function burn(uint256 amount)', 'imported');
  const spoof = cand('function collate_propagate_storage(bytes16 x)', 'imported');
  t.equal(toFunctionSelector(burn.item as never), toFunctionSelector(spoof.item as never));
  const input = encodeFunctionData({ abi: parseAbi(['function burn(uint256)']), functionName: 'burn', args: [12345n] });
  const got = pickCall(input, [spoof, burn]);
  t.equal(got?.method, 'burn', 'bytes16 cannot give back a word with low bytes set: burn decodes exactly');
  t.same(got?.naming.other_signatures, ['collate_propagate_storage(bytes16)']);
  const asBytes = `0x42966c68${'ab'.repeat(16)}${'00'.repeat(16)}`;
  t.equal(pickCall(asBytes, [spoof, burn])?.method, 'collate_propagate_storage', 'an input both give back exactly: the first source in order');
  t.equal(pickCall(asBytes, [burn, spoof])?.method, 'burn');
  t.equal(pickCall('0x42966c68' + '01', [burn, spoof]), null, 'an input neither decodes is not named');
  // A verified contract of the instance with the colliding function cannot rename the standard burn.
  const named = nameCall(input, null, instance({ '0x42966c68': [cand('function collate_propagate_storage(bytes16 x)', 'other_verified_contract')] }));
  t.equal(named?.method, 'burn');
  t.equal(named?.naming.source, 'catalogue');
});

t.test('methodName by selector alone', async (t) => {
  t.equal(methodName('0xD0E30DB0'), 'deposit');
  t.equal(methodName('0x095ea7b3'), 'approve');
  t.equal(methodName('0x12345678'), null);
});

t.test('logs', async (t) => {
  const weth = parseAbi(['event Deposit(address indexed dst, uint256 wad)']);
  const topics = encodeEventTopics({ abi: weth, eventName: 'Deposit', args: { dst: A } }) as Hex[];
  const data = encodeAbiParameters([{ type: 'uint256' }], [5n]);
  const got = nameLog(topics, data, null);
  t.equal(got?.decoded.method_call, 'Deposit(address indexed dst, uint256 wad)', "WETH9's Deposit from the catalogue");
  t.equal(got?.naming.source, 'catalogue');
  t.equal(nameLog([topics[0]!], data, null), null, 'a log whose topics do not fit the event is not decoded');

  const ev = parseAbi(['event Quuxed(address indexed who, uint256 amount)']);
  const qt = encodeEventTopics({ abi: ev, eventName: 'Quuxed', args: { who: A } }) as Hex[];
  const inst = instance({ [qt[0]!.toLowerCase()]: [cand('event Quuxed(address,uint256)', 'online', 'lookup.test')] });
  const q = nameLog(qt, data, null, inst);
  t.equal(q?.decoded.method_call, 'Quuxed(address indexed, uint256)', "a bare event signature: its first inputs taken as the log's indexed ones");
  t.same(q?.naming, { source: 'online', origin: 'lookup.test', signature: 'Quuxed(address,uint256)', other_signatures: [] });
});

t.test('item text round trip and a verified ABI as signature rows', async (t) => {
  const abi = [
    { type: 'function', name: 'swap', inputs: [{ name: 'p', type: 'tuple', components: [{ name: 'a', type: 'address' }, { name: 'amounts', type: 'uint256[]' }] }, { name: 'address', type: 'address' }], outputs: [], stateMutability: 'nonpayable' },
    { type: 'event', name: 'Swapped', inputs: [{ name: 'who', type: 'address', indexed: true }, { name: 'n', type: 'uint256', indexed: false }], anonymous: false },
    { type: 'error', name: 'Nope', inputs: [{ name: 'code', type: 'uint8' }] },
    { type: 'constructor', inputs: [] },
    { type: 'event', name: 'Anon', inputs: [], anonymous: true },
  ];
  t.equal(itemText(abi[0] as never), 'function swap((address a, uint256[] amounts) p, address)', 'a parameter named like a keyword is left unnamed');
  const rows = abiSignatures(abi);
  t.same(rows.map((r) => r.item), ['function swap((address a, uint256[] amounts) p, address)', 'event Swapped(address indexed who, uint256 n)', 'error Nope(uint8 code)']);
  t.equal(rows[0]!.selector, toFunctionSelector('function swap((address,uint256[]),address)'));
  t.equal(rows[1]!.selector.length, 66, 'an event by its 32-byte topic');
  t.equal(canonicalSignature(parseAbiItem('function swap((address a, uint256[] amounts) p, address)') as never), 'swap((address,uint256[]),address)');
});

t.test('the catalogue: every candidate parses and hashes to its selector', async (t) => {
  const pair = catalogueCandidates('0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822');
  t.ok(pair.some((c) => c.item.name === 'Swap' && /@uniswap\/v2-core/.test(c.origin ?? '')), "Uniswap V2 pair's Swap event");
});

t.test('signature dumps', async (t) => {
  const dir = tmpDir(t, 'sigdump-');
  const four = path.join(dir, '4bytes');
  fs.mkdirSync(path.join(four, 'signatures'), { recursive: true });
  fs.mkdirSync(path.join(four, 'with_parameter_names'), { recursive: true });
  fs.writeFileSync(path.join(four, 'signatures', 'a9059cbb'), 'transfer(address,uint256)');
  fs.writeFileSync(path.join(four, 'with_parameter_names', 'a9059cbb'), 'transfer(address to,uint256 value)');
  fs.writeFileSync(path.join(four, 'signatures', '42966c68'), 'burn(uint256);collate_propagate_storage(bytes16)');
  fs.writeFileSync(path.join(four, 'signatures', '12345678'), 'transfer(address,uint256)');
  const r = readSignatureDump(four);
  t.same(
    r.signatures.map((s) => [s.selector, s.item]),
    [
      ['0xa9059cbb', 'function transfer(address to,uint256 value)'],
      ['0x42966c68', 'function burn(uint256)'],
      ['0x42966c68', 'function collate_propagate_storage(bytes16)'],
    ],
    'the named form first; both of a collision; a file whose signature is not its selector refused',
  );
  t.equal(r.mismatched, 1);
  const csv = path.join(dir, 'sigs.csv');
  const topic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
  fs.writeFileSync(csv, `selector,signature\n0xd0e30db0,deposit()\n${topic},Transfer(address,address,uint256)\n0xd0e30db0 withdraw(uint256)\nnot a line\n`);
  const c = readSignatureDump(csv);
  t.same(c.signatures.map((s) => s.item), ['function deposit()', 'event Transfer(address,address,uint256)']);
  t.equal(c.mismatched, 1);
  t.equal(c.unparsed, 1);
});
