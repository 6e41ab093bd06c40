// Who may open a websocket on /socket/v2, decided on the upgrade request before any socket
// exists: the Phoenix serializer version, the same rate limits and API keys as the HTTP API
// (gateway.ts: a sent credential is charged to its IP's bucket for unverified credentials before
// it is looked up; an unknown one is 401), and at most maxSocketsPerClient open sockets per
// client: per API key when a valid one is sent, else per IP (the X-Forwarded-For client behind a
// trusted proxy).
import { JSON_TYPE, type ApiReply, type ApiRequest } from '../http.js';
import { RateLimiter, TOO_MANY_REQUESTS, clientIp, rateLimitHeaders } from '../../ratelimit/rate-limiter.js';
import type { AccountLike } from '../front.js';

export interface SocketAdmissionOptions {
  limiter: RateLimiter;
  account?: Pick<AccountLike, 'identify'>;
  trustedProxies?: ReadonlySet<string>;
  /** Open sockets per client (0: no cap). */
  maxSocketsPerClient: number;
}

/** An admitted upgrade: who it counts against; `release` once the socket is gone (or never opened). */
export interface Admitted {
  client: string;
  release(): void;
}

export type SocketAdmission = { reply: ApiReply } | { admitted: Admitted };

const reply = (status: number, message: string, headers: Record<string, string> = {}): ApiReply => ({
  status,
  headers: { 'content-type': JSON_TYPE, ...headers },
  body: JSON.stringify({ message }),
});

const SERIALIZER = /^2\.0\.\d+$/;

function sentCredential(req: ApiRequest): boolean {
  const auth = req.headers['authorization'];
  return (typeof auth === 'string' && /^bearer\s+\S/i.test(auth)) || !!req.headers['x-api-key'] || req.query.has('apikey');
}

export class SocketAdmitter {
  /** Open (or opening) sockets per client. */
  private readonly open = new Map<string, number>();

  constructor(private readonly o: SocketAdmissionOptions) {}

  /** Open sockets of one client (tests). */
  openCount(client: string): number {
    return this.open.get(client) ?? 0;
  }

  async admit(req: ApiRequest): Promise<SocketAdmission> {
    const vsn = req.query.get('vsn');
    if (vsn === null || !SERIALIZER.test(vsn)) {
      return { reply: reply(400, 'Only the Phoenix v2 JSON serializer is served here: connect with ?vsn=2.0.0') };
    }
    const ip = clientIp(req.ip, req.headers['x-forwarded-for'], this.o.trustedProxies ?? new Set());
    let keyId: string | undefined;
    if (this.o.account && sentCredential(req)) {
      const charged = this.o.limiter.checkUnverified(ip);
      if (!charged.allowed) return { reply: reply(429, TOO_MANY_REQUESTS.message, rateLimitHeaders(charged)) };
      const who = await this.o.account.identify(req);
      if (!who) return { reply: reply(401, 'Invalid API key', { 'www-authenticate': 'Bearer' }) };
      keyId = who.keyId ?? `session:${who.userId}`;
    }
    const decision = this.o.limiter.check(ip, keyId);
    if (!decision.allowed) return { reply: reply(429, TOO_MANY_REQUESTS.message, rateLimitHeaders(decision)) };
    const client = keyId ? `key:${keyId}` : `ip:${ip}`;
    const n = this.open.get(client) ?? 0;
    if (this.o.maxSocketsPerClient > 0 && n >= this.o.maxSocketsPerClient) {
      return { reply: reply(429, `Too many websocket connections from this client (at most ${this.o.maxSocketsPerClient})`, { 'retry-after': '1' }) };
    }
    this.open.set(client, n + 1);
    let released = false;
    return {
      admitted: {
        client,
        release: () => {
          if (released) return;
          released = true;
          const left = (this.open.get(client) ?? 1) - 1;
          if (left > 0) this.open.set(client, left);
          else this.open.delete(client);
        },
      },
    };
  }
}
