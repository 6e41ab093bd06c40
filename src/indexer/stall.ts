// What keeps the index from moving: the failures since the last committed range, kept in
// PostgreSQL (indexer_facts) so the indexing status and every API process's health check say
// so. A range the indexer cannot fetch or store is retried with backoff, but never silently.
import type { PgStore } from '../storage/postgres/store.js';
import { setFact } from '../storage/postgres/indexer.js';
import { INDEXER_STALL_FACT, publicStallReason, type IndexerStall } from '../storage/indexing-status.js';
import type { Logger } from '../log.js';

export class StallReport {
  private stall: IndexerStall | null = null;
  /** Fact writes in order, so a clear never lands before the failure it clears. */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly pg: PgStore,
    private readonly log: Logger,
  ) {}

  /**
   * A failure at `from`-`to`, the `attempt`-th in a row of that range (or of the indexing step).
   * The report keeps the lowest failing range (the one the index waits for), the most attempts
   * any range has failed, the first failure's time and the latest error.
   */
  failed(from: number, to: number, attempt: number, error: Error): void {
    const now = new Date().toISOString();
    const prev = this.stall;
    const first = !prev;
    this.stall = {
      from: prev && prev.from < from ? prev.from : from,
      to: prev && prev.from < from ? prev.to : to,
      attempts: Math.max(prev?.attempts ?? 0, attempt),
      since: prev?.since ?? now,
      at: now,
      error: publicStallReason(error.message),
    };
    if (first) {
      this.log.error('indexing is stuck: the index does not move until this is resolved (retrying with backoff)', {
        from: this.stall.from,
        to: this.stall.to,
        error: error.message,
      });
    }
    this.write();
  }

  /** A range was committed: whatever stalled the index is over. */
  progressed(): void {
    if (!this.stall) return;
    this.log.info('indexing moves again', { stuck_from: this.stall.from, since: this.stall.since, attempts: this.stall.attempts });
    this.stall = null;
    this.write();
  }

  /** Resolves once every report so far is written. */
  flush(): Promise<void> {
    return this.writes;
  }

  private write(): void {
    const value = this.stall;
    this.writes = this.writes
      .then(() => setFact(this.pg, INDEXER_STALL_FACT, value))
      .catch((e: Error) => this.log.warn('could not record the indexing failure in PostgreSQL', { error: e.message }));
  }
}
