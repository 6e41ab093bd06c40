// Block rewards (Blockscout's `rewards` of a block): the rules of src/chain/rewards.ts on real
// mainnet `trace_block` reward traces; a pre-merge block with a block and an uncle reward through
// the whole indexer and API (trace_block variant) in both the list and the single-block form,
// against Blockscout's OpenAPI schema; post-merge blocks already stored before the table existed
// get their miner's reward from the migration; resume/reorg deletes remove reward rows too.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blockRewards } from '../src/chain/rewards.js';
import { parityBlockTraces } from '../src/chain/traces.js';
import { decodeBlock } from '../src/chain/blocks.js';
import { TableWriter } from '../src/chain/clickhouse-encode.js';
import type { ParityTrace, RpcBlock, RpcTransaction } from '../src/chain/wire.js';
import { deleteChainRowsFrom, insertChainRows } from '../src/storage/clickhouse/chain.js';
import { splitStatements } from '../src/storage/migrate.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { etl, etlResult, fixturesMissing, PROJECT_ROOT } from './helpers/fixtures.js';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';

const missing = fixturesMissing();
const ETH = 10n ** 18n;

/** The reward traces of a recorded trace_block response. */
function rewardTraces(dir: string, file: string): ParityTrace[] {
  const all = etlResult<ParityTrace[]>(dir, file);
  const txCount = new Set(all.filter((x) => x.transactionPosition != null).map((x) => x.transactionPosition)).size;
  return parityBlockTraces(all, txCount).rewards;
}

t.test('rules, on real trace_block reward traces', { skip: missing }, async (t) => {
  const P = 123_456_789n; // the block's priority fees
  // Blocks 1000000, 1000690, 1000895, 1011973 and 2112234 (Frontier/Homestead): 5 ETH to the miner.
  for (const [dir, file] of [
    ['test_export_traces_job/block_with_subtraces', 'web3_response.trace_block_0xf4240.json'],
    ['test_export_traces_job/block_with_create', 'web3_response.trace_block_0xf44f2.json'],
    ['test_export_traces_job/block_with_error', 'web3_response.trace_block_0xf45bf.json'],
    ['test_export_traces_job/block_with_suicide', 'web3_response.trace_block_0xf7105.json'],
    ['test_stream/blocks_2112234_2112234', 'web3_response.trace_block_0x203aea.json'],
  ] as const) {
    const traces = rewardTraces(dir, file);
    t.equal(traces.length, 1, `${dir}: one reward trace`);
    const miner = traces[0]!.action.author!.toLowerCase();
    const rows = blockRewards({ block_number: traces[0]!.blockNumber!, miner, difficulty: 1n, priorityFees: P, rewardTraces: traces });
    t.same(rows, [{ block_number: traces[0]!.blockNumber, address_type: 'validator', address: miner, reward: (5n * ETH + P).toString() }], `${dir}: static reward + the fees`);
  }

  // Block 508110: the miner also mined the included uncle. The "block" value already holds the
  // inclusion bonus (5 + 5/32 ETH); the uncle's reward (3.75 ETH) is its own row.
  const r508110 = rewardTraces('test_stream/blocks_508110_508110', 'web3_response.trace_block_0x7c0ce.json');
  const pool = '0x2a65aca4d5fc5b5c859090a6c34d164135398226';
  t.same(blockRewards({ block_number: 508110, miner: pool, difficulty: 0x6fa2d4dee52n, priorityFees: P, rewardTraces: r508110 }), [
    { block_number: 508110, address_type: 'validator', address: pool, reward: (5_156_250_000_000_000_000n + P).toString() },
    { block_number: 508110, address_type: 'uncle', address: pool, reward: '3750000000000000000' },
  ]);

  // Before the merge without reward traces (callTracer, trace_replayBlockTransactions, traces
  // off): the static reward is unknown, so nothing, not the fees alone.
  t.same(blockRewards({ block_number: 508110, miner: pool, difficulty: 1n, priorityFees: P, rewardTraces: undefined }), []);
  // A proof-of-authority chain's trace_block reporting no reward: nothing was minted, and the
  // miner's fee share is not known to be a reward either (Blockscout lists none).
  t.same(blockRewards({ block_number: 7, miner: pool, difficulty: 2n, priorityFees: P, rewardTraces: [] }), []);
  // After the merge (difficulty 0): the priority fees, with or without traces.
  for (const rewardTraces of [undefined, []]) {
    t.same(blockRewards({ block_number: 18_000_000, miner: pool, difficulty: 0n, priorityFees: P, rewardTraces }), [
      { block_number: 18_000_000, address_type: 'validator', address: pool, reward: P.toString() },
    ]);
  }
  t.same(blockRewards({ block_number: 18_000_000, miner: pool, difficulty: 0n, priorityFees: 0n, rewardTraces: undefined })[0]!.reward, '0', 'an empty block: a known 0');
  t.same(blockRewards({ block_number: 18_000_000, miner: pool, difficulty: 0n, priorityFees: null, rewardTraces: undefined }), [], 'receipts not fetched: unknown');
  t.same(blockRewards({ block_number: 0, miner: pool, difficulty: 0n, priorityFees: 0n, rewardTraces: undefined }), [], 'genesis paid nothing');

  // POA "external" rewards: by position (validator, emission funds, validator...); one row per
  // (type, address), uncle rewards of one address summed; a rewardType Blockscout does not list is left out.
  const rw = (author: string, rewardType: string, value: string): ParityTrace =>
    ({ type: 'reward', action: { author, rewardType, value }, subtraces: 0, traceAddress: [] }) as ParityTrace;
  const A = '0x00000000000000000000000000000000000000aa';
  const B = '0x00000000000000000000000000000000000000bb';
  const C = '0x00000000000000000000000000000000000000cc';
  t.same(
    blockRewards({ block_number: 9, miner: A, difficulty: 1n, priorityFees: 5n, rewardTraces: [rw(A, 'external', '0x10'), rw(B, 'external', '0x20'), rw(C, 'external', '0x30')] }).map((r) => [r.address_type, r.address, r.reward]),
    [['validator', A, '21'], ['validator', C, '48'], ['emission_funds', B, '32']],
  );
  t.same(
    blockRewards({ block_number: 9, miner: A, difficulty: 1n, priorityFees: 0n, rewardTraces: [rw(A, 'block', '0x1'), rw(B, 'uncle', '0x2'), rw(B, 'uncle', '0x3'), rw(C, 'emptyStep', '0x4')] }).map((r) => [r.address_type, r.address, r.reward]),
    [['validator', A, '1'], ['uncle', B, '5']],
  );
});

