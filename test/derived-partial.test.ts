// Derived data when history is partial: indexing from FIRST_BLOCK > 0 through a node that keeps
// no historical state (a full node: state reads at past blocks refused as geth refuses them).
// Balances come from the node where it can answer (coin balances at its head, token balances by
// balanceOf once the lanes are near the head), the refusal is said once (log and indexing status),
// and the refused reads are not retried.
import t from 'tap';
import { withDevnet } from './helpers/devnet.js';
import { embeddedStores } from './helpers/stores.js';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createDerived } from '../src/derived/scheduler.js';
import { indexingStatus } from '../src/storage/indexing-status.js';
import { createLogger, type Logger } from '../src/log.js';

/** A JSON-RPC call relayed as is: the result, or the node's error object. */
async function relay(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  return body.error ? { error: body.error as { code: number; message: string } } : { result: body.result };
}

const FORWARDED = [
  'eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockReceipts', 'eth_getTransactionReceipt', 'trace_block',
  'debug_traceBlockByNumber', 'eth_getCode', 'txpool_content',
];

/** Warnings a logger received, for "said once". */
function recordingLogger(lines: string[]): Logger {
  const base = createLogger('derived').child('test');
  const make = (l: Logger): Logger => ({
    debug: l.debug,
    info: l.info,
    error: l.error,
    warn: (m, f) => {
      lines.push(m);
      l.warn(m, f);
    },
    child: (s) => make(l.child(s)),
  });
  return make(base);
}

t.test('FIRST_BLOCK > 0 through a node without historical state', async (t) => {
  const devnet = await withDevnet(t);
  const s = devnet.scenario;
  const up = devnet.url;
  const node = await startReplayRpc();
  t.teardown(() => node.close());
  for (const m of FORWARDED) node.handle(m, (params) => relay(up, m, params));
  // A full node keeps the state of its newest blocks only.
  const KEPT = 2;
  const stateAt = async (tag: unknown) => {
    if (typeof tag !== 'string' || !tag.startsWith('0x')) return true;
    const head = Number(await rpc<string>(up, 'eth_blockNumber'));
    return Number(tag) >= head - KEPT;
  };
  const refusal = { code: -32000, message: 'historical state 0x5c8f01e5a5a0d5e6b9a4b1c2d3e4f5061728394a5b6c7d8e9f00112233445566 is not available' };
  let balanceCalls = 0;
  node.handle('eth_getBalance', async (params) => {
    balanceCalls++;
    return (await stateAt(params[1])) ? relay(up, 'eth_getBalance', params) : { error: refusal };
  });
  node.handle('eth_call', async (params) => ((await stateAt(params[1])) ? relay(up, 'eth_call', params) : { error: refusal }));

  // History starts after the scenario's DevnetToken transactions: every balance they made
  // predates it. Then a holder with such a balance receives more (its stored sum stays positive,
  // so nothing but the check of a first-seen holder can notice), and passes some on.
  const first = s.txs.find((x) => x.label === 'erc20 burn bob 20 (by owner)')!.blockNumber + 1;
  const [owner, alice, , , , erin] = s.accounts;
  const word = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');
  const sendTx = async (from: string, to: string, data: string) => minedIn(up, await rpc<string>(up, 'eth_sendTransaction', [{ from, to, data }]));
  await sendTx(owner!, s.contracts.DevnetToken, `0x40c10f19${word(alice!)}${(5n * 10n ** 18n).toString(16).padStart(64, '0')}`); // mint(alice, 5)
  await sendTx(alice!, s.contracts.DevnetToken, `0xa9059cbb${word(erin!)}${(10n ** 18n).toString(16).padStart(64, '0')}`); // transfer(erin, 1)
  t.ok(first <= s.toBlock + 1);
  const stores = await embeddedStores(t);
  const indexer = createIndexer({
    ch: stores.ch,
    pg: stores.pg,
    rpc: { url: node.url, variant: 'anvil' },
    firstBlock: first,
    batchBlocks: 8,
    workers: 1,
    pollMs: 100,
    pending: false,
    log: createLogger('indexer').child('test'),
  });
  const warnings: string[] = [];
  const derived = createDerived({
    pg: stores.pg,
    ch: stores.ch,
    rpc: indexer.rpc,
    firstBlock: first,
    pollMs: 50,
    rangeBlocks: 16,
    allowPrivateMetadataHosts: true,
    nftTimeoutMs: 500,
    nftMaxAttempts: 1,
    // No random sample: only the checks this test is about.
    sampleSize: 0,
    log: recordingLogger(warnings),
  });
  derived.attach(indexer);
  t.teardown(async () => {
    await derived.stop();
    await indexer.stop();
  });
  await indexer.start();
  derived.start();
  const head = Number(await rpc<string>(up, 'eth_blockNumber'));
  await indexer.waitFor(head, 120_000);
  await derived.settle(120_000);

  // Token balances equal the node's balanceOf for every holder seen since FIRST_BLOCK.
  const token = s.contracts.DevnetToken.toLowerCase();
  const rows = await stores.pg.query<{ holder: string; value: string }>(
    "SELECT holder, value::text AS value FROM token_balances WHERE token = $1 AND token_id = ''",
    [token],
  );
  const held = new Map(rows.map((r) => [r.holder, BigInt(r.value)]));
  const holders = new Set<string>();
  for (const x of await stores.ch.query<{ from: string; to: string }>(
    `SELECT "from", "to" FROM token_transfers WHERE token_address = {t:String}`,
    { t: token },
  )) {
    for (const a of [x.from, x.to]) if (a !== `0x${'0'.repeat(40)}`) holders.add(a);
  }
  t.ok(holders.size >= 2, `${holders.size} holders seen since block ${first}`);
  for (const h of holders) {
    const onChain = BigInt(await rpc<string>(up, 'eth_call', [{ to: token, data: `0x70a08231${h.slice(2).padStart(64, '0')}` }, 'latest']));
    t.equal(held.get(h) ?? 0n, onChain, `${h}: stored balance = balanceOf (history before block ${first} included)`);
  }
  for (const [h, v] of held) t.ok(v > 0n, `${h}: no negative balance kept`);
  const [tok] = await stores.pg.query<{ holder_count: string }>('SELECT holder_count::text AS holder_count FROM tokens WHERE address = $1', [token]);
  t.equal(Number(tok.holder_count), [...held.values()].filter((v) => v > 0n).length, 'holder count = holders with a positive balance');

  // Coin balances: read at the head where the past block's state is refused.
  const addrs = await stores.pg.query<{ hash: string; coin_balance: string | null }>('SELECT hash, coin_balance::text AS coin_balance FROM addresses');
  t.ok(addrs.length > 5);
  for (const a of addrs) {
    t.equal(a.coin_balance, BigInt(await rpc<string>(up, 'eth_getBalance', [a.hash, 'latest'])).toString(), `${a.hash}: coin balance = the node's`);
  }

  // Said once, and not asked again.
  t.equal(warnings.filter((w) => w.includes('no historical state')).length, 1, 'one log line');
  const status = await indexingStatus(stores.pg, stores.ch);
  t.equal(status.details.partial.length, 2, 'the indexing status lists both reasons');
  t.match(status.details.partial[0], /history starts at block/);
  t.match(status.details.partial[1], /no historical state/);
  const calls = balanceCalls;
  t.ok(calls <= 3 * addrs.length, `${calls} eth_getBalance calls for ${addrs.length} addresses (no retry storm)`);
  await new Promise((r) => setTimeout(r, 2000));
  t.equal(balanceCalls, calls, 'no eth_getBalance retried once settled');
});
