// Which addresses the accounting lane's rows answer for while the lane is a few blocks behind the
// chain checkpoint (issue #30). The lane applies each block a second or so after the indexer
// commits it; until then its counters, contracts and tokens cover the blocks up to its cursor
// only, and an answer that needs them fell back to ClickHouse for every address, which made an
// address page several times dearer for that second of each block. The rows of an address the
// unapplied blocks do not name are already those of the checkpoint. In the process that indexes,
// the indexer's block events also carry what those blocks' rows say of the addresses they name
// (learn): the lane's rows and that answer for them too, with no ClickHouse read at all (made
// while the block's commit and the lane's step load the cores, such a read held every request
// that needed it: the busy address's first page at p99 175-267 ms against 22-31 ms among the
// requests answered while the lane applied a block; bench/README.md). Elsewhere (another
// process's indexer) the names are read from ClickHouse once per unapplied range and shared, and
// the named addresses are proven from ClickHouse's rows.
import { NAMED_RANGE_BLOCKS_MAX, type NamedCreation, type RangeNames } from '../chain/named-addresses.js';
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
 * last block's hash, and the addresses its rows name with what they say of them.
 */
export interface NamedRange {
  from: number;
  to: number;
  parentHash: string;
  hash: string;
  named: RangeNames;
}

/**
 * What the unapplied blocks' rows say of the addresses they name: what the lane will add to its
 * rows of them when it applies those blocks.
 */
export interface UnappliedFacts {
  /** NAMED bits, OR-ed over the blocks. */
  kinds: ReadonlyMap<string, number>;
  /** The first creation of each address. */
  created: ReadonlyMap<string, NamedCreation>;
  selfDestructed: ReadonlySet<string>;
  /** The first transfer's standard of each token contract. */
  tokens: ReadonlyMap<string, string>;
}

/** Which addresses the lane's rows answer for at a standing, and the unapplied blocks' facts of the others. */
export interface LaneCoverage {
  current: CurrentFor;
  unapplied: UnappliedFacts | null;
}

/** The unapplied blocks' names, and their facts when the events told them (null when read from ClickHouse). */
interface Unapplied {
  named: ReadonlySet<string>;
  facts: UnappliedFacts | null;
}

export class AccountingLag {
  /** The unapplied range last asked about, and what its blocks name (null: not known). */
  private last: { key: string; value: Promise<Unapplied | null> } | null = null;
  /** The newest ranges the indexer's events described, in height order. */
  private learned: NamedRange[] = [];

  constructor(private readonly ch: ClickHouseStore) {}

  /** A range the indexer committed, with what its rows name (its block event). */
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
   * What blocks [from, to] name, from the events alone: only when consecutive learned ranges
   * cover every height, each continuing the one before, and the last ends at `to` with `hash`
   * (the checkpoint's); otherwise null. A range that begins below `from` adds its addresses too
   * (a superset, only slower: the facts it adds are of blocks the lane applied, which its rows
   * already count, and they only ever say what those rows say too).
   */
  private fromEvents(from: number, to: number, hash: string): Unapplied | null {
    const named = new Set<string>();
    const kinds = new Map<string, number>();
    const created = new Map<string, NamedCreation>();
    const selfDestructed = new Set<string>();
    const tokens = new Map<string, string>();
    let at = from;
    let prev: NamedRange | undefined;
    for (const x of this.learned) {
      if (x.to < at) continue;
      if (x.from > at || (prev && x.parentHash !== prev.hash)) return null;
      const n = x.named;
      for (let i = 0; i < n.addresses.length; i++) {
        const a = n.addresses[i]!;
        named.add(a);
        kinds.set(a, (kinds.get(a) ?? 0) | n.kinds[i]!);
      }
      for (const c of n.created) if (!created.has(c.address)) created.set(c.address, c);
      for (const a of n.selfDestructed) selfDestructed.add(a);
      for (const [a, type] of n.tokens) if (!tokens.has(a)) tokens.set(a, type);
      prev = x;
      at = x.to + 1;
      if (x.to >= to) return x.to === to && x.hash === hash ? { named, facts: { kinds, created, selfDestructed, tokens } } : null;
    }
    return null;
  }

  /** What the blocks the lane has not applied name, at this standing (read with the rows in question). */
  private unapplied(s: AccountingStanding): Promise<Unapplied | null> | null {
    const cp = s.checkpoint;
    if (s.lane === null || cp === null || cp.number - s.lane > LAG_BLOCKS_MAX) return null;
    const key = `${s.lane}:${cp.number}:${cp.hash}`;
    let entry = this.last;
    if (entry?.key !== key) {
      const known = this.fromEvents(s.lane + 1, cp.number, cp.hash);
      const fresh = { key, value: known ? Promise.resolve(known) : this.read(s.lane + 1, cp.number, cp.hash) };
      this.last = entry = fresh;
      // A read that failed is not kept: the next request asks again.
      void fresh.value.catch(() => {
        if (this.last === fresh) this.last = null;
      });
    }
    return entry.value.catch(() => null);
  }

  /**
   * For a standing read with the rows in question (the same statement): which addresses the
   * lane's rows are current for, and what the unapplied blocks say of the others when the
   * indexer's events told it (null otherwise, and when the rows are current or too far behind).
   */
  async coverage(s: AccountingStanding): Promise<LaneCoverage> {
    if (s.current) return { current: ALL, unapplied: null };
    const u = await this.unapplied(s);
    return u ? { current: (a) => !u.named.has(a), unapplied: u.facts } : { current: NONE, unapplied: null };
  }

  /** What blocks [from, to] name, read from ClickHouse (no facts), or null when the stored blocks are not the checkpoint's branch. */
  private async read(from: number, to: number, hash: string): Promise<Unapplied | null> {
    const r = await rangeNamedAddresses(this.ch, from, to);
    // One hash per height, and the newest the checkpoint's: otherwise the blocks are being
    // rewritten by a reorg (rows of two branches), and the names could be the other branch's.
    // Kept for this standing: a reorg's rewind moves the checkpoint, and so the key.
    const hashes = new Map<number, Set<string>>();
    for (const b of r.blocks) hashes.set(b.number, (hashes.get(b.number) ?? new Set()).add(b.hash));
    const oneEach = hashes.size === to - from + 1 && [...hashes.values()].every((h) => h.size === 1);
    if (!oneEach || !hashes.get(to)?.has(hash)) return null;
    return { named: new Set(r.addresses), facts: null };
  }
}
