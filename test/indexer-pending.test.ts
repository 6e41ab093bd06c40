// The pending pool: transactions the node holds are stored with the time first seen, and removed
// once mined or dropped.
import t from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { rpc } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { createIndexer } from '../src/indexer/indexer.js';

const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const TO = '0x000000000000000000000000000000000000beef';

async function until(fn: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('pending transactions follow the node pool', async (t) => {
  const anvil = await withAnvil(t);
  const url = anvil.url;
  await rpc(url, 'eth_sendTransaction', [{ from: FROM, to: TO, value: '0x1' }]);
  const stores = await embeddedStores(t);
  const ix = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: true });
  await ix.start();
  t.teardown(() => ix.stop());
  await ix.waitFor(1);

  await rpc(url, 'evm_setAutomine', [false]);
  const h1 = await rpc<string>(url, 'eth_sendTransaction', [{ from: FROM, to: TO, value: '0x2' }]);
  const h2 = await rpc<string>(url, 'eth_sendTransaction', [{ from: FROM, to: TO, value: '0x3' }]);
  const pending = () => stores.pg.query<{ hash: string; value: string; first_seen_at: Date; to: string; nonce: number }>(
    'SELECT hash, value::text AS value, first_seen_at, "to", nonce FROM pending_transactions ORDER BY nonce',
  );
  await until(async () => (await pending()).length === 2);
  const rows = await pending();
  t.same(rows.map((r) => [r.hash, r.value, r.to, r.nonce]), [[h1, '2', TO, 1], [h2, '3', TO, 2]], 'both stored with their fields');
  const firstSeen = rows[0].first_seen_at.getTime();
  await new Promise((r) => setTimeout(r, 300));
  t.equal((await pending())[0].first_seen_at.getTime(), firstSeen, 'first-seen time is kept across polls');

  await rpc(url, 'anvil_dropTransaction', [h2]);
  await until(async () => (await pending()).length === 1);
  t.same((await pending()).map((r) => r.hash), [h1], 'a dropped transaction disappears');

  await rpc(url, 'evm_mine');
  await ix.waitFor(2);
  await until(async () => (await pending()).length === 0);
  const mined = await stores.ch.query<{ hash: string }>('SELECT hash FROM transactions WHERE block_number = 2');
  t.same(mined.map((r) => r.hash), [h1], 'the mined one is indexed and no longer pending');
});
