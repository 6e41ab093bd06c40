// The front of the HTTP server: rate limits (per client IP, or per API key when a valid one is
// sent) on every /api and /account/api/v1 request, then the public API or the Account API.
// A credential that is sent but unknown, revoked or expired gets 401 {"message":"Invalid API key"}
// on both APIs (a revoked key is refused at once; SERVICE.md "States and transitions").
import type { ApiReply, ApiRequest } from './http.js';
import { JSON_TYPE, CORS_HEADERS } from './http.js';
import { RateLimiter, TOO_MANY_REQUESTS, clientIp, rateLimitHeaders } from '../ratelimit/index.js';
import type { PgStore } from '../storage/postgres/index.js';
import { personalize, personalizeSearch } from './personalize.js';

export interface AccountLike {
  handle(req: ApiRequest): Promise<ApiReply>;
  identify(req: Pick<ApiRequest, 'headers' | 'query'>): Promise<{ userId: string; keyId?: string } | null>;
}

export interface GatewayOptions {
  api: { handle(req: ApiRequest): Promise<ApiReply> };
  /** For the owner-only parts of public responses (private tags, custom ABIs). */
  pg?: PgStore;
  account?: AccountLike;
  limiter: RateLimiter;
  trustedProxies?: ReadonlySet<string>;
}

const ACCOUNT_PREFIX = '/account/api/v1';

function sentCredential(req: ApiRequest): boolean {
  const auth = req.headers['authorization'];
  return (typeof auth === 'string' && /^bearer\s+\S/i.test(auth)) || !!req.headers['x-api-key'] || req.query.has('apikey');
}

function json(status: number, body: unknown, headers: Record<string, string>): ApiReply {
  return { status, headers: { 'content-type': JSON_TYPE, ...CORS_HEADERS, ...headers }, body: JSON.stringify(body) };
}

export function createGateway(o: GatewayOptions): (req: ApiRequest) => Promise<ApiReply> {
  const trusted = o.trustedProxies ?? new Set<string>();
  return async (req) => {
    const path = req.path || '/';
    const isAccount = path === ACCOUNT_PREFIX || path.startsWith(ACCOUNT_PREFIX + '/');
    const limited = isAccount || path === '/api' || path.startsWith('/api/');
    if (!limited || req.method.toUpperCase() === 'OPTIONS') return isAccount && o.account ? o.account.handle(req) : o.api.handle(req);
    const ip = clientIp(req.ip, req.headers['x-forwarded-for'], trusted);
    let keyId: string | undefined;
    let viewer: string | undefined;
    if (o.account && sentCredential(req)) {
      const who = await o.account.identify(req);
      if (!who) {
        const d = o.limiter.check(ip);
        return json(401, { message: 'Invalid API key' }, { ...rateLimitHeaders(d), 'www-authenticate': 'Bearer' });
      }
      keyId = who.keyId ?? `session:${who.userId}`;
      viewer = who.userId;
    }
    const decision = o.limiter.check(ip, keyId);
    if (!decision.allowed) return json(429, TOO_MANY_REQUESTS, rateLimitHeaders(decision));
    const reply = isAccount && o.account ? await o.account.handle(req) : await o.api.handle(req);
    if (!isAccount && viewer && o.pg && reply.status === 200 && reply.body.length) {
      // After the shared cache: the owner's tags, watchlist names and custom-ABI decodings, and
      // the owner's tagged addresses in search results.
      let body = await personalize(reply.body, viewer, o.pg);
      const q = req.query.get('q');
      if (q !== null && (path === '/api/v2/search' || path === '/api/v2/search/quick') && !req.query.has('next_page_params_type')) {
        body = await personalizeSearch(body, viewer, q, o.pg, path.endsWith('/quick'));
      }
      return { ...reply, body, headers: { ...reply.headers, ...rateLimitHeaders(decision), 'cache-control': 'private, no-store' } };
    }
    // Replies are built per request, so their headers can take the rate-limit headers in place.
    rateLimitHeaders(decision, reply.headers);
    return reply;
  };
}