/** Block 508110 as a node would serve it with full transactions: the recorded header, the two
 * transactions rebuilt from their recorded traces (from, to, value, gas, input, hash). Not
 * recorded, so chosen: the gas prices and nonces. Gas used is the header's: the second is a
 * plain transfer to an account without code (21,000), the first uses the rest. */
function block508110() {
  const dir = etl('test_stream', 'blocks_508110_508110');
  const header = JSON.parse(readFileSync(join(dir, 'web3_response.eth_getBlockByNumber_0x7c0ce_false.json'), 'utf8')).result as RpcBlock<string>;
  const traces = JSON.parse(readFileSync(join(dir, 'web3_response.trace_block_0x7c0ce.json'), 'utf8')).result as ParityTrace[];
  const top = traces.filter((x) => x.transactionPosition != null && x.traceAddress.length === 0);
  const gasPrice = [50_000_000_000n, 20_000_000_000n];
  const gasUsed = [BigInt(header.gasUsed) - 21_000n, 21_000n];
  const txs: RpcTransaction[] = top.map((x, i) => ({
    hash: x.transactionHash!,
    nonce: '0x0',
    blockHash: header.hash,
    blockNumber: header.number,
    transactionIndex: `0x${i}`,
    from: x.action.from!,
    to: x.type === 'create' ? null : x.action.to!,
    value: x.action.value!,
    gas: i === 0 ? `0x${(gasUsed[0]! + 100_000n).toString(16)}` : '0x5208',
    gasPrice: `0x${gasPrice[i]!.toString(16)}`,
    input: x.type === 'create' ? x.action.init! : x.action.input!,
  }) as unknown as RpcTransaction);
  let cumulative = 0n;
  const receipts = txs.map((tx, i) => {
    cumulative += gasUsed[i]!;
    return {
      transactionHash: tx.hash,
      transactionIndex: `0x${i}`,
      blockHash: header.hash,
      blockNumber: header.number,
      from: tx.from,
      to: tx.to,
      gasUsed: `0x${gasUsed[i]!.toString(16)}`,
      cumulativeGasUsed: `0x${cumulative.toString(16)}`,
      contractAddress: i === 0 ? top[0]!.result!.address : null,
      logs: [],
      root: '0x' + '00'.repeat(32),
    };
  });
  const fees = gasUsed[0]! * gasPrice[0]! + gasUsed[1]! * gasPrice[1]!;
  return { header, full: { ...header, transactions: txs }, receipts, fees };
}

