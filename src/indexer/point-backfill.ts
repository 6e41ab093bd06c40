// The upgrade to point rows (issue #30): blocks indexed before them get theirs from ClickHouse,
// a chunk at a time, by the process that commits (the indexer, or the shared catch-up's leader),
// between its own steps, so a rewind never runs beside it. Blocks committed since the upgrade
// carry their point rows already. Progress is the fact `point_rows_backfill` (PostgreSQL), so a
// restart goes on where it stopped; `done` tells the API that a miss in PostgreSQL is a miss.
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import { getFact, setFact, setFactIn } from '../storage/postgres/indexer.js';
import { insertPointsWithFact, POINT_BACKFILL_FACT } from '../storage/postgres/points.js';
import { backfillAddressCounters } from '../storage/postgres/derived.js';
import { addressActivityCounts } from '../storage/clickhouse/derived.js';
import { pointSources } from '../storage/clickhouse/reads/point-sources.js';
import { PointBuilder } from '../chain/point-rows.js';
import type { Logger } from '../log.js';

export { POINT_BACKFILL_FACT };
/** Blocks per chunk: a mainnet chunk is ~40,000 transactions, a few seconds of reading. */
export const POINT_BACKFILL_CHUNK = 200;

export interface PointBackfillState {
  done: boolean;
  /** Next height to fill. */
  next: number;
  /** Last height to fill: the checkpoint when the backfill began (blocks above have their rows). */
  to: number;
  /** Blocks and transactions filled so far. */
  blocks: number;
  txs: number;
  /**
   * The address activity counters (migration 0016) of blocks the accounting lane applied before
   * they existed: next height and last (the lane's cursor when the backfill began), and from
   * which height its deltas are journaled (the lane's reorg tail then).
   */
  counters?: { next: number; to: number; journalFrom: number };
}

export class PointBackfill {
  private state: PointBackfillState | undefined;
  private started = 0;

  constructor(
    private readonly o: { ch: ClickHouseStore; pg: PgStore; log: Logger; firstBlock: number; chunk?: number },
  ) {}

  /** Nothing left to fill (as far as this process knows). */
  get done(): boolean {
    return this.state?.done === true;
  }

  /**
   * Reads what is left to fill: migration 0016 fixed it (the checkpoint and the accounting lane's
   * cursor then), before any process of this release could write point rows or counters. Without
   * that fact (a tool that dropped it), the point rows up to `checkpoint` (null: nothing indexed).
   */
  async begin(checkpoint: number | null): Promise<void> {
    const first = this.o.firstBlock;
    const fact = await getFact<PointBackfillState>(this.o.pg, POINT_BACKFILL_FACT);
    const s: PointBackfillState = fact ?? { done: false, next: first, to: checkpoint ?? first - 1, blocks: 0, txs: 0 };
    if (!s.done) {
      // Nothing is stored below FIRST_BLOCK.
      s.next = Math.max(s.next, first);
      if (s.counters) s.counters = { ...s.counters, next: Math.max(s.counters.next, first) };
      const started = s.blocks > 0 || s.txs > 0 || (s.counters !== undefined && s.counters.next > first);
      if (s.next <= s.to || (s.counters && s.counters.next <= s.counters.to)) {
        this.o.log.info(`${started ? 'going on filling' : 'filling'} the point rows and address activity counters of blocks indexed before them, from ClickHouse`, {
          from: s.next,
          to: s.to,
          counters_from: s.counters?.next,
          counters_to: s.counters?.to,
        });
      }
    }
    this.state = s;
    if (!fact || fact.next !== s.next || fact.counters?.next !== s.counters?.next) await setFact(this.o.pg, POINT_BACKFILL_FACT, s);
  }

