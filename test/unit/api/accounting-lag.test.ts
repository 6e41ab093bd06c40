// AccountingLag (src/api/accounting-lag.ts): which addresses the accounting lane's rows answer for
// at a standing. At the checkpoint all, far behind none, a few blocks behind every address the
// unapplied blocks do not name; the names read once per standing, not trusted when the stored
// blocks are not exactly the checkpoint's branch, and read again after a failed read. In the
// process that indexes, the block events' names (learn) stand in for the read when they cover
// the unapplied blocks on the checkpoint's branch, and what they say of the addresses they name
// (coverage's `unapplied`) is known only then.
import t from 'tap';
import { AccountingLag, LAG_BLOCKS_MAX } from '../../../src/api/accounting-lag.js';
import { NAMED, type RangeNames } from '../../../src/chain/named-addresses.js';
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
/** The two halves of AccountingLag.coverage, as the API asks for them. */
const currentFor = async (lag: AccountingLag, s: AccountingStanding) => (await lag.coverage(s)).current;
const unappliedFacts = async (lag: AccountingLag, s: AccountingStanding) => (await lag.coverage(s)).unapplied;
const blocks = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ number: from + i, hash: `h${from + i}` }));

t.test('at the checkpoint every address, far behind none, without a read', async (t) => {
  const f = fakeClickHouse({ blocks: [], named: [A] });
  const lag = new AccountingLag(f.ch);
  t.equal((await currentFor(lag, standing(10, 10)))(A), true, 'at the checkpoint');
  t.equal((await currentFor(lag, standing(10 - LAG_BLOCKS_MAX - 1, 10)))(C), false, `more than ${LAG_BLOCKS_MAX} blocks behind`);
  t.equal((await currentFor(lag, standing(null, 10)))(C), false, 'the lane has applied nothing');
  t.equal(f.reads(), 0, 'no read');
});

t.test('a few blocks behind: the addresses those blocks do not name, read once per standing', async (t) => {
  const f = fakeClickHouse({ blocks: blocks(9, 10), named: [A, B] });
  const lag = new AccountingLag(f.ch);
  const current = await currentFor(lag, standing(8, 10));
  t.same([A, B, C].map(current), [false, false, true], 'named ones not current, the others current');
  await Promise.all([currentFor(lag, standing(8, 10)), currentFor(lag, standing(8, 10))]);
  t.equal(f.reads(), 1, 'the same standing: no new read');
  const next = fakeClickHouse({ blocks: blocks(9, 11), named: [A] });
  const lag2 = new AccountingLag(next.ch);
  t.same([A, B].map(await currentFor(lag2, standing(8, 11))), [false, true], 'two blocks behind');
  t.same([A, B].map(await currentFor(lag2, standing(9, 11))), [false, true], 'the lane moved: read again');
  t.equal(next.reads(), 2);
});

t.test('stored blocks that are not the checkpoint branch: none, kept for that standing', async (t) => {
  const state = { blocks: [...blocks(9, 10), { number: 10, hash: 'other' }], named: [A] };
  const f = fakeClickHouse(state);
  const lag = new AccountingLag(f.ch);
  t.equal((await currentFor(lag, standing(8, 10)))(C), false, 'two hashes at a height (a reorg being written): none');
  state.blocks = blocks(9, 10);
  t.equal((await currentFor(lag, standing(8, 10)))(C), false, 'the same standing keeps that answer');
  t.equal(f.reads(), 1, 'without a new read');
  t.equal((await currentFor(lag, standing(8, 10, 'another')))(C), false, "the newest stored block is not the checkpoint's");
  t.equal((await currentFor(lag, standing(7, 10)))(C), false, 'a height missing');
  const twice = new AccountingLag(fakeClickHouse({ blocks: [...blocks(9, 10), ...blocks(10, 10)], named: [A] }).ch);
  t.equal((await currentFor(twice, standing(8, 10)))(C), true, 'a block stored twice with one hash: trusted');
});

t.test('a failed read: none, and read again next time', async (t) => {
  const state = { blocks: blocks(9, 10), named: [A], fail: true };
  const f = fakeClickHouse(state);
  const lag = new AccountingLag(f.ch);
  t.equal((await currentFor(lag, standing(8, 10)))(C), false, 'failed: none');
  state.fail = false;
  t.equal((await currentFor(lag, standing(8, 10)))(C), true, 'then read again');
  t.equal(f.reads(), 1);
});

/** The block event of range [from, to] on the `h<n>` branch, naming `named` (and saying `facts` of them). */
const event = (from: number, to: number, named: string[], hash = (n: number) => `h${n}`, facts: Partial<RangeNames> = {}) => ({
  from,
  to,
  parentHash: hash(from - 1),
  hash: hash(to),
  named: { addresses: named, kinds: named.map(() => 0), created: [], selfDestructed: [], tokens: [], ...facts },
});

