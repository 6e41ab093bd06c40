// Token metadata: tolerant decoding (bytes32, string, garbage, reverts, absurd decimals), the
// ethereum-etl test_export_tokens_job recordings replayed, ERC-165 type detection, one batch,
// per-call errors vs transport failures, and the single-call helpers.
import t from 'tap';
import { encodeAbiParameters, toHex } from 'viem';
import { createRpcClient } from '../../../src/rpc/client.js';
import { RpcError } from '../../../src/rpc/errors.js';
import {
  abiStringBytes,
  decodeAddressWord,
  decodeBoolStrict,
  decodeStringLoose,
  decodeUint256,
  sanitizeText,
} from '../../../src/derived/abi-decode.js';
import {
  INTERFACE_ERC1155,
  INTERFACE_ERC165,
  INTERFACE_ERC721,
  INTERFACE_ERC721_DRAFT,
  INTERFACE_INVALID,
  SELECTOR,
  fetchBalanceOf,
  fetchOwnerOf,
  fetchTokenMetadata,
  fetchTotalSupply,
} from '../../../src/derived/token-metadata.js';
import { etl, fixturesMissing, readCsv } from '../../helpers/fixtures.js';
import { startReplayRpc, type ReplayServer } from '../../helpers/replay-rpc.js';

const abiString = (s: string) => encodeAbiParameters([{ type: 'string' }], [s]);
const abiUint = (n: bigint) => encodeAbiParameters([{ type: 'uint256' }], [n]);
const abiBool = (b: boolean) => encodeAbiParameters([{ type: 'bool' }], [b]);
const bytes32 = (s: string) => toHex(Buffer.from(s, 'utf8'), { size: 32 }); // right-padded, like Solidity bytes32
const rightPad32 = (hex: string) => '0x' + hex.replace(/^0x/, '').padEnd(64, '0');
const REVERT = { error: { code: 3, message: 'execution reverted', data: '0x' } };

async function server(t: { teardown: (fn: () => unknown) => void }, load: string[] = []): Promise<ReplayServer> {
  const s = await startReplayRpc({ load });
  t.teardown(() => s.close());
  return s;
}
const clientFor = (s: ReplayServer) => createRpcClient({ url: s.url, retryBaseMs: 1, retryMaxMs: 5, maxRetries: 0, timeoutMs: 2000 });

t.test('decoding: ABI string, bytes32, empty, garbage', async (t) => {
  t.match(decodeStringLoose(abiString('Devnet Token')), { value: 'Devnet Token', encoding: 'string', replaced: false, stripped: false });
  t.match(decodeStringLoose(rightPad32('0x4d4b52')), { value: 'MKR', encoding: 'bytes32' });
  t.match(decodeStringLoose(rightPad32('')), { value: null, encoding: 'bytes32' }, 'all-zero bytes32 -> null');
  t.match(decodeStringLoose('0x'), { value: null, encoding: 'empty' });
  t.match(decodeStringLoose(''), { value: null, encoding: 'empty' });
  t.match(decodeStringLoose('0x1234'), { value: null, encoding: 'invalid' }, 'shorter than a word');
  t.match(decodeStringLoose('0xzz'), { value: null, encoding: 'invalid' });
  t.match(decodeStringLoose(null), { value: null, encoding: 'invalid' });
  // A string whose length counts trailing NULs (ethereum-etl token_with_invalid_data).
  const nulPadded = '0x' + '20'.padStart(64, '0') + '6'.padStart(64, '0') + '455448'.padEnd(64, '0');
  t.match(decodeStringLoose(nulPadded), { value: 'ETH', encoding: 'string', stripped: false });
  // Offset not a multiple of 32 / length past the end: not a string, read as bytes32.
  const badLen = '0x' + '20'.padStart(64, '0') + 'ff'.padStart(64, '0') + '41'.padEnd(64, '0');
  t.equal(abiStringBytes(Buffer.from(badLen.slice(2), 'hex')), null);
  t.match(decodeStringLoose(badLen), { encoding: 'bytes32', value: null }, 'first word = 0x20: only a control char');
  // A huge offset/length never allocates.
  t.match(decodeStringLoose('0x' + 'f'.repeat(128)), { encoding: 'bytes32' });
  // Emoji and non-Latin text survive.
  t.equal(decodeStringLoose(abiString('Ünïcødé 🚀 トークン')).value, 'Ünïcødé 🚀 トークン');
  t.equal(decodeStringLoose(bytes32('DAI')).value, 'DAI');
  // Left-padded (not what contracts do, but seen): leading NULs are trimmed as well.
  t.equal(decodeStringLoose('0x' + Buffer.from('DAI').toString('hex').padStart(64, '0')).value, 'DAI');
});

