// The standard-interface table: the committed file is what the generator makes from OpenZeppelin's
// ABIs (nobody edits it by hand), and it names and decodes calls and logs as Blockscout shapes them
// (through src/abi/naming.ts, where it is the first curated source).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, getAddress, parseAbi, type Hex } from 'viem';
import { GENERATED_FILE, standardAbiSource } from '../../../src/abi/generate-standard-abi.js';
import { STANDARD_DECODE_MAX_BYTES } from '../../../src/abi/standard-abi.js';
import { methodName, nameCall, nameLog } from '../../../src/abi/naming.js';

const standardInput = (input: string) => {
  const r = nameCall(input, null);
  return r && { method: r.method, decoded: r.decoded };
};
const standardLog = (topics: (string | null)[], data: string) => nameLog(topics, data, null)?.decoded ?? null;
const standardMethodName = (selector: string) => methodName(selector);
import { PROJECT_ROOT } from '../../helpers/fixtures.js';

const ERC20 = parseAbi(['function transfer(address to, uint256 amount)', 'event Transfer(address indexed from, address indexed to, uint256 value)', 'function multicall(bytes[] data)']);
const ERC721 = parseAbi(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)']);
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';

t.test('the committed table is a fresh generation', async (t) => {
  t.equal(fs.readFileSync(path.join(PROJECT_ROOT, GENERATED_FILE), 'utf8'), standardAbiSource(), `${GENERATED_FILE} is up to date (npm run gen:abi)`);
});

t.test('calls', async (t) => {
  const input = encodeFunctionData({ abi: ERC20, functionName: 'transfer', args: [B, 5n] });
  const got = standardInput(input);
  t.equal(got?.method, 'transfer');
  t.same(got?.decoded, {
    method_call: 'transfer(address to, uint256 value)',
    method_id: '0xa9059cbb',
    parameters: [
      { name: 'to', type: 'address', value: getAddress(B) },
      { name: 'value', type: 'uint256', value: '5' },
    ],
  }, "Blockscout's decoded_input, with the interface's parameter names");
  t.equal(standardMethodName('0x095EA7B3'), 'approve', 'selectors in any case');
  t.equal(standardMethodName('0x12345678'), null);
  t.equal(standardInput('0x12345678' + '00'.repeat(32)), null, 'an unknown selector is not named');
  t.same(standardInput('0xa9059cbb1234'), { method: 'transfer', decoded: null }, 'a known selector whose input does not decode is named, not decoded');
  t.equal(standardInput('0x'), null);
  const big = encodeFunctionData({ abi: ERC20, functionName: 'multicall', args: [[`0x${'ab'.repeat(STANDARD_DECODE_MAX_BYTES)}` as Hex]] });
  t.same(standardInput(big), { method: 'multicall', decoded: null }, 'an input beyond the bound is named, not decoded');
});

t.test('logs: ERC-20 and ERC-721 Transfer share topic 0 and differ in what is indexed', async (t) => {
  const erc20 = standardLog(encodeEventTopics({ abi: ERC20, eventName: 'Transfer', args: { from: A, to: B } }) as Hex[], encodeAbiParameters([{ type: 'uint256' }], [7n]));
  t.equal(erc20?.method_call, 'Transfer(address indexed from, address indexed to, uint256 value)');
  t.same((erc20?.parameters as { name: string; value: string; indexed: boolean }[]).map((p) => [p.name, p.value, p.indexed]), [
    ['from', getAddress(A), true],
    ['to', getAddress(B), true],
    ['value', '7', false],
  ]);
  const erc721 = standardLog([...(encodeEventTopics({ abi: ERC721, eventName: 'Transfer', args: { from: A, to: B, tokenId: 9n } }) as Hex[]), null], '0x');
  t.equal(erc721?.method_call, 'Transfer(address indexed from, address indexed to, uint256 indexed tokenId)');
  t.equal((erc721?.parameters as { value: string }[])[2].value, '9');
  t.equal(standardLog(['0x' + 'ee'.repeat(32)], '0x'), null, 'an unknown event is not decoded');
  t.equal(standardLog([], '0x'), null, 'nor an anonymous log');
});