t.test("the block events' names: no read when they cover the unapplied blocks", async (t) => {
  const f = fakeClickHouse({ blocks: blocks(9, 12), named: [A, B, C] });
  const lag = new AccountingLag(f.ch);
  lag.learn(event(9, 9, [A]));
  lag.learn(event(10, 11, [B]));
  lag.learn(event(12, 12, []));
  t.same([A, B, C].map(await currentFor(lag, standing(8, 12))), [false, false, true], 'four blocks behind: the names of three events');
  t.same([A, B, C].map(await currentFor(lag, standing(10, 12))), [true, false, true], 'the lane inside a two-block event: that event still counts (a superset)');
  t.same([A, B, C].map(await currentFor(lag, standing(11, 12))), [true, true, true], 'one block behind, naming nothing');
  t.equal(f.reads(), 0, 'no ClickHouse read');
});

t.test("the events' names are not used unless they are the checkpoint's branch, whole", async (t) => {
  const f = fakeClickHouse({ blocks: blocks(9, 11), named: [A, B] });
  const gap = new AccountingLag(f.ch);
  gap.learn(event(9, 9, [A]));
  gap.learn(event(11, 11, []));
  t.same([B, C].map(await currentFor(gap, standing(8, 11))), [false, true], 'a height no event told: read from ClickHouse');
  t.equal(f.reads(), 1);

  const other = new AccountingLag(f.ch);
  other.learn(event(10, 11, []));
  t.same([B].map(await currentFor(other, standing(9, 11, 'elsewhere'))), [false], "the newest event is not the checkpoint's block: read");
  t.equal(f.reads(), 2);

  const broken = new AccountingLag(f.ch);
  broken.learn(event(10, 10, []));
  broken.learn(event(11, 11, [], (n) => (n === 10 ? 'x10' : `h${n}`)));
  t.same([B].map(await currentFor(broken, standing(9, 11))), [false], 'an event that does not continue the one before: read');
  t.equal(f.reads(), 3);

  const forgot = new AccountingLag(f.ch);
  forgot.learn(event(10, 11, []));
  forgot.forget();
  t.same([B].map(await currentFor(forgot, standing(9, 11))), [false], 'after a reorg nothing learned before counts: read');
  t.equal(f.reads(), 4);

  const replaced = new AccountingLag(f.ch);
  replaced.learn(event(10, 11, [C], (n) => `o${n}`));
  replaced.learn(event(10, 11, []));
  t.same([B, C].map(await currentFor(replaced, standing(9, 11))), [true, true], 'a range told again (another branch) replaces the first');
  t.equal(f.reads(), 4, 'without a read');
});

t.test("what the events say of the named addresses: merged over the unapplied blocks, known only from events", async (t) => {
  const f = fakeClickHouse({ blocks: blocks(9, 12), named: [A, B, C] });
  const lag = new AccountingLag(f.ch);
  lag.learn(event(9, 9, [A, B], undefined, { kinds: [NAMED.SENT | NAMED.SEEN, NAMED.LOGGED], tokens: [[B, 'ERC-20']] }));
  lag.learn(
    event(10, 11, [A, C], undefined, {
      kinds: [NAMED.TRANSFERRED, NAMED.SEEN],
      created: [{ address: C, creator: A, tx: '0x01', block: 10 }],
      selfDestructed: [B],
      tokens: [[B, 'ERC-721']],
    }),
  );
  lag.learn(event(12, 12, [C], undefined, { created: [{ address: C, creator: B, tx: '0x02', block: 12 }] }));
  const u = await unappliedFacts(lag, standing(8, 12));
  t.ok(u, 'known from the events');
  t.equal(u!.kinds.get(A), NAMED.SENT | NAMED.SEEN | NAMED.TRANSFERRED, "an address's bits over the blocks, OR-ed");
  t.equal(u!.kinds.get(B), NAMED.LOGGED);
  t.same(u!.created.get(C), { address: C, creator: A, tx: '0x01', block: 10 }, 'the first creation of an address');
  t.same([...u!.selfDestructed], [B]);
  t.equal(u!.tokens.get(B), 'ERC-20', "a token's first standard");
  t.equal(f.reads(), 0, 'no ClickHouse read');
  t.equal(await unappliedFacts(lag, standing(12, 12)), null, 'at the checkpoint: nothing unapplied');
  t.equal(await unappliedFacts(lag, standing(12 - LAG_BLOCKS_MAX - 1, 12)), null, 'too far behind');

  const read = new AccountingLag(f.ch);
  read.learn(event(12, 12, [C]));
  t.equal(await unappliedFacts(read, standing(8, 12)), null, 'names read from ClickHouse: no facts (the named addresses are proven there)');
  t.same([A, B].map(await currentFor(read, standing(8, 12))), [false, false], 'and the names are the read ones');
  t.equal(f.reads(), 1, 'one read for both');
});