t.test('decoding: sanitizing invalid UTF-8 and control characters', async (t) => {
  // Invalid UTF-8 is replaced (U+FFFD), control chars dropped, whitespace trimmed.
  const garbage = Buffer.from([0x41, 0xff, 0x42, 0x07, 0x1b, 0x43, 0x0a, 0x20]);
  t.match(sanitizeText(garbage), { text: 'A\uFFFDBC', replaced: true, stripped: true });
  // Nothing printable -> null.
  t.match(sanitizeText(Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x20, 0x09])), { text: null, replaced: true });
  t.match(sanitizeText(Buffer.alloc(0)), { text: null, replaced: false });
  // Bidi override (a spoofing trick) dropped.
  t.equal(sanitizeText(Buffer.from('USD\u202eC', 'utf8')).text, 'USDC');
  // NULs alone are padding, not "stripped".
  t.match(sanitizeText(Buffer.from('ABC\0\0\0')), { text: 'ABC', stripped: false });
  t.match(sanitizeText(Buffer.from('x'.repeat(300)), { maxChars: 256 }), { truncated: true });
  t.equal(sanitizeText(Buffer.from('x'.repeat(300)), { maxChars: 256 }).text!.length, 256);
  // Garbage through the ABI string path.
  const s = decodeStringLoose(encodeAbiParameters([{ type: 'bytes' }], [toHex(Buffer.from([0xc3, 0x28, 0x61]))]));
  t.match(s, { value: '\uFFFD(a', encoding: 'string', replaced: true });
});

t.test('decoding: words', async (t) => {
  t.equal(decodeUint256(abiUint(18n)), 18n);
  t.equal(decodeUint256('0x'), null);
  t.equal(decodeUint256('0x12'), null, 'shorter than a word');
  t.equal(decodeUint256('0x' + 'f'.repeat(64)), 2n ** 256n - 1n);
  t.equal(decodeBoolStrict(abiBool(true)), true);
  t.equal(decodeBoolStrict(abiBool(false)), false);
  t.equal(decodeBoolStrict(abiUint(2n)), null, 'not a proper bool');
  t.equal(decodeBoolStrict('0x'), null);
  t.equal(decodeAddressWord('0x' + '0'.repeat(24) + 'AB'.repeat(20)), '0x' + 'ab'.repeat(20));
  t.equal(decodeAddressWord('0x' + '1'.repeat(64)), null, 'dirty upper bytes');
});

