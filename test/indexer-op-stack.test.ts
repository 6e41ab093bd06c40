// An OP Stack chain (anvil --network optimism, its default base fee): deposit transactions (type
// 0x7e, effective gas price 0) are indexed with the chain's own fee arithmetic (they burn nothing
// and add nothing negative), and a block the indexer cannot store is said: in the log at error
// level, in the indexing status and in the health check, not retried in silence; once the node
// answers sanely again the index moves on and the report clears.
import t from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { embeddedStores } from './helpers/stores.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { request } from './helpers/api.js';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger, type Logger } from '../src/log.js';
import { indexingStatus } from '../src/storage/indexing-status.js';

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TO = '0x70997970c51812dc3a10c7e51e229cad500079c8';
/** A user of the L2, not the depositor: anvil's pool keys transactions by sender and nonce, and a deposit takes its sender's. */
const USER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const PROXIED = ['eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockReceipts', 'eth_getTransactionReceipt', 'debug_traceBlockByNumber'];

/** Error lines a logger received (and passes on). */
function recordingLogger(lines: string[]): Logger {
  const base = createLogger('indexer').child('test');
  return {
    debug: base.debug,
    info: base.info,
    warn: base.warn,
    error: (m, f) => {
      lines.push(`${m} ${JSON.stringify(f ?? {})}`);
      base.error(m, f);
    },
    child: () => recordingLogger(lines),
  };
}

