// The build-time signature catalogue: the committed file is what the generator makes from the npm
// packages' ABIs (nobody edits it by hand), every entry parses back with viem to its own selector,
// and the calls and logs an explorer meets most are in it with the package they came from.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { keccak256, parseAbiItem, toBytes, toEventSelector, toFunctionSelector, type AbiEvent, type AbiFunction, type AbiParameter } from 'viem';
import { GENERATED_FILE, buildCatalogue, roundTrip, signatureCatalogueSource } from '../../../src/abi/generate-signature-catalogue.js';
import { itemText } from '../../../src/abi/item-text.js';
import { CATALOGUE_ORIGINS, SIGNATURE_CATALOGUE } from '../../../src/abi/signature-catalogue.generated.js';
import { PROJECT_ROOT } from '../../helpers/fixtures.js';

type Parsed = AbiFunction | AbiEvent | { type: 'error'; name: string; inputs: readonly AbiParameter[] };

// Types only, spelled here rather than taken from the generator, so a mistake there shows.
const canonicalType = (p: AbiParameter): string => {
  const c = (p as { components?: readonly AbiParameter[] }).components;
  return p.type.startsWith('tuple') && c ? `(${c.map(canonicalType).join(',')})${p.type.slice(5)}` : p.type;
};
const signatureOf = (item: Parsed): string => `${item.name}(${item.inputs.map(canonicalType).join(',')})`;
const hashOf = (item: Parsed): string => {
  const h = keccak256(toBytes(signatureOf(item)));
  return item.type === 'event' ? h : h.slice(0, 10);
};

const parsed = SIGNATURE_CATALOGUE.map(([item]) => parseAbiItem(item) as Parsed);

/** The entries whose text is exactly this, with their origin package@version and contract. */
function find(text: string): { origin: string; contract: string }[] {
  return SIGNATURE_CATALOGUE.filter(([item]) => item === text).map(([, origin, contract]) => ({ origin: CATALOGUE_ORIGINS[origin], contract }));
}
const packageOf = (origin: string): string => origin.slice(0, origin.lastIndexOf('@'));

t.test('the committed catalogue is a fresh generation', async (t) => {
  t.equal(fs.readFileSync(path.join(PROJECT_ROOT, GENERATED_FILE), 'utf8'), signatureCatalogueSource(), `${GENERATED_FILE} is up to date (npm run gen:catalogue)`);
});

t.test('the header counts what the file holds', async (t) => {
  const head = fs.readFileSync(path.join(PROJECT_ROOT, GENERATED_FILE), 'utf8').split('\n').slice(0, 2).join('\n');
  const n = (k: string): number => parsed.filter((p) => p.type === k).length;
  t.match(head, `${n('function')} functions, ${n('event')} events, ${n('error')} errors;`);
  t.match(head, CATALOGUE_ORIGINS.join(', '), 'the first line lists the packages');
  t.ok(SIGNATURE_CATALOGUE.length > 2000, `a few thousand entries (${SIGNATURE_CATALOGUE.length})`);
  t.ok(n('function') > 1000 && n('event') > 300 && n('error') > 300, 'functions, events and errors all there');
});

t.test('every entry parses with viem and has its own selector', async (t) => {
  let bad = 0;
  SIGNATURE_CATALOGUE.forEach(([item, origin, contract], i) => {
    const p = parsed[i];
    const ok =
      (p.type === 'function' || p.type === 'event' || p.type === 'error') &&
      item.startsWith(`${p.type} ${p.name}(`) &&
      (p.type === 'event' ? toEventSelector(p as AbiEvent) : toFunctionSelector(p as AbiFunction)) === hashOf(p) &&
      Number.isInteger(origin) && origin >= 0 && origin < CATALOGUE_ORIGINS.length &&
      contract.length > 0;
    if (!ok && bad++ < 5) t.fail(`entry ${i}: ${item}`);
  });
  t.equal(bad, 0, 'no entry fails');
  t.ok(CATALOGUE_ORIGINS.every((o) => /^(@[\w.-]+\/)?[\w.-]+@\d+\.\d+\.\d+/.test(o)), 'origins are name@version');
});

