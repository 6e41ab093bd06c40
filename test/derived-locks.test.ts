// The accounting lane's counters and the coin lane's balances update the same `addresses` rows,
// many per transaction. Taken in different orders they deadlocked now and then (PostgreSQL
// "deadlock detected"); both now lock the rows in key order first. Here they run against each
// other many times over the same addresses, in opposite orders: every transaction must commit.
import t from 'tap';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { applyAccounting, type AccountingChanges } from '../src/storage/postgres/derived.js';
import { saveCoinBalances } from '../src/storage/postgres/lanes.js';
import { tmpDir } from './helpers/tmp.js';

t.test('accounting counters and coin balances on the same addresses never deadlock', async (t) => {
  const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  await migrateAll(stores);
  const pg = stores.pg;
  const addrs = Array.from({ length: 300 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
  await pg.query("INSERT INTO indexer_checkpoints (lane, block_number, block_hash, updated_at) VALUES ('blocks', 1000000, '0x00', now())");
  await pg.query('INSERT INTO addresses (hash, first_seen_block) SELECT unnest($1::text[]), 0', [addrs]);
  const changes = (block: number, order: string[]): AccountingChanges => ({
    to: { blockNumber: block, blockHash: `0x${block.toString(16)}` },
    seen: [], tokens: [], nftInstances: [], balances: [], owners: [], supplyChanged: [], creations: [], selfDestructs: [], touched: [], sample: [],
    counters: order.flatMap((a) => [
      { block, kind: 'addr_tx' as const, key: a, delta: 1n },
      { block, kind: 'addr_gas' as const, key: a, delta: 21000n },
    ]),
  });
  const reversed = [...addrs].reverse();
  const rounds = 25;
  // Each reading saved has its pending pair, as the coin lane's do (a reading without one is
  // orphaned by a rewind and not saved).
  await pg.query('INSERT INTO coin_balance_pending (address, block_number) SELECT a, b FROM unnest($1::text[]) a, generate_series(1, $2::int) b', [addrs, rounds]);
  const outcomes = await Promise.allSettled(
    Array.from({ length: rounds }, (_, i) => [
      pg.tx((c) => applyAccounting(c, changes(i + 1, i % 2 ? addrs : reversed), 64)),
      saveCoinBalances(pg, (i % 2 ? reversed : addrs).map((a) => ({ address: a, block: i + 1, value: String(i + 1), changed: true }))),
    ]).flat(),
  );
  const failed = outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason?.message));
  t.same(failed, [], 'every transaction committed');
  const [r] = await pg.query<{ tx: string; gas: string; bal: string; blk: string }>(
    'SELECT min(tx_count)::text AS tx, max(gas_used)::text AS gas, min(coin_balance)::text AS bal, min(coin_balance_block)::text AS blk FROM addresses',
  );
  t.same(r, { tx: String(rounds), gas: String(rounds * 21000), bal: String(rounds), blk: String(rounds) }, 'and every change is there');
});
