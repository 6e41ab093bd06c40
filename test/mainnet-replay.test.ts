// Real mainnet block 18,000,000 (post-merge) replayed with no trace method at all, through the
// indexer and the API: the block's reward is its miner's priority fees, computed here from the
// recorded receipts; failed transactions say what their receipts prove instead of waiting for
// internal transactions that will never be fetched. The same failed rows with all gas used, and
// with no status at all, through the serializer.
import t from 'tap';
import { fixturesMissing, mainnet18m } from './helpers/fixtures.js';
import { MAINNET_18M_DIR } from './helpers/fixtures.js';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { transactionByHash } from '../src/storage/clickhouse/reads/transactions.js';
import { transactionJson, type TxLookups } from '../src/api/serializers/transaction.js';
import type { RpcBlock, RpcReceipt, RpcTransaction } from '../src/chain/wire.js';

const missing = fixturesMissing();

t.test('block 18,000,000 without traces: rewards and failed transactions', { skip: missing }, async (t) => {
  const block = mainnet18m<RpcBlock<RpcTransaction>>('eth_getBlockByNumber');
  const receipts = mainnet18m<RpcReceipt[]>('eth_getBlockReceipts');
  const baseFee = BigInt(block.baseFeePerGas!);
  // The miner's income: what each transaction paid above the base fee.
  const priority = receipts.reduce((s, r) => s + (BigInt(r.effectiveGasPrice!) - baseFee) * BigInt(r.gasUsed), 0n);
  t.equal(priority, 30_697_207_500_857_250n, 'priority fees from the receipts');

  const node = await startReplayRpc({ load: [MAINNET_18M_DIR] });
  t.teardown(() => node.close());
  node.handle('eth_blockNumber', () => ({ result: block.number }));
  for (const m of ['trace_block', 'debug_traceBlockByNumber', 'trace_replayBlockTransactions']) node.disable(m);
  const stores = await embeddedStores(t);
  const ix = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: node.url, variant: 'geth' }, firstBlock: 18_000_000, workers: 1, pollMs: 50, pending: false });
  await ix.start();
  t.teardown(() => ix.stop());
  await ix.waitFor(18_000_000, 60_000);

  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 16 });
  const get = async (p: string) => {
    const reply = await app.handle(request(p));
    return { status: reply.status, body: JSON.parse(typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8')) };
  };

  const one = (await get('/api/v2/blocks/18000000')).body;
  t.same(one.rewards, [{ reward: priority.toString(), type: 'Miner Reward' }], 'single block: the miner reward is the priority fees');
  t.equal(one.priority_fee, priority.toString());
  t.equal(one.burnt_fees, (baseFee * BigInt(block.gasUsed)).toString());
  const list = (await get('/api/v2/blocks')).body;
  t.same(list.items[0].rewards, [{ reward: priority.toString(), type: 'validator' }], 'lists: the address type');
  const doc = loadOpenApi();
  if (doc) t.same(validate(doc, responseSchema(doc, '/v2/blocks/{block_hash_or_number_param}'), one), [], 'the block passes its schema');

  const failed = receipts.filter((r) => r.status === '0x0');
  t.equal(failed.length, 2, 'two failed transactions in the block');
  for (const r of failed) {
    const tx = (await get(`/api/v2/transactions/${r.transactionHash}`)).body;
    const gas = BigInt(block.transactions.find((x) => x.hash === r.transactionHash)!.gas);
    t.ok(BigInt(r.gasUsed) < gas, `${r.transactionHash}: gas was left over`);
    t.equal(tx.status, 'error');
    t.equal(tx.result, 'Reverted', 'unused gas handed back: only a REVERT does that');
    t.equal(tx.revert_reason, null, 'the revert data is in no receipt: unknown');
    if (doc) t.same(validate(doc, responseSchema(doc, '/v2/transactions/{transaction_hash_param}'), tx), [], 'the transaction passes its schema');
  }
  const listed: { hash: string; result: string }[] = [];
  for (let q = ''; ; ) {
    const page = (await get(`/api/v2/blocks/18000000/transactions${q}`)).body;
    listed.push(...page.items);
    if (!page.next_page_params) break;
    q = '?' + new URLSearchParams(page.next_page_params).toString();
  }
  t.equal(listed.length, 94, 'every transaction listed');
  t.same(
    listed.filter((x) => failed.some((r) => r.transactionHash === x.hash)).map((x) => x.result),
    ['Reverted', 'Reverted'],
    'the same in lists',
  );

  // What the receipt cannot tell: a failure that used all its gas, and no status at all.
  const row = (await transactionByHash(stores.ch, failed[0]!.transactionHash))!;
  const lookups: TxLookups = {
    facts: new Map(),
    baseFees: new Map([[row.block_number, block.baseFeePerGas ? baseFee.toString() : null]]),
    internalErrors: null,
    revertOutputs: new Map(),
    tokens: new Set(),
    authorizations: new Map(),
    head: 18_000_000n,
  };
  t.equal(transactionJson({ ...row, gas_used: row.gas }, lookups).result, 'error', 'all gas used: which failure is unknown');
  t.equal(transactionJson({ ...row, error: 'Out of gas' }, lookups).result, 'Out of gas', 'a stored trace error wins');
  t.equal(transactionJson({ ...row, status: null }, lookups).result, 'awaiting_internal_transactions', 'no status (pre-Byzantium): unknown');
});
