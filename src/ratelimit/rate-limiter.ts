// Token-bucket rate limits, pure (the clock is injected): one bucket per client IP for anonymous
// requests and one per API key, each refilled continuously at its rate with a small burst; and
// one per client IP, at the anonymous rate, for credentials that are not known to be valid yet,
// charged before they are looked up (so sending made-up keys costs a client like anonymous use,
// and the database at most that many lookups).
// A request pays one token to be admitted; one that reads many rows (a CSV export, an Etherscan
// list of thousands) pays for them after it read them (spend): its client's bucket goes into
// debt, and the client's next requests wait until the debt is refilled at its rate, so the rows a
// client can have read per second follow its rate whatever size its requests are.
// Memory is bounded: at most maxKeys buckets; when full, the oldest-created one is dropped (that
// client simply starts again with a full bucket).

import { parseIPv4, parseIPv6 } from '../net/private-address.js';

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

  /**
   * Takes `n` tokens from `key`'s bucket for work already done (rows read after admission); the
   * bucket may go into debt, without a floor: the price is paid whole. Returns the milliseconds
   * until the bucket is out of debt again (0: it is not in debt).
   */
  spend(key: string, n: number): number {
    const b = this.buckets.get(key);
    if (!b) return 0;
    this.refill(b, this.clock.now());
    if (n > 0) b.tokens -= n;
    return b.tokens >= 0 ? 0 : Math.ceil((-b.tokens / this.rate) * 1000);
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
   * Called with each API key's tokens spent, whole numbers: 1 per request allowed, more for the
   * rows it read (src/ratelimit/shared-key-limits.ts counts them, to share a key's limit across
   * API replicas).
   */
  onKeyTokens: ((keyId: string, tokens: number) => void) | undefined;

  /** A request by `ip`, with `keyId` when it carried a valid API key (its own, dedicated bucket). */
  check(ip: string, keyId?: string | null): Decision {
    if (keyId) {
      if (!this.keyed) return OFF;
      const d = this.keyed.take(`k:${keyId}`);
      if (d.allowed) this.onKeyTokens?.(keyId, 1);
      return d;
    }
    return this.anon ? this.anon.take(`ip:${ip}`) : OFF;
  }

  /**
   * Charges the bucket `check` charged with `tokens` more, for work its request did beyond its
   * admission token. Returns the milliseconds until that bucket is out of debt (0: limits off, or
   * not in debt).
   */
  spend(ip: string, keyId: string | null | undefined, tokens: number): number {
    if (keyId) {
      if (!this.keyed) return 0;
      if (tokens > 0) this.onKeyTokens?.(keyId, tokens);
      return this.keyed.spend(`k:${keyId}`, tokens);
    }
    return this.anon ? this.anon.spend(`ip:${ip}`, tokens) : 0;
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

/** One admitted request's account with the limiter (the gateway makes one per request). */
export interface RequestMeter {
  /** Who the limits count the request against: `k:<key id>` or `ip:<address>`. */
  readonly client: string;
  /**
   * Adds `rows` read, `rowsPerToken` of them worth a token (what the reader measured its rows to
   * cost, against an ordinary request's token). The request's admission token pays for the first
   * token's worth; beyond it whole tokens are charged as they are reached. Returns the
   * milliseconds until the client's bucket is out of debt (a streamed export waits them out
   * before its next read).
   */
  read(rows: number, rowsPerToken: number): number;
}

export function requestMeter(limiter: RateLimiter, ip: string, keyId: string | undefined): RequestMeter {
  let worth = 0;
  let paid = 1;
  return {
    client: keyId ? `k:${keyId}` : `ip:${ip}`,
    read(rows, rowsPerToken) {
      worth += Math.max(0, rows) / rowsPerToken;
      const due = Math.max(0, Math.floor(worth) - paid);
      paid += due;
      return limiter.spend(ip, keyId, due);
    },
  };
}

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

/**
 * The network of a client address, for what many addresses of one holder must share: its /24
 * (IPv4, also written IPv4-mapped in IPv6) or its /64 (IPv6), as `a.b.c.0/24` or `h:h:h:h::/64`;
 * anything that is not an IP address stands for itself.
 */
export function clientNetwork(ip: string): string {
  const v4 = parseIPv4(ip);
  if (v4) return `${v4[0]}.${v4[1]}.${v4[2]}.0/24`;
  const g = parseIPv6(ip);
  if (!g) return ip;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.0/24`;
  return `${g.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}
