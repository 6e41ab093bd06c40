// Real mainnet blocks 1,755,634-1,755,635 (pre-London, pre-merge; ethereum-etl's recorded blocks
// and receipts) replayed with no trace method, through the indexer and the API: no base fee, so
// no priority fee (Blockscout: null), while every fee still counts in transaction_fees; no
// reward trace, so the block's reward is unknown and none is listed. The receipts carry `root`, no
// `status` (pre-Byzantium), so with no trace each transaction's outcome is unknown too: the
// Etherscan-style API, API v2 and the web UI say so rather than claim a success.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { etl, fixturesMissing } from './helpers/fixtures.js';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import type { RpcReceipt } from '../src/chain/wire.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';

const missing = fixturesMissing();

t.test('a pre-London, pre-Byzantium block: priority_fee null, fees counted, no reward or outcome known', { skip: missing }, async (t) => {
  const dir = etl('test_stream', 'blocks_1755634_1755635');
  const receipts = ['0x2e3dcd051a91d3a694f6b8de2ac4b5fe7acdba55f58bcf8471ff00d4a430074d', '0x9a5437ec71b74ecf5930b406908ac6999966d38a86d1534b7190ece7599095eb'].map(
    (h) => JSON.parse(readFileSync(join(dir, `web3_response.eth_getTransactionReceipt_${h}.json`), 'utf8')).result as RpcReceipt,
  );
  const fees = receipts.reduce((s, r) => s + BigInt(r.effectiveGasPrice!) * BigInt(r.gasUsed), 0n);

  const node = await startReplayRpc({ load: [dir] });
  t.teardown(() => node.close());
  node.handle('eth_blockNumber', () => ({ result: '0x1ac9f3' }));
  for (const m of ['trace_block', 'debug_traceBlockByNumber', 'trace_replayBlockTransactions']) node.disable(m);
  const stores = await embeddedStores(t);
  const ix = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: node.url, variant: 'geth' }, firstBlock: 1_755_634, workers: 1, pollMs: 50, pending: false });
  await ix.start();
  t.teardown(() => ix.stop());
  await ix.waitFor(1_755_635, 60_000);

  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 16 });
  const get = async (p: string) => {
    const reply = await app.handle(request(p));
    return JSON.parse(typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8'));
  };
  const b = await get('/api/v2/blocks/1755635');
  t.equal(b.base_fee_per_gas, null);
  t.equal(b.priority_fee, null, 'no base fee: no priority fee');
  t.equal(b.transaction_fees, fees.toString(), 'every fee paid');
  t.same(b.rewards, [], 'pre-merge without reward traces: the reward is not known');
  const list = await get('/api/v2/blocks');
  t.same(list.items.map((x: { height: number; priority_fee: unknown }) => [x.height, x.priority_fee]), [[1755635, null], [1755634, null]], 'lists too');
  for (const r of receipts) {
    const tx = await get(`/api/v2/transactions/${r.transactionHash}`);
    t.equal(tx.priority_fee, null, 'the same block\'s transactions already say null');
  }
  const doc = loadOpenApi();
  if (doc) t.same(validate(doc, responseSchema(doc, '/v2/blocks/{block_hash_or_number_param}'), b), [], 'the block passes its schema');

  // Pre-Byzantium receipts carry `root`, no `status`, and no trace was indexed: the outcome is
  // unknown, and every answer says so (Etherscan's "" for an unknown status, null, "Unknown").
  const ui = createUi({ api: inProcessClient(app.handle), coin: 'ETH', log: createLogger('ui') });
  const page = async (p: string) => {
    const reply = await ui.handle(request(p));
    t.equal(reply.status, 200, p);
    return (typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8')).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
  };
  for (const r of receipts) {
    t.ok(r.root && r.status === undefined, 'a receipt without status');
    const tx = await get(`/api/v2/transactions/${r.transactionHash}`);
    t.equal(tx.status, null, 'API v2: status unknown');
    const [row] = (await get(`/api?module=account&action=txlist&address=${r.from}`)).result.filter((x: { hash: string }) => x.hash === r.transactionHash);
    t.same([row.txreceipt_status, row.isError], ['', ''], 'txlist: neither success nor failure');
    t.same((await get(`/api?module=transaction&action=getstatus&txhash=${r.transactionHash}`)).result, { isError: '', errDescription: '' }, 'getstatus');
    t.same((await get(`/api?module=transaction&action=gettxreceiptstatus&txhash=${r.transactionHash}`)).result, { status: '' }, 'gettxreceiptstatus');
    t.equal((await get(`/api?module=transaction&action=gettxinfo&txhash=${r.transactionHash}`)).result.success, null, 'gettxinfo: success null');
    const text = await page(`/tx/${r.transactionHash}`);
    t.match(text, /Status Unknown \(its receipt carries no status, as before Byzantium, and no trace of it is indexed\)/, 'the page says unknown, and why');
    t.notMatch(text, /awaiting/i, 'never "awaiting", which would not resolve');
  }
  t.same(
    await get('/api?module=block&action=getblockreward&blockno=1755635'),
    { status: '0', message: 'Block reward is not known for this block', result: null },
    'getblockreward claims no number it does not know',
  );
  t.match(await page('/block/1755635'), /Reward Unknown \(the node gives no reward traces\)/, 'the block page says the reward is unknown');
  t.match(await page('/blocks'), /unknown/, 'so does the blocks list');
});