t.test('ethereum-etl test_export_tokens_job recordings', { skip: fixturesMissing() }, async (t) => {
  for (const dir of ['token_with_alternative_return_type', 'token_with_invalid_data']) {
    await t.test(dir, async (t) => {
      const s = await server(t, [etl('test_export_tokens_job', dir)]);
      const [exp] = readCsv(etl('test_export_tokens_job', dir, 'expected_tokens.csv'));
      // These 2017 tokens predate ERC-165: supportsInterface reverts (not recorded by the fixture).
      for (const id of [INTERFACE_ERC165, INTERFACE_INVALID, INTERFACE_ERC721, INTERFACE_ERC1155, INTERFACE_ERC721_DRAFT]) {
        s.add('eth_call', [{ to: exp!.address, data: '0x01ffc9a7' + id.slice(2).padEnd(64, '0') }, 'latest'], REVERT);
      }
      const c = clientFor(s);
      const m = await fetchTokenMetadata(c, exp!.address!, { shapeType: 'ERC-20' });
      t.equal(m.name, exp!.name === '' ? null : exp!.name, 'name');
      t.equal(m.symbol, exp!.symbol === '' ? null : exp!.symbol, 'symbol');
      t.equal(m.decimals, Number(exp!.decimals), 'decimals');
      t.equal(m.totalSupply, exp!.total_supply, 'total supply');
      t.match(m, { type: 'ERC-20', typeSource: 'logs' }, 'no ERC-165 answers recorded: type from the log shape');
      if (dir === 'token_with_alternative_return_type') {
        // name() is 32 zero bytes (bytes32 ABI, empty), symbol() a bytes32 'EOS'.
        t.same(m.errors, ['name: nothing printable in bytes32 return']);
      } else {
        // name() and symbol() are ABI strings of length 6: 'ETH' + 3 NULs.
        t.same(m.errors, []);
      }
      t.equal(s.log.length, 1, 'one HTTP request');
      t.equal(s.log[0]!.batch, true, 'a JSON-RPC batch');
      t.equal(s.calls('eth_call'), 9);
      // The recorded eth_call files were found under their own names (no .add() needed).
      t.equal(await fetchTotalSupply(c, exp!.address!), exp!.total_supply);
      // Checksummed input maps onto the same (lower-case) recording.
      const upper = '0x' + exp!.address!.slice(2).toUpperCase();
      t.equal(await fetchTotalSupply(c, upper), exp!.total_supply);
    });
  }
});

/** A replay server whose eth_call answers by selector (and ERC-165 interface id). */
async function contractServer(
  t: { teardown: (fn: () => unknown) => void },
  answers: Record<string, unknown>,
): Promise<ReplayServer> {
  const s = await server(t);
  s.handle('eth_call', (params) => {
    const { data } = params[0] as { to: string; data: string };
    const sel = data.slice(0, 10);
    const key = sel === '0x01ffc9a7' ? `si:0x${data.slice(10, 18)}` : sel;
    const a = key in answers ? answers[key] : REVERT;
    return a !== null && typeof a === 'object' && 'error' in a ? (a as typeof REVERT) : { result: a };
  });
  return s;
}

const ADDR = '0x' + '42'.repeat(20);

t.test('ERC-165 decides the type when answered properly', async (t) => {
  const nft = await contractServer(t, {
    [`si:${INTERFACE_ERC165}`]: abiBool(true),
    [`si:${INTERFACE_INVALID}`]: abiBool(false),
    [`si:${INTERFACE_ERC721}`]: abiBool(true),
    [`si:${INTERFACE_ERC1155}`]: abiBool(false),
    [SELECTOR.name]: abiString('Kitties'),
    [SELECTOR.symbol]: abiString('CK'),
  });
  const m = await fetchTokenMetadata(clientFor(nft), ADDR, { shapeType: 'ERC-20' });
  t.match(m, { type: 'ERC-721', typeSource: 'erc165', name: 'Kitties', symbol: 'CK', decimals: null, totalSupply: null });
  t.same(m.errors, [], 'no decimals/totalSupply errors expected of an ERC-721');

  const multi = await contractServer(t, {
    [`si:${INTERFACE_ERC165}`]: abiBool(true),
    [`si:${INTERFACE_INVALID}`]: abiBool(false),
    [`si:${INTERFACE_ERC721}`]: abiBool(false),
    [`si:${INTERFACE_ERC1155}`]: abiBool(true),
  });
  const mm = await fetchTokenMetadata(clientFor(multi), ADDR);
  t.match(mm, { type: 'ERC-1155', typeSource: 'erc165', name: null, symbol: null });
  t.same(mm.errors, []);

  // CryptoKitties answers only the draft ERC-721 id.
  const ck = await contractServer(t, {
    [`si:${INTERFACE_ERC165}`]: abiBool(true),
    [`si:${INTERFACE_INVALID}`]: abiBool(false),
    [`si:${INTERFACE_ERC721_DRAFT}`]: abiBool(true),
    [`si:${INTERFACE_ERC721}`]: abiBool(false),
  });
  t.match(await fetchTokenMetadata(clientFor(ck), ADDR), { type: 'ERC-721', typeSource: 'erc165' });

  // Proper ERC-165 that names neither NFT standard: the log shape wins when given.
  const erc20With165 = await contractServer(t, {
    [`si:${INTERFACE_ERC165}`]: abiBool(true),
    [`si:${INTERFACE_INVALID}`]: abiBool(false),
    [`si:${INTERFACE_ERC721}`]: abiBool(false),
    [`si:${INTERFACE_ERC1155}`]: abiBool(false),
    [SELECTOR.decimals]: abiUint(6n),
  });
  t.match(await fetchTokenMetadata(clientFor(erc20With165), ADDR), { type: 'ERC-20', typeSource: 'erc165', decimals: 6 });
  t.match(await fetchTokenMetadata(clientFor(erc20With165), ADDR, { shapeType: 'ERC-721' }), { type: 'ERC-721', typeSource: 'logs' });
});