t.test('OP Stack deposits are indexed; a block that cannot be stored is reported, then recovered', async (t) => {
  const anvil = await withAnvil(t, { extraArgs: ['--network', 'optimism'] });
  const node = anvil.url;
  const deposit = (sourceByte: string) =>
    rpc<string>(node, 'eth_sendTransaction', [
      { from: FROM, to: TO, value: '0x1', type: '0x7e', sourceHash: `0x${sourceByte.repeat(32)}`, mint: '0x0', isSystemTx: false, gas: '0x5208' },
    ]);
  const transfer = () => rpc<string>(node, 'eth_sendTransaction', [{ from: USER, to: TO, value: '0x2' }]);

  // Block 1: a deposit alone. Block 2: a deposit and a user's transfer (every OP block carries its
  // L1-attributes deposit). Block 3: a transfer alone.
  // Each automined send waits for its block: anvil can answer before mining it (a CI run read
  // block 3 before it existed).
  const depositAlone = await deposit('01');
  await minedIn(node, depositAlone);
  await rpc(node, 'evm_setAutomine', [false]);
  const depositFirst = await deposit('02');
  const userTx = await transfer();
  await rpc(node, 'evm_mine', []);
  await rpc(node, 'evm_setAutomine', [true]);
  await minedIn(node, await transfer());
  const blocks = await Promise.all([1, 2, 3].map((n) => rpc<any>(node, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])));
  t.same(blocks.map((b) => b.transactions.length), [1, 2, 1], 'the blocks as planned');
  const receipt = await rpc<any>(node, 'eth_getTransactionReceipt', [depositAlone]);
  t.equal(receipt.effectiveGasPrice, '0x0', 'a deposit pays nothing');
  t.ok(BigInt(blocks[0].baseFeePerGas) > 0n, 'under a non-zero base fee (the stall of issue #29)');
  const userReceipt = await rpc<any>(node, 'eth_getTransactionReceipt', [userTx]);
  // Blocks 4 and 5, for the unstorable block below.
  await minedIn(node, await transfer());
  await minedIn(node, await transfer());
  const head = Number(await rpc<string>(node, 'eth_blockNumber'));

  // A node in front of anvil that answers block 4 with a value no transaction can have (2^256):
  // the rows fail to encode, as the negative priority fee of a deposit block did.
  const proxy = await startReplayRpc();
  t.teardown(() => proxy.close());
  let broken = true;
  for (const m of PROXIED) proxy.handle(m, async (params) => ({ result: await rpc(node, m, params) }));
  proxy.handle('eth_getBlockByNumber', async (params) => {
    const b = await rpc<any>(node, 'eth_getBlockByNumber', params);
    if (broken && b && Number(b.number) === 4 && typeof b.transactions[0] === 'object') b.transactions[0].value = `0x1${'0'.repeat(64)}`;
    return { result: b };
  });

  const stores = await embeddedStores(t);
  const errors: string[] = [];
  const ix = createIndexer({
    ch: stores.ch, pg: stores.pg, pending: false, batchBlocks: 1, workers: 1, pollMs: 50,
    rpc: { url: proxy.url, variant: 'geth', timeoutMs: 2000, maxRetries: 1 },
    log: recordingLogger(errors),
  });
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 0 });
  const detach = app.attach(ix);
  t.teardown(async () => {
    detach();
    await ix.stop();
  });
  const get = async (path: string) => {
    const reply = await app.handle(request(path));
    const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    return { status: reply.status, body: text ? JSON.parse(text) : undefined };
  };
  await ix.start();
  await ix.waitFor(3, 60_000);

  // The fees, as the chain computes them.
  const baseFee = BigInt(blocks[1].baseFeePerGas);
  const b1 = await get('/api/v2/blocks/1');
  t.equal(b1.status, 200, 'the deposit block is indexed');
  t.equal(b1.body.burnt_fees, '0', 'a deposit burns nothing');
  t.equal(b1.body.priority_fee, '0', 'and pays no priority fee (never a negative one)');
  const b2 = await get('/api/v2/blocks/2');
  const egp = BigInt(userReceipt.effectiveGasPrice);
  const gas = BigInt(userReceipt.gasUsed);
  t.equal(b2.body.burnt_fees, (baseFee * gas).toString(), 'only the user transaction burns its base fee');
  t.equal(b2.body.priority_fee, ((egp - baseFee) * gas).toString(), 'and tips the rest');
  const dtx = await get(`/api/v2/transactions/${depositAlone}`);
  t.equal(dtx.status, 200);
  t.match(dtx.body, { fee: { value: '0' }, transaction_burnt_fee: '0', priority_fee: '0', type: 126, status: 'ok' }, 'the deposit transaction');
  t.match((await get(`/api/v2/transactions/${depositFirst}`)).body, { block_number: 2, fee: { value: '0' }, transaction_burnt_fee: '0' }, 'the deposit beside a user transaction');

  // Block 4 cannot be stored: the index stops before it, and says so everywhere.
  const deadline = Date.now() + 60_000;
  let status = await indexingStatus(stores.pg, stores.ch);
  while ((status.details.indexer_error?.attempts ?? 0) < 3 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    status = await indexingStatus(stores.pg, stores.ch);
  }
  t.equal(ix.committed, 3, 'nothing past the unstorable block is committed');
  t.match(status.details.indexer_error, { from: 4, to: 4, error: /UInt256/ }, 'the indexing status names the block and the error');
  t.ok(status.details.indexer_error!.attempts >= 3, 'with the attempts so far');
  t.notMatch(status.details.indexer_error!.error, /127\.0\.0\.1/, 'without the node\'s address');
  t.ok(errors.some((l) => /indexing is stuck/.test(l) && /"from":4/.test(l)), 'the log says it at error level');
  const health = await get('/api/health/readiness');
  t.equal(health.status, 503, 'the health check fails');
  t.match(health.body.checks.indexer, { ok: false, error: /cannot index blocks 4-4 .*UInt256/ }, 'saying why');
  const banner = await get('/api/v2/main-page/indexing-status');
  t.match(banner.body.details.indexer_error, { from: 4 }, 'the public status answer carries it');

  // The node answers sanely again: the index moves on and the report clears.
  broken = false;
  await ix.waitFor(head, 90_000);
  await ix.stop();
  t.equal((await indexingStatus(stores.pg, stores.ch)).details.indexer_error, null, 'the report is cleared');
  const after = await get('/api/health/readiness');
  t.equal(after.status, 200, 'healthy again');
});
