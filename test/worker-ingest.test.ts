// The ingest worker task end to end over the replay RPC server: block 18,000,000 decodes
// completely; receipts fall back per transaction; traces in both formats give the same rows;
// inconsistent node data throws; results cross a real piscina pool with their buffers moved.
import t from 'tap';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import ingestTask, { ingest, type IngestResult, type IngestTask } from '../workers/ingest.js';
import { ROOT_INPUT_FROM_TX, TABLES, TABLE_NAMES, type TableName } from '../src/chain/clickhouse-rows.js';
import { decodeTableBytes } from '../src/chain/clickhouse-encode.js';
import { ChainDataError } from '../src/chain/errors.js';
import { TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC } from '../src/chain/tokens.js';
import type { CallFrame, ParityTrace, RpcBlock, RpcReceipt, RpcTransaction } from '../src/chain/wire.js';
import { ETL_DIR, MAINNET_18M_DIR, fixturesMissing, mainnet18m } from './helpers/fixtures.js';
import { startReplayRpc, type ReplayServer } from './helpers/replay-rpc.js';

const missing = fixturesMissing();

function rows(result: IngestResult, table: TableName): unknown[][] {
  return decodeTableBytes(table, result.tables[table]);
}

/** Rows of `table` as objects keyed by column name. */
function objects(result: IngestResult, table: TableName): Record<string, unknown>[] {
  const cols = TABLES[table];
  return rows(result, table).map((r) => {
    if (r.length !== cols.length) throw new Error(`${table}: ${r.length} values for ${cols.length} columns`);
    return Object.fromEntries(cols.map((c, i) => [c, r[i]]));
  });
}

async function server(t: { teardown: (fn: () => unknown) => void }, load: string[] = []): Promise<ReplayServer> {
  const s = await startReplayRpc({ load });
  t.teardown(() => s.close());
  return s;
}

const task = (url: string, from: number, to: number, extra: Partial<IngestTask> = {}): IngestTask => ({
  from,
  to,
  rpc: { url, variant: 'geth', maxRetries: 1, timeoutMs: 10_000 },
  traces: 'off',
  receipts: 'block',
  ...extra,
});

/** Independent count of the token transfers in raw receipts (by the logs' shapes). */
function countTransfers(receipts: RpcReceipt[]): number {
  let n = 0;
  for (const r of receipts) {
    for (const l of r.logs) {
      const t0 = l.topics[0];
      const dataBytes = (l.data.length - 2) / 2;
      if (t0 === TRANSFER_TOPIC) {
        if ((l.topics.length === 3 && dataBytes === 32) || (l.topics.length === 4 && dataBytes === 0)) n++;
        else if (l.topics.length === 1 && dataBytes === 96) n++;
      } else if (t0 === TRANSFER_SINGLE_TOPIC && l.topics.length === 4 && dataBytes === 64) n++;
      else if (t0 === TRANSFER_BATCH_TOPIC && l.topics.length === 4) n += parseInt(l.data.slice(2 + 128, 2 + 192), 16);
    }
  }
  return n;
}