t.test('improper ERC-165 answers are ignored', async (t) => {
  // A fallback that returns `true` for everything (including 0xffffffff).
  const yes = await contractServer(t, {
    [`si:${INTERFACE_ERC165}`]: abiBool(true),
    [`si:${INTERFACE_INVALID}`]: abiBool(true),
    [`si:${INTERFACE_ERC721}`]: abiBool(true),
    [`si:${INTERFACE_ERC1155}`]: abiBool(true),
  });
  const m = await fetchTokenMetadata(clientFor(yes), ADDR, { shapeType: 'ERC-20' });
  t.match(m, { type: 'ERC-20', typeSource: 'logs' });
  t.match(m.errors.join('\n'), /0xffffffff/);
  // Non-bool words (a fallback echoing calldata) and empty returns are not answers either.
  const echo = await contractServer(t, {
    [`si:${INTERFACE_ERC165}`]: abiUint(0x01ffc9a7n),
    [`si:${INTERFACE_INVALID}`]: '0x',
    [`si:${INTERFACE_ERC721}`]: abiBool(true),
  });
  t.match(await fetchTokenMetadata(clientFor(echo), ADDR, { shapeType: 'ERC-1155' }), { type: 'ERC-1155', typeSource: 'logs' });
  // Nothing at all: ERC-20 assumed, and said so.
  const none = await contractServer(t, {});
  const n = await fetchTokenMetadata(clientFor(none), ADDR);
  t.match(n, { type: 'ERC-20', typeSource: 'logs', name: null, symbol: null, decimals: null, totalSupply: null });
  t.match(n.errors.join('\n'), /assumed ERC-20/);
  t.match(n.errors.join('\n'), /name: call failed: 3 execution reverted/);
});

