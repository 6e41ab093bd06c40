// Token search in the API's memory (issue #30: /search/quick at 8 connections spent most of its
// CPU in PostgreSQL's trigram reads). The same matches and order as the SQL search
// (src/storage/postgres/reads/search.ts): a query equal to a token's name or symbol, or (3
// characters or more) a piece of either, case-insensitive; exact matches first, then holder count
// descending, named before unnamed, names in byte order, then the address. Exact only where
// PostgreSQL folds and sorts text as bytes (the C locale; textIsBytes), which is what is checked
// before this is used. Kept current by reading what changed since the last read
// (tokenSearchChanges: by transaction, so no commit order is missed), off the request path while
// searches keep coming: a search sees every change committed more than TOKEN_SEARCH_STALE_MS
// before it arrived (as the signature book and public names follow their tables on a period);
// one arriving later than that after the last read waits for a read that began after it.
import {
  MIN_SUBSTRING_LENGTH,
  searchable,
  tokenSearchChanges,
  type ChangePosition,
  type TokenCursor,
  type TokenSearchRow,
} from '../storage/postgres/reads/search.js';
import type { PgStore } from '../storage/postgres/store.js';
import { SharedRead } from './shared-read.js';

/** Default of TOKEN_SEARCH_MEMORY_MAX: most tokens held (~400 bytes each, bench/README.md). */
export const TOKEN_SEARCH_MEMORY_MAX = 500_000;

/**
 * How old, at most, what a search answers from may be (ms): the start of the last completed change
 * read. Holder counts change once a block (12 s on mainnet) and names when the metadata lane has
 * fetched them, so a second is not seen; a read on the request path is (issue #30: the read waits
 * for PostgreSQL's CPU while the accounting lane applies a block).
 */
export const TOKEN_SEARCH_STALE_MS = 1000;

/** The tokens table outgrew the bound: the index let go of its memory; ask PostgreSQL. */
export class TooManyTokens extends Error {
  override name = 'TooManyTokens';
}

/** Rows read per statement while loading. */
const LOAD_PAGE = 20_000;

/** A token as held: its row's fields, flat (one object a token). */
interface Token extends Omit<TokenSearchRow, 'exact'> {
  /** holder_count as a number (for ranking). */
  holders: number;
  /** The name and symbol folded as PostgreSQL's lower() does here ('' when null), joined by NUL (which no query holds). */
  key: string;
  /** The name's length in `key` (folding keeps lengths). */
  nameLength: number;
  /** Still in the tokens table (a removed token's slot waits for reuse). */
  live: boolean;
}

const keyOf = (name: string | null, symbol: string | null) => foldAscii(name ?? '') + '\u0000' + foldAscii(symbol ?? '');

/** Whether the folded query equals the token's folded name or symbol. */
function isExact(t: Token, f: string): boolean {
  const k = t.key;
  if (t.nameLength === f.length && k.startsWith(f)) return true;
  return k.length - t.nameLength - 1 === f.length && k.endsWith(f);
}

/** The folded name and symbol. */
const parts = (t: Token): [string, string] => [t.key.slice(0, t.nameLength), t.key.slice(t.nameLength + 1)];

const rowOf = (t: Token, exact: boolean): TokenSearchRow => ({
  address: t.address,
  type: t.type,
  name: t.name,
  symbol: t.symbol,
  total_supply: t.total_supply,
  holder_count: t.holder_count,
  exact,
});

/** A-Z to a-z, nothing else (lower() and ILIKE in the C locale). */
export function foldAscii(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32)) : s;
}

/** Lone surrogates as U+FFFD, as the driver sends a query string to PostgreSQL. */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** Code unit order adjusted to code point order (= UTF-8 byte order): surrogates after U+FFFF's neighbours. */
function unit(c: number): number {
  return c >= 0xd800 ? (c <= 0xdfff ? c + 0x2000 : c - 0x800) : c;
}

/** Compares two strings as PostgreSQL's C collation does (UTF-8 bytes). */
export function compareBytes(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return unit(x) - unit(y);
  }
  return a.length - b.length;
}

