// Token transfer decoding on hand-made logs: every shape, kinds, batches, malformed input.
import t from 'tap';
import {
  TRANSFER_BATCH_TOPIC,
  TRANSFER_SINGLE_TOPIC,
  TRANSFER_TOPIC,
  decodeBatch,
  decodeTokenTransfers,
  transferKind,
  type LogContext,
} from '../../../src/chain/tokens.js';
import type { RpcLog } from '../../../src/chain/wire.js';
import { ZERO_ADDRESS } from '../../../src/chain/hex.js';

const ctx: LogContext = {
  block_number: 7,
  block_hash: '0xbb',
  timestamp: 100,
  transaction_index: 3,
  transaction_hash: '0xtt',
  method_id: '0xa9059cbb',
};
const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const TOKEN = '0x00000000000000000000000000000000000000aa';
const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');
const topicAddr = (a: string) => '0x' + word(a);
const log = (topics: string[], data: string, address = TOKEN): RpcLog => ({ address, topics, data, logIndex: '0x5' });

t.test('ERC-20: 3 topics + 32-byte data', async (t) => {
  const rows = decodeTokenTransfers(log([TRANSFER_TOPIC, topicAddr(A), topicAddr(B)], '0x' + word('de0b6b3a7640000')), 5, ctx);
  t.equal(rows.length, 1);
  t.match(rows[0], {
    token_type: 'ERC-20',
    from: A,
    to: B,
    value: '1000000000000000000',
    token_id: null,
    kind: 'token_transfer',
    log_index: 5,
    batch_index: 0,
    method_id: '0xa9059cbb',
    block_number: 7,
    transaction_index: 3,
    token_address: TOKEN,
  });
  // Big values keep every digit.
  const big = decodeTokenTransfers(log([TRANSFER_TOPIC, topicAddr(A), topicAddr(B)], '0x' + 'f'.repeat(64)), 5, ctx);
  t.equal(big[0]!.value, (2n ** 256n - 1n).toString());
});

t.test('ERC-721: 4 topics + empty data, and all-in-data (CryptoKitties)', async (t) => {
  const rows = decodeTokenTransfers(log([TRANSFER_TOPIC, topicAddr(ZERO_ADDRESS), topicAddr(B), '0x' + word('2a')], '0x'), 1, ctx);
  t.match(rows[0], { token_type: 'ERC-721', from: ZERO_ADDRESS, to: B, value: '1', token_id: '42', kind: 'token_minting' });
  const ck = decodeTokenTransfers(log([TRANSFER_TOPIC], '0x' + word(A) + word(B) + word('7')), 1, ctx);
  t.match(ck[0], { token_type: 'ERC-721', from: A, to: B, token_id: '7' });
});

t.test('ERC-1155 TransferSingle and TransferBatch', async (t) => {
  const op = topicAddr('0x9999999999999999999999999999999999999999');
  const single = decodeTokenTransfers(log([TRANSFER_SINGLE_TOPIC, op, topicAddr(A), topicAddr(ZERO_ADDRESS)], '0x' + word('5') + word('64')), 2, ctx);
  t.match(single, [{ token_type: 'ERC-1155', from: A, to: ZERO_ADDRESS, token_id: '5', value: '100', kind: 'token_burning', batch_index: 0 }]);
  // ids [1, 2, 3], values [10, 20, 30]
  const data =
    '0x' + word('40') + word('c0') + word('3') + word('1') + word('2') + word('3') + word('3') + word('a') + word('14') + word('1e');
  const batch = decodeTokenTransfers(log([TRANSFER_BATCH_TOPIC, op, topicAddr(A), topicAddr(B)], data), 9, ctx);
  t.same(
    batch.map((r) => [r.batch_index, r.token_id, r.value, r.log_index, r.token_type, r.kind]),
    [
      [0, '1', '10', 9, 'ERC-1155', 'token_transfer'],
      [1, '2', '20', 9, 'ERC-1155', 'token_transfer'],
      [2, '3', '30', 9, 'ERC-1155', 'token_transfer'],
    ],
  );
  // An empty batch is valid and yields nothing.
  t.same(decodeBatch('0x' + word('40') + word('60') + word('0') + word('0')), [[], []]);
});

t.test('malformed logs are skipped, never a crash', async (t) => {
  const op = topicAddr(A);
  const bad: RpcLog[] = [
    log([TRANSFER_TOPIC, topicAddr(A), topicAddr(B)], '0x' + word('1') + '00'), // data too long
    log([TRANSFER_TOPIC, topicAddr(A), topicAddr(B)], '0x'), // ERC-20 shape without data
    log([TRANSFER_TOPIC, topicAddr(A), topicAddr(B), topicAddr(A)], '0x' + word('1')), // 4 topics + data
    log([TRANSFER_TOPIC, topicAddr(A)], '0x' + word('1')), // 2 topics
    log([TRANSFER_TOPIC, topicAddr(A), '0x1234'], '0x' + word('1')), // short topic
    log([TRANSFER_TOPIC, topicAddr(A), topicAddr(B)], '0x' + 'zz'.repeat(32)), // not hex
    log([TRANSFER_SINGLE_TOPIC, op, topicAddr(A), topicAddr(B)], '0x' + word('1')), // single, short data
    log([TRANSFER_BATCH_TOPIC, op, topicAddr(A), topicAddr(B)], '0x' + word('40') + word('c0') + word('3') + word('1')), // truncated
    log([TRANSFER_BATCH_TOPIC, op, topicAddr(A), topicAddr(B)], '0x' + word('40') + word('a0') + word('2') + word('1') + word('2') + word('1') + word('5')), // length mismatch
    log([TRANSFER_BATCH_TOPIC, op, topicAddr(A), topicAddr(B)], '0x' + word('ffffffffffff') + word('40') + word('0') + word('0')), // offset out of range
    log([TRANSFER_BATCH_TOPIC, op, topicAddr(A), topicAddr(B)], '0x' + word('41') + word('60') + word('0') + word('0')), // unaligned offset
    log([], '0x'),
    log(['0x' + word('1234')], '0x' + word('1')), // other event
    { address: TOKEN, topics: [TRANSFER_TOPIC, topicAddr(A), topicAddr(B)], data: undefined as never, logIndex: '0x0' },
  ];
  for (const [i, l] of bad.entries()) {
    t.same(decodeTokenTransfers(l, 0, ctx), [], `malformed #${i}`);
  }
});

t.test('transferKind', async (t) => {
  t.equal(transferKind(ZERO_ADDRESS, A), 'token_minting');
  t.equal(transferKind(A, ZERO_ADDRESS), 'token_burning');
  t.equal(transferKind(A, B), 'token_transfer');
});
