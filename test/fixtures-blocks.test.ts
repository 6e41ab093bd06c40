// Blocks, transactions, receipts and logs decoded from real mainnet responses equal
// ethereum-etl's expected CSV/JSON where the fields overlap.
import t, { type Test } from 'tap';
import { RowCollector, decodeBlockBundle } from '../src/chain/bundle.js';
import { decodeBlock, decodeWithdrawals } from '../src/chain/blocks.js';
import { decodeTransaction } from '../src/chain/transactions.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from '../src/chain/wire.js';
import { etl, etlResult, fixturesMissing, mainnet18m, readCsv, readJsonLines } from './helpers/fixtures.js';

const missing = fixturesMissing();
const s = (v: unknown) => (v === null || v === undefined ? '' : Array.isArray(v) ? v.join(',') : String(v));

function compare(t: Test, ours: Record<string, unknown>, theirs: Record<string, unknown>, map: Record<string, string>, label: string) {
  for (const [theirKey, ourKey] of Object.entries(map)) {
    if (!(theirKey in theirs)) continue;
    t.equal(s(ours[ourKey]), s(theirs[theirKey]), `${label} ${theirKey}`);
  }
}

const BLOCK_MAP: Record<string, string> = {
  number: 'number',
  hash: 'hash',
  parent_hash: 'parent_hash',
  nonce: 'nonce',
  sha3_uncles: 'sha3_uncles',
  transactions_root: 'transactions_root',
  state_root: 'state_root',
  receipts_root: 'receipts_root',
  miner: 'miner',
  difficulty: 'difficulty',
  total_difficulty: 'total_difficulty',
  size: 'size',
  extra_data: 'extra_data',
  gas_limit: 'gas_limit',
  gas_used: 'gas_used',
  timestamp: 'timestamp',
  transaction_count: 'transaction_count',
  base_fee_per_gas: 'base_fee_per_gas',
  withdrawals_root: 'withdrawals_root',
};

const TX_MAP: Record<string, string> = {
  hash: 'hash',
  nonce: 'nonce',
  block_hash: 'block_hash',
  block_number: 'block_number',
  transaction_index: 'transaction_index',
  from_address: 'from',
  to_address: 'to',
  value: 'value',
  gas: 'gas',
  gas_price: 'gas_price',
  input: 'input',
  block_timestamp: 'timestamp',
  max_fee_per_gas: 'max_fee_per_gas',
  max_priority_fee_per_gas: 'max_priority_fee_per_gas',
  transaction_type: 'type',
  receipt_cumulative_gas_used: 'cumulative_gas_used',
  receipt_gas_used: 'gas_used',
  receipt_contract_address: 'created_contract',
  receipt_status: 'status',
  receipt_effective_gas_price: 'effective_gas_price',
};

const LOG_MAP: Record<string, string> = {
  log_index: 'log_index',
  transaction_hash: 'transaction_hash',
  transaction_index: 'transaction_index',
  block_hash: 'block_hash',
  block_number: 'block_number',
  address: 'address',
  data: 'data',
  topics: 'topics',
};

function withTopics(l: Record<string, unknown>) {
  return { ...l, topics: [l.topic0, l.topic1, l.topic2, l.topic3].filter((x) => x) };
}

