// A reorg deeper than the shared catch-up's safety depth, while two indexer processes (two
// Indexers here, each with its own PostgreSQL session and pool, as two processes have) are in the
// middle of the catch-up: ranges of the orphaned branch are planned, claimed or stored above the
// checkpoint. The leader must rewind to the common ancestor, drop every planned range and its
// rows, and index the new branch: the stored chain is then exactly the node's, nothing doubled,
// nothing of the orphaned branch left, and the plan empty.
import t from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { rpc, sendMined } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { pointRowsMatchChain } from './helpers/points.js';
import { createIndexer, type ReorgEvent } from '../src/indexer/indexer.js';
import { IndexerSession } from '../src/storage/postgres/backfill-ranges.js';

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const A = '0x000000000000000000000000000000000000aaaa';
const B = '0x000000000000000000000000000000000000bbbb';
const send = (url: string, to: string, value: number) => sendMined(url, { from: FROM, to, value: `0x${value.toString(16)}` });

async function waitUntil(what: string, fn: () => boolean | Promise<boolean>, ms = 60_000, state?: () => Promise<unknown>): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    // What the processes had done by then, so that a failure says where they stood.
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${state ? `: ${JSON.stringify(await state())}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('a reorg below the safety depth during a shared catch-up', async (t) => {
  const anvil = await withAnvil(t);
  const url = anvil.url;
  for (let i = 0; i < 5; i++) await send(url, B, 1 + i); // blocks 1-5: shared by both branches
  const snap = await rpc<string>(url, 'evm_snapshot');
  // Branch A: 200 blocks, a transaction to A every 10.
  for (let i = 0; i < 20; i++) {
    await rpc(url, 'anvil_mine', ['0x9']);
    await send(url, A, 100 + i);
  }
  const stores = await embeddedStores(t);
  // The standby starts after the leader: this session stands for it meanwhile (a leader alone
  // would catch up in-process, without ranges).
  const presence = new IndexerSession(stores.pg, 'test-presence');
  await presence.connect();
  t.teardown(() => presence.close());
  const make = () =>
    createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant: 'anvil' }, batchBlocks: 4, workers: 1, pollMs: 50, pending: false, claimRanges: 2, groupWaitMs: 0 });
  const leader = make();
  const reorgs: ReorgEvent[] = [];
  leader.on('reorg', (e) => reorgs.push(e));
  await leader.start();
  t.teardown(() => leader.stop());
  await waitUntil('the first to lead', async () => (await stores.pg.query("SELECT 1 FROM indexer_facts WHERE name = 'indexer_leader'")).length === 1);
  const standby = make();
  await standby.start();
  t.teardown(() => standby.stop());

  // Mid catch-up: some of branch A committed, ranges of it planned above the checkpoint.
  await waitUntil('part of branch A committed', () => (leader.committed ?? -1) >= 40);
  const planned = await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM backfill_ranges');
  t.ok(planned[0].n > 0, `ranges of branch A planned above the checkpoint (${planned[0].n}) when the node reorganises`);

  // Branch B replaces everything above block 5, longer than A.
  await rpc(url, 'evm_revert', [snap]);
  let last = '';
  for (let i = 0; i < 25; i++) {
    await rpc(url, 'anvil_mine', ['0x9']);
    last = await send(url, B, 200 + i);
  }
  // The head is the block of the last transaction: anvil may answer eth_sendTransaction before
  // that block is mined, and eth_blockNumber read then is one short (a CI run waited for 254
  // while the indexer was, rightly, at 255).
  let receipt: { blockNumber: string } | null = null;
  await waitUntil('the last transaction of branch B mined', async () => (receipt = await rpc<{ blockNumber: string } | null>(url, 'eth_getTransactionReceipt', [last])) !== null);
  const head = Number(receipt!.blockNumber);
  t.equal(Number(await rpc<string>(url, 'eth_blockNumber')), head, `branch B: ${head} blocks, the last with the last transaction`);
  t.ok(head > 205, 'longer than branch A');
  await waitUntil('the leader at the head of branch B', async () => {
    const cp = await stores.pg.query<{ block_hash: string; block_number: number }>("SELECT block_number, block_hash FROM indexer_checkpoints WHERE lane = 'blocks'");
    const tip = await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [`0x${head.toString(16)}`, false]);
    return Number(cp[0]?.block_number) === head && cp[0].block_hash === tip.hash;
  }, 90_000, async () => ({
    checkpoint: (await stores.pg.query("SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks'"))[0],
    ranges: await stores.pg.query('SELECT state, count(*)::int AS n, min(from_block) AS lowest FROM backfill_ranges GROUP BY state'),
    reorgs,
    leader: leader.stats,
    standby: standby.stats,
  }));

  t.ok(reorgs.length >= 1, 'the leader saw a reorg');
  t.equal(reorgs[0]?.ancestor, 5, 'and rewound to the common ancestor');
  const stored = await stores.ch.query<{ number: string; hash: string }>('SELECT number, hash FROM blocks ORDER BY number');
  const node: string[] = [];
  for (let n = 0; n <= head; n++) node.push((await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).hash);
  t.same(stored.map((r) => r.hash), node, 'stored blocks are exactly the node chain, each once');
  const tx = await stores.ch.query<{ n: string; u: string; a: string; b: string }>(
    `SELECT count() AS n, uniqExact(hash) AS u, countIf(to = '${A}') AS a, countIf(to = '${B}') AS b FROM transactions`,
  );
  t.same(tx[0], { n: '30', u: '30', a: '0', b: '30' }, 'branch B transactions once each, none of branch A');
  const orphan = await stores.ch.query<{ n: string }>('SELECT count() AS n FROM transactions WHERE block_hash NOT IN (SELECT hash FROM blocks)');
  t.equal(orphan[0].n, '0', 'no row of an orphaned block');
  t.same(await stores.pg.query('SELECT from_block FROM backfill_ranges'), [], 'nothing left planned');
  await pointRowsMatchChain(t, stores);
});
