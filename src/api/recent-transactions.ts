// The newest blocks' transactions in the API's memory (issue #30: most readers ask for recent
// data): every transaction of the newest RECENT_BLOCKS blocks (at most RECENT_MAX_TXS), decoded
// from their point rows once, by the addresses they name. The first page of a busy address's
// transactions is then answered without a store read when the window holds a whole page of it;
// otherwise (a quiet address, a deep page, the oldest-first order) PostgreSQL answers as before.
// The window follows the chain: after each block or reorg the API heard of (or, with no indexer
// events in this process, once FACT_TTL_MS passed) the next page first reads the blocks above its
// top, and starts over when the block at its top is no longer the one stored (a reorg).
import { recentPointTransactions, type PointDirection, type PointTransaction } from '../storage/postgres/points.js';
import type { PgStore } from '../storage/postgres/store.js';
import { SharedRead } from './shared-read.js';

/** Blocks held (~12 minutes of Ethereum mainnet; ~1.4 KB of memory a transaction: bench/README.md). */
export const RECENT_BLOCKS = 64;
/** Transactions held at most (whole blocks; chains with large blocks hold fewer blocks). */
export const RECENT_MAX_TXS = 10_000;

/** The addresses a transaction is listed under (sender, receiver, created contract), each once. */
function namedBy(p: PointTransaction): string[] {
  const t = p.tx;
  const out = [t.from];
  if (t.to && t.to !== t.from) out.push(t.to);
  if (t.created_contract && t.created_contract !== t.from && t.created_contract !== t.to) out.push(t.created_contract);
  return out;
}

/** Shared by every page that shows it: made read-only (a serialiser writing into it would throw). */
function freeze(p: PointTransaction): PointTransaction {
  Object.freeze(p.tx);
  for (const x of p.transfers) Object.freeze(x);
  Object.freeze(p.transfers);
  return Object.freeze(p);
}

export class RecentTransactions {
  /** The newest block held, and its hash. */
  private top: { number: bigint; hash: string } | null = null;
  /** Every transaction of the blocks above `lo` up to top, oldest first. */
  private lo = -1n;
  private txs: PointTransaction[] = [];
  /** By address, oldest first (a subsequence of txs). */
  private readonly byAddress = new Map<string, PointTransaction[]>();
  private syncedGen = -1;
  private syncedAt = 0;
  private readonly reads = new SharedRead(() => this.read());

  constructor(
    private readonly pg: PgStore,
    private readonly blocks = RECENT_BLOCKS,
    private readonly maxTxs = RECENT_MAX_TXS,
  ) {}

  /** Transactions held. */
  get size(): number {
    return this.txs.length;
  }

  /**
   * Brings the window to the stored chain when `gen` (blocks and reorgs heard, ApiContext's
   * chainGen) moved since the last read, or `ttlMs` passed (null: events reach this process).
   * Pages arriving together share one read, which began after they asked (SharedRead).
   */
  async sync(gen: number, ttlMs: number | null): Promise<void> {
    if (this.syncedGen >= gen && (ttlMs === null || Date.now() - this.syncedAt < ttlMs)) return;
    const at = Date.now();
    await this.reads.fresh();
    this.syncedGen = Math.max(this.syncedGen, gen);
    this.syncedAt = Math.max(this.syncedAt, at);
  }

  /**
   * The first `limit` transactions naming `address` (as `direction` says), newest first, after
   * `after`; null when the window does not hold that many (older ones may exist: ask the store).
   */
  page(address: string, o: { direction: PointDirection; after?: { block: bigint; index: bigint }; limit: number }): PointTransaction[] | null {
    const list = this.byAddress.get(address);
    if (!list || list.length < o.limit) return null;
    // A position at or below the window's oldest block: nothing held follows it.
    if (o.after && o.after.block <= this.lo) return null;
    const ab = o.after ? Number(o.after.block) : Infinity;
    const ai = o.after ? Number(o.after.index) : Infinity;
    const out: PointTransaction[] = [];
    for (let i = list.length - 1; i >= 0; i--) {
      const p = list[i]!;
      const t = p.tx;
      const b = Number(t.block_number);
      if (b > ab || (b === ab && t.transaction_index >= ai)) continue;
      if (o.direction === 'from' ? t.from !== address : o.direction === 'to' ? t.to !== address && t.created_contract !== address : false) continue;
      out.push(p);
      if (out.length === o.limit) return out;
    }
    return null;
  }

  private clear(): void {
    this.top = null;
    this.lo = -1n;
    this.txs = [];
    this.byAddress.clear();
  }

  private async read(): Promise<void> {
    const known = this.top?.number ?? -1n;
    let r = await recentPointTransactions(this.pg, { known, above: known, blocks: this.blocks, limit: this.maxTxs + 1 });
    if (this.top && r.knownHash !== this.top.hash) {
      // The block at the top is no longer the one held (a reorg): start over.
      this.clear();
      r = await recentPointTransactions(this.pg, { known: -1n, above: -1n, blocks: this.blocks, limit: this.maxTxs + 1 });
    }
    if (!r.top) return this.clear();
    let rows = r.txs;
    if (rows.length > this.maxTxs) {
      // The read stopped inside its oldest block: that block is left out, and what was held is
      // below it (the blocks above the old top did not all fit).
      const oldest = rows[rows.length - 1]!.tx.block_number;
      rows = rows.filter((p) => p.tx.block_number !== oldest);
      this.clear();
      this.lo = BigInt(oldest);
    } else if (!this.top) {
      const lo = r.top.number - BigInt(this.blocks);
      this.lo = lo < -1n ? -1n : lo;
    }
    for (let i = rows.length - 1; i >= 0; i--) {
      const p = freeze(rows[i]!);
      this.txs.push(p);
      for (const a of namedBy(p)) {
        const list = this.byAddress.get(a);
        if (list) list.push(p);
        else this.byAddress.set(a, [p]);
      }
    }
    this.top = r.top;
    this.evict();
  }

  /** Whole blocks leave from the oldest: beyond RECENT_BLOCKS below the top, or past RECENT_MAX_TXS. */
  private evict(): void {
    let keepAbove = this.top!.number - BigInt(this.blocks);
    if (keepAbove < this.lo) keepAbove = this.lo;
    let n = 0;
    const txs = this.txs;
    for (;;) {
      while (n < txs.length && BigInt(txs[n]!.tx.block_number) <= keepAbove) n++;
      if (txs.length - n <= this.maxTxs || n >= txs.length) break;
      keepAbove = BigInt(txs[n]!.tx.block_number);
    }
    this.lo = keepAbove;
    if (n === 0) return;
    for (let i = 0; i < n; i++) {
      const p = txs[i]!;
      for (const a of namedBy(p)) {
        const list = this.byAddress.get(a);
        if (!list) continue;
        if (list[0] === p) list.shift();
        if (list.length === 0) this.byAddress.delete(a);
      }
    }
    this.txs = txs.slice(n);
  }
}
