// One catch-up shared by several `explorer indexer` processes (INDEXER_CLAIM_RANGES > 0): who
// follows the head (the leader), how the backlog below it is planned into ranges, claimed,
// fetched and stored by any process, and how the leader moves the checkpoint over stored ranges
// strictly in chain order. The Indexer (indexer.ts) drives it; PostgreSQL holds the state
// (src/storage/postgres/backfill-ranges.ts).
//
// The guarantees of one process stay: rows above the checkpoint are trusted only once their
// range is stored (and checked again when the checkpoint passes it); a claimer deletes whatever
// a dead claimer left of its range before inserting; the checkpoint, recent_blocks, the commit
// hooks (watchlist outbox) and the removal of the range row commit in one transaction, by the
// leader only, so the checkpoint is always the contiguous committed prefix and derived lanes and
// notifications never see anything else.
import os from 'node:os';
import crypto from 'node:crypto';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import { chainRowCounts, deleteChainRowsFrom, deleteChainRowsRange, insertChainRanges } from '../storage/clickhouse/chain.js';
import {
  IndexerSession,
  deleteAllRanges,
  listRanges,
  lowestRanges,
  markStored,
  otherIndexers,
  planRanges,
  plannedEnd,
  reopenClaimed,
  reopenStored,
  type ClaimedRange,
  type PlannedRange,
  type StoredRange,
} from '../storage/postgres/backfill-ranges.js';
import { setFact, type Checkpoint } from '../storage/postgres/indexer.js';
import { deletePointsFrom, deletePointsRange } from '../storage/postgres/points.js';
import type { IngestResult } from '../../workers/ingest.js';
import type { BlockInfo } from '../chain/bundle.js';
import type { Logger } from '../log.js';
import { backoffMs } from '../retry.js';

/**
 * Ranges are planned only this far below the node's head: a reorg deeper than this is not
 * expected, so stored ranges wait for their turn without being orphaned; the leader indexes the
 * tip itself, as one process does.
 */
export const SAFETY_DEPTH = 64;
/** The backlog is planned only when at least this many ranges fit below the safety depth. */
const PLAN_MIN_RANGES = 2;
/** At most this many ranges are planned ahead of the checkpoint (more as they are committed). */
const PLAN_AHEAD = 1024;
/** A claim's heartbeat: renewed every LEASE_MS / 3 while the claimer works on it. */
const LEASE_MS = 30_000;
/** How many ranges the leader looks at per advance (committed in one transaction). */
const ADVANCE_MAX = 64;
/**
 * A leader with no other indexer process connected catches up in-process, as one process does
 * (group commit, no ranges table: about 4x faster on a devnet's near-empty blocks), this many
 * ranges at a time, then looks again for processes that joined.
 */
export const ALONE_CHUNK_RANGES = 256;
/**
 * Longest wait before claiming again after a failed fetch. Shorter than the 30 s of a range that
 * one process retries: a process backing off claims nothing, and after a rewind the new plan
 * waits for the claimers' backoffs.
 */
const CLAIM_BACKOFF_MAX_MS = 10_000;

export interface SharedCatchupOptions {
  pg: PgStore;
  ch: ClickHouseStore;
  log: Logger;
  /** Ranges one process claims at once (its group insert). */
  claimRanges: number;
  batchBlocks: number;
  /**
   * Runs a range once through this process's worker pool; rejects when it fails (undefined once
   * the indexer stops). Not retried here: see work().
   */
  runRange(from: number, to: number): Promise<IngestResult | undefined>;
  stopped(): boolean;
  /** Test hook: wait this long after a claim's insert, before it is marked stored. */
  pauseAfterInsertMs?: number;
}

/** Consecutive numbers, each block's parent the one before. */
export function isChain(blocks: readonly BlockInfo[]): boolean {
  for (let i = 1; i < blocks.length; i++) {
    if (blocks[i].parentHash !== blocks[i - 1].hash || blocks[i].number !== blocks[i - 1].number + 1) return false;
  }
  return true;
}

export type AdvanceResult =
  | { kind: 'none' }
  | { kind: 'advanced'; ranges: number }
  /** The lowest stored range does not continue the checkpoint (a reorg deeper than SAFETY_DEPTH?). */
  | { kind: 'mismatch'; from: number };

