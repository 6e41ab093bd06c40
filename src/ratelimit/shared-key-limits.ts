// One API key's rate limit across every API replica: each replica counts the tokens it took per
// key (one per request allowed, more for the rows a request read) and, a few times a second,
// publishes its totals and charges its own bucket with what the other replicas' totals grew by
// since the last look. Every replica's bucket then sees the key's whole traffic and refills at the
// key's rate once, so together they allow about the rate, not the rate times the replicas.
// Between two syncs each replica decides alone: the overshoot is at most one sync interval of
// traffic per replica (and each bucket's burst). Limits per client IP stay per replica
// (docs/scale-out.md says why).
import crypto from 'node:crypto';
import type { RateLimiter } from './rate-limiter.js';
import type { Logger } from '../log.js';

/** Where the replicas' totals meet (src/storage/postgres/api-key-usage.ts). */
export interface KeyUsageStore {
  /** Stores this replica's totals; returns the other replicas' summed totals for `keys`. */
  sync(replica: string, totals: ReadonlyMap<string, number>, keys: readonly string[]): Promise<Map<string, number>>;
  /** Drops the totals of replicas silent for `idleSeconds`. */
  forgetIdle(idleSeconds: number): Promise<number>;
}

interface Local {
  /** Tokens this replica took from the key since it was first (or again) seen here (whole numbers). */
  total: number;
  /** Changed since the last sync. */
  dirty: boolean;
  lastAt: number;
}

export interface SharedKeyLimitsOptions {
  /** How often totals are exchanged (default 250 ms). */
  syncMs?: number;
  /**
   * A key unused here for this long is forgotten locally (default 60 s): its total starts again
   * from 0 and the others' totals get a new baseline when it comes back, so a burst of theirs
   * long past is not charged to the present.
   */
  idleMs?: number;
  log?: Logger;
  now?: () => number;
}

/** Rows of replicas silent this long are removed (they stopped; their traffic is long refilled). */
const FORGET_AFTER_S = 3600;
const FORGET_EVERY_MS = 10 * 60_000;

export class SharedKeyLimits {
  readonly replica = crypto.randomUUID();
  private readonly local = new Map<string, Local>();
  /** The others' summed total per key at the last sync (the baseline of the next charge). */
  private readonly others = new Map<string, number>();
  private readonly syncMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastForget = 0;
  private failing = false;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly store: KeyUsageStore,
    opts: SharedKeyLimitsOptions = {},
  ) {
    this.syncMs = opts.syncMs ?? 250;
    this.idleMs = opts.idleMs ?? 60_000;
    this.now = opts.now ?? Date.now;
    this.log = opts.log;
    limiter.onKeyTokens = (keyId, tokens) => {
      let l = this.local.get(keyId);
      if (!l) this.local.set(keyId, (l = { total: 0, dirty: true, lastAt: 0 }));
      l.total += tokens;
      l.dirty = true;
      l.lastAt = this.now();
    };
  }

  start(): void {
    if (this.timer) return;
    this.lastForget = this.now();
    this.timer = setInterval(() => {
      this.running ??= this.syncOnce().finally(() => (this.running = undefined));
    }, this.syncMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    this.limiter.onKeyTokens = undefined;
  }

  /** One exchange: publish the changed totals, charge what the others spent since the last one. */
  async syncOnce(): Promise<void> {
    const now = this.now();
    for (const [k, l] of this.local) {
      if (now - l.lastAt > this.idleMs) {
        this.local.delete(k);
        this.others.delete(k);
      }
    }
    if (!this.local.size) return;
    const changed = new Map<string, number>();
    for (const [k, l] of this.local) if (l.dirty) changed.set(k, l.total);
    let sums: Map<string, number>;
    try {
      sums = await this.store.sync(this.replica, changed, [...this.local.keys()]);
      if (now - this.lastForget >= FORGET_EVERY_MS) {
        this.lastForget = now;
        await this.store.forgetIdle(FORGET_AFTER_S);
      }
    } catch (e) {
      // The limits go on per replica meanwhile; said once until it works again.
      if (!this.failing) this.log?.warn('shared API key limits: sync failed; limits are per replica until it works', { error: (e as Error).message });
      this.failing = true;
      return;
    }
    if (this.failing) this.log?.info('shared API key limits: sync works again');
    this.failing = false;
    for (const k of changed.keys()) {
      const l = this.local.get(k);
      if (l && l.total === changed.get(k)) l.dirty = false;
    }
    for (const k of this.local.keys()) {
      const sum = sums.get(k) ?? 0;
      const before = this.others.get(k);
      this.others.set(k, sum);
      // First look at a key: its baseline. A smaller sum: a replica's row was dropped or restarted
      // from 0 (new baseline, nothing to charge).
      if (before !== undefined && sum > before) this.limiter.chargeKey(k, sum - before);
    }
  }
}
