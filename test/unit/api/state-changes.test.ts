// Coin changes from stored data (src/api/state-changes.ts coinChanges), where the node gives no
// balance diff: an OP Stack deposit's mint credits its sender before its value moves, and a
// rollup transaction's fee (stored with its L1 and operator fees) is what its sender loses.
import t from 'tap';
import { coinChanges } from '../../../src/api/state-changes.js';
import type { TransactionRead } from '../../../src/storage/clickhouse/reads/transactions.js';
import type { InternalTransactionRead } from '../../../src/storage/clickhouse/reads/internal-transactions.js';

const FROM = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc';
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const MINER = '0x4200000000000000000000000000000000000011';

const tx = (o: Partial<TransactionRead>) =>
  ({ from: FROM, to: TO, value: '0', gas_used: '21000', effective_gas_price: '0', fee: '0', blob_gas_used: null, blob_gas_price: null, op: '', ...o }) as TransactionRead;
const call = (value: string) => ({ type: 'call', call_type: 'call', from: FROM, to: TO, value, error: '', trace_address: [] }) as unknown as InternalTransactionRead;

t.test('a deposit mints to its sender, then moves its value', async (t) => {
  const mint = 10n ** 18n;
  const value = mint / 4n;
  const d = tx({ value: value.toString(), op: JSON.stringify({ source_hash: `0x${'a1'.repeat(32)}`, mint: mint.toString(), is_system_tx: false }) });
  const got = coinChanges({ tx: d, miner: MINER, baseFee: 1n, frames: [call(value.toString())], transfers: [] });
  t.same(got, new Map([[FROM, mint - value], [TO, value]]), 'the sender gains the mint less the value, the receiver the value');
});

t.test("a rollup transaction's sender pays its total fee", async (t) => {
  // 21000 gas at 2 wei (base fee 1), L1 fee 1000, operator fee 7: the stored fee holds all three.
  const r = tx({ value: '5', effective_gas_price: '2', fee: String(21000 * 2 + 1000 + 7), op: JSON.stringify({ l1_fee: '1000', operator_fee: '7' }) });
  const got = coinChanges({ tx: r, miner: MINER, baseFee: 1n, frames: [call('5')], transfers: [] });
  t.equal(got?.get(FROM), -(5n + 42000n + 1007n), 'value, execution fee, L1 fee and operator fee');
  t.equal(got?.get(MINER), 21000n, 'the miner its tip only');
});
