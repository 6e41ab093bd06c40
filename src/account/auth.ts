// Credentials: API keys and session tokens sent as `Authorization: Bearer <token>`.
//
// A token is looked up by its SHA-256 digest and the answer cached in memory for a short time
// (cacheTtlMs). A revocation (key DELETE, sign-out, account deletion) is a PostgreSQL NOTIFY on
// `api_key_revoked`, sent in the revoking transaction. Every process LISTENs on a dedicated
// connection and evicts what it hears, then acknowledges on `api_key_revoked_ack`; the revoking
// process evicts synchronously and answers its client only after every listening process has
// acknowledged (or ackTimeoutMs passed), so a request sent after the DELETE's reply is refused
// on every API server. While a process's listening connection is down it does not use its cache
// at all (every request is looked up), and it clears the cache when it reconnects. An entry read
// from the database is cached only if no eviction happened during the read.
//
// last_used_at of API keys is kept in memory and written every usageFlushMs (and on close), not
// once per request.
//
// A well-formed token the database does not know is remembered as unknown for unknownTtlMs, so a
// client repeating it costs no query. Tokens are 32 random bytes drawn when they are issued, so
// no token becomes valid after being seen unknown; a failed query is not remembered.
import crypto from 'node:crypto';
import type { PgStore } from '../storage/postgres/store.js';
import { recordApiKeyUse, revokeApiKey } from '../storage/postgres/account/api-keys.js';
import { deleteSession, findApiKey, findSession, type Credential } from '../storage/postgres/account/credentials.js';
import { countAuthListeners, listenAuthEvents, type AuthListener } from '../storage/postgres/account/revocations.js';
import { deleteUser } from '../storage/postgres/account/users.js';
import type { ApiRequest } from '../api/http.js';
import type { Logger } from '../log.js';
import { sha256Hex, tokenKind } from './tokens.js';

export interface Identity {
  userId: string;
  /** Set when the credential is an API key (rate limits per key). */
  keyId?: string;
  kind: 'api_key' | 'session';
}

export interface AuthOptions {
  clock: () => number;
  log?: Logger;
  /** How long a looked-up credential is trusted without asking the database (ms). */
  cacheTtlMs?: number;
  /** How long a token the database does not know is answered as unknown without asking again (ms). */
  unknownTtlMs?: number;
  /** At most this many cached credentials. */
  cacheMax?: number;
  /** How often buffered last_used_at times are written (ms). */
  usageFlushMs?: number;
  /** Longest wait of a revocation for the other processes' acknowledgements (ms). */
  ackTimeoutMs?: number;
}

interface Entry {
  cred: Credential;
  at: number;
}

type AuthEvent = { e: 'token'; h: string; r?: string } | { e: 'user'; u: string; r?: string };

/** The bearer token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(headers: Record<string, string>): string | null {
  const h = headers['authorization'];
  if (!h) return null;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

/**
 * The credential of a public API request: `Authorization: Bearer`, else the `x-api-key`
 * header, else the `apikey` query parameter.
 */
export function requestToken(req: Pick<ApiRequest, 'headers' | 'query'>): string | null {
  const bearer = bearerToken(req.headers);
  if (bearer) return bearer;
  const x = req.headers['x-api-key']?.trim();
  if (x) return x;
  const q = req.query.get('apikey')?.trim();
  return q || null;
}

export class Authenticator {
  private readonly cache = new Map<string, Entry>();
  /** Digests of tokens the database did not know, with when that was learned (oldest first). */
  private readonly unknown = new Map<string, number>();
  /** Bumped on every eviction: a lookup that straddles one does not cache its answer. */
  private epoch = 0;
  private readonly usage = new Map<string, Date>();
  private readonly ackWaiters = new Map<string, { need: number; seen: Set<string>; done: () => void }>();
  private readonly listener: AuthListener;
  private readonly listenerId = crypto.randomUUID();
  private readonly flushTimer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readyWaiters: (() => void)[] = [];
  private closed = false;
  private readonly ttl: number;
  private readonly max: number;
  private readonly unknownTtl: number;
  private readonly ackTimeout: number;

  constructor(
    private readonly pg: PgStore,
    private readonly opts: AuthOptions,
  ) {
    this.ttl = opts.cacheTtlMs ?? 30_000;
    this.max = opts.cacheMax ?? 10_000;
    this.unknownTtl = opts.unknownTtlMs ?? 10_000;
    this.ackTimeout = opts.ackTimeoutMs ?? 2_000;
    this.listener = listenAuthEvents(pg, {
      log: opts.log,
      onEvent: (p) => this.onEvent(p),
      onAck: (p) => this.onAck(p),
      onState: (up) => {
        this.clearCache();
        if (up) for (const w of this.readyWaiters.splice(0)) w();
      },
    });
    this.flushTimer = setInterval(() => void this.flushUsage(), opts.usageFlushMs ?? 5_000);
    this.flushTimer.unref();
  }

  /** Resolves once the revocation listener is connected (the cache is in use from then on). */
  ready(): Promise<void> {
    if (this.listener.connected) return Promise.resolve();
    return new Promise((r) => this.readyWaiters.push(r));
  }

