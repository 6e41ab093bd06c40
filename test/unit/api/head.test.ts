// The stored head as the API knows it (ApiContext.head): read once however many requests ask at
// once, then moved by the block events with no read (the higher of the known head and the
// range's last block), read again after a reorg; a read that a block or a reorg overtook is not kept.
import t from 'tap';
import { ApiContext } from '../../../src/api/context.js';
import { createLogger } from '../../../src/log.js';
import type { ClickHouseStore } from '../../../src/storage/clickhouse/store.js';
import type { PgStore } from '../../../src/storage/postgres/store.js';

/** A ClickHouse whose stored head the test sets; each read waits for `release` when one is set. */
function fakeClickHouse(state: { head: number | null; gate?: Promise<void> }) {
  let reads = 0;
  const ch = {
    query: async (sql: string) => {
      if (!sql.includes('FROM blocks ORDER BY number DESC LIMIT 1')) throw new Error(`unexpected query: ${sql}`);
      reads++;
      const head = state.head;
      await state.gate;
      return head === null ? [] : [{ number: String(head) }];
    },
  } as unknown as ClickHouseStore;
  return { ch, reads: () => reads };
}

const context = (ch: ClickHouseStore) => {
  const ctx = new ApiContext({ ch, pg: {} as PgStore, log: createLogger('test') });
  ctx.setAttached(true);
  return ctx;
};

t.test('requests at once share one read; block events move the head with no read', async (t) => {
  const state = { head: 10 as number | null };
  const f = fakeClickHouse(state);
  const ctx = context(f.ch);
  t.same(await Promise.all([ctx.head(), ctx.head(), ctx.head()]), [10n, 10n, 10n], 'three requests at once');
  t.equal(f.reads(), 1, 'one read');
  state.head = 12;
  ctx.onChainChange('block', [], undefined, 12);
  t.equal(await ctx.head(), 12n, "a block event: its range's last block");
  ctx.onChainChange('block', [], undefined, 5);
  t.equal(await ctx.head(), 12n, 'a range filled below the head leaves it');
  ctx.onChainChange('block');
  t.equal(await ctx.head(), 12n, 'an event that does not say its range: read');
  t.equal(f.reads(), 2);
  state.head = 7;
  ctx.onChainChange('reorg');
  t.equal(await ctx.head(), 7n, 'a reorg: read again');
  t.equal(f.reads(), 3);
});

t.test('an empty store, and a block event before any read', async (t) => {
  const state = { head: null as number | null };
  const f = fakeClickHouse(state);
  const ctx = context(f.ch);
  ctx.onChainChange('block', [], undefined, 3);
  state.head = 3;
  t.equal(await ctx.head(), 3n, 'nothing known before the event: read');
  t.equal(f.reads(), 1);
  const empty = context(fakeClickHouse({ head: null }).ch);
  t.equal(await empty.head(), null, 'an empty store has no head');
  empty.onChainChange('block', [], undefined, 0);
  t.equal(await empty.head(), 0n, 'its first block');
});

t.test('a read a block event overtook is not kept', async (t) => {
  let release!: () => void;
  const state = { head: 10 as number | null, gate: new Promise<void>((r) => (release = r)) };
  const f = fakeClickHouse(state);
  const ctx = context(f.ch);
  const first = ctx.head();
  ctx.onChainChange('block', [], undefined, 11);
  state.head = 11;
  state.gate = Promise.resolve();
  release();
  t.equal(await first, 10n, 'the request that asked before the block gets what was read');
  t.equal(await ctx.head(), 11n, 'the next one does not get that older value: read again');
  t.equal(f.reads(), 2);
});

t.test('a failed read is not kept', async (t) => {
  let fail = true;
  const ch = {
    query: async () => {
      if (fail) throw new Error('ClickHouse is away');
      return [{ number: '4' }];
    },
  } as unknown as ClickHouseStore;
  const ctx = context(ch);
  await t.rejects(ctx.head(), /away/);
  fail = false;
  t.equal(await ctx.head(), 4n, 'read again');
});
