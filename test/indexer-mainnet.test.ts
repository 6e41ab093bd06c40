// Real mainnet block 18,000,000 through the whole indexer (replayed node, no trace recording):
// 94 transactions, every log and every token transfer stored, checked against the raw receipts.
import t from 'tap';
import { join } from 'node:path';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { fixturesMissing, MAINNET_18M_DIR, readJson } from './helpers/fixtures.js';
import { embeddedStores } from './helpers/stores.js';
import { createIndexer } from '../src/indexer/indexer.js';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const SINGLE = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
const BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

const missing = fixturesMissing();
t.test('block 18,000,000 indexes completely', { skip: missing }, async (t) => {
  const node = await startReplayRpc({ load: [MAINNET_18M_DIR] });
  t.teardown(() => node.close());
  node.handle('eth_blockNumber', () => ({ result: '0x112a880' }));
  for (const m of ['trace_block', 'debug_traceBlockByNumber', 'trace_replayBlockTransactions']) node.disable(m);
  const receipts = readJson<{ response: { result: { logs: { topics: string[]; data: string }[]; status: string }[] } }[]>(
    join(MAINNET_18M_DIR, 'eth_getBlockReceipts.json'),
  )[0].response.result;
  const logs = receipts.flatMap((r) => r.logs);
  let transfers = 0;
  for (const l of logs) {
    const dataLen = (l.data.length - 2) / 2;
    if (l.topics[0] === TRANSFER && ((l.topics.length === 3 && dataLen === 32) || (l.topics.length === 4 && dataLen === 0))) transfers++;
    if (l.topics[0] === SINGLE) transfers++;
    if (l.topics[0] === BATCH) transfers += Number(BigInt('0x' + l.data.slice(2 + 64 * 2, 2 + 64 * 3)));
  }

  const stores = await embeddedStores(t);
  const ix = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: node.url, variant: 'geth' }, firstBlock: 18_000_000, workers: 1, pollMs: 50, pending: false });
  await ix.start();
  t.teardown(() => ix.stop());
  await ix.waitFor(18_000_000, 60_000);
  const n = async (sql: string) => Number((await stores.ch.query<{ n: string }>(sql))[0].n);
  t.equal(await n('SELECT count() AS n FROM blocks'), 1);
  t.equal(await n('SELECT count() AS n FROM transactions'), 94, '94 transactions');
  t.equal(receipts.length, 94);
  t.equal(await n('SELECT count() AS n FROM logs'), logs.length, `all ${logs.length} logs`);
  t.equal(await n('SELECT count() AS n FROM token_transfers'), transfers, `all ${transfers} token transfers`);
  t.equal(await n('SELECT countIf(status = 0) AS n FROM transactions'), receipts.filter((r) => r.status === '0x0').length, 'failed transactions');
  t.equal(await n("SELECT count() AS n FROM transactions WHERE fee = toUInt256(gas_used) * effective_gas_price AND fee > 0"), 94, 'fees');
});