t.test('blocks without receipts: 0, 47218, 47219', { skip: missing }, async (t) => {
  const cases: [string, string[]][] = [
    ['block_without_transactions', ['0x0']],
    ['blocks_with_transactions', ['0xb872', '0xb873']],
  ];
  for (const [dir, hexes] of cases) {
    const expectedBlocks = readCsv(etl('test_export_blocks_job', dir, 'expected_blocks.csv'));
    const expectedTxs = readCsv(etl('test_export_blocks_job', dir, 'expected_transactions.csv'));
    const txs: Record<string, unknown>[] = [];
    hexes.forEach((hex, i) => {
      const block = etlResult<RpcBlock<RpcTransaction>>('test_export_blocks_job', dir, `web3_response.eth_getBlockByNumber_${hex}_true.json`);
      const row = decodeBlock(block);
      compare(t, row, expectedBlocks[i]!, BLOCK_MAP, `${dir} block ${row.number}`);
      for (const tx of block.transactions) {
        txs.push(decodeTransaction(tx, null, { block_number: Number(row.number), block_hash: row.hash, timestamp: row.timestamp, base_fee: 0n }));
      }
    });
    t.equal(txs.length, expectedTxs.length, `${dir}: transaction count`);
    txs.forEach((tx, i) => compare(t, tx, expectedTxs[i]!, TX_MAP, `${dir} tx ${i}`));
  }
});

t.test('block 483920 with its receipts (per-tx fixtures): blocks, txs, receipts, logs', { skip: missing }, async (t) => {
  const block = etlResult<RpcBlock<RpcTransaction>>('test_export_blocks_job', 'block_with_logs', 'web3_response.eth_getBlockByNumber_0x76250_true.json');
  const receipts = block.transactions.map((tx) =>
    etlResult<RpcReceipt>('test_export_receipts_job', 'receipts_with_logs', `web3_response.eth_getTransactionReceipt_${tx.hash}.json`),
  );
  const sink = new RowCollector();
  decodeBlockBundle({ block, receipts, traces: null }, sink);
  const expectedBlock = readCsv(etl('test_export_blocks_job', 'block_with_logs', 'expected_blocks.csv'))[0]!;
  compare(t, sink.rows.blocks[0]!, expectedBlock, BLOCK_MAP, 'block 483920');
  const expectedTxs = readCsv(etl('test_export_blocks_job', 'block_with_logs', 'expected_transactions.csv'));
  t.equal(sink.rows.transactions.length, 4);
  sink.rows.transactions.forEach((tx, i) => compare(t, tx, expectedTxs[i]!, TX_MAP, `483920 tx ${i}`));
  const expectedReceipts = readCsv(etl('test_export_receipts_job', 'receipts_with_logs', 'expected_receipts.csv'));
  for (const r of expectedReceipts) {
    const tx = sink.rows.transactions.find((x) => x.hash === r.transaction_hash)!;
    t.ok(tx, `tx ${r.transaction_hash}`);
    compare(
      t,
      tx,
      r,
      {
        transaction_index: 'transaction_index',
        block_hash: 'block_hash',
        block_number: 'block_number',
        cumulative_gas_used: 'cumulative_gas_used',
        gas_used: 'gas_used',
        contract_address: 'created_contract',
        status: 'status',
        effective_gas_price: 'effective_gas_price',
      },
      `receipt ${r.transaction_hash}`,
    );
  }
  const expectedLogs = readCsv(etl('test_export_receipts_job', 'receipts_with_logs', 'expected_logs.csv'));
  t.equal(sink.rows.logs.length, expectedLogs.length);
  sink.rows.logs.forEach((l, i) => compare(t, withTopics(l), expectedLogs[i]!, LOG_MAP, `log ${i}`));
  // Fees: pre-London, base fee 0: burnt 0, priority = sum of fees.
  const fees = sink.rows.transactions.reduce((a, x) => a + BigInt(x.fee), 0n);
  t.equal(sink.rows.blocks[0]!.burnt_fees, '0');
  t.equal(sink.rows.blocks[0]!.priority_fees, fees.toString());
  t.equal(fees, 143706n * 50000000000n, 'fee = gas_used * gas price summed');
  t.equal(sink.rows.token_transfers.length, 2);
  t.same(
    sink.rows.transactions.map((x) => [x.log_count, x.token_transfer_count, x.method_id]),
    [
      [1, 1, '0xa9059cbb'],
      [1, 1, '0xa9059cbb'],
      [0, 0, ''],
      [0, 0, ''],
    ],
  );
});