t.test('a pre-merge block with block and uncle rewards, indexed from trace_block, served by the API', { skip: missing }, async (t) => {
  const { header, full, receipts, fees } = block508110();
  const node = await startReplayRpc({ load: [etl('test_stream', 'blocks_508110_508110')] });
  t.teardown(() => node.close());
  node.handle('eth_blockNumber', () => ({ result: header.number }));
  node.add('eth_getBlockByNumber', [header.number, true], { result: full });
  for (const r of receipts) node.add('eth_getTransactionReceipt', [r.transactionHash], { result: r });
  for (const m of ['debug_traceBlockByNumber', 'trace_replayBlockTransactions']) node.disable(m);

  const stores = await embeddedStores(t);
  const ix = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: node.url, variant: 'erigon' }, firstBlock: 508110, workers: 1, pollMs: 50, pending: false });
  await ix.start();
  t.teardown(() => ix.stop());
  await ix.waitFor(508110, 60_000);
  t.ok(node.calls('trace_block') > 0, 'indexed with trace_block');

  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 16 });
  const get = async (p: string) => {
    const reply = await app.handle(request(p));
    return { status: reply.status, body: JSON.parse(typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8')) };
  };
  const one = await get('/api/v2/blocks/508110');
  t.equal(one.status, 200);
  t.same(one.body.rewards, [
    { reward: (5_156_250_000_000_000_000n + fees).toString(), type: 'Miner Reward' },
    { reward: '3750000000000000000', type: 'Uncle Reward' },
  ], 'single block: labels, the miner paid the static reward (with the inclusion bonus) and the fees');
  // Before London there is no priority fee (Blockscout: null); every fee went to the miner.
  t.equal(one.body.priority_fee, null);
  t.equal(one.body.transaction_fees, fees.toString());
  t.same(one.body.uncles_hashes, [{ hash: header.uncles![0] }]);
  const list = await get('/api/v2/blocks');
  t.same(list.body.items[0].rewards, [
    { reward: (5_156_250_000_000_000_000n + fees).toString(), type: 'validator' },
    { reward: '3750000000000000000', type: 'uncle' },
  ], 'lists: Blockscout address types');
  const main = await get('/api/v2/main-page/blocks');
  t.same(main.body[0].rewards, list.body.items[0].rewards, 'main page as the list');
  const doc = loadOpenApi();
  if (doc) {
    t.same(validate(doc, responseSchema(doc, '/v2/blocks/{block_hash_or_number_param}'), one.body), [], 'the block passes its schema');
    t.same(validate(doc, responseSchema(doc, '/v2/blocks'), list.body), [], 'the list passes its schema');
  }
});

t.test('stored blocks: the migration adds post-merge miners\' rewards; deletes above a height remove rewards', async (t) => {
  const stores = await embeddedStores(t);
  const ch = stores.ch;
  const blk = (n: number, difficulty: string, baseFee: string | null) =>
    decodeBlock(
      {
        number: `0x${n.toString(16)}`, hash: `0x${n.toString(16).padStart(64, '0')}`, parentHash: '0x' + '00'.repeat(32), timestamp: '0x1',
        miner: '0x00000000000000000000000000000000000000aa', size: '0x1', gasLimit: '0x1c9c380', gasUsed: '0x5208', difficulty,
        baseFeePerGas: baseFee ?? undefined, extraData: '0x', stateRoot: '0x', transactionsRoot: '0x', receiptsRoot: '0x', sha3Uncles: '0x',
        nonce: '0x0000000000000000', mixHash: '0x', uncles: [], transactions: [],
      } as unknown as RpcBlock<RpcTransaction>,
      null,
      { burnt: BigInt(`0x5208`) * BigInt(baseFee ?? '0x0'), priority: BigInt(n) * 1000n },
    );
  // Blocks stored without reward rows (as before 0004): two post-merge, one pre-merge, genesis.
  const w = new TableWriter();
  for (const b of [blk(0, '0x0', '0x1'), blk(5, '0x1', null), blk(6, '0x0', '0x7'), blk(7, '0x0', '0x7')]) w.add('blocks', b);
  await insertChainRows(ch, w.toBuffers());
  w.release();
  const sql = readFileSync(join(PROJECT_ROOT, 'sql', 'clickhouse', '0004_block_rewards.sql'), 'utf8');
  const rewards = () => ch.query<{ block_number: string; address_type: string; address: string; reward: string }>('SELECT * FROM block_rewards ORDER BY block_number');
  for (let run = 0; run < 2; run++) {
    for (const stmt of splitStatements(sql)) await ch.command(stmt);
    t.same(await rewards(), [
      { block_number: '6', address_type: 'validator', address: '0x00000000000000000000000000000000000000aa', reward: '6000' },
      { block_number: '7', address_type: 'validator', address: '0x00000000000000000000000000000000000000aa', reward: '7000' },
    ], `run ${run + 1}: the miners of post-merge blocks get their priority fees; pre-merge and genesis nothing; a rerun adds nothing`);
  }
  await deleteChainRowsFrom(ch, 7);
  t.same((await rewards()).map((r) => r.block_number), ['6'], 'rows from the height up are gone');
});
