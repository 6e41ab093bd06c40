// The coin lane's queue (src/storage/postgres/lanes.ts): a step takes each address's pending
// (address, block) pairs as a run in chain order, so an address touched in every block keeps up
// with the chain; an address's later pairs are never taken while its earliest is held by a step
// or waits for a retry, by any process; a reading whose pair a rewind removed meanwhile is not
// saved as the balance.
import t from 'tap';
import { embeddedStores } from './helpers/stores.js';
import { claimCoinBalances, failCoinBalance, releaseCoinBalances, saveCoinBalances } from '../src/storage/postgres/lanes.js';

const A = `0x${'a'.repeat(40)}`;
const B = `0x${'b'.repeat(40)}`;
const C = `0x${'c'.repeat(40)}`;
const D = `0x${'d'.repeat(40)}`;

t.test('coin balance pairs are claimed as runs per address, in chain order', async (t) => {
  const stores = await embeddedStores(t);
  const pg = stores.pg;
  await pg.query("INSERT INTO indexer_checkpoints (lane, block_number, block_hash, updated_at) VALUES ('blocks', 1000, '0x00', now())");
  await pg.query('INSERT INTO addresses (hash, first_seen_block) VALUES ($1, 0), ($2, 0), ($3, 0), ($4, 0)', [A, B, C, D]);
  // A in every block 1-40, B in 5-7, C in 3 but its balance is being restored after a reorg.
  await pg.query('INSERT INTO coin_balance_pending (address, block_number) SELECT $1, generate_series(1, 40)', [A]);
  await pg.query('INSERT INTO coin_balance_pending (address, block_number) VALUES ($1, 5), ($1, 6), ($1, 7), ($2, 3)', [B, C]);
  await pg.query('UPDATE addresses SET coin_balance_block = -1 WHERE hash = $1', [C]);
  const pairs = (rows: { address: string; block_number: number }[]) => rows.map((r) => `${r.address.slice(2, 3)}${r.block_number}`);

  const first = await claimCoinBalances(pg, 30, 10, 16);
  t.same(pairs(first), [...Array.from({ length: 16 }, (_, i) => `a${i + 1}`), 'b5', 'b6', 'b7'], 'A: its first 16 blocks in order; B: all three; C: none while restoring');
  t.same(await claimCoinBalances(pg, 30, 10, 16), [], 'nothing more while the earliest pairs are held');

  // The step read A up to block 8, failed at 9: 1-8 saved, 9 waits for a retry, 10-16 go back.
  const done = Array.from({ length: 8 }, (_, i) => ({ address: A, block: i + 1, value: String(100 + i), changed: true }));
  const kept = await saveCoinBalances(pg, done);
  t.equal(kept.size, 8, 'the eight readings saved');
  await failCoinBalance(pg, A, 9, 0);
  await releaseCoinBalances(pg, first.filter((p) => p.address === A && p.block_number > 9));
  t.same(
    await pg.query('SELECT coin_balance::text AS v, coin_balance_block::int AS b FROM addresses WHERE hash = $1', [A]),
    [{ v: '107', b: 8 }],
    "A's balance is its latest reading's",
  );
  t.same(await claimCoinBalances(pg, 30, 10, 16), [], "A's later blocks wait while its block 9 waits for a retry");
  await pg.query('UPDATE coin_balance_pending SET next_at = now() WHERE address = $1 AND block_number = 9', [A]);
  const again = await claimCoinBalances(pg, 12, 10, 16);
  t.same(pairs(again), ['a9', 'a10', 'a11', 'a12'], 'once due, the run starts at block 9 again, up to the highest block asked');
  await releaseCoinBalances(pg, again);

  // Two steps at once (two processes): each address's run goes to one of them, whole.
  await releaseCoinBalances(pg, first.filter((p) => p.address === B));
  await pg.query('INSERT INTO coin_balance_pending (address, block_number) SELECT $1, generate_series(1, 20)', [D]);
  const [x, y] = await Promise.all([claimCoinBalances(pg, 40, 1, 16), claimCoinBalances(pg, 40, 1, 16)]);
  const owners = new Map<string, string[]>();
  for (const [who, rows] of [['x', x], ['y', y]] as const) for (const r of rows) owners.set(r.address, [...(owners.get(r.address) ?? []), who]);
  for (const [addr, who] of owners) t.equal(new Set(who).size, 1, `${addr.slice(0, 4)}…: claimed by one step only`);
  t.equal(new Set([...x, ...y].map((r) => `${r.address}|${r.block_number}`)).size, x.length + y.length, 'no pair twice');
});

t.test("a reading whose pair a rewind removed is not an address's balance", async (t) => {
  const stores = await embeddedStores(t);
  const pg = stores.pg;
  await pg.query("INSERT INTO indexer_checkpoints (lane, block_number, block_hash, updated_at) VALUES ('blocks', 1000, '0x00', now())");
  await pg.query('INSERT INTO addresses (hash, first_seen_block, coin_balance, coin_balance_block) VALUES ($1, 0, 5, 4)', [A]);
  await pg.query('INSERT INTO coin_balance_pending (address, block_number) VALUES ($1, 6), ($1, 7)', [A]);
  // The claim took 6, 7 and 8; a rewind to 7 removed 8's pair (the lane's unwind) before the save.
  const kept = await saveCoinBalances(pg, [
    { address: A, block: 6, value: '6', changed: true },
    { address: A, block: 7, value: '7', changed: true },
    { address: A, block: 8, value: '8', changed: true },
  ]);
  t.same([...kept].sort(), [`${A}|6`, `${A}|7`], 'kept: the two pairs still pending');
  t.same(await pg.query('SELECT coin_balance::text AS v, coin_balance_block::int AS b FROM addresses WHERE hash = $1', [A]), [{ v: '7', b: 7 }], 'the balance is the surviving reading at 7');
  t.same(await pg.query('SELECT count(*)::int AS n FROM coin_balance_pending'), [{ n: 0 }], 'no pair left');
});