t.test('test_stream 1755634-1755635: blocks, transactions with receipts, logs', { skip: missing }, async (t) => {
  const dir = ['test_stream', 'blocks_1755634_1755635'];
  const sink = new RowCollector();
  for (const hex of ['0x1ac9f2', '0x1ac9f3']) {
    const block = etlResult<RpcBlock<RpcTransaction>>(...dir, `web3_response.eth_getBlockByNumber_${hex}_true.json`);
    const receipts = block.transactions.map((tx) => etlResult<RpcReceipt>(...dir, `web3_response.eth_getTransactionReceipt_${tx.hash}.json`));
    decodeBlockBundle({ block, receipts, traces: null }, sink);
  }
  const eb = readJsonLines(etl(...dir, 'expected_blocks.json'));
  t.equal(sink.rows.blocks.length, eb.length);
  sink.rows.blocks.forEach((b, i) => compare(t, b, eb[i]!, BLOCK_MAP, `block ${b.number}`));
  const et = readJsonLines(etl(...dir, 'expected_transactions.json'));
  t.equal(sink.rows.transactions.length, et.length);
  sink.rows.transactions.forEach((x, i) => compare(t, x, et[i]!, TX_MAP, `tx ${x.hash}`));
  const el = readJsonLines(etl(...dir, 'expected_logs.json'));
  t.equal(sink.rows.logs.length, el.length);
  sink.rows.logs.forEach((l, i) => compare(t, withTopics(l), el[i]!, LOG_MAP, `log ${i}`));
});

t.test('block 18,000,000: EIP-1559 fields, fees and withdrawals', { skip: missing }, async (t) => {
  const block = mainnet18m<RpcBlock<RpcTransaction>>('eth_getBlockByNumber');
  const receipts = mainnet18m<RpcReceipt[]>('eth_getBlockReceipts');
  const sink = new RowCollector();
  const info = decodeBlockBundle({ block, receipts, traces: null }, sink);
  t.same(info, {
    number: 18000000,
    hash: '0x95b198e154acbfc64109dfd22d8224fe927fd8dfdedfae01587674482ba4baf3',
    parentHash: '0x198723e0ddf20153951c6304093cbd97fd306c5db03287c5586c0430a986080d',
    timestamp: 0x64ea268f,
    txCount: 94,
  });
  const b = sink.rows.blocks[0]!;
  const baseFee = BigInt(block.baseFeePerGas!);
  t.equal(b.base_fee_per_gas, baseFee.toString());
  t.equal(b.burnt_fees, (baseFee * BigInt(block.gasUsed)).toString());
  let prio = 0n;
  receipts.forEach((r) => (prio += (BigInt(r.effectiveGasPrice!) - baseFee) * BigInt(r.gasUsed)));
  t.equal(b.priority_fees, prio.toString());
  t.ok(prio > 0n);
  t.equal(b.withdrawal_count, 16);
  t.equal(b.total_difficulty, null, 'no totalDifficulty in the response');
  const ws = decodeWithdrawals(block);
  t.same(sink.rows.withdrawals, ws);
  t.equal(ws[0]!.amount, (0xeb0d50n * 1_000_000_000n).toString(), 'gwei -> wei');
  t.equal(ws[0]!.withdrawal_index, 0xeb9b8c);
  const tx = sink.rows.transactions[93]!;
  t.match(tx, {
    hash: '0x6b2fe3575bc0e2b9220daf457d7bde7a118d8674b920a0c888bbf547d683d0b7',
    type: 2,
    status: 1,
    gas_used: 0x523f,
    effective_gas_price: String(0x50ead8e39),
    fee: (0x523fn * 0x50ead8e39n).toString(),
    max_priority_fee_per_gas: '0',
    chain_id: 1,
    y_parity: 0,
    access_list: '[]',
    method_id: '',
  });
  const legacy = sink.rows.transactions.find((x) => x.type === 0)!;
  t.equal(legacy.max_fee_per_gas, null);
  t.not(legacy.gas_price, null);
});
