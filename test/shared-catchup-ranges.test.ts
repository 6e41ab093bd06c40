// The shared catch-up's claims against PostgreSQL (src/storage/postgres/backfill-ranges.ts,
// src/indexer/shared-catchup.ts), one process standing in for several: each IndexerSession is
// its own connection, as each process's is. Claims are disjoint and lowest first; a claimer whose
// session ends (its process died) loses its ranges to the next claimer at once, while a live
// claimer's are never taken; only the owner stores a range; the leader's lock waits for a claimer
// to finish; the leader commits only the contiguous stored prefix, re-opens a stored range whose
// rows are not in ClickHouse, and cannot move a checkpoint another process moved.
import t from 'tap';
import { embeddedStores } from './helpers/stores.js';
import { IndexerSession, listRanges, markStored, planRanges, reopenClaimed } from '../src/storage/postgres/backfill-ranges.js';
import { CHAIN_LANE, commitBlocks, getCheckpoint } from '../src/storage/postgres/indexer.js';
import { SharedCatchup } from '../src/indexer/shared-catchup.js';
import { createLogger } from '../src/log.js';
import type { BlockInfo, IngestSummary } from '../src/chain/bundle.js';

const LEASE = 30_000;

async function waitUntil(fn: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function blocksOf(from: number, to: number, parentOfFirst: string): BlockInfo[] {
  const out: BlockInfo[] = [];
  let parent = parentOfFirst;
  for (let n = from; n <= to; n++) {
    const hash = `0x${n.toString(16).padStart(64, '0')}`;
    out.push({ number: n, hash, parentHash: parent, timestamp: n, txCount: 0 });
    parent = hash;
  }
  return out;
}
const summary = { txs: 0, rows: {}, valueTransfers: [] } as unknown as IngestSummary;

t.test('claims, takeover, ownership and the leader', async (t) => {
  const stores = await embeddedStores(t);
  const a = new IndexerSession(stores.pg, 'proc-a');
  const b = new IndexerSession(stores.pg, 'proc-b');
  await a.connect();
  await b.connect();
  t.teardown(async () => {
    await a.close();
    await b.close();
  });

  t.ok(await a.tryLead(), 'the first session leads');
  t.notOk(await b.tryLead(), 'the second one is a standby');

  await planRanges(stores.pg, [0, 4, 8, 12, 16].map((f) => ({ from: f, to: f + 3 })));
  const ca = await a.claim(2, LEASE);
  const cb = await b.claim(2, LEASE);
  t.same(ca.map((c) => c.from), [0, 4], 'lowest first');
  t.same(cb.map((c) => c.from), [8, 12], 'disjoint from the other claimer');
  t.same((await a.claim(5, LEASE)).map((c) => c.from), [16], 'what is left');
  await a.unlock([16]);
  await reopenClaimed(stores.pg, 'proc-a', [16]);

  // A live claimer's ranges are not taken, however many are asked for.
  const c = new IndexerSession(stores.pg, 'proc-c');
  await c.connect();
  t.teardown(() => c.close());
  t.same((await c.claim(5, LEASE)).map((x) => x.from), [16], 'only the open range: the claimed ones are held');
  await c.unlock([16]);

  // Only the owner stores a range.
  const lost = await markStored(stores.pg, 'proc-c', [{ from: 0, to: 3, blocks: blocksOf(0, 3, '0x00'), summary }]);
  t.same(lost, [{ from: 0, to: 3 }], "another process's claim is not stored");

  // b dies: its connection ends, its locks go, its ranges are taken over at once.
  await b.close();
  const taken = await c.claim(2, LEASE);
  t.same(taken.map((x) => [x.from, x.claims]), [[8, 2], [12, 2]], "the dead claimer's ranges, claimed a second time");
  t.same(
    (await listRanges(stores.pg)).filter((r) => r.from === 8 || r.from === 12).map((r) => r.owner),
    ['proc-c', 'proc-c'],
    'now owned by the taker',
  );
  t.same(await markStored(stores.pg, 'proc-b', [{ from: 8, to: 11, blocks: blocksOf(8, 11, '0x00'), summary }]), [{ from: 8, to: 11 }], 'the old owner cannot store it');

  // The leader's lock on a range waits until its claimer lets go.
  let locked = false;
  const waiting = a.lockRanges([8]).then(() => (locked = true));
  await new Promise((r) => setTimeout(r, 300));
  t.notOk(locked, 'the leader waits while the claimer works');
  await c.unlock([8, 12]);
  await waiting;
  t.ok(locked, 'and gets it once the claimer is done');
  await a.unlock([8]);

  // A standby leads once the leader's session is gone.
  await a.close();
  const d = new IndexerSession(stores.pg, 'proc-d');
  await d.connect();
  t.teardown(() => d.close());
  t.ok(await d.tryLead(), 'a standby takes the lead when the leader dies');
});

t.test('the leader commits only the contiguous stored prefix, after checking its rows', async (t) => {
  const stores = await embeddedStores(t);
  const shared = new SharedCatchup({
    pg: stores.pg,
    ch: stores.ch,
    log: createLogger('test'),
    claimRanges: 2,
    batchBlocks: 4,
    runRange: async () => undefined,
    stopped: () => false,
  });
  t.teardown(() => shared.close());
  t.equal(await shared.lead(), 'new', 'alone: the leader');
  t.ok(await shared.alone(), 'and no other indexer process is connected');
  const other = new IndexerSession(stores.pg, 'proc-other');
  await other.connect();
  t.notOk(await shared.alone(), 'until another one connects');
  await other.close();
  await waitUntil(async () => await shared.alone());
  t.pass('and alone again once it is gone');
  await shared.plan(0, 64 + 11);
  t.same((await listRanges(stores.pg)).map((r) => r.from), [0, 4, 8], 'ranges below head − 64');

  // Range 4-7 is stored, 0-3 is not: nothing can be committed yet.
  const claims = await shared.session.claim(3, LEASE);
  await markStored(stores.pg, shared.owner, [{ from: 4, to: 7, blocks: blocksOf(4, 7, `0x${(3).toString(16).padStart(64, '0')}`), summary }]);
  const commits: number[][] = [];
  const commit = async (ranges: { from: number }[]) => void commits.push(ranges.map((r) => r.from));
  t.same(await shared.advance(null, 0, commit), { kind: 'none' }, 'a gap below: nothing committed');

  // 0-3 stored too, but its rows are not in ClickHouse (a claimer's insert that never happened,
  // or was deleted): it is not committed but planned again, rows deleted.
  await markStored(stores.pg, shared.owner, [{ from: 0, to: 3, blocks: blocksOf(0, 3, '0x00'), summary }]);
  await shared.session.unlock(claims.map((c) => c.from));
  t.same(await shared.advance(null, 0, commit), { kind: 'none' }, 'rows missing: not committed');
  t.same(commits, [], 'commit was never called');
  const states = Object.fromEntries((await listRanges(stores.pg)).map((r) => [r.from, r.state]));
  t.same(states, { 0: 'open', 4: 'stored', 8: 'claimed' }, 'the range without rows is open again');

  // A checkpoint another process moved cannot be moved from where this one thought it was.
  await commitBlocks(stores.pg, CHAIN_LANE, blocksOf(0, 1, '0x00'));
  const cp = await getCheckpoint(stores.pg, CHAIN_LANE);
  await commitBlocks(stores.pg, CHAIN_LANE, blocksOf(2, 2, cp!.blockHash), undefined, cp);
  await t.rejects(commitBlocks(stores.pg, CHAIN_LANE, blocksOf(2, 3, cp!.blockHash), undefined, cp), { name: 'CheckpointMoved', message: /another indexer process moved it/ }, 'a stale expectation is refused');
  t.equal((await getCheckpoint(stores.pg, CHAIN_LANE))!.blockNumber, 2, 'and the checkpoint stays');
});

t.test('a plan left from an earlier run is never claimed below the checkpoint, and a new leader drops it', async (t) => {
  const stores = await embeddedStores(t);
  await planRanges(stores.pg, [0, 4].map((f) => ({ from: f, to: f + 3 })));
  // Since then one process indexed alone (the setting off) up to block 5.
  await commitBlocks(stores.pg, CHAIN_LANE, blocksOf(0, 5, '0x00'));
  const s = new IndexerSession(stores.pg, 'proc-s');
  await s.connect();
  t.teardown(() => s.close());
  t.same(await s.claim(4, LEASE), [], 'ranges the checkpoint covers are not claimed (their rows are committed)');
  await planRanges(stores.pg, [{ from: 8, to: 11 }]);
  t.same((await s.claim(4, LEASE)).map((r) => r.from), [8], 'one above it is');
  await s.unlock([8]);

  const shared = new SharedCatchup({ pg: stores.pg, ch: stores.ch, log: createLogger('test'), claimRanges: 1, batchBlocks: 4, runRange: async () => undefined, stopped: () => false });
  t.teardown(() => shared.close());
  t.equal(await shared.lead(), 'new');
  await shared.takeOver(6);
  t.same(await listRanges(stores.pg), [], 'the new leader dropped the plan that does not start at the checkpoint');
  t.equal(await shared.lead(), 'leader', 'and its take-over is done');
});

t.test('a claim whose fetch fails is given back at once; its claimer waits before claiming again', async (t) => {
  const stores = await embeddedStores(t);
  await planRanges(stores.pg, [0, 4].map((f) => ({ from: f, to: f + 3 })));
  let calls = 0;
  const failing = new SharedCatchup({
    pg: stores.pg,
    ch: stores.ch,
    log: createLogger('test'),
    claimRanges: 2,
    batchBlocks: 4,
    runRange: async (from) => {
      calls++;
      throw new Error(`block ${from}: block not found (beyond the head?)`);
    },
    stopped: () => false,
  });
  t.teardown(() => failing.close());
  await failing.session.connect();
  t.equal(await failing.work(), 0, 'nothing stored');
  t.equal(calls, 2, 'each claimed range was fetched once, not retried under the claim');
  const after = await listRanges(stores.pg);
  t.same(after.map((r) => [r.from, r.state, r.owner]), [[0, 'open', null], [4, 'open', null]], 'both ranges are open again, owned by nobody');
  // Their locks are free: another process claims them now (a held lock would skip them).
  const other = new IndexerSession(stores.pg, 'proc-other');
  await other.connect();
  t.teardown(() => other.close());
  const got = await other.claim(2, LEASE);
  t.same(got.map((r) => [r.from, r.takenOver]), [[0, false], [4, false]], 'another claimer takes them at once (given back, not taken over)');
  await reopenClaimed(stores.pg, 'proc-other', [0, 4]);
  await other.unlock([0, 4]);
  t.equal(await failing.work(), 0, 'the failed claimer claims nothing during its backoff');
  t.equal(calls, 2, 'and fetches nothing');
  t.same((await listRanges(stores.pg)).map((r) => r.state), ['open', 'open'], 'the ranges stay open for others');
});