  /** The identity behind a token, or null when it is malformed, unknown, revoked or expired. */
  async lookup(token: string | null): Promise<Identity | null> {
    if (!token || this.closed) return null;
    const kind = tokenKind(token);
    if (!kind) return null;
    const hash = sha256Hex(token);
    const now = this.opts.clock();
    let cred: Credential | null = null;
    const hit = this.cache.get(hash);
    if (hit && this.listener.connected && now - hit.at < this.ttl && hit.at <= now) {
      cred = hit.cred;
    } else {
      if (hit) this.cache.delete(hash);
      const seenUnknown = this.unknown.get(hash);
      if (seenUnknown !== undefined && now - seenUnknown < this.unknownTtl && seenUnknown <= now) return null;
      const epoch = this.epoch;
      cred = kind === 'api_key' ? await findApiKey(this.pg, hash) : await findSession(this.pg, hash, new Date(now));
      if (cred && this.listener.connected && epoch === this.epoch && !this.closed) {
        if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
        this.cache.set(hash, { cred, at: now });
      } else if (!cred && this.unknownTtl > 0) {
        this.unknown.delete(hash);
        if (this.unknown.size >= this.max) this.unknown.delete(this.unknown.keys().next().value!);
        this.unknown.set(hash, now);
      }
    }
    if (!cred) return null;
    if (cred.expiresAt && cred.expiresAt.getTime() <= now) {
      this.cache.delete(hash);
      return null;
    }
    if (cred.kind === 'api_key') {
      this.usage.set(cred.keyId!, new Date(now));
      return { userId: cred.userId, keyId: cred.keyId, kind: 'api_key' };
    }
    return { userId: cred.userId, kind: 'session' };
  }

  /** Buffered last-use times of this process (not yet written), by key id. */
  pendingUse(keyId: string): Date | undefined {
    return this.usage.get(keyId);
  }

  /** Writes buffered last_used_at times. */
  flushUsage(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (!this.usage.size) return;
      const batch = new Map(this.usage);
      this.usage.clear();
      try {
        await recordApiKeyUse(this.pg, batch);
      } catch (e) {
        // Put them back unless newer uses arrived meanwhile; the next flush retries.
        for (const [k, v] of batch) if (!this.usage.has(k)) this.usage.set(k, v);
        this.opts.log?.warn('could not record API key use', { error: e instanceof Error ? e.message : String(e) });
      }
    });
    return this.flushing;
  }

  /** Revokes a key of this user; false when the user has no such active key. */
  async revokeKey(userId: string, keyId: string): Promise<boolean> {
    return this.revoke(async (r) => {
      const hash = await revokeApiKey(this.pg, userId, keyId, new Date(this.opts.clock()), (h) => JSON.stringify({ e: 'token', h, r }));
      if (hash) this.evict({ e: 'token', h: hash });
      return hash !== null;
    });
  }

  /** Ends a session (sign-out). */
  async endSession(token: string): Promise<boolean> {
    const h = sha256Hex(token);
    return this.revoke(async (r) => {
      const done = await deleteSession(this.pg, h, JSON.stringify({ e: 'token', h, r }));
      if (done) this.evict({ e: 'token', h });
      return done;
    });
  }

  /** Deletes the account and everything it owns; its keys and sessions stop working at once. */
  async deleteAccount(userId: string): Promise<boolean> {
    return this.revoke(async (r) => {
      const done = await deleteUser(this.pg, userId, JSON.stringify({ e: 'user', u: userId, r }));
      if (done) this.evict({ e: 'user', u: userId });
      return done;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.flushTimer);
    await this.flushUsage();
    await this.listener.close();
    for (const w of this.ackWaiters.values()) w.done();
    this.ackWaiters.clear();
    this.cache.clear();
    this.unknown.clear();
  }

  // ---- internals ----------------------------------------------------------------------------

  /**
   * Runs a revoking transaction, then waits until every process that was listening has
   * acknowledged the notice (bounded by ackTimeout).
   */
  private async revoke(run: (requestId: string) => Promise<boolean>): Promise<boolean> {
    const r = crypto.randomUUID();
    let need = 0;
    try {
      need = await countAuthListeners(this.pg);
    } catch {
      need = 0;
    }
    let done!: () => void;
    const acked = new Promise<void>((resolve) => (done = resolve));
    this.ackWaiters.set(r, { need, seen: new Set(), done });
    try {
      const ok = await run(r);
      if (!ok || need === 0) return ok;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), this.ackTimeout);
      });
      const w = this.ackWaiters.get(r);
      const outcome = await Promise.race([acked.then(() => 'acked' as const), timeout]);
      clearTimeout(timer);
      if (outcome === 'timeout' && w) {
        this.opts.log?.warn('revocation not acknowledged by every API process in time', { expected: need, acknowledged: w.seen.size });
      }
      return ok;
    } finally {
      this.ackWaiters.delete(r);
    }
  }

  private evict(ev: AuthEvent): void {
    this.epoch++;
    if (ev.e === 'token') {
      this.cache.delete(ev.h);
      return;
    }
    for (const [h, entry] of this.cache) if (entry.cred.userId === ev.u) this.cache.delete(h);
  }

  private clearCache(): void {
    this.epoch++;
    this.cache.clear();
  }

  private onEvent(payload: string): void {
    let ev: AuthEvent;
    try {
      ev = JSON.parse(payload) as AuthEvent;
    } catch {
      this.clearCache(); // unknown notice: forget everything rather than risk a stale entry
      return;
    }
    if ((ev.e === 'token' && typeof ev.h === 'string') || (ev.e === 'user' && typeof ev.u === 'string')) this.evict(ev);
    else this.clearCache();
    if (typeof ev.r === 'string') this.listener.ack(JSON.stringify({ r: ev.r, l: this.listenerId }));
  }

  private onAck(payload: string): void {
    let a: { r?: unknown; l?: unknown };
    try {
      a = JSON.parse(payload) as typeof a;
    } catch {
      return;
    }
    const w = typeof a.r === 'string' ? this.ackWaiters.get(a.r) : undefined;
    if (!w || typeof a.l !== 'string') return;
    w.seen.add(a.l);
    if (w.seen.size >= w.need) w.done();
  }
}