t.test('block 18,000,000 decodes completely through the worker over the replay server', { skip: missing }, async (t) => {
  const s = await server(t, [MAINNET_18M_DIR]);
  const result = await ingest(task(s.url, 18_000_000, 18_000_000));
  const block = mainnet18m<RpcBlock<RpcTransaction>>('eth_getBlockByNumber');
  const receipts = mainnet18m<RpcReceipt[]>('eth_getBlockReceipts');
  const logCount = receipts.reduce((a, r) => a + r.logs.length, 0);
  const transferCount = countTransfers(receipts);
  t.ok(transferCount > 0);

  t.same(result.blocks, [
    {
      number: 18_000_000,
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: Number(block.timestamp),
      txCount: 94,
    },
  ]);
  t.equal(result.receiptsFellBack, false);
  t.match(result.summary, { txs: 94, logs: logCount, tokenTransfers: transferCount, internalTxs: 0 });

  const txs = objects(result, 'transactions');
  t.equal(txs.length, 94);
  t.same(txs.map((x) => x.hash), block.transactions.map((x) => x.hash), 'every tx, in order');
  t.same(txs.map((x) => x.transaction_index), block.transactions.map((_, i) => i));
  t.same(txs.map((x) => x.log_count), receipts.map((r) => r.logs.length), 'log counts per tx');
  t.equal(txs.reduce((a, x) => a + (x.token_transfer_count as number), 0), transferCount);
  t.same(txs.map((x) => x.status), receipts.map((r) => Number(r.status)));
  t.same(txs.map((x) => x.gas_used), receipts.map((r) => Number(r.gasUsed)));
  t.same(
    txs.map((x) => x.fee),
    receipts.map((r) => (BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice!)).toString()),
    'fee = gas_used * effective_gas_price',
  );
  t.ok(txs.every((x) => x.error === '' && x.internal_count === 0));

  const logs = objects(result, 'logs');
  t.equal(logs.length, logCount);
  t.same(logs.map((l) => l.log_index), receipts.flatMap((r) => r.logs.map((l) => Number(l.logIndex))));
  t.equal(rows(result, 'address_logs').length, logCount);

  const tts = objects(result, 'token_transfers');
  t.equal(tts.length, transferCount, 'every token transfer');
  t.equal(rows(result, 'token_transfers_by_token').length, transferCount);
  const types = new Set(tts.map((x) => x.token_type));
  t.ok(types.has('ERC-20'), 'has ERC-20');
  t.ok(tts.every((x) => ['token_transfer', 'token_minting', 'token_burning'].includes(x.kind as string)));
  const atts = objects(result, 'address_token_transfers');
  t.equal(atts.length, tts.reduce((a, x) => a + (x.from === x.to ? 1 : 2), 0), 'one per distinct from/to');

  const ats = objects(result, 'address_transactions');
  const expectedAts = block.transactions.reduce((a, tx, i) => {
    const set = new Set([tx.from, tx.to, receipts[i]!.contractAddress].filter((x): x is string => !!x));
    return a + set.size;
  }, 0);
  t.equal(ats.length, expectedAts);
  t.equal(rows(result, 'hash_index').length, 95);
  t.equal(rows(result, 'withdrawals').length, 16);
  t.equal(rows(result, 'blocks').length, 1);
  t.equal(rows(result, 'internal_transactions').length, 0);
  for (const name of TABLE_NAMES) t.equal(result.summary.rows[name], rows(result, name).length, `summary.rows.${name}`);

  // Summary for the derived lanes and the watchlist matcher.
  const sum = result.summary;
  t.equal(sum.valueTransfers.filter((v) => v.kind !== 'native').length, transferCount);
  const nativeTxs = block.transactions.filter((tx, i) => BigInt(tx.value) > 0n && receipts[i]!.status === '0x1');
  t.equal(sum.valueTransfers.filter((v) => v.kind === 'native').length, nativeTxs.length);
  t.ok(sum.touchedAddresses.includes(block.miner));
  t.ok(sum.tokenContracts.length > 0);
  t.equal(new Set(sum.touchedAddresses).size, sum.touchedAddresses.length, 'distinct');
  t.ok(result.timings.fetchMs >= 0 && result.timings.decodeMs >= 0);
});

t.test('eth_getBlockReceipts missing: receipts per transaction (block 483920)', { skip: missing }, async (t) => {
  const s = await server(t, [
    join(ETL_DIR, 'test_export_blocks_job', 'block_with_logs'),
    join(ETL_DIR, 'test_export_receipts_job', 'receipts_with_logs'),
  ]);
  const result = await ingest(task(s.url, 483920, 483920));
  t.equal(result.receiptsFellBack, true);
  t.equal(s.calls('eth_getBlockReceipts'), 1);
  t.equal(s.calls('eth_getTransactionReceipt'), 4);
  t.match(result.summary, { txs: 4, logs: 2, tokenTransfers: 2 });
  const r2 = await ingest(task(s.url, 483920, 483920, { receipts: 'transaction' }));
  t.same(Buffer.from(r2.tables.transactions), Buffer.from(result.tables.transactions));
  const r3 = await ingest(task(s.url, 483920, 483920));
  t.equal(r3.receiptsFellBack, true);
  t.equal(s.calls('eth_getBlockReceipts'), 1, 'the missing method is asked about once per client');
});

// ---- A synthetic block with traces in both formats ----

const A = '0x00000000000000000000000000000000000000a1';
const B = '0x00000000000000000000000000000000000000b2';
const C = '0x00000000000000000000000000000000000000c3';
const NEW = '0x00000000000000000000000000000000000000d4';
const H1 = '0x' + '11'.repeat(32);
const H2 = '0x' + '22'.repeat(32);
const BH = '0x' + 'bb'.repeat(32);