t.test('a revert or error of one call never fails the others; absurd decimals', async (t) => {
  const s = await contractServer(t, {
    [SELECTOR.name]: { error: { code: -32000, message: 'out of gas' } },
    [SELECTOR.symbol]: rightPad32(Buffer.from('SAI').toString('hex')),
    [SELECTOR.decimals]: abiUint(1000n),
    [SELECTOR.totalSupply]: '0x' + 'f'.repeat(64),
  });
  const m = await fetchTokenMetadata(clientFor(s), ADDR, { shapeType: 'ERC-20', blockTag: '0x10' });
  t.match(m, { name: null, symbol: 'SAI', decimals: null, totalSupply: (2n ** 256n - 1n).toString() });
  t.match(m.errors.join('\n'), /name: call failed: -32000 out of gas/);
  t.match(m.errors.join('\n'), /decimals: 1000 is not a plausible/);

  const empty = await contractServer(t, {
    [SELECTOR.name]: '0x',
    [SELECTOR.symbol]: abiString('\u0000\u0001'),
    [SELECTOR.decimals]: '0x12',
    [SELECTOR.totalSupply]: abiUint(0n),
  });
  const e = await fetchTokenMetadata(clientFor(empty), ADDR, { shapeType: 'ERC-20' });
  t.match(e, { name: null, symbol: null, decimals: null, totalSupply: '0' });
  t.match(e.errors.join('\n'), /name: empty return data/);
  t.match(e.errors.join('\n'), /symbol: .*nothing printable/);
  t.match(e.errors.join('\n'), /decimals: undecodable return data \(1 bytes\)/);

  // The block tag reaches the node.
  const tags: unknown[] = [];
  s.handle('eth_call', (params) => {
    tags.push(params[1]);
    return { result: abiUint(5n) };
  });
  await fetchTokenMetadata(clientFor(s), ADDR, { blockTag: '0x10' });
  t.ok(tags.length === 9 && tags.every((x) => x === '0x10'));
});

t.test('a transport failure throws (the caller retries later)', async (t) => {
  const s = await contractServer(t, { [SELECTOR.name]: abiString('X') });
  s.fault({ status: 503 });
  const err = await fetchTokenMetadata(clientFor(s), ADDR).catch((e: unknown) => e);
  t.type(err, RpcError);
  t.equal((err as RpcError).kind, 'http');
  s.fault({ drop: true });
  const err2 = await fetchTotalSupply(clientFor(s), ADDR).catch((e: unknown) => e);
  t.type(err2, RpcError);
  t.equal((err2 as RpcError).kind, 'network');
  // Closed port.
  const port = s.port;
  await s.close();
  const err3 = await fetchOwnerOf(createRpcClient({ url: `http://127.0.0.1:${port}/`, maxRetries: 0 }), ADDR, '1').catch((e: unknown) => e);
  t.type(err3, RpcError);
});

t.test('fetchTotalSupply, fetchBalanceOf, fetchOwnerOf', async (t) => {
  const HOLDER = '0x' + 'Ab'.repeat(20);
  const OWNER = '0x' + 'cd'.repeat(20);
  const s = await server(t);
  s.handle('eth_call', (params) => {
    const { data } = params[0] as { data: string };
    const sel = data.slice(0, 10);
    if (sel === SELECTOR.totalSupply) return { result: abiUint(12345678901234567890123n) };
    if (sel === '0x70a08231') {
      // balanceOf(address): the holder word arrives lower-case.
      return data.slice(34) === HOLDER.slice(2).toLowerCase() ? { result: abiUint(7n) } : REVERT;
    }
    if (sel === '0x6352211e') {
      const id = BigInt('0x' + data.slice(10));
      if (id === 1n) return { result: encodeAbiParameters([{ type: 'address' }], [OWNER as `0x${string}`]) };
      if (id === 2n) return { result: abiUint(0n) }; // zero address: no owner
      if (id === 3n) return { result: '0x' };
      return REVERT;
    }
    return REVERT;
  });
  const c = clientFor(s);
  t.equal(await fetchTotalSupply(c, ADDR), '12345678901234567890123');
  t.equal(await fetchBalanceOf(c, ADDR, HOLDER, 'latest'), '7');
  t.equal(await fetchBalanceOf(c, ADDR, ADDR, 'latest'), null, 'revert -> null');
  t.equal(await fetchOwnerOf(c, ADDR.toUpperCase().replace('0X', '0x'), '1', 'latest'), OWNER);
  t.equal(await fetchOwnerOf(c, ADDR, '0x1', 'latest'), OWNER, 'hex token id');
  t.equal(await fetchOwnerOf(c, ADDR, 2n, 'latest'), null, 'zero address -> null');
  t.equal(await fetchOwnerOf(c, ADDR, '3', 'latest'), null, 'empty -> null');
  t.equal(await fetchOwnerOf(c, ADDR, '4', 'latest'), null, 'revert (burned) -> null');
});
