// Token-bucket rate limits, pure (the clock is injected): one bucket per client IP for anonymous
// requests and one per API key, each refilled continuously at its rate with a small burst; and
// one per client IP, at the anonymous rate, for credentials that are not known to be valid yet,
// charged before they are looked up (so sending made-up keys costs a client like anonymous use,
// and the database at most that many lookups).
// Memory is bounded: at most maxKeys buckets; when full, the oldest-created one is dropped (that
// client simply starts again with a full bucket).

export interface Clock {
  /** Milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => performance.timeOrigin + performance.now() };

export interface Decision {
  allowed: boolean;
  /** Requests per second of the bucket (x-ratelimit-limit); -1 when limits are off. */
  limit: number;
  /** Whole tokens left after this request (x-ratelimit-remaining). */
  remaining: number;
  /** Milliseconds until the bucket is full again (x-ratelimit-reset, as Blockscout: ms). */
  resetMs: number;
  /** Seconds to wait before a retry can pass (Retry-After), 0 when allowed. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBuckets {
  readonly rate: number;
  readonly capacity: number;
  /** Insertion-ordered: when full, the oldest-created bucket is dropped. */
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxKeys: number;

  constructor(
    opts: { ratePerSecond: number; burst?: number; maxKeys?: number },
    private readonly clock: Clock = systemClock,
  ) {
    this.rate = opts.ratePerSecond;
    // A small burst: half a second's worth on top of the steady rate, at least one request.
    this.capacity = Math.max(1, opts.burst ?? Math.ceil(this.rate * 1.5));
    this.maxKeys = opts.maxKeys ?? 100_000;
  }

  take(key: string, cost = 1): Decision {
    const now = this.clock.now();
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: this.capacity, at: now };
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
      this.buckets.set(key, b);
    } else this.refill(b, now);
    const allowed = b.tokens >= cost;
    if (allowed) b.tokens -= cost;
    const missing = this.capacity - b.tokens;
    return {
      allowed,
      limit: this.rate,
      remaining: Math.max(0, Math.floor(b.tokens)),
      resetMs: Math.ceil((missing / this.rate) * 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(((cost - b.tokens) / this.rate))),
    };
  }

  /**
   * Takes `n` tokens from `key`'s bucket without a request (what other replicas spent of a shared
   * limit); the bucket may go below zero, down to minus its capacity, and refills from there.
   */
  charge(key: string, n: number): void {
    const b = this.buckets.get(key);
    if (!b || n <= 0) return;
    this.refill(b, this.clock.now());
    b.tokens = Math.max(-this.capacity, b.tokens - n);
  }

  private refill(b: Bucket, now: number): void {
    if (now <= b.at) return;
    b.tokens = Math.min(this.capacity, b.tokens + ((now - b.at) / 1000) * this.rate);
    b.at = now;
  }
}

export interface RateLimiterOptions {
  /** Requests per second per client IP without a key (0 = no limit). */
  anonymousPerSecond: number;
  /** Requests per second per API key (0 = no limit). */
  keyPerSecond: number;
  clock?: Clock;
  maxKeys?: number;
}

const OFF: Decision = { allowed: true, limit: -1, remaining: -1, resetMs: -1, retryAfterSeconds: 0 };

export class RateLimiter {
  private readonly anon: TokenBuckets | null;
  private readonly keyed: TokenBuckets | null;
  private readonly unverified: TokenBuckets | null;

  constructor(opts: RateLimiterOptions) {
    const clock = opts.clock ?? systemClock;
    this.anon = opts.anonymousPerSecond > 0 ? new TokenBuckets({ ratePerSecond: opts.anonymousPerSecond, maxKeys: opts.maxKeys }, clock) : null;
    this.keyed = opts.keyPerSecond > 0 ? new TokenBuckets({ ratePerSecond: opts.keyPerSecond, maxKeys: opts.maxKeys }, clock) : null;
    this.unverified = opts.anonymousPerSecond > 0 ? new TokenBuckets({ ratePerSecond: opts.anonymousPerSecond, maxKeys: opts.maxKeys }, clock) : null;
  }

  /**
   * A credential from `ip` that is about to be looked up (not known valid): its own bucket per IP,
   * at the anonymous rate, apart from the IP's anonymous requests so that browsing anonymously
   * does not block a first request with a key.
   */
  checkUnverified(ip: string): Decision {
    return this.unverified ? this.unverified.take(`c:${ip}`) : OFF;
  }

  /**
   * Called with each API key whose request was allowed (src/ratelimit/shared-key-limits.ts counts
   * them, to share a key's limit across API replicas).
   */
  onKeyAllowed: ((keyId: string) => void) | undefined;

  /** A request by `ip`, with `keyId` when it carried a valid API key (its own, dedicated bucket). */
  check(ip: string, keyId?: string | null): Decision {
    if (keyId) {
      if (!this.keyed) return OFF;
      const d = this.keyed.take(`k:${keyId}`);
      if (d.allowed) this.onKeyAllowed?.(keyId);
      return d;
    }
    return this.anon ? this.anon.take(`ip:${ip}`) : OFF;
  }

  /** Whether API keys are limited at all. */
  get limitsKeys(): boolean {
    return this.keyed !== null;
  }

  /** Charges `keyId`'s bucket with `n` requests allowed elsewhere (another replica). */
  chargeKey(keyId: string, n: number): void {
    this.keyed?.charge(`k:${keyId}`, n);
  }
}

export const TOO_MANY_REQUESTS = { message: 'Too many requests' } as const;

/** The headers every response carries, and Retry-After on a refusal (written into `into`). */
export function rateLimitHeaders(d: Decision, into: Record<string, string> = {}): Record<string, string> {
  into['x-ratelimit-limit'] = String(d.limit);
  into['x-ratelimit-remaining'] = String(d.remaining);
  into['x-ratelimit-reset'] = String(d.resetMs);
  if (!d.allowed) into['retry-after'] = String(d.retryAfterSeconds);
  return into;
}

/**
 * The client's IP: the socket's, or (only when the socket is a trusted proxy) the right-most
 * X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function clientIp(socketIp: string, forwardedFor: string | undefined, trustedProxies: ReadonlySet<string>): string {
  if (!forwardedFor || !trustedProxies.has(socketIp)) return socketIp;
  const hops = forwardedFor.split(',').map((s) => s.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trustedProxies.has(hops[i])) return hops[i];
  return socketIp;
}
