// The instance's names for selectors and event topics (other verified contracts, imported dumps,
// online answers: sql/postgres/0019_signatures.sql) as the serializers need them: synchronously,
// after one prefetch per answer. Which selectors the table has at all is held in memory (their
// first 4 bytes, sorted: 4 bytes a signature, 4 MB for a million), so an answer whose selectors it
// does not have asks PostgreSQL nothing; one that has them reads their rows once, then from an LRU.
import { LRUCache } from 'lru-cache';
import type { PgStore } from '../storage/postgres/store.js';
import type { ChangePosition } from '../storage/postgres/reads/search.js';
import { knownSelectors, signaturesOf, type SignatureSource } from '../storage/postgres/signatures.js';
import { curatedKnows, type Candidate, type InstanceNames, type NameSource } from '../abi/naming.js';
import { parseItemText } from '../abi/item-text.js';
import type { OnlineSignatures } from './online-signatures.js';

/** How often additions to the table are looked for (ms). */
const REFRESH_MS = 5000;
/** Additions held unsorted before they are merged into the sorted array. */
const MERGE_AT = 4096;

const SOURCE: Record<SignatureSource, NameSource> = { verified: 'other_verified_contract', imported: 'imported', online: 'online' };
const SELECTOR = /^0x(?:[0-9a-f]{8}|[0-9a-f]{64})$/;

export class SignatureBook implements InstanceNames {
  private sorted: Uint32Array = new Uint32Array(0);
  private readonly added = new Set<number>();
  private at: ChangePosition | null = null;
  private checkedAt = 0;
  private refreshing: Promise<boolean> | null = null;
  private readonly rows = new LRUCache<string, Candidate[]>({ max: 50_000 });
  /** Bumped whenever rows were added: answers built before may name less than they could. */
  generation = 0;

  constructor(
    private readonly pg: PgStore,
    private readonly online?: OnlineSignatures,
  ) {}

  /** Whether refresh() would look now (a request checks this without awaiting anything). */
  due(now = Date.now()): boolean {
    return now - this.checkedAt > REFRESH_MS;
  }

  /** Picks up rows added since the last look (at most every REFRESH_MS, or now when forced); true when there were any. */
  async refresh(force = false): Promise<boolean> {
    if (!force && !this.due()) return false;
    this.refreshing ??= (async () => {
      const at = Date.now();
      const k = await knownSelectors(this.pg, this.at);
      this.at = k.at;
      this.checkedAt = at;
      const n = k.prefixes.length >>> 2;
      if (!n) return false;
      if (this.sorted.length === 0 && this.added.size === 0 && n > MERGE_AT) {
        this.sorted = prefixArray(k.prefixes, n).sort();
      } else {
        for (let i = 0; i < n; i++) this.added.add(k.prefixes.readUInt32BE(i * 4));
        if (this.added.size >= MERGE_AT) this.merge();
      }
      // Rows of a selector cached before may have gained a name.
      this.rows.clear();
      this.generation++;
      return true;
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /**
   * Reads the names of those of `selectors` (4-byte, or 32-byte event topics) that the curated
   * sources do not know and the table has; asks the online lookup, in the background, for those
   * nobody knows.
   */
  async prefetch(selectors: Iterable<string>): Promise<void> {
    const want = new Set<string>();
    for (const raw of selectors) {
      const s = raw.toLowerCase();
      if (SELECTOR.test(s) && !this.rows.has(s) && !curatedKnows(s)) want.add(s);
    }
    if (!want.size) return;
    await this.refresh();
    const ask: string[] = [];
    for (const s of want) {
      if (this.has(parseInt(s.slice(2, 10), 16))) ask.push(s);
      else this.online?.enqueue(s);
    }
    if (!ask.length) return;
    const found = new Map<string, Candidate[]>(ask.map((s) => [s, []]));
    for (const r of await signaturesOf(this.pg, ask)) {
      const item = parseItemText(r.item);
      if (item) found.get(r.selector)?.push({ item, source: SOURCE[r.source], origin: r.origin });
    }
    for (const [s, list] of found) {
      this.rows.set(s, list);
      // A prefix shared with another selector only: nobody here names this one.
      if (!list.length) this.online?.enqueue(s);
    }
  }

  candidates(selector: string): readonly Candidate[] {
    return this.rows.get(selector.toLowerCase()) ?? [];
  }

  private has(prefix: number): boolean {
    if (this.added.has(prefix)) return true;
    const a = this.sorted;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = a[mid]!;
      if (v === prefix) return true;
      if (v < prefix) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  private merge(): void {
    const next = new Uint32Array(this.sorted.length + this.added.size);
    next.set(this.sorted);
    let i = this.sorted.length;
    for (const p of this.added) next[i++] = p;
    this.sorted = next.sort();
    this.added.clear();
  }
}

function prefixArray(buf: Buffer, n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = buf.readUInt32BE(i * 4);
  return out;
}