export class SharedCatchup {
  readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`;
  readonly session: IndexerSession;
  private wasLeader = false;
  /** Leading, but takeOver has not succeeded yet (lead() says 'new' until it has). */
  private takeOverDue = false;
  /** Ranges this process stored (observability, tests). */
  stored = 0;
  /** Consecutive claims whose fetch failed, and when this process may claim again. */
  private failures = 0;
  private claimAgainAt = 0;

  constructor(private readonly o: SharedCatchupOptions) {
    if (!Number.isInteger(o.claimRanges) || o.claimRanges < 1) throw new RangeError(`claimRanges must be a positive integer, got ${o.claimRanges}`);
    this.session = new IndexerSession(o.pg, this.owner);
  }

  /**
   * Connects the session if needed and tries to lead: 'new' when this process just became the
   * leader (the caller resumes from the checkpoint, see takeOver), else 'leader' or 'standby'.
   */
  async lead(): Promise<'new' | 'leader' | 'standby'> {
    if (!this.session.alive) {
      if (this.wasLeader) this.o.log.error('lost the PostgreSQL session holding the leader lock: following the head is left to whoever takes it');
      this.wasLeader = false;
      await this.session.connect();
    }
    const leading = await this.session.tryLead();
    const was = this.wasLeader;
    this.wasLeader = leading;
    if (leading && !was) {
      this.takeOverDue = true;
      await setFact(this.o.pg, 'indexer_leader', { owner: this.owner, pid: process.pid, since: new Date().toISOString() });
      this.o.log.info('following the head (leader of the shared catch-up)', { owner: this.owner });
    }
    if (leading && this.takeOverDue) return 'new';
    return leading ? 'leader' : 'standby';
  }

  /**
   * New leader: rows above the planned ranges were written by a leader that died before
   * committing them (its tip catch-up): removed, as one process removes what lies above its
   * checkpoint. Rows inside planned ranges belong to their claimers (cleaned at claim time). A
   * plan that does not start right above the checkpoint (left from a run with the setting off)
   * is dropped with every row above the checkpoint.
   */
  async takeOver(next: number): Promise<void> {
    const [first] = await lowestRanges(this.o.pg, 1);
    if (first && first.from !== next) {
      this.o.log.warn('planned ranges do not start at the checkpoint (a plan of an earlier run): dropped', { checkpoint_next: next, first_range: first.from });
      await this.invalidateAll(async () => {
        await deleteAllRanges(this.o.pg);
        await deleteChainRowsFrom(this.o.ch, next);
        await deletePointsFrom(this.o.pg, next);
      });
    } else {
      const end = await plannedEnd(this.o.pg);
      const above = Math.max(next, (end ?? -1) + 1);
      await deleteChainRowsFrom(this.o.ch, above);
      await deletePointsFrom(this.o.pg, above);
    }
    this.takeOverDue = false;
  }

  /** Leader: plans the backlog below head − SAFETY_DEPTH into ranges, contiguous from `next`. */
  async plan(next: number, head: number): Promise<void> {
    const size = this.o.batchBlocks;
    const target = head - SAFETY_DEPTH;
    let a = Math.max(next, ((await plannedEnd(this.o.pg)) ?? -1) + 1);
    if (target - a + 1 < size * PLAN_MIN_RANGES) return;
    const ranges: PlannedRange[] = [];
    const ahead = (a - next) / size;
    while (a + size - 1 <= target && ranges.length + ahead < PLAN_AHEAD) {
      ranges.push({ from: a, to: a + size - 1 });
      a += size;
    }
    if (!ranges.length) return;
    await planRanges(this.o.pg, ranges);
    this.o.log.info('planned catch-up ranges', { from: ranges[0].from, to: ranges[ranges.length - 1].to, ranges: ranges.length });
  }

  /** No other indexer process is connected (the leader then catches up in-process). */
  async alone(): Promise<boolean> {
    return (await otherIndexers(this.o.pg, this.owner)) === 0;
  }

  async hasRanges(): Promise<boolean> {
    return (await plannedEnd(this.o.pg)) !== null;
  }

  /**
   * Claims up to claimRanges ranges, fetches them on the pool, deletes what an earlier claimer
   * left of them, inserts their rows (one insert per table for all of them) and marks them
   * stored, heartbeating meanwhile. Returns how many it stored.
   *
   * A fetch that fails gives the claims back at once and this process claims nothing until its
   * backoff has passed. Retrying while holding the claims would hold their locks through the
   * backoff (up to 30 s), and the leader's rewind waits for every range lock: after a reorg to a
   * shorter chain (blocks of the claimed range not at the node yet), the whole catch-up would
   * stand still for as long.
   */
  async work(): Promise<number> {
    if (!this.session.alive || Date.now() < this.claimAgainAt) return 0;
    const claims = await this.session.claim(this.o.claimRanges, LEASE_MS);
    if (!claims.length) return 0;
    const froms = claims.map((c) => c.from);
    let lostSession = false;
    const beat = setInterval(() => {
      this.session.heartbeat(froms, LEASE_MS).then(
        (gone) => {
          if (gone.length) lostSession = true;
        },
        () => (lostSession = true),
      );
    }, LEASE_MS / 3);
    try {
      const taken = claims.filter((c) => c.takenOver);
      if (taken.length) this.o.log.info('took over ranges an earlier claimer left', { ranges: taken.map((c) => `${c.from}-${c.to}`).join(',') });
      // Every run settles before the claims are given back: none is left running on the pool.
      const settled = await Promise.allSettled(claims.map((c) => this.o.runRange(c.from, c.to)));
      const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      const results = settled.map((r) => (r.status === 'fulfilled' ? r.value : undefined));
      if (this.o.stopped() || results.some((r) => !r)) {
        await reopenClaimed(this.o.pg, this.owner, froms);
        if (failed && !this.o.stopped()) {
          this.failures++;
          const delay = backoffMs(this.failures, { baseMs: 1000, maxMs: CLAIM_BACKOFF_MAX_MS });
          this.claimAgainAt = Date.now() + delay;
          this.o.log.error('claimed ranges failed; given back, claiming again later', {
            from: froms.join(','),
            attempt: this.failures,
            delay_ms: Math.round(delay),
            error: (failed.reason as Error)?.message ?? String(failed.reason),
          });
        }
        return 0;
      }
      this.failures = 0;
      const good: { claim: ClaimedRange; result: IngestResult }[] = [];
      const bad: number[] = [];
      claims.forEach((claim, i) => {
        const r = results[i]!;
        const b = r.blocks;
        if (b.length === claim.to - claim.from + 1 && b[0].number === claim.from && isChain(b)) good.push({ claim, result: r });
        else bad.push(claim.from);
      });
      if (bad.length) {
        // The node changed under the worker (or lacks blocks it reported): fetched again later.
        this.o.log.warn('claimed ranges came back incomplete or not a chain; giving them back', { from: bad.join(',') });
        await reopenClaimed(this.o.pg, this.owner, bad);
      }
      if (!good.length) return 0;
      for (const g of good) await deleteChainRowsRange(this.o.ch, g.claim.from, g.claim.to);
      // Our locks must still be held when the rows go in: a lost session means someone else may
      // be writing these ranges now.
      const gone = await this.session.heartbeat(good.map((g) => g.claim.from), LEASE_MS);
      if (gone.length || lostSession) throw new Error(`lost the claim of ranges ${gone.join(',') || froms.join(',')} before inserting them`);
      try {
        await insertChainRanges(this.o.ch, good.map((g) => g.result.tables));
      } catch (e) {
        for (const g of good) await deleteChainRowsRange(this.o.ch, g.claim.from, g.claim.to).catch(() => undefined);
        await reopenClaimed(this.o.pg, this.owner, good.map((g) => g.claim.from));
        throw e;
      }
      if (this.o.pauseAfterInsertMs) await new Promise((r) => setTimeout(r, this.o.pauseAfterInsertMs));
      const lost = await markStored(
        this.o.pg,
        this.owner,
        good.map((g) => ({ from: g.claim.from, to: g.claim.to, blocks: g.result.blocks, summary: g.result.summary })),
        good.map((g) => g.result.points),
      );
      if (lost.length) this.o.log.error('ranges were taken from this claimer while it held their lock (not stored)', { from: lost.map((r) => r.from).join(',') });
      this.stored += good.length - lost.length;
      return good.length - lost.length;
    } finally {
      clearInterval(beat);
      await this.session.unlock(froms).catch(() => undefined);
    }
  }

  /**
   * Leader: commits the stored ranges that continue the checkpoint, in order, through `commit`
   * (one transaction: recent blocks, checkpoint, commit hooks, removal of the range rows). Each
   * range is checked first: its blocks a chain from the checkpoint, and its rows in ClickHouse
   * what its claimer inserted (blocks and transactions exactly; no table with more rows than
   * the claimer wrote, as a late duplicate would make). A range whose rows are wrong is deleted
   * and planned again.
   */
  async advance(cp: Checkpoint | null, next: number, commit: (ranges: StoredRange[]) => Promise<void>): Promise<AdvanceResult> {
    const rows = await lowestRanges(this.o.pg, ADVANCE_MAX);
    if (!rows.length) return { kind: 'none' };
    if (rows[0].from !== next) {
      this.o.log.error('planned ranges do not start at the checkpoint: planning again', { checkpoint_next: next, first_range: rows[0].from });
      await this.invalidateAll(async () => {
        await deleteAllRanges(this.o.pg);
        await deleteChainRowsFrom(this.o.ch, next);
        await deletePointsFrom(this.o.pg, next);
      });
      return { kind: 'none' };
    }
    const ok: StoredRange[] = [];
    let tip = cp?.blockHash ?? null;
    let expectFrom = next;
    for (const r of rows) {
      const s = r.stored;
      if (!s || r.from !== expectFrom) break;
      const b = s.blocks;
      if (b.length !== s.to - s.from + 1 || b[0].number !== s.from || !isChain(b)) {
        await this.reopen(s.from, 'its blocks are not a chain');
        break;
      }
      if (tip !== null && b[0].parentHash !== tip) {
        if (!ok.length) return { kind: 'mismatch', from: s.from };
        break; // commit what continues the checkpoint first
      }
      if (!(await this.rowsMatch(s))) {
        await this.reopen(s.from, 'its rows in ClickHouse are not what its claimer inserted');
        break;
      }
      ok.push(s);
      tip = b[b.length - 1].hash;
      expectFrom = s.to + 1;
    }
    if (!ok.length) return { kind: 'none' };
    await commit(ok);
    return { kind: 'advanced', ranges: ok.length };
  }

  private async rowsMatch(s: StoredRange): Promise<boolean> {
    const counts = await chainRowCounts(this.o.ch, s.from, s.to);
    if ((counts.get('blocks') ?? 0) !== s.blocks.length) return false;
    if ((counts.get('transactions') ?? 0) !== s.summary.txs) return false;
    for (const [t, n] of counts) {
      const wrote = (s.summary.rows as Record<string, number>)[t];
      if (wrote !== undefined && n > wrote) return false;
    }
    return true;
  }

  /** Leader: a stored range is not trusted after all: its rows go and it is planned again. */
  async reopen(from: number, why: string): Promise<void> {
    const r = (await listRanges(this.o.pg)).find((x) => x.from === from);
    if (!r) return;
    this.o.log.warn('stored range re-opened', { from: r.from, to: r.to, why });
    await this.session.lockRanges([from]);
    try {
      await deleteChainRowsRange(this.o.ch, r.from, r.to);
      await deletePointsRange(this.o.pg, r.from, r.to);
      await reopenStored(this.o.pg, from);
    } finally {
      await this.session.unlock([from]);
    }
  }

  /**
   * Leader: runs `fn` (a rewind, or forgetting the plan) once no claimer works on any planned
   * range any more (their locks taken in turn and held through `fn`), so none of them can insert
   * rows after `fn` deleted them.
   */
  async invalidateAll(fn: () => Promise<void>): Promise<void> {
    const froms = (await listRanges(this.o.pg)).map((r) => r.from);
    await this.session.lockRanges(froms);
    try {
      await fn();
    } finally {
      await this.session.unlock(froms).catch(() => undefined);
    }
    // What failed was fetched for the plan just dropped (blocks of an orphaned branch, say).
    this.failures = 0;
    this.claimAgainAt = 0;
  }

  async close(): Promise<void> {
    this.wasLeader = false;
    this.takeOverDue = false;
    await this.session.close();
  }
}
