// The API's response cache: serialized response bytes in an LRU bounded by bytes (CACHE_MAX_MB),
// keyed by the normalized request, with one computation in flight per key (single flight).
//
// Freshness: an entry is 'volatile' (lists, counters, anything with confirmations: dropped on
// every new block) or 'stable' (a stored block's or transaction's own data: kept until a reorg).
// Every invalidation bumps a generation: a computation that started before it is neither stored
// nor joined by later requests, so nothing computed from the old chain is served after the event.
import { LRUCache } from 'lru-cache';

export type CachePolicy = 'volatile' | 'stable' | 'none';

export interface CachedResponse {
  status: number;
  body: Buffer;
  policy: CachePolicy;
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
  volatileGen: number;
  stableGen: number;
  promise: Promise<CachedResponse>;
}

const ENTRY_OVERHEAD = 96;

export class ResponseCache {
  private readonly lru: LRUCache<string, Entry>;
  private readonly inflight = new Map<string, Flight>();
  private readonly volatileKeys = new Set<string>();
  /** Bumped by every block and reorg. */
  private volatileGen = 0;
  /** Bumped by reorgs only. */
  private stableGen = 0;
  private volatileTtlMs: number | undefined;
  readonly stats = { hits: 0, misses: 0, shared: 0, stores: 0, discarded: 0 };

  constructor(opts: ResponseCacheOptions) {
    this.volatileTtlMs = opts.volatileTtlMs;
    this.lru = new LRUCache<string, Entry>({
      maxSize: Math.max(1, opts.maxBytes),
      sizeCalculation: (e, k) => e.body.length + k.length * 2 + ENTRY_OVERHEAD,
      dispose: (_e, k) => {
        this.volatileKeys.delete(k);
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
    if (hit && hit.generation === (hit.policy === 'volatile' ? this.volatileGen : this.stableGen)) {
      this.stats.hits++;
      return { status: hit.status, body: hit.body, policy: hit.policy, source: 'hit' };
    }
    const flying = this.inflight.get(key);
    if (flying && flying.volatileGen === this.volatileGen) {
      this.stats.shared++;
      const r = await flying.promise;
      return { ...r, source: 'shared' };
    }
    this.stats.misses++;
    const volatileGen = this.volatileGen;
    const stableGen = this.stableGen;
    const promise = compute();
    const flight: Flight = { volatileGen, stableGen, promise };
    this.inflight.set(key, flight);
    try {
      const r = await promise;
      if (r.policy !== 'none') {
        // Volatile data is valid only if no block arrived meanwhile; stable data unless a reorg.
        const generation = r.policy === 'volatile' ? volatileGen : stableGen;
        if (generation === (r.policy === 'volatile' ? this.volatileGen : this.stableGen)) {
          this.store(key, { ...r, generation });
        } else {
          this.stats.discarded++;
        }
      }
      return { ...r, source: 'miss' };
    } finally {
      if (this.inflight.get(key) === flight) this.inflight.delete(key);
    }
  }

  private store(key: string, e: Entry): void {
    if (e.policy === 'volatile') {
      this.lru.set(key, e, this.volatileTtlMs ? { ttl: this.volatileTtlMs } : undefined);
      if (this.lru.has(key)) this.volatileKeys.add(key);
    } else {
      this.lru.set(key, e);
    }
    this.stats.stores++;
  }

  /** A new block: every volatile entry is dropped. A reorg: everything is. */
  invalidate(kind: 'block' | 'reorg'): void {
    this.volatileGen++;
    this.inflight.clear();
    if (kind === 'reorg') {
      this.stableGen++;
      this.lru.clear();
      this.volatileKeys.clear();
      return;
    }
    for (const k of [...this.volatileKeys]) this.lru.delete(k);
    this.volatileKeys.clear();
  }

  clear(): void {
    this.invalidate('reorg');
  }
}
