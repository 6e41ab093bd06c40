// Trace flattening edge cases in both formats, error normalization, grouping checks.
import t from 'tap';
import {
  flattenCallFrame,
  flattenParityTraces,
  gethBlockTraces,
  normalizeTraceError,
  parityBlockTraces,
  parityReplayTraces,
  type TxContext,
} from '../../../src/chain/traces.js';
import { ChainDataError } from '../../../src/chain/errors.js';
import type { CallFrame, ParityTrace } from '../../../src/chain/wire.js';

const ctx: TxContext = { block_number: 1, block_hash: '0xb', timestamp: 2, transaction_index: 0, transaction_hash: '0xt' };
const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const C = '0x00000000000000000000000000000000000000cc';

t.test('error strings: geth wording -> parity words', async (t) => {
  const cases: [string, string][] = [
    ['execution reverted', 'Reverted'],
    ['out of gas', 'Out of gas'],
    ['Out of gas', 'Out of gas'],
    ['contract creation code storage out of gas', 'Out of gas'],
    ['invalid jump destination', 'Bad jump destination'],
    ['invalid opcode: INVALID', 'Bad instruction'],
    ['invalid opcode: opcode 0xfe not defined', 'Bad instruction'],
    ['stack underflow (0 <=> 2)', 'Stack underflow'],
    ['stack limit reached 1024 (1023)', 'Out of stack'],
    ['write protection', 'Mutable Call In Static Context'],
    ['return data out of bounds', 'Out of bounds'],
    ['Reverted', 'Reverted'],
    ['Bad instruction', 'Bad instruction'],
    ['something new', 'Something new'],
    ['', ''],
  ];
  for (const [i, o] of cases) t.equal(normalizeTraceError(i), o, i);
});

t.test('callTracer: modern SELFDESTRUCT, CREATE2, failed CREATE, reverted subtree', async (t) => {
  const root: CallFrame = {
    type: 'CALL', from: A, to: B, value: '0x0', gas: '0x1000', gasUsed: '0x500', input: '0x12345678', output: '0x',
    calls: [
      { type: 'CREATE2', from: B, to: C, value: '0x1', gas: '0x100', gasUsed: '0x80', input: '0x60', output: '0xfe' },
      { type: 'CREATE', from: B, to: C, value: '0x0', gas: '0x100', gasUsed: '0x100', input: '0x60', error: 'out of gas' },
      { type: 'SELFDESTRUCT', from: B, to: A, value: '0x9', gas: '0x0', gasUsed: '0x0', input: '0x' },
      {
        type: 'STATICCALL', from: B, to: C, gas: '0x10', gasUsed: '0x10', input: '0x', error: 'execution reverted', output: '0x08c379a0',
        calls: [{ type: 'CALL', from: C, to: A, value: '0x2', gas: '0x1', gasUsed: '0x1', input: '0x', output: '0x' }],
      },
    ],
  };
  const rows = flattenCallFrame(root, ctx);
  t.same(rows.map((r) => [r.trace_index, r.trace_address, r.type, r.call_type]), [
    [0, [], 'call', 'call'],
    [1, [0], 'create2', ''],
    [2, [1], 'create', ''],
    [3, [2], 'selfdestruct', ''],
    [4, [3], 'call', 'staticcall'],
    [5, [3, 0], 'call', 'call'],
  ]);
  t.match(rows[1], { to: C, created_contract_address: C, created_contract_code: '0xfe', output: '', value: '1' });
  t.match(rows[2], { to: '', created_contract_address: '', created_contract_code: '', error: 'Out of gas', reverted: true });
  t.match(rows[3], { from: B, to: A, value: '9', gas: 0, gas_used: 0, input: '', output: '' });
  t.match(rows[4], { error: 'Reverted', output: '0x08c379a0', value: '0', reverted: true });
  t.match(rows[5], { error: '', reverted: true }, 'a child of a failed frame is reverted');
  t.equal(rows[0]!.reverted, false);
});