t.test('sorted by kind, then selector; one entry per text and per signature', async (t) => {
  const kind = { function: 0, event: 1, error: 2 } as const;
  const keys = parsed.map((p) => [kind[p.type], hashOf(p)] as const);
  const sorted = keys.every((k, i) => i === 0 || keys[i - 1][0] < k[0] || (keys[i - 1][0] === k[0] && keys[i - 1][1] <= k[1]));
  t.ok(sorted, 'kind, then selector');
  t.equal(new Set(SIGNATURE_CATALOGUE.map(([item]) => item)).size, SIGNATURE_CATALOGUE.length, 'no text twice');
  // An event's indexed flags are part of its signature here (ERC-20's and ERC-721's Transfer).
  const signatures = parsed.map((p) => `${p.type} ${signatureOf(p)}${p.type === 'event' ? '/' + p.inputs.map((x) => ((x as { indexed?: boolean }).indexed ? 1 : 0)).join('') : ''}`);
  t.equal(new Set(signatures).size, signatures.length, 'no canonical signature twice');
  // The same selector twice is allowed (a collision, or an event differing in indexed flags) and happens.
  const selectors = parsed.map((p) => `${p.type} ${hashOf(p)}`);
  t.ok(new Set(selectors).size < selectors.length, 'shared selectors are kept');
  t.notOk(SIGNATURE_CATALOGUE.some(([, , c]) => /Mock|Test|Harness|Echidna|Example/.test(c)), 'no test or mock contract');
  t.notOk(parsed.some((p) => (p as { type: string }).type === 'constructor'), 'no constructor');
});