function synthetic(s: ReplayServer, opts: { receiptCount?: number; badHash?: boolean; traceCount?: number } = {}) {
  const tx = (hash: string, i: number, to: string | null, value: string, input: string) => ({
    hash,
    nonce: '0x0',
    blockHash: BH,
    blockNumber: '0x64',
    transactionIndex: `0x${i}`,
    from: A,
    to,
    value,
    gas: '0x30000',
    gasPrice: '0x2',
    input,
    type: '0x0',
  });
  const block = {
    number: '0x64',
    hash: BH,
    parentHash: '0x' + 'aa'.repeat(32),
    timestamp: '0x5f5e100',
    miner: C,
    size: '0x100',
    gasLimit: '0x1000000',
    gasUsed: '0x20000',
    difficulty: '0x1',
    extraData: '0x',
    stateRoot: '0x01',
    transactionsRoot: '0x02',
    receiptsRoot: '0x03',
    sha3Uncles: '0x04',
    nonce: '0x0000000000000000',
    mixHash: '0x05',
    uncles: [],
    transactions: [tx(H1, 0, B, '0x10', '0xabcdef0102'), tx(H2, 1, null, '0x0', '0x6080')],
  };
  const receipt = (hash: string, i: number, contract: string | null, status: string) => ({
    transactionHash: opts.badHash && i === 1 ? H1 : hash,
    transactionIndex: `0x${i}`,
    blockHash: BH,
    blockNumber: '0x64',
    cumulativeGasUsed: `0x${(0x10000 * (i + 1)).toString(16)}`,
    gasUsed: '0x10000',
    contractAddress: contract,
    logs: [],
    status,
  });
  const receipts = [receipt(H1, 0, null, '0x1'), receipt(H2, 1, NEW, '0x0')].slice(0, opts.receiptCount ?? 2);
  // tx 1: A -> B (value 16), B calls C with 5 wei, B's delegatecall to C fails (bad jump), its child call moves 3 wei.
  const frames: CallFrame[] = [
    {
      type: 'CALL',
      from: A,
      to: B,
      value: '0x10',
      gas: '0x20000',
      gasUsed: '0x10000',
      input: '0xabcdef0102',
      output: '0x',
      calls: [
        { type: 'CALL', from: B, to: C, value: '0x5', gas: '0x100', gasUsed: '0x50', input: '0x', output: '0x' },
        {
          type: 'DELEGATECALL',
          from: B,
          to: C,
          gas: '0x100',
          gasUsed: '0x100',
          input: '0x01',
          error: 'invalid jump destination',
          calls: [{ type: 'CALL', from: B, to: A, value: '0x3', gas: '0x10', gasUsed: '0x0', input: '0x', output: '0x' }],
        },
      ],
    },
    // tx 2: a failed create.
    { type: 'CREATE', from: A, value: '0x0', gas: '0x20000', gasUsed: '0x20000', input: '0x6080', error: 'out of gas' },
  ];
  const parity: ParityTrace[] = [
    { type: 'call', action: { callType: 'call', from: A, to: B, value: '0x10', gas: '0x20000', input: '0xabcdef0102' }, result: { gasUsed: '0x10000', output: '0x' }, subtraces: 2, traceAddress: [], transactionHash: H1, transactionPosition: 0, blockHash: BH },
    { type: 'call', action: { callType: 'call', from: B, to: C, value: '0x5', gas: '0x100', input: '0x' }, result: { gasUsed: '0x50', output: '0x' }, subtraces: 0, traceAddress: [0], transactionHash: H1, transactionPosition: 0, blockHash: BH },
    { type: 'call', action: { callType: 'delegatecall', from: B, to: C, value: '0x0', gas: '0x100', input: '0x01' }, error: 'Bad jump destination', subtraces: 1, traceAddress: [1], transactionHash: H1, transactionPosition: 0, blockHash: BH },
    { type: 'call', action: { callType: 'call', from: B, to: A, value: '0x3', gas: '0x10', input: '0x' }, result: { gasUsed: '0x0', output: '0x' }, subtraces: 0, traceAddress: [1, 0], transactionHash: H1, transactionPosition: 0, blockHash: BH },
    { type: 'create', action: { from: A, value: '0x0', gas: '0x20000', init: '0x6080' }, error: 'Out of gas', subtraces: 0, traceAddress: [], transactionHash: H2, transactionPosition: 1, blockHash: BH },
    { type: 'reward', action: { author: C, rewardType: 'block', value: '0x1' }, result: null, subtraces: 0, traceAddress: [], transactionHash: null, transactionPosition: null },
  ];
  const tc = opts.traceCount ?? 2;
  s.add('eth_getBlockByNumber', ['0x64', true], block);
  s.add('eth_getBlockReceipts', ['0x64'], receipts);
  s.add('debug_traceBlockByNumber', ['0x64', { tracer: 'callTracer' }], frames.slice(0, tc).map((f) => ({ result: f })));
  s.add('trace_block', ['0x64'], parity.filter((p) => p.transactionPosition == null || p.transactionPosition < tc));
}

