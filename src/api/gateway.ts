// The front of the HTTP server: rate limits (per client IP, or per API key when a valid one is
// sent) on every /api and /account/api/v1 request, then the public API or the Account API.
// A credential that is sent but unknown, revoked or expired gets 401 {"message":"Invalid API key"}
// on both APIs (a revoked key is refused at once; SERVICE.md "States and transitions").
//
// Abuse limits (src/api/server.ts asks bodyLimit and admit before it reads a body):
// - A credential this gateway has not seen valid recently is charged to its IP's bucket for
//   unverified credentials (the anonymous rate) BEFORE it is looked up: made-up keys get 429
//   with Retry-After once the bucket is empty, without a lookup. The Authenticator remembers
//   unknown tokens briefly, so repeating one costs no query either.
// - The public API takes no request body; the Account API at most accountBodyBytes. An Account
//   API request that announces a body is refused (401) before the body is read when its
//   credential is missing (outside the sign-in endpoints under /auth/) or invalid.
// - The Etherscan-compatible API (/api?module=…) also takes POST bodies (at most
//   etherscanBodyBytes), whose `apikey` field is a credential like the query's. A POST without a
//   credential in its headers or query is charged to its IP's bucket for unverified credentials
//   before its body is read (the body may hold a key), then to the key's or the IP's bucket.
//
// A public API request goes on with the client's IP (behind a trusted proxy: the one it names) and
// its meter (RequestMeter), through which the handlers that read many rows (CSV exports, Etherscan
// lists) charge them to the same bucket.
import crypto from 'node:crypto';
import type { ApiReply, ApiRequest } from './http.js';
import { JSON_TYPE, CORS_HEADERS, admittedRequest, sentCredential } from './http.js';
import { RateLimiter, TOO_MANY_REQUESTS, clientIp, rateLimitHeaders, requestMeter, type Decision } from '../ratelimit/rate-limiter.js';
import type { PgStore } from '../storage/postgres/store.js';
import type { Logger } from '../log.js';
import { MAX_BODY_BYTES } from '../account/validate.js';
import { bodyFields, isEtherscanPath } from './etherscan/params.js';
import { personalize, personalizeSearch, viewerDataChanged } from './personalize.js';
import { VERIFICATION_POST } from './routes/verification.js';
import { isRefetchPath, REFETCH_BODY_BYTES } from './routes/nft-refetch.js';
import type { AccountLike, Admission, Front } from './front.js';


export interface GatewayOptions {
  api: { handle(req: ApiRequest): Promise<ApiReply> };
  /** For the owner-only parts of public responses (private tags, custom ABIs). */
  pg?: PgStore;
  account?: AccountLike;
  limiter: RateLimiter;
  trustedProxies?: ReadonlySet<string>;
  /** Largest Account API request body in bytes (default 256 KiB, the Account API's own cap). */
  accountBodyBytes?: number;
  /** Largest Etherscan-compatible API POST body in bytes (default 256 KiB). */
  etherscanBodyBytes?: number;
  /** Largest contract verification POST body in bytes (0 or unset: verification takes no body). */
  verificationBodyBytes?: number;
  /** How long a credential seen valid skips the unverified-credential charge (ms, default 30 s). */
  verifiedTtlMs?: number;
  /** Where a failed personalization is reported (the shared response is served instead). */
  log?: Logger;
  /** Milliseconds since the epoch (tests). */
  clock?: () => number;
}

/** The whole request at once (tests, benchmarks), plus the two steps the server uses. */
export type Gateway = ((req: ApiRequest) => Promise<ApiReply>) & Front;

const ACCOUNT_PREFIX = '/account/api/v1';
const SIGN_IN_PREFIX = ACCOUNT_PREFIX + '/auth/';
/** Credentials remembered as valid (each entry is a few hundred bytes). */
const VERIFIED_MAX = 10_000;

/**
 * What identifies the credential of a request for the memory of valid ones: a digest of every
 * place it can be sent (the secrets themselves are not kept).
 */
function credentialKey(req: ApiRequest): string {
  return crypto
    .createHash('sha256')
    .update(`${req.headers['authorization'] ?? ''}\n${req.headers['x-api-key'] ?? ''}\n${req.query.getAll('apikey').join('\n')}`)
    .digest('base64');
}

function json(status: number, body: unknown, headers: Record<string, string>): ApiReply {
  return { status, headers: { 'content-type': JSON_TYPE, ...CORS_HEADERS, ...headers }, body: JSON.stringify(body) };
}

