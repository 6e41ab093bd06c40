// AccountingLag (src/api/accounting-lag.ts): which addresses the accounting lane's rows answer for
// at a standing. At the checkpoint all, far behind none, a few blocks behind every address the
// unapplied blocks do not name; the names read once per standing, not trusted when the stored
// blocks are not exactly the checkpoint's branch, and read again after a failed read.
import t from 'tap';
import { AccountingLag, LAG_BLOCKS_MAX } from '../../../src/api/accounting-lag.js';
import type { ClickHouseStore } from '../../../src/storage/clickhouse/store.js';
import type { AccountingStanding } from '../../../src/storage/postgres/reads/addresses.js';

const A = '0x' + 'a'.repeat(40);
const B = '0x' + 'b'.repeat(40);
const C = '0x' + 'c'.repeat(40);

/** A ClickHouse whose blocks and named addresses the test sets, counting the reads of names. */
function fakeClickHouse(state: { blocks: { number: number; hash: string }[]; named: string[]; fail?: boolean }) {
  let reads = 0;
  const ch = {
    query: async (sql: string, p: { a: number; b: number }) => {
      if (state.fail) throw new Error('ClickHouse is away');
      if (sql.includes('SELECT DISTINCT address')) {
        reads++;
        return state.named.map((address) => ({ address }));
      }
      return state.blocks.filter((b) => b.number >= p.a && b.number <= p.b).map((b) => ({ number: String(b.number), hash: b.hash }));
    },
  } as unknown as ClickHouseStore;
  return { ch, reads: () => reads };
}

const standing = (lane: number | null, checkpoint: number, hash = `h${checkpoint}`): AccountingStanding => ({
  lane,
  checkpoint: { number: checkpoint, hash },
  current: lane !== null && lane >= checkpoint,
});
const blocks = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ number: from + i, hash: `h${from + i}` }));

t.test('at the checkpoint every address, far behind none, without a read', async (t) => {
  const f = fakeClickHouse({ blocks: [], named: [A] });
  const lag = new AccountingLag(f.ch);
  t.equal((await lag.currentFor(standing(10, 10)))(A), true, 'at the checkpoint');
  t.equal((await lag.currentFor(standing(10 - LAG_BLOCKS_MAX - 1, 10)))(C), false, `more than ${LAG_BLOCKS_MAX} blocks behind`);
  t.equal((await lag.currentFor(standing(null, 10)))(C), false, 'the lane has applied nothing');
  t.equal(f.reads(), 0, 'no read');
});

t.test('a few blocks behind: the addresses those blocks do not name, read once per standing', async (t) => {
  const f = fakeClickHouse({ blocks: blocks(9, 10), named: [A, B] });
  const lag = new AccountingLag(f.ch);
  const current = await lag.currentFor(standing(8, 10));
  t.same([A, B, C].map(current), [false, false, true], 'named ones not current, the others current');
  await Promise.all([lag.currentFor(standing(8, 10)), lag.currentFor(standing(8, 10))]);
  t.equal(f.reads(), 1, 'the same standing: no new read');
  const next = fakeClickHouse({ blocks: blocks(9, 11), named: [A] });
  const lag2 = new AccountingLag(next.ch);
  t.same([A, B].map(await lag2.currentFor(standing(8, 11))), [false, true], 'two blocks behind');
  t.same([A, B].map(await lag2.currentFor(standing(9, 11))), [false, true], 'the lane moved: read again');
  t.equal(next.reads(), 2);
});

t.test('stored blocks that are not the checkpoint branch: none, kept for that standing', async (t) => {
  const state = { blocks: [...blocks(9, 10), { number: 10, hash: 'other' }], named: [A] };
  const f = fakeClickHouse(state);
  const lag = new AccountingLag(f.ch);
  t.equal((await lag.currentFor(standing(8, 10)))(C), false, 'two hashes at a height (a reorg being written): none');
  state.blocks = blocks(9, 10);
  t.equal((await lag.currentFor(standing(8, 10)))(C), false, 'the same standing keeps that answer');
  t.equal(f.reads(), 1, 'without a new read');
  t.equal((await lag.currentFor(standing(8, 10, 'another')))(C), false, "the newest stored block is not the checkpoint's");
  t.equal((await lag.currentFor(standing(7, 10)))(C), false, 'a height missing');
  const twice = new AccountingLag(fakeClickHouse({ blocks: [...blocks(9, 10), ...blocks(10, 10)], named: [A] }).ch);
  t.equal((await twice.currentFor(standing(8, 10)))(C), true, 'a block stored twice with one hash: trusted');
});

t.test('a failed read: none, and read again next time', async (t) => {
  const state = { blocks: blocks(9, 10), named: [A], fail: true };
  const f = fakeClickHouse(state);
  const lag = new AccountingLag(f.ch);
  t.equal((await lag.currentFor(standing(8, 10)))(C), false, 'failed: none');
  state.fail = false;
  t.equal((await lag.currentFor(standing(8, 10)))(C), true, 'then read again');
  t.equal(f.reads(), 1);
});
