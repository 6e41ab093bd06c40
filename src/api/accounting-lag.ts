// Which addresses the accounting lane's rows answer for while the lane is a few blocks behind the
// chain checkpoint (issue #30). The lane applies each block a second or so after the indexer
// commits it; until then its counters, contracts and tokens cover the blocks up to its cursor
// only, and an answer that needs them fell back to ClickHouse for every address, which made an
// address page several times dearer for that second of each block. The rows of an address the
// unapplied blocks do not name are already those of the checkpoint: only the named ones (a few
// hundred a block) still go to ClickHouse. The names are read once per unapplied range and shared;
// in the process that indexes, the indexer's block events carry them (learn), so that read is
// not made at all: made from ClickHouse while the block's commit and the lane's step load the
// cores, it held every request that needed it (the busy address's first page: p99 175-267 ms
// against 22-31 ms among the requests answered while the lane applied a block; bench/README.md).
import { NAMED_RANGE_BLOCKS_MAX } from '../chain/named-addresses.js';
import { rangeNamedAddresses } from '../storage/clickhouse/derived.js';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { AccountingStanding } from '../storage/postgres/reads/addresses.js';

/**
 * Beyond this many unapplied blocks (a catch-up) every address goes to ClickHouse, as before.
 * The ingest worker names ranges up to this length, and no longer ones.
 */
export const LAG_BLOCKS_MAX = NAMED_RANGE_BLOCKS_MAX;

/** Whether the lane's rows of an address are those of the checkpoint. */
export type CurrentFor = (address: string) => boolean;

const ALL: CurrentFor = () => true;
const NONE: CurrentFor = () => false;

/**
 * A committed range as the indexer's block event tells it: the parent of its first block, its
 * last block's hash, and the addresses its rows name.
 */
export interface NamedRange {
  from: number;
  to: number;
  parentHash: string;
  hash: string;
  named: readonly string[];
}

export class AccountingLag {
  /** The unapplied range last asked about, and the addresses its blocks name (null: not known). */
  private last: { key: string; named: Promise<ReadonlySet<string> | null> } | null = null;
  /** The newest ranges the indexer's events described, in height order. */
  private learned: NamedRange[] = [];

  constructor(private readonly ch: ClickHouseStore) {}

  /** A range the indexer committed, with the addresses its rows name (its block event). */
  learn(e: NamedRange): void {
    // A range at or below one held replaces what follows it (a branch after a reorg); ranges
    // more than LAG_BLOCKS_MAX blocks below the newest are never asked for.
    this.learned = this.learned.filter((x) => x.to < e.from && x.to > e.to - LAG_BLOCKS_MAX - 1);
    this.learned.push(e);
  }

  /** A reorg: what the events told may be of the orphaned branch. */
  forget(): void {
    this.learned = [];
    this.last = null;
  }

  /**
   * The addresses blocks [from, to] name, from the events alone: only when consecutive learned
   * ranges cover every height, each continuing the one before, and the last ends at `to` with
   * `hash` (the checkpoint's); otherwise null. A range that begins below `from` adds its
   * addresses too (a superset: those go to ClickHouse, which is right, only slower).
   */
  private fromEvents(from: number, to: number, hash: string): ReadonlySet<string> | null {
    const out = new Set<string>();
    let at = from;
    let prev: NamedRange | undefined;
    for (const x of this.learned) {
      if (x.to < at) continue;
      if (x.from > at || (prev && x.parentHash !== prev.hash)) return null;
      for (const a of x.named) out.add(a);
      prev = x;
      at = x.to + 1;
      if (x.to >= to) return x.to === to && x.hash === hash ? out : null;
    }
    return null;
  }

  /** For a standing read with the rows in question (the same statement), which addresses it covers. */
  async currentFor(s: AccountingStanding): Promise<CurrentFor> {
    if (s.current) return ALL;
    const cp = s.checkpoint;
    if (s.lane === null || cp === null || cp.number - s.lane > LAG_BLOCKS_MAX) return NONE;
    const key = `${s.lane}:${cp.number}:${cp.hash}`;
    let entry = this.last;
    if (entry?.key !== key) {
      const known = this.fromEvents(s.lane + 1, cp.number, cp.hash);
      const fresh = { key, named: known ? Promise.resolve(known) : this.read(s.lane + 1, cp.number, cp.hash) };
      this.last = entry = fresh;
      // A read that failed is not kept: the next request asks again.
      void fresh.named.catch(() => {
        if (this.last === fresh) this.last = null;
      });
    }
    const named = await entry.named.catch(() => null);
    return named ? (a) => !named.has(a) : NONE;
  }

  /** The addresses blocks [from, to] name, or null when the stored blocks are not the checkpoint's branch. */
  private async read(from: number, to: number, hash: string): Promise<ReadonlySet<string> | null> {
    const r = await rangeNamedAddresses(this.ch, from, to);
    // One hash per height, and the newest the checkpoint's: otherwise the blocks are being
    // rewritten by a reorg (rows of two branches), and the names could be the other branch's.
    // Kept for this standing: a reorg's rewind moves the checkpoint, and so the key.
    const hashes = new Map<number, Set<string>>();
    for (const b of r.blocks) hashes.set(b.number, (hashes.get(b.number) ?? new Set()).add(b.hash));
    const oneEach = hashes.size === to - from + 1 && [...hashes.values()].every((h) => h.size === 1);
    if (!oneEach || !hashes.get(to)?.has(hash)) return null;
    return new Set(r.addresses);
  }
}