const invalidKey = (d: Decision) => json(401, { message: 'Invalid API key' }, { ...rateLimitHeaders(d), 'www-authenticate': 'Bearer' });
/** 429; on the Etherscan-compatible paths in its envelope (Blockscout's RPC form of the refusal). */
const tooMany = (d: Decision, rpc = false) =>
  json(429, rpc ? { status: '0', message: TOO_MANY_REQUESTS.message, result: null } : TOO_MANY_REQUESTS, rateLimitHeaders(d));

export function createGateway(o: GatewayOptions): Gateway {
  const trusted = o.trustedProxies ?? new Set<string>();
  const accountBody = o.accountBodyBytes ?? MAX_BODY_BYTES;
  const etherscanBody = o.etherscanBodyBytes ?? MAX_BODY_BYTES;
  const verifiedTtl = o.verifiedTtlMs ?? 30_000;
  const clock = o.clock ?? Date.now;
  /** Credential keys that identified an account, with when (oldest first). */
  const verified = new Map<string, number>();

  const isAccountPath = (path: string) => path === ACCOUNT_PREFIX || path.startsWith(ACCOUNT_PREFIX + '/');

  function bodyLimit(req: ApiRequest): number {
    const path = req.path || '/';
    if (o.account && isAccountPath(path)) return Math.max(accountBody, o.account.maxBodyBytes?.(path) ?? 0);
    if (req.method.toUpperCase() === 'POST' && VERIFICATION_POST.test(path)) return o.verificationBodyBytes ?? 0;
    if (req.method.toUpperCase() === 'PATCH' && isRefetchPath(path)) return REFETCH_BODY_BYTES;
    return isEtherscanPath(path) && req.method.toUpperCase() === 'POST' ? etherscanBody : 0;
  }

  function admit(req: ApiRequest, announcesBody: boolean): Admission | Promise<Admission> {
    const path = req.path || '/';
    // Most requests: an anonymous GET of the public API without a body. It takes the path the
    // general one below takes for it (its IP's bucket, the API, the rate-limit headers) without
    // the checks for bodies, credentials, Etherscan paths and personalization that cannot apply,
    // and is decided at once (no promise): the limiter is on every request, so what it adds is
    // measured per request (make bench-api).
    if (!announcesBody && req.method === 'GET' && path.startsWith('/api/v2/') && !(o.account && sentCredential(req))) {
      const ip = clientIp(req.ip, req.headers['x-forwarded-for'], trusted);
      const decision = o.limiter.check(ip);
      if (!decision.allowed) return { reply: tooMany(decision) };
      return { finish: () => o.api.handle(admittedRequest(req, ip, undefined, requestMeter(o.limiter, ip, undefined), undefined)), headers: rateLimitHeaders(decision) };
    }
    return admitChecked(req, path, announcesBody);
  }

  /** Every other request: credentials looked up, bodies, the Account and Etherscan APIs. */
  async function admitChecked(req: ApiRequest, path: string, announcesBody: boolean): Promise<Admission> {
    const isAccount = isAccountPath(path);
    const target = isAccount && o.account ? o.account : o.api;
    const limited = isAccount || path === '/api' || path.startsWith('/api/');
    if (!limited || req.method.toUpperCase() === 'OPTIONS') return { finish: (body) => target.handle({ ...req, body }) };
    const ip = clientIp(req.ip, req.headers['x-forwarded-for'], trusted);
    const rpc = isEtherscanPath(path);
    let keyId: string | undefined;
    let viewer: string | undefined;
    if (o.account && sentCredential(req)) {
      const cred = credentialKey(req);
      const seen = verified.get(cred);
      const now = clock();
      let charged: Decision | undefined;
      if (seen === undefined || now - seen >= verifiedTtl || seen > now) {
        charged = o.limiter.checkUnverified(ip);
        if (!charged.allowed) return { reply: tooMany(charged, rpc) };
      }
      const who = await o.account.identify(req);
      if (!who) {
        verified.delete(cred);
        charged ??= o.limiter.checkUnverified(ip);
        return { reply: charged.allowed ? invalidKey(charged) : tooMany(charged, rpc) };
      }
      verified.delete(cred);
      if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value as string);
      verified.set(cred, now);
      keyId = who.keyId ?? `session:${who.userId}`;
      viewer = who.userId;
    } else if (o.account && rpc && announcesBody) {
      const account = o.account;
      const charged = o.limiter.checkUnverified(ip);
      if (!charged.allowed) return { reply: tooMany(charged, true) };
      return {
        finish: async (body) => {
          const apikey = bodyFields(body, req.headers['content-type']).find(([k]) => k === 'apikey')?.[1]?.trim();
          let key: string | undefined;
          if (apikey) {
            const who = await account.identify({ headers: {}, query: new URLSearchParams({ apikey }) });
            if (!who) return invalidKey(charged);
            key = who.keyId ?? `session:${who.userId}`;
          }
          const d = o.limiter.check(ip, key);
          return d.allowed ? publicReply(admittedRequest(req, ip, body, requestMeter(o.limiter, ip, key), undefined), path, d) : tooMany(d, true);
        },
      };
    } else if (o.account && isAccount && announcesBody && !path.startsWith(SIGN_IN_PREFIX)) {
      // Every Account API endpoint outside sign-in needs a credential: refuse before the body.
      const d = o.limiter.check(ip);
      return { reply: d.allowed ? invalidKey(d) : tooMany(d) };
    }
    const decision = o.limiter.check(ip, keyId);
    if (!decision.allowed) return { reply: tooMany(decision, rpc) };
    if (isAccount && o.account) {
      const account = o.account;
      return {
        finish: async (body) => {
          const reply = await account.handle({ ...req, body });
          if (viewer && o.pg && req.method !== 'GET' && reply.status < 300) viewerDataChanged(o.pg, viewer);
          rateLimitHeaders(decision, reply.headers);
          return reply;
        },
      };
    }
    return { finish: (body) => publicReply(admittedRequest(req, ip, body, requestMeter(o.limiter, ip, keyId), viewer), path, decision) };
  }

  /** A viewer's own answer: never stored, and without the shared answer's ETag (its bytes differ). */
  function privateHeaders(headers: Record<string, string>, decision: Decision): Record<string, string> {
    const { etag: _shared, ...rest } = headers;
    return { ...rest, ...rateLimitHeaders(decision), 'cache-control': 'private, no-store' };
  }

  async function publicReply(req: ApiRequest, path: string, decision: Decision): Promise<ApiReply> {
    const viewer = req.viewer;
    // Only the Etherscan-compatible API and contract verification read a body (their answers
    // carry no address objects to personalize).
    const rpc = isEtherscanPath(path) || (req.method.toUpperCase() === 'POST' && VERIFICATION_POST.test(path));
    const reply = await o.api.handle(rpc || req.body === undefined ? req : admittedRequest(req, req.ip, undefined, req.meter, viewer));
    // Only JSON carries address objects (a served icon is an image).
    if (viewer && o.pg && reply.status === 200 && reply.body.length && !rpc && reply.headers['content-type'] === JSON_TYPE) {
      // After the shared cache: the owner's tags, watchlist names and custom-ABI decodings, and
      // the owner's tagged addresses in search results.
      try {
        let body = await personalize(reply.body, viewer, o.pg);
        const q = req.query.get('q');
        if (q !== null && (path === '/api/v2/search' || path === '/api/v2/search/quick') && !req.query.has('next_page_params_type')) {
          body = await personalizeSearch(body, viewer, q, o.pg, path.endsWith('/quick'));
        }
        return { ...reply, body, headers: privateHeaders(reply.headers, decision) };
      } catch (e) {
        // The shared response is still right, only without the owner's extras: better than a 500.
        o.log?.error('personalization failed; the shared response is served', {
          path: path.slice(0, 200),
          error: e instanceof Error ? e.message : String(e),
        });
        return { ...reply, headers: privateHeaders(reply.headers, decision) };
      }
    }
    // Replies are built per request, so their headers can take the rate-limit headers in place.
    rateLimitHeaders(decision, reply.headers);
    return reply;
  }

  const handle = async (req: ApiRequest): Promise<ApiReply> => {
    const size = req.body?.length ?? 0;
    const limit = bodyLimit(req);
    if (size > limit) {
      const message = limit === 0 ? 'This endpoint takes no request body' : `The request body is larger than ${limit} bytes`;
      return json(413, { message }, {});
    }
    const a = await admit(req, size > 0);
    if ('reply' in a) return a.reply;
    const reply = await a.finish(req.body);
    // What the server writes after the reply's own headers.
    if (a.headers) Object.assign(reply.headers, a.headers);
    return reply;
  };
  return Object.assign(handle, { bodyLimit, admit });
}
