// Which addresses the accounting lane's rows answer for while the lane is a few blocks behind the
// chain checkpoint (issue #30). The lane applies each block a second or so after the indexer
// commits it; until then its counters, contracts and tokens cover the blocks up to its cursor
// only, and an answer that needs them fell back to ClickHouse for every address, which made an
// address page several times dearer for that second of each block. The rows of an address the
// unapplied blocks do not name are already those of the checkpoint: only the named ones (a few
// hundred a block) still go to ClickHouse. The names are read once per unapplied range and shared.
import { rangeNamedAddresses } from '../storage/clickhouse/derived.js';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { AccountingStanding } from '../storage/postgres/reads/addresses.js';

/** Beyond this many unapplied blocks (a catch-up) every address goes to ClickHouse, as before. */
export const LAG_BLOCKS_MAX = 16;

/** Whether the lane's rows of an address are those of the checkpoint. */
export type CurrentFor = (address: string) => boolean;

const ALL: CurrentFor = () => true;
const NONE: CurrentFor = () => false;

export class AccountingLag {
  /** The unapplied range last asked about, and the addresses its blocks name (null: not known). */
  private last: { key: string; named: Promise<ReadonlySet<string> | null> } | null = null;

  constructor(private readonly ch: ClickHouseStore) {}

  /** For a standing read with the rows in question (the same statement), which addresses it covers. */
  async currentFor(s: AccountingStanding): Promise<CurrentFor> {
    if (s.current) return ALL;
    const cp = s.checkpoint;
    if (s.lane === null || cp === null || cp.number - s.lane > LAG_BLOCKS_MAX) return NONE;
    const key = `${s.lane}:${cp.number}:${cp.hash}`;
    let entry = this.last;
    if (entry?.key !== key) {
      const fresh = { key, named: this.read(s.lane + 1, cp.number, cp.hash) };
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