/** Rank order of the SQL search (index tokens_list_desc): -holders, unnamed last, name, address. */
function compareRank(a: Token, b: Token): number {
  if (a.holders !== b.holders) return b.holders - a.holders;
  const an = a.name;
  const bn = b.name;
  if ((an === null) !== (bn === null)) return an === null ? 1 : -1;
  const c = compareBytes(an ?? '', bn ?? '');
  if (c !== 0) return c;
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

/** Whether `t` ranks strictly after the cursor. */
function afterCursor(t: Token, c: TokenCursor): boolean {
  const h = Number(c.holders);
  if (t.holders !== h) return t.holders < h;
  const tn = t.name === null;
  if (tn !== c.nameIsNull) return tn;
  const k = compareBytes(t.name ?? '', c.nameIsNull ? '' : c.name);
  if (k !== 0) return k > 0;
  return t.address > c.address;
}

/** A growable list of slots (one per trigram). */
class Postings {
  a = new Int32Array(4);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/** The 3-character pieces of `s` (code units), each once. */
function trigrams(s: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + 3 <= s.length; i++) out.add(s.slice(i, i + 3));
  return out;
}

/** The best `limit` tokens seen, in rank order (limit is a page: insertion into a short array). */
class TopK {
  readonly items: Token[] = [];
  constructor(private readonly limit: number) {}
  offer(t: Token): void {
    const items = this.items;
    if (items.length === this.limit && compareRank(t, items[items.length - 1]!) >= 0) return;
    let i = items.length;
    while (i > 0 && compareRank(t, items[i - 1]!) < 0) i--;
    items.splice(i, 0, t);
    if (items.length > this.limit) items.pop();
  }
}

export class TokenSearchIndex {
  private readonly slots: Token[] = [];
  private readonly bySlot = new Map<string, number>();
  private readonly free: number[] = [];
  private readonly grams = new Map<string, Postings>();
  /** Tokens whose folded name or symbol is shorter than a trigram (exact matches of 1-2 characters). */
  private readonly short = new Map<string, Set<number>>();
  private readonly types = new Map<string, string>();
  /** Postings that no longer hold (a name changed, a token left); rebuilt when they outnumber a quarter. */
  private stale = 0;
  private total = 0;
  private seen = new Int32Array(0);
  private stamp = 0;
  private at: ChangePosition | null = null;
  private readonly reads = new SharedRead(() => this.readChanges());
  /** When the last completed read began (performance.now(); -Infinity: nothing held to answer from). */
  private readAt = -Infinity;
  /** A read started by a search that did not wait for it. */
  private ahead = false;

  private readonly staleMs: number;
  private readonly now: () => number;

  /**
   * `max`: most tokens held; a read that would hold more throws TooManyTokens (and this index is
   * then empty). `staleMs`: TOKEN_SEARCH_STALE_MS (0: every search waits for a read that began
   * after it); `now`: the clock (ms, performance.now).
   */
  constructor(
    private readonly pg: PgStore,
    private readonly max = TOKEN_SEARCH_MEMORY_MAX,
    o: { staleMs?: number; now?: () => number } = {},
  ) {
    this.staleMs = o.staleMs ?? TOKEN_SEARCH_STALE_MS;
    this.now = o.now ?? (() => performance.now());
  }

  /** Tokens held. */
  get size(): number {
    return this.bySlot.size;
  }

  /** Applies what changed since the last read, in a read that began after this call (SharedRead). */
  refresh(): Promise<void> {
    return this.reads.fresh();
  }

  /**
   * Makes what is held at most `staleMs` old for a search arriving now: answers at once when the
   * last read began within it, starting the next read in the background once half of it has gone
   * (so searches that keep coming never wait); otherwise waits for a read that begins after now.
   */
  private current(): Promise<void> | undefined {
    const age = this.now() - this.readAt;
    if (age > this.staleMs) return this.refresh();
    if (age * 2 > this.staleMs && !this.ahead) {
      this.ahead = true;
      // A failed read is seen by the next search that has to wait (readAt is not advanced; a
      // TooManyTokens read leaves nothing held, readAt -Infinity).
      this.refresh()
        .catch(() => undefined)
        .finally(() => (this.ahead = false));
    }
    return undefined;
  }

  private async readChanges(): Promise<void> {
    const began = this.now();
    const since = this.at;
    let after: string | undefined;
    let first: ChangePosition | null = null;
    for (;;) {
      const c = await tokenSearchChanges(this.pg, since, { after, limit: LOAD_PAGE });
      first ??= c.at;
      for (const a of c.removed) this.remove(a);
      for (const r of c.rows) this.put(r);
      if (this.bySlot.size > this.max) {
        this.clear();
        throw new TooManyTokens(`more than ${this.max} tokens`);
      }
      if (!c.more) break;
      after = c.rows[c.rows.length - 1]!.address;
    }
    this.at = first;
    this.readAt = began;
    if (this.stale > 1000 && this.stale * 4 > this.total) this.rebuildGrams();
  }

  /** Lets go of everything held. */
  private clear(): void {
    this.slots.length = 0;
    this.bySlot.clear();
    this.free.length = 0;
    this.grams.clear();
    this.short.clear();
    this.seen = new Int32Array(0);
    this.at = null;
    this.readAt = -Infinity;
  }

  private put(row: Omit<TokenSearchRow, 'exact'>): void {
    const key = keyOf(row.name, row.symbol);
    // One string per distinct type (a driver's row holds its own copy of each).
    let type = this.types.get(row.type);
    if (type === undefined) this.types.set(row.type, (type = row.type));
    let slot = this.bySlot.get(row.address);
    if (slot !== undefined) {
      const t = this.slots[slot]!;
      t.type = type;
      t.total_supply = row.total_supply;
      t.holder_count = row.holder_count;
      t.holders = Number(row.holder_count);
      if (t.key !== key) {
        this.unindex(slot, t);
        t.name = row.name;
        t.symbol = row.symbol;
        t.key = key;
        t.nameLength = (row.name ?? '').length;
        this.index(slot, t);
      } else {
        t.name = row.name;
        t.symbol = row.symbol;
      }
      return;
    }
    slot = this.free.pop() ?? this.slots.length;
    const t: Token = {
      address: row.address,
      type,
      name: row.name,
      symbol: row.symbol,
      total_supply: row.total_supply,
      holder_count: row.holder_count,
      holders: Number(row.holder_count),
      key,
      nameLength: (row.name ?? '').length,
      live: true,
    };
    this.slots[slot] = t;
    this.bySlot.set(row.address, slot);
    this.index(slot, t);
  }

  private remove(address: string): void {
    const slot = this.bySlot.get(address);
    if (slot === undefined) return;
    const t = this.slots[slot]!;
    this.unindex(slot, t);
    t.live = false;
    this.bySlot.delete(address);
    this.free.push(slot);
  }

  private index(slot: number, t: Token): void {
    this.indexGrams(slot, t);
    for (const k of parts(t)) {
      if (k.length === 0 || k.length >= MIN_SUBSTRING_LENGTH) continue;
      let s = this.short.get(k);
      if (!s) this.short.set(k, (s = new Set()));
      s.add(slot);
    }
  }

  private indexGrams(slot: number, t: Token): void {
    for (const g of trigrams(t.key)) {
      if (g.includes('\u0000')) continue;
      let p = this.grams.get(g);
      if (!p) this.grams.set(g, (p = new Postings()));
      p.push(slot);
      this.total++;
    }
  }

  /** Trigram postings are left (a search checks every candidate); the short map is exact. */
  private unindex(slot: number, t: Token): void {
    this.stale += trigrams(t.key).size;
    for (const k of parts(t)) this.short.get(k)?.delete(slot);
  }

  private rebuildGrams(): void {
    this.grams.clear();
    this.total = 0;
    this.stale = 0;
    for (const slot of this.bySlot.values()) this.indexGrams(slot, this.slots[slot]!);
  }

  /**
   * Tokens matching `q` (already trimmed) in rank order after `after`, at most `limit`: exact
   * matches, then the pieces (searchTokens' contract, answered from memory at most `staleMs` old).
   */
  async search(q: string, o: { after?: TokenCursor; limit: number }): Promise<TokenSearchRow[]> {
    if (!searchable(q) || o.limit <= 0) return [];
    const wait = this.current();
    if (wait) await wait;
    const f = foldAscii(wellFormed(q));
    const after = o.after;
    const exact = new TopK(o.limit);
    const rest = new TopK(o.limit);
    const wantExact = !after || after.exact;
    const exactAfter = after?.exact ? after : undefined;
    const restAfter = after && !after.exact ? after : undefined;
    if (f.length < MIN_SUBSTRING_LENGTH) {
      if (wantExact) {
        for (const slot of this.short.get(f) ?? []) {
          const t = this.slots[slot]!;
          if (!exactAfter || afterCursor(t, exactAfter)) exact.offer(t);
        }
      }
    } else {
      const p = this.rarest(f);
      if (p) {
        if (this.seen.length < this.slots.length) this.seen = new Int32Array(this.slots.length * 2);
        if (this.stamp === 0x7fffffff) {
          this.seen.fill(0);
          this.stamp = 0;
        }
        const stamp = ++this.stamp;
        for (let i = 0; i < p.n; i++) {
          const slot = p.a[i]!;
          if (this.seen[slot] === stamp) continue;
          this.seen[slot] = stamp;
          const t = this.slots[slot]!;
          if (!t.live) continue;
          if (isExact(t, f)) {
            if (wantExact && (!exactAfter || afterCursor(t, exactAfter))) exact.offer(t);
          } else if (t.key.includes(f)) {
            if (!restAfter || afterCursor(t, restAfter)) rest.offer(t);
          }
        }
      }
    }
    const out: TokenSearchRow[] = exact.items.map((t) => rowOf(t, true));
    for (const t of rest.items) {
      if (out.length >= o.limit) break;
      out.push(rowOf(t, false));
    }
    return out;
  }

  /** The shortest posting list among the query's trigrams (null: one of them occurs nowhere). */
  private rarest(f: string): Postings | null {
    let best: Postings | null = null;
    for (const g of trigrams(f)) {
      const p = this.grams.get(g);
      if (!p) return null;
      if (!best || p.n < best.n) best = p;
    }
    return best;
  }
}