t.test('callTracer: bare SELFDESTRUCT takes from = the executing contract', async (t) => {
  const viaDelegate = flattenCallFrame(
    { type: 'CALL', from: A, to: B, calls: [{ type: 'DELEGATECALL', from: B, to: C, calls: [{ type: 'SELFDESTRUCT' }] }] },
    ctx,
  );
  t.equal(viaDelegate[2]!.from, B, 'delegatecall runs in the caller context');
  const direct = flattenCallFrame({ type: 'CALL', from: A, to: B, calls: [{ type: 'SELFDESTRUCT' }] }, ctx);
  t.equal(direct[1]!.from, B);
});

t.test('parity: out-of-order traces are sorted depth-first; create2; rewards skipped', async (t) => {
  const mk = (traceAddress: number[], extra: Partial<ParityTrace> = {}): ParityTrace => ({
    type: 'call',
    action: { callType: 'call', from: A, to: B, value: '0x0', gas: '0x10', input: '0x' },
    result: { gasUsed: '0x1', output: '0x' },
    subtraces: 0,
    traceAddress,
    transactionHash: '0xt',
    transactionPosition: 0,
    ...extra,
  });
  const rows = flattenParityTraces(
    [
      mk([1]),
      mk([]),
      mk([0, 0]),
      mk([0], { type: 'create', action: { from: B, value: '0x0', gas: '0x10', init: '0x60', creationMethod: 'create2' }, result: { gasUsed: '0x5', address: C, code: '0xfe' } }),
      mk([], { type: 'reward', action: { author: A, rewardType: 'block', value: '0x1' }, transactionPosition: null }),
    ],
    ctx,
  );
  t.same(rows.map((r) => [r.trace_index, r.trace_address.join('.'), r.type]), [
    [0, '', 'call'],
    [1, '0', 'create2'],
    [2, '0.0', 'call'],
    [3, '1', 'call'],
  ]);
  t.match(rows[1], { to: C, created_contract_address: C, created_contract_code: '0xfe', input: '0x60', gas_used: 5 });
  // Failed frames without result: exceptional halt = all gas; Reverted = unknown (0).
  const failed = flattenParityTraces([mk([], { result: null, error: 'Bad instruction' }), mk([0], { result: null, error: 'Reverted' })], ctx);
  t.same(failed.map((r) => [r.gas_used, r.error, r.reverted]), [
    [16, 'Bad instruction', true],
    [0, 'Reverted', true],
  ]);
});

t.test('grouping per transaction and its checks', async (t) => {
  const tr = (pos: number | null, type = 'call'): ParityTrace => ({
    type, action: {}, result: null, subtraces: 0, traceAddress: [], transactionHash: pos === null ? null : `0x${pos}`, transactionPosition: pos,
  });
  t.same(parityBlockTraces([tr(0), tr(1), tr(null, 'reward')], 2).txs.map((g) => g.length), [1, 1]);
  t.throws(() => parityBlockTraces([tr(0)], 2, 9), ChainDataError);
  t.throws(() => parityBlockTraces([tr(0), tr(2)], 2, 9), /block 9: trace for transaction position 2/);
  const replay = parityReplayTraces([{ transactionHash: '0xaa', trace: [{ ...tr(null), transactionHash: undefined }] }]);
  t.equal(replay.txs[0]![0]!.transactionHash, '0xaa');
  const g = gethBlockTraces([{ txHash: '0xAB', result: { type: 'CALL' } }, { type: 'CALL' } as never]);
  t.same(g.txHashes, ['0xab', undefined]);
  t.throws(() => gethBlockTraces([{ txHash: '0xab', error: 'execution timeout' }], 7), /block 7: trace of transaction 0 \(0xab\) failed: execution timeout/);
  t.throws(() => gethBlockTraces(null), ChainDataError);
});
