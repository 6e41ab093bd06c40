// The API's response cache: serialized response bytes in an LRU bounded by bytes (CACHE_MAX_MB),
// keyed by the normalized request, with one computation in flight per key (single flight).
//
// Freshness, by the entry's policy:
// - 'volatile' (lists, counters, anything with confirmations or derived figures): dropped on every
//   new block, every change the derived-data lanes make, and every reorg;
// - 'derived' (a stored transaction's own data that shows derived figures, e.g. its transfers'
//   token supply and holders): dropped when the lanes change something, or by a reorg;
// - 'stable' (a stored block's or transaction's own chain data): kept until a reorg.
// Every invalidation bumps the generations it affects: a computation that started before it is
// neither stored nor joined by later requests, so nothing computed from the old state is served
// after the event.
import { LRUCache } from 'lru-cache';

export type CachePolicy = 'volatile' | 'derived' | 'stable' | 'none';

/** What happened: a new block, a change by the derived-data lanes, or a reorg. */
export type Invalidation = 'block' | 'derived' | 'reorg';

export interface CachedResponse {
  status: number;
  body: Buffer;
  policy: CachePolicy;
  /** The block a 'stable' answer is about (the edges' freshness depends on its depth). */
  block?: bigint;
  /** Rows the answer lists, when its price in the rate limits follows them (Etherscan lists). */
  rows?: number;
  /** Headers of its own (Retry-After of an uncached refusal). */
  headers?: Readonly<Record<string, string>>;
}

export interface CacheResult extends CachedResponse {
  /** 'hit': served from the cache; 'shared': joined a computation in flight; 'miss': computed. */
  source: 'hit' | 'shared' | 'miss';
}

export interface ResponseCacheOptions {
  maxBytes: number;
  /**
   * Lifetime of volatile entries. Without indexer events in this process (split roles), keep it
   * short: nothing else tells the cache that a block arrived.
   */
  volatileTtlMs?: number;
}

interface Entry extends CachedResponse {
  generation: number;
}

interface Flight {
  /** Generations when the computation started. */
  gens: Record<Exclude<CachePolicy, 'none'>, number>;
  promise: Promise<CachedResponse>;
}

const ENTRY_OVERHEAD = 96;

export class ResponseCache {
  private readonly lru: LRUCache<string, Entry>;
  private readonly inflight = new Map<string, Flight>();
  /** Keys of the entries each invalidation drops without a reorg. */
  private readonly keysOf = { volatile: new Set<string>(), derived: new Set<string>() };
  /**
   * Generation per policy: 'volatile' is bumped by every invalidation, 'derived' by derived
   * changes and reorgs, 'stable' by reorgs only.
   */
  private readonly gens = { volatile: 0, derived: 0, stable: 0 };
  private volatileTtlMs: number | undefined;
  readonly stats = { hits: 0, misses: 0, shared: 0, stores: 0, discarded: 0 };

  constructor(opts: ResponseCacheOptions) {
    this.volatileTtlMs = opts.volatileTtlMs;
    this.lru = new LRUCache<string, Entry>({
      maxSize: Math.max(1, opts.maxBytes),
      sizeCalculation: (e, k) => e.body.length + k.length * 2 + ENTRY_OVERHEAD,
      dispose: (_e, k) => {
        this.keysOf.volatile.delete(k);
        this.keysOf.derived.delete(k);
      },
    });
  }

  setVolatileTtl(ms: number | undefined): void {
    this.volatileTtlMs = ms;
  }

  get size(): number {
    return this.lru.size;
  }

  get bytes(): number {
    return this.lru.calculatedSize;
  }

  /**
   * The cached response for `key`, or the result of `compute` (shared with concurrent callers of
   * the same key). `compute` says how its result may be cached.
   */
  async get(key: string, compute: () => Promise<CachedResponse>): Promise<CacheResult> {
    const hit = this.lru.get(key);
    if (hit && hit.policy !== 'none' && hit.generation === this.gens[hit.policy]) {
      this.stats.hits++;
      return { status: hit.status, body: hit.body, policy: hit.policy, block: hit.block, rows: hit.rows, headers: hit.headers, source: 'hit' };
    }
    const flying = this.inflight.get(key);
    if (flying && flying.gens.volatile === this.gens.volatile) {
      this.stats.shared++;
      const r = await flying.promise;
      return { ...r, source: 'shared' };
    }
    this.stats.misses++;
    const gens = { ...this.gens };
    const promise = compute();
    const flight: Flight = { gens, promise };
    this.inflight.set(key, flight);
    try {
      const r = await promise;
      if (r.policy !== 'none') {
        // Valid only if nothing that invalidates this policy happened meanwhile.
        if (gens[r.policy] === this.gens[r.policy]) this.store(key, { ...r, generation: gens[r.policy] });
        else this.stats.discarded++;
      }
      return { ...r, source: 'miss' };
    } finally {
      if (this.inflight.get(key) === flight) this.inflight.delete(key);
    }
  }

  private store(key: string, e: Entry): void {
    if (e.policy === 'volatile') {
      this.lru.set(key, e, this.volatileTtlMs ? { ttl: this.volatileTtlMs } : undefined);
      if (this.lru.has(key)) this.keysOf.volatile.add(key);
    } else {
      this.lru.set(key, e);
      if (e.policy === 'derived' && this.lru.has(key)) this.keysOf.derived.add(key);
    }
    this.stats.stores++;
  }

  /**
   * A new block drops every volatile entry; a change by the derived-data lanes drops the volatile
   * and 'derived' ones; a reorg drops everything.
   */
  invalidate(kind: Invalidation): void {
    this.gens.volatile++;
    this.inflight.clear();
    if (kind === 'reorg') {
      this.gens.derived++;
      this.gens.stable++;
      this.lru.clear();
      this.keysOf.volatile.clear();
      this.keysOf.derived.clear();
      return;
    }
    const drop = kind === 'derived' ? [this.keysOf.volatile, this.keysOf.derived] : [this.keysOf.volatile];
    if (kind === 'derived') this.gens.derived++;
    for (const set of drop) {
      for (const k of [...set]) this.lru.delete(k);
      set.clear();
    }
  }

  clear(): void {
    this.invalidate('reorg');
  }
}