t.test('traces: callTracer and parity give the same rows through the worker', async (t) => {
  const s = await server(t);
  synthetic(s);
  const geth = await ingest(task(s.url, 100, 100, { traces: 'callTracer' }));
  const parity = await ingest(task(s.url, 100, 100, { traces: 'parity', rpc: { url: s.url, variant: 'erigon', maxRetries: 1 } }));
  for (const name of TABLE_NAMES) {
    if (name === 'block_rewards') continue; // only trace_block reports them: below
    t.equal(Buffer.from(parity.tables[name]).toString(), Buffer.from(geth.tables[name]).toString(), `${name}: identical bytes`);
  }
  // The miner's reward (trace_block's 1 wei) plus the fees (all priority fees before London);
  // the callTracer run cannot know this pre-merge block's reward: no row rather than fees alone.
  t.same(objects(parity, 'block_rewards'), [{ block_number: 100, address_type: 'validator', address: C, reward: String(1 + 2 * 0x10000 * 2) }]);
  t.same(objects(geth, 'block_rewards'), []);
  const its = objects(geth, 'internal_transactions');
  t.same(
    its.map((r) => [r.transaction_index, r.trace_index, r.trace_address, r.type, r.call_type, r.value, r.error]),
    [
      [0, 0, [], 'call', 'call', '16', ''],
      [0, 1, [0], 'call', 'call', '5', ''],
      [0, 2, [1], 'call', 'delegatecall', '0', 'Bad jump destination'],
      [0, 3, [1, 0], 'call', 'call', '3', ''],
      [1, 0, [], 'create', '', '0', 'Out of gas'],
    ],
  );
  // A top-level frame's input equal to its transaction's (calldata, init code) is stored once, in
  // transactions: the frame keeps the marker; frames below the top level keep theirs.
  t.same(its.map((r) => r.input), [ROOT_INPUT_FROM_TX, '0x', '0x01', '0x', ROOT_INPUT_FROM_TX]);
  const txs = objects(geth, 'transactions');
  t.same(txs.map((x) => [x.internal_count, x.error, x.status, x.created_contract]), [
    [3, '', 1, ''],
    [0, 'Out of gas', 0, NEW],
  ]);
  t.equal(rows(geth, 'address_internal_transactions').length, 6, 'from+to of the 3 internal frames');
  t.equal(geth.summary.internalTxs, 3);
  // Value transfers: tx value 16, internal 5; not the 3 wei under the reverted frame; not the failed tx.
  t.same(
    geth.summary.valueTransfers.map((v) => [v.kind, v.from, v.to, v.value, v.traceIndex]),
    [
      ['native', B, C, '5', 1],
      ['native', A, B, '16', null],
    ],
  );
  t.same(geth.summary.createdContracts, [], 'the failed creation created nothing');
  const block = objects(geth, 'blocks')[0]!;
  t.equal(block.priority_fees, String(2 * 0x10000 * 2), 'pre-London: all fees are priority fees');
  t.equal(block.burnt_fees, '0');
});

t.test('inconsistent node data throws a clear error', async (t) => {
  const cases: [string, Parameters<typeof synthetic>[1], Partial<IngestTask>, RegExp][] = [
    ['receipt count', { receiptCount: 1 }, {}, /block 100: 1 receipts for 2 transactions/],
    ['receipt hash', { badHash: true }, {}, /block 100: receipt 1 is for 0x1111/],
    ['callTracer count', { traceCount: 1 }, { traces: 'callTracer' }, /block 100: traces for 1 transactions, block has 2/],
    ['parity count', { traceCount: 1 }, { traces: 'parity' }, /block 100: no trace for transaction 1/],
  ];
  for (const [name, opts, extra, re] of cases) {
    const s = await server(t);
    synthetic(s, opts);
    const err = await ingest(task(s.url, 100, 100, extra)).catch((e: unknown) => e);
    t.type(err, ChainDataError, name);
    t.match((err as Error).message, re, name);
  }
  const s = await server(t);
  synthetic(s);
  await t.rejects(ingest(task(s.url, 100, 101)), /no recorded response/, 'a missing block fails the whole range');
});

t.test('through a piscina pool, table buffers are moved to the main thread', async (t) => {
  const s = await server(t);
  synthetic(s);
  const pool = new Piscina({ filename: new URL('../workers/ingest.js', import.meta.url).href, maxThreads: 1, minThreads: 1 });
  t.teardown(() => pool.destroy());
  const result = (await pool.run(task(s.url, 100, 100, { traces: 'callTracer' }))) as IngestResult;
  t.type(result.tables.transactions, Uint8Array);
  t.equal(objects(result, 'transactions').length, 2);
  t.equal(objects(result, 'internal_transactions').length, 5);
  t.same(result.blocks.map((b) => b.number), [100]);
  t.equal(result.summary.txs, 2);
  // The default export also works in-thread (the movable wrapper unwraps to the same value).
  const direct = await ingestTask(task(s.url, 100, 100));
  t.ok(direct, 'callable directly');
});