  /** Fills one chunk; true when one was filled (false: nothing left). */
  async step(): Promise<boolean> {
    const s = this.state;
    if (!s || s.done) return false;
    if (s.next > s.to) return this.countersStep();
    this.started ||= Date.now();
    const to = Math.min(s.to, s.next + (this.o.chunk ?? POINT_BACKFILL_CHUNK) - 1);
    const src = await pointSources(this.o.ch, s.next, to);
    const b = new PointBuilder();
    for (const x of src.blocks) b.block(x as unknown as Parameters<PointBuilder['block']>[0]);
    for (const t of src.txs) b.tx(t as unknown as Parameters<PointBuilder['tx']>[0]);
    for (const f of src.frames) b.frameFacts(f.block_number, f.transaction_index, f.top, Number(f.failed) === 1);
    for (const l of src.listed) b.listedCount(l.block_number, Number(l.n));
    for (const r of src.rewards) b.reward(r.block_number, r);
    for (const x of src.transfers) b.transfer(x);
    // After the transfers: only the first ones were read, the logs' counts are these.
    for (const l of src.logItems) b.logItemCount(l.block_number, l.log_index, Number(l.n));
    const batch = b.build();
    const next: PointBackfillState = { ...s, next: to + 1, blocks: s.blocks + batch.blocks.count, txs: s.txs + batch.txs.count };
    await insertPointsWithFact(this.o.pg, batch, POINT_BACKFILL_FACT, next);
    this.state = next;
    const secs = (Date.now() - this.started) / 1000;
    this.o.log.info('point rows filled from ClickHouse', {
      blocks: `${s.next}-${to}`,
      of: s.to,
      done_pct: Math.min(100, Math.round(((to - this.o.firstBlock + 1) / (s.to - this.o.firstBlock + 1)) * 1000) / 10),
      txs: next.txs,
      txs_per_s: secs > 0 ? Math.round(next.txs / secs) : undefined,
    });
    return true;
  }

  /** Fills one chunk of the address activity counters; finishes when none is left. */
  private async countersStep(): Promise<boolean> {
    const s = this.state!;
    const c = s.counters;
    if (!c || c.next > c.to) {
      await this.finish();
      return false;
    }
    const to = Math.min(c.to, c.next + (this.o.chunk ?? POINT_BACKFILL_CHUNK) - 1);
    const rows = await addressActivityCounts(this.o.ch, c.next, to);
    const next: PointBackfillState = { ...s, counters: { ...c, next: to + 1 } };
    await this.o.pg.tx(async (tx) => {
      await backfillAddressCounters(
        tx,
        rows.map((r) => ({ block: r.block_number, address: r.address })),
        rows.map((r) => ({ block: r.block_number, kind: r.kind, key: r.address, delta: BigInt(r.n) })),
        c.journalFrom,
      );
      await setFactIn(tx, POINT_BACKFILL_FACT, next);
    });
    this.state = next;
    this.o.log.info('address activity counters filled from ClickHouse', { blocks: `${c.next}-${to}`, of: c.to });
    return true;
  }

  /**
   * A rewind to `ancestor` deletes every point row above it, and the accounting lane takes back
   * and applies again what lies above it: the fill stops at the ancestor (the new branch is
   * committed with its rows). Written in the rewind's transaction `c`, so a crash cannot leave a
   * fill that would count the new branch's blocks a second time; `adopt` the result once that
   * transaction committed.
   */
  async rewind(c: { query(sql: string, params?: unknown[]): Promise<unknown> }, ancestor: number | null): Promise<PointBackfillState | undefined> {
    const s = this.state;
    if (!s || s.done) return undefined;
    const top = ancestor ?? this.o.firstBlock - 1;
    const to = Math.min(s.to, top);
    const k = s.counters;
    const counters = k && k.to > top ? { ...k, to: top, next: Math.min(k.next, top + 1) } : k;
    if (to === s.to && counters === k) return undefined;
    const next: PointBackfillState = { ...s, to, next: Math.min(s.next, to + 1), counters };
    await setFactIn(c, POINT_BACKFILL_FACT, next);
    return next;
  }

  /** The state a committed rewind wrote (see rewind). */
  adopt(state: PointBackfillState | undefined): void {
    if (state) this.state = state;
  }

  private async finish(): Promise<void> {
    this.state = { ...this.state!, done: true };
    await setFact(this.o.pg, POINT_BACKFILL_FACT, this.state);
    this.o.log.info('point rows complete: every stored block has its PostgreSQL row', { blocks: this.state.blocks, txs: this.state.txs });
  }
}
