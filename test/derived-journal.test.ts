// The accounting journal keeps the last TAIL blocks' changes (what a reorg may reverse) and drops
// the rest as the cursor moves: a process's first step drops everything below its cut (whatever an
// earlier process left), later steps only the blocks since the previous cut.
import t from 'tap';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { applyAccounting, journalCut, type AccountingChanges } from '../src/storage/postgres/derived.js';
import { tmpDir } from './helpers/tmp.js';

const TAIL = 16;
const A = `0x${'a'.repeat(40)}`;

const step = (block: number): AccountingChanges => ({
  to: { blockNumber: block, blockHash: `0x${block.toString(16).padStart(64, '0')}` },
  seen: [], tokens: [], nftInstances: [], balances: [], owners: [], supplyChanged: [], creations: [], selfDestructs: [], touched: [], sample: [],
  counters: [{ block, kind: 'addr_tx', key: A, delta: 1n }],
});

t.test('the journal keeps the tail and drops the rest, step by step', async (t) => {
  const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  await migrateAll(stores);
  const pg = stores.pg;
  await pg.query('INSERT INTO addresses (hash, first_seen_block) VALUES ($1, 0)', [A]);
  const blocks = async () => (await pg.query<{ b: string }>('SELECT DISTINCT block_number::text AS b FROM derived_journal ORDER BY 1')).map((r) => Number(r.b));

  // Left by an earlier process (or an earlier release): far below any cut.
  await pg.query("INSERT INTO derived_journal (block_number, kind, key, delta) VALUES (3, 'addr_tx', $1, 1), (40, 'addr_tx', $1, 1)", [A]);
  let floor: number | null = null;
  for (let b = 100; b <= 140; b++) {
    await pg.tx((c) => applyAccounting(c, step(b), TAIL, floor));
    floor = journalCut(b, TAIL);
    const kept = await blocks();
    if (b === 100) t.same(kept, [100], 'the first step drops all that is below its cut, whoever left it');
    const lowest = Math.max(100, b - TAIL + 1);
    if (kept[0] !== lowest || kept.length !== b - lowest + 1) {
      t.fail(`after block ${b}: ${kept.join(',')}`);
      return;
    }
  }
  t.same(await blocks(), Array.from({ length: TAIL }, (_, i) => 140 - TAIL + 1 + i), `after 41 steps: exactly the last ${TAIL} blocks`);

  // A rewind to block 130 takes the journal above it back; the next steps' cuts are below the
  // floor of the last one (nothing to drop) until the cursor passes it again.
  await pg.query('DELETE FROM derived_journal WHERE block_number > 130');
  for (let b = 131; b <= 150; b++) {
    await pg.tx((c) => applyAccounting(c, step(b), TAIL, floor));
    floor = Math.max(floor!, journalCut(b, TAIL));
  }
  t.same(await blocks(), Array.from({ length: TAIL }, (_, i) => 150 - TAIL + 1 + i), 'after the rewind and 20 more steps: the last 16 blocks');
  const [n] = await pg.query<{ tx: string }>('SELECT tx_count::text AS tx FROM addresses WHERE hash = $1', [A]);
  t.equal(n.tx, String(41 + 20), 'every step counted once');
});