t.test('the calls and logs met most, with their origin', async (t) => {
  const one = (text: string, pkg: string, contract: string | RegExp, selector?: string): void => {
    const got = find(text);
    t.equal(got.length, 1, text);
    if (!got.length) return;
    t.equal(packageOf(got[0].origin), pkg, `${text}: from ${pkg}`);
    if (typeof contract === 'string') t.equal(got[0].contract, contract, `${text}: in ${contract}`);
    else t.match(got[0].contract, contract, `${text}: in ${contract}`);
    if (selector) t.equal(hashOf(parseAbiItem(text) as Parsed), selector, `${text}: ${selector}`);
  };
  one('event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)', '@uniswap/v2-core', /UniswapV2Pair$/, '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822');
  one('event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)', '@uniswap/v3-core', /UniswapV3Pool/, '0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67');
  one('function deposit()', '@uniswap/v2-periphery', 'WETH9', '0xd0e30db0');
  one('event Deposit(address indexed dst, uint256 wad)', '@uniswap/v2-periphery', 'WETH9', '0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c');
  one('function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures)', '@safe-global/safe-deployments', /^(Gnosis)?Safe /, '0x6a761202');
  one('function execute(bytes commands, bytes[] inputs, uint256 deadline)', '@uniswap/universal-router', 'UniversalRouter', '0x3593564c');
  // EntryPoint v0.6 (UserOperation) and v0.7+ (PackedUserOperation): two selectors, both named.
  one('function handleOps((address sender, uint256 nonce, bytes initCode, bytes callData, uint256 callGasLimit, uint256 verificationGasLimit, uint256 preVerificationGas, uint256 maxFeePerGas, uint256 maxPriorityFeePerGas, bytes paymasterAndData, bytes signature)[] ops, address beneficiary)', '@account-abstraction/contracts', 'EntryPoint', '0x1fad948c');
  t.equal(CATALOGUE_ORIGINS[SIGNATURE_CATALOGUE.find(([i]) => i.startsWith('function handleOps((address sender, uint256 nonce, bytes initCode, bytes callData, uint256 callGasLimit'))![1]], '@account-abstraction/contracts@0.6.0', 'v0.6 from 0.6.0');
  // Permit2 as deployed (its interfaces vendored in v4-periphery): approve(token, spender, amount, expiration) and the signature transfer.
  const permit2 = (sel: string) => SIGNATURE_CATALOGUE.filter((_, i) => hashOf(parsed[i]!) === sel).map(([, o, c]) => `${CATALOGUE_ORIGINS[o]} ${c}`);
  t.match(permit2('0x87517c45'), [/^@uniswap\/v4-periphery@\S+ IAllowanceTransfer$/], "Permit2's approve(address,address,uint160,uint48)");
  t.match(permit2('0x30f28b7a'), [/^@uniswap\/v4-periphery@\S+ ISignatureTransfer$/], "Permit2's permitTransferFrom");
  const v07 = parsed.findIndex((p) => p.name === 'handleOps' && hashOf(p) === '0x765e827f');
  t.ok(v07 >= 0, 'the v0.7+ handleOps (PackedUserOperation) is there');
  // The standard interfaces keep OpenZeppelin's names: ERC-20's transferFrom, not ERC-721's or WETH9's.
  one('function transferFrom(address from, address to, uint256 value)', '@openzeppelin/contracts', 'IERC20', '0x23b872dd');
  t.same(find('function transferFrom(address from, address to, uint256 tokenId)'), [], "ERC-721's names for the same signature are not kept");
  t.same(find('function transferFrom(address src, address dst, uint256 wad)'), [], "nor WETH9's");
  one('event Transfer(address indexed from, address indexed to, uint256 value)', '@openzeppelin/contracts', 'IERC20', '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
  one('event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)', '@openzeppelin/contracts', 'IERC721', '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
  // Tuples, nested and in arrays, with their names.
  t.ok(find('function swap((address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks) key, (bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96) params, bytes hookData)').some((e) => packageOf(e.origin) === '@uniswap/v4-core'), 'v4 PoolManager.swap');
  t.ok(SIGNATURE_CATALOGUE.some(([i, o]) => i.startsWith('function fulfillBasicOrder(') && packageOf(CATALOGUE_ORIGINS[o]) === '@opensea/seaport-js'), "Seaport's fulfillBasicOrder");
  t.ok(SIGNATURE_CATALOGUE.some(([i, o]) => i === 'function latestRoundData()' && packageOf(CATALOGUE_ORIGINS[o]) === '@chainlink/contracts'), "Chainlink's latestRoundData");
  t.ok(SIGNATURE_CATALOGUE.some(([i, o]) => i.startsWith('function supply(address asset, uint256 amount, address onBehalfOf, uint16 referralCode)') && packageOf(CATALOGUE_ORIGINS[o]) === '@aave/core-v3'), "Aave's supply");
  t.ok(SIGNATURE_CATALOGUE.some(([i]) => i.startsWith('error ')), 'errors');
});

t.test('the generator: text, round trip, dedup', async (t) => {
  const swap = {
    type: 'event' as const,
    name: 'Swap',
    inputs: [
      { name: 'sender', type: 'address', indexed: true },
      { name: 'legs', type: 'tuple[]', indexed: false, components: [{ name: 'a', type: 'uint256' }, { name: 'b', type: 'address' }] },
    ],
  };
  const text = itemText(swap);
  t.equal(text, 'event Swap(address indexed sender, (uint256 a, address b)[] legs)', 'names, indexed flags and tuples');
  t.equal(roundTrip(swap, text!), toEventSelector('Swap(address,(uint256,address)[])'), 'round-trips to its topic');
  t.equal(roundTrip(swap, 'event Swap(address sender, (uint256 a, address b)[] legs)'), null, 'an indexed flag lost fails');
  t.equal(roundTrip(swap, 'event Swap(address indexed sender, (uint256 x, address b)[] legs)'), null, 'a name changed fails');
  const err = { type: 'error' as const, name: 'ExecuteError', inputs: [{ name: 'index', type: 'uint256' }, { name: 'error', type: 'bytes' }] };
  t.equal(roundTrip(err, itemText(err)!), null, 'a parameter named after a keyword is left unnamed, so the text does not give the artifact back: skipped');
  // Library ABIs spell enums and structs by their Solidity names, which no parser takes.
  const lib = { type: 'function' as const, name: 'f', inputs: [{ name: 'k', type: 'FieldType' }] };
  t.equal(roundTrip(lib, itemText(lib)!), null, 'a non-ABI type is skipped');

  const { entries, stats } = buildCatalogue();
  t.equal(entries.length, SIGNATURE_CATALOGUE.length);
  t.ok(stats.notRoundTripping > 0 && stats.notRoundTripping < 50, `a few items skipped as not round-tripping (${stats.notRoundTripping})`);
  t.ok(stats.skippedArtifacts > 100, `test and mock artifacts skipped (${stats.skippedArtifacts})`);
  t.ok(stats.duplicates > stats.renamed && stats.renamed > 0, 'duplicates and renamed signatures dropped');
});
