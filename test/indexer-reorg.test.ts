// Reorgs on anvil: index a branch, revert to a snapshot, mine a different branch; the orphaned
// rows disappear, the new branch is indexed, nothing is doubled.
import t, { type Test } from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { rpc, sendMined } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { pointRowsMatchChain } from './helpers/points.js';
import { createIndexer, type ReorgEvent } from '../src/indexer/indexer.js';


const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const send = (url: string, to: string, value: number) => sendMined(url, { from: FROM, to, value: `0x${value.toString(16)}` });
const A = '0x000000000000000000000000000000000000aaaa';
const B = '0x000000000000000000000000000000000000bbbb';
const C = '0x000000000000000000000000000000000000cccc';

t.test('a reorg rewinds to the common ancestor and indexes the new branch', async (t) => {
  const anvil = await withAnvil(t);
  const url = anvil.url;
  for (let i = 0; i < 3; i++) await send(url, C, 1 + i); // blocks 1-3: shared
  const snap = await rpc<string>(url, 'evm_snapshot');
  for (let i = 0; i < 3; i++) await send(url, A, 100 + i); // blocks 4-6: branch A
  const stores = await embeddedStores(t);
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant: 'anvil' }, batchBlocks: 2, workers: 1, pollMs: 50, pending: false });
  const reorgs: ReorgEvent[] = [];
  indexer.on('reorg', (e) => reorgs.push(e));
  await indexer.start();
  t.teardown(() => indexer.stop());
  await indexer.waitFor(6);
  const before = await stores.ch.query<{ n: string }>(`SELECT count() AS n FROM transactions WHERE to = '${A}'`);
  t.equal(before[0].n, '3', 'branch A indexed');

  // A longer branch B replaces blocks 4-6.
  await rpc(url, 'evm_revert', [snap]);
  for (let i = 0; i < 4; i++) await send(url, B, 200 + i); // blocks 4-7
  await indexer.waitFor(7);
  await waitUntil(() => indexer.committed === 7 && reorgs.length > 0);
  t.same(reorgs[0], { ancestor: 3, orphanedTo: 6 }, 'rewound to the common ancestor');
  await checkMatchesNode(t, stores, url, 7);
  for (const table of ['transactions', 'address_transactions']) {
    const col = table === 'transactions' ? 'to' : 'address';
    const a = await stores.ch.query<{ n: string }>(`SELECT count() AS n FROM ${table} WHERE ${col} = '${A}'`);
    t.equal(a[0].n, '0', `orphaned rows gone from ${table}`);
  }
  const b = await stores.ch.query<{ n: string }>(`SELECT count() AS n FROM transactions WHERE to = '${B}'`);
  t.equal(b[0].n, '4', 'branch B indexed once');

  // A same-height reorg: block 7 is replaced by a sibling, so no new height triggers catch-up.
  t.equal(Number(await rpc<string>(url, 'eth_blockNumber')), 7);
  await rpc(url, 'anvil_rollback', [1]);
  t.equal(Number(await rpc<string>(url, 'eth_blockNumber')), 6, 'node rolled back to 6');
  {
    await send(url, C, 999); // a different block 7
    // Under load anvil may answer before the block is there: wait for it.
    let newTip = '';
    await waitUntil(async () => {
      newTip = (await rpc<{ hash: string } | null>(url, 'eth_getBlockByNumber', ['0x7', false]))?.hash ?? '';
      return newTip !== '';
    });
    await waitUntil(async () => {
      const cp = await stores.pg.query<{ hash: string }>('SELECT block_hash AS hash FROM indexer_checkpoints');
      return cp[0].hash === newTip;
    });
    t.equal(reorgs.length, 2, 'the sibling at the same height was noticed');
    await checkMatchesNode(t, stores, url, 7);
    const c999 = await stores.ch.query<{ n: string }>(`SELECT count() AS n FROM transactions WHERE value = '999'`);
    t.equal(c999[0].n, '1');
    const b7 = await stores.ch.query<{ n: string }>(`SELECT count() AS n FROM transactions WHERE to = '${B}'`);
    t.equal(b7[0].n, '3', 'the replaced block 7 is gone');
  }
});

async function waitUntil(fn: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function checkMatchesNode(t: Test, stores: Awaited<ReturnType<typeof embeddedStores>>, url: string, head: number) {
  const stored = await stores.ch.query<{ number: string; hash: string }>('SELECT number, hash FROM blocks ORDER BY number');
  const node: string[] = [];
  for (let n = 0; n <= head; n++) node.push((await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).hash);
  t.same(stored.map((r) => r.hash), node, 'stored blocks are exactly the node chain');
  const dup = await stores.ch.query<{ n: string; u: string }>('SELECT count() AS n, uniqExact(hash) AS u FROM transactions');
  t.equal(dup[0].n, dup[0].u, 'no transaction doubled');
  const orphanTx = await stores.ch.query<{ n: string }>(
    `SELECT count() AS n FROM transactions WHERE block_hash NOT IN (SELECT hash FROM blocks)`,
  );
  t.equal(orphanTx[0].n, '0', 'no transaction of an orphaned block');
  await pointRowsMatchChain(t, stores);
}
