// The web UI's server: routes a page request to its page (src/ui/pages), renders it to complete
// HTML on the server (Preact to string), and keeps anonymous pages as rendered (and gzipped) bytes
// until the chain changes: on the events of this process (block, reorg, derived-lane events;
// `explorer start`), or on the API websocket's new blocks (`explorer ui` on its own, `follow`,
// src/ui/api-socket.ts), then at most FOLLOWING_TTL_MS, or for PAGE_TTL_MS while neither reaches it. Responses carry Cache-Control and a strong ETag (304 on If-None-Match). Assets
// (hashed names) are immutable. Chain data comes only from the public API (src/ui/api-client.ts).
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { EventEmitter } from 'node:events';
import { render } from 'preact-render-to-string';
import { LRUCache } from 'lru-cache';
import type { ApiReply, ApiRequest } from '../api/http.js';
import { PathMatcher, pathSegments } from '../api/path-match.js';
import { RateLimiter, clientIp, rateLimitHeaders, requestMeter } from '../ratelimit/rate-limiter.js';
import type { Logger } from '../log.js';
import { ApiUnavailable, asCaller, type ApiClient } from './api-client.js';
import { MAX_FORM_BYTES, actionBodyLimit, createActions } from './actions.js';
import type { Front } from '../api/front.js';
import type { ApiSocketFollower } from './api-socket.js';
import { clearSessionCookie, csrfToken, secure, sessionOf, viewerName } from './session.js';
import { loadAssets, type Assets } from './assets.js';
import { Layout, THEME_SCRIPT } from './components/layout.js';
import { PAGES } from './routes.js';
import type { PageCtx, PageResult, Viewer } from './page.js';
import { PageError, errorPage } from './pages/errors.js';

export interface UiOptions {
  api: ApiClient;
  log: Logger;
  /** Native coin symbol (COIN). */
  coin: string;
  /** The chain's id (CHAIN_ID, or the API's node's): the contract tab's wallet forms check the wallet is on it. */
  chainId?: number;
  /** Where the live-update island connects: a ws(s):// URL, or ':<port>' for the API port of the page's own host. */
  socket?: string;
  /** Memory bound of the page cache (bytes; 0: no cache). Default 64 MiB. */
  cacheBytes?: number;
  /** Page requests per second per client (0: no limit). */
  ratePerSecond?: number;
  trustedProxies?: readonly string[];
  /** Where the built assets are (default: the build's ui-assets folder). */
  assetsDir?: string;
  /** The instance's public origin (PUBLIC_URL): https there means Secure session cookies. */
  publicUrl?: string;
  clock?: () => number;
}

export interface Ui {
  handle(req: ApiRequest): Promise<ApiReply>;
  /** `handle` for the HTTP server, taking each form's own body limit (a contract's sources are larger than other forms). */
  readonly front: Front;
  /** Follows the chain's events (indexer 'block'/'reorg', derived lanes 'derived'); returns a detach function. */
  attach(...sources: EventEmitter[]): () => void;
  /** Follows the API's websocket (new blocks, and the connection coming and going); returns a detach function. */
  follow(socket: Pick<ApiSocketFollower, 'connected' | 'on' | 'off'>): () => void;
  readonly stats: { hits: number; misses: number };
}

/**
 * The events after which cached pages are dropped: the chain's (new blocks, reorgs, derived data)
 * and a verification's (a verified contract names and decodes calls on pages of every block).
 */
const PAGE_EVENTS = ['block', 'reorg', 'derived', 'verified'] as const;

/** How long a cached page lives when no chain events reach this process. */
const PAGE_TTL_MS = 2_000;
/**
 * How long a cached page lives at most when following the API's websocket: it is dropped on each
 * new block, but the websocket says nothing of the derived lanes, which store balances, counters
 * and token data shortly after a block; this bounds how long a page shows those from before it
 * (on an idle chain, for ever without a bound).
 */
const FOLLOWING_TTL_MS = 10_000;
const HTML = 'text/html; charset=utf-8';
/** The API's CSV exports, passed through so that the UI's download forms stay on its origin. */
const CSV_PATH = /^\/api\/v2\/(addresses\/[^/]+\/(transactions|token-transfers|internal-transactions|logs)|advanced-filters)\/csv$/;
/**
 * Approved public-name icons (#19), passed through from the API: their URLs are absolute under
 * PUBLIC_URL, which `explorer start` on its devnet sets to this UI's own origin, so the UI must
 * answer them there as the shipped reverse proxy does (its content type and immutable caching,
 * with nosniff and `default-src 'none'`).
 */
const ICON_PATH = /^\/api\/v2\/public-icons\/[0-9a-f]{64}\.(png|jpg|webp|gif)$/;

interface Cached {
  status: number;
  html: Buffer;
  gz: Buffer;
  etag: string;
  /** The response headers without and with gzip, made once: a cache hit only picks one. */
  headers: Record<string, string>;
  gzHeaders: Record<string, string>;
}

function csp(): string {
  const themeHash = crypto.createHash('sha256').update(THEME_SCRIPT).digest('base64');
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${themeHash}'`,
    "style-src 'self'",
    // NFT images live wherever their metadata points (https, ipfs gateways, data: URIs). Public-name
    // icons (#19) are absolute URLs under PUBLIC_URL ('self' behind the shipped proxy, or this UI's
    // origin under `explorer start`: passed through, ICON_PATH) or, without PUBLIC_URL, under
    // http://localhost:<API_PORT>, another origin: the http: and https: sources already admit
    // both, so the icons need no source of their own here.
    "img-src 'self' data: https: http:",
    "media-src 'self' data: https: http:",
    // The live updates' websocket may be on the API's port.
    "connect-src 'self' ws: wss:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

const FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#3b5bdb"/><path d="M8 3l4 5-4 5-4-5z" fill="#fff"/></svg>';

export function createUi(o: UiOptions): Ui {
  const assets: Assets = loadAssets(o.assetsDir);
  const matcher = new PathMatcher(PAGES.map((p) => ({ pattern: p.pattern, value: p })));
  const clock = o.clock ?? Date.now;
  const maxBytes = o.cacheBytes ?? 64 * 1024 * 1024;
  const cache =
    maxBytes > 0 ? new LRUCache<string, Cached>({ maxSize: maxBytes, sizeCalculation: (c, k) => c.html.length + c.gz.length + k.length + 128 }) : null;
  let attached = false;
  let following: Pick<ApiSocketFollower, 'connected'> | undefined;
  let generation = 0;
  const limiter = new RateLimiter({ anonymousPerSecond: o.ratePerSecond ?? 0, keyPerSecond: 0 });
  const limited = (o.ratePerSecond ?? 0) > 0;
  const trusted = new Set(o.trustedProxies ?? []);
  const policy = csp();
  const stats = { hits: 0, misses: 0 };
  const securityHeaders = {
    'content-security-policy': policy,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };

  /** A reply that also clears a session cookie the Account API no longer knows. */
  function withCleared(r: ApiReply, clear: boolean, req: ApiRequest): ApiReply {
    if (!clear) return r;
    return { ...r, headers: { ...r.headers, 'cache-control': 'no-store', 'set-cookie': clearSessionCookie(secure(req, o.publicUrl)) } };
  }

  function cached(status: number, html: Buffer, cacheControl: string): Cached {
    const etag = `"${crypto.createHash('sha1').update(html).digest('base64url')}"`;
    const headers = { 'content-type': HTML, 'cache-control': cacheControl, etag, vary: 'Accept-Encoding', ...securityHeaders };
    return { status, html, gz: zlib.gzipSync(html, { level: 6 }), etag, headers, gzHeaders: { ...headers, 'content-encoding': 'gzip' } };
  }

  function reply(req: ApiRequest, c: Cached): ApiReply {
    if (c.status === 200 && req.headers['if-none-match'] === c.etag) return { status: 304, headers: c.headers, body: '' };
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    const body = req.method === 'HEAD' ? '' : gzip ? c.gz : c.html;
    return { status: c.status, headers: gzip ? c.gzHeaders : c.headers, body };
  }

  function renderPage(r: PageResult, q: string | undefined, viewer?: Viewer): Buffer {
    if (r.fragment) return Buffer.from(r.body ? render(r.body) : '');
    const scripts = ['app', ...(r.islands ?? [])].map((name) => assets.url(`${name}.js`));
    const html = render(
      Layout({
        title: r.title,
        description: r.description,
        section: r.section,
        scripts,
        css: assets.url('app.css'),
        banner: r.banner,
        q,
        socket: o.socket,
        coin: o.coin,
        viewer,
        children: r.body,
      }),
    );
    return Buffer.from(`<!doctype html>${html}`);
  }

  async function page(req: ApiRequest, url: URL, signedIn?: { api: ApiClient; viewer: Viewer }): Promise<{ result: PageResult; cacheable: boolean }> {
    const m = matcher.match(pathSegments(url.pathname));
    if (!m) return { result: errorPage(404, 'Page not found', `There is no page at ${url.pathname.slice(0, 200)}.`), cacheable: true };
    const ctx: PageCtx = { api: signedIn?.api ?? o.api, url, params: m.params, coin: o.coin, chainId: o.chainId, now: clock(), viewer: signedIn?.viewer };
    try {
      const result = await m.value.render(ctx);
      return { result, cacheable: result.cache !== false };
    } catch (e) {
      if (e instanceof PageError) return { result: errorPage(e.status, e.title, e.detail), cacheable: e.status < 500 };
      if (e instanceof ApiUnavailable) {
        o.log.warn('the API did not answer a page', { path: url.pathname.slice(0, 200), error: e.message });
        return { result: errorPage(503, 'The explorer is unavailable', 'Its data service did not answer. Try again in a moment.'), cacheable: false };
      }
      o.log.error('page failed', { path: url.pathname.slice(0, 200), error: e instanceof Error ? e.stack ?? e.message : String(e) });
      return { result: errorPage(500, 'Something went wrong', 'This page could not be shown.'), cacheable: false };
    }
  }

  const actions = createActions({
    api: o.api,
    log: o.log,
    coin: o.coin,
    publicUrl: o.publicUrl,
    clock,
    render: (r, viewer) => renderPage(r, undefined, viewer),
    clientIp: (req) => clientIp(req.ip, req.headers['x-forwarded-for'], trusted),
    headers: securityHeaders,
    // A public-name decision taken here shows on the pages anyone sees at once (not at the next block).
    pagesChanged: () => {
      generation++;
      cache?.clear();
    },
  });

  /**
   * A signed-in visitor's page: their session checked with the Account API, their requests to the
   * API made as them (personalised answers); never cached, private to them. An expired or revoked
   * session is cleared and the page shown as to anyone.
   */
  async function signedInPage(req: ApiRequest, url: URL, session: string): Promise<ApiReply | null> {
    const ip = clientIp(req.ip, req.headers['x-forwarded-for'], trusted);
    const api = asCaller(o.api, { token: session, ip });
    const me = await api.get<{ data: { name?: string; nickname?: string | null; email?: string | null; address_hash?: string } }>('/account/api/v1/user/info');
    if (me.status === 401) return null;
    if (me.status !== 200) {
      return { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'The account service did not answer: try again in a moment.' };
    }
    const d = me.body.data;
    const viewer: Viewer = { name: viewerName(d), csrf: csrfToken(session) };
    const { result } = await page(req, url, { api, viewer });
    const headers: Record<string, string> = { 'content-type': HTML, 'cache-control': 'private, no-store', ...securityHeaders };
    if (result.redirect) return { status: 302, headers: { ...headers, location: result.redirect }, body: '' };
    return { status: result.status ?? 200, headers, body: req.method === 'HEAD' ? '' : renderPage(result, url.pathname === '/search' ? url.searchParams.get('q') ?? undefined : undefined, viewer) };
  }

  async function handle(req: ApiRequest): Promise<ApiReply> {
    const method = req.method.toUpperCase();
    if (method === 'POST') return actions(req);
    if (method !== 'GET' && method !== 'HEAD') {
      return { status: 405, headers: { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD, POST' }, body: 'Method not allowed' };
    }
    const path = req.path || '/';
    if (path.startsWith('/assets/')) return assets.serve(path.slice('/assets/'.length), req);
    if (path === '/favicon.svg' || path === '/favicon.ico') {
      return { status: 200, headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' }, body: FAVICON };
    }
    if (path === '/search/suggest') return suggest(req);
    // CSV exports on the UI's own origin (the download forms post here), streamed from the API;
    // public-name icons (ICON_PATH).
    if (CSV_PATH.test(path) || ICON_PATH.test(path)) {
      const ip = clientIp(req.ip, req.headers['x-forwarded-for'], trusted);
      const decision = limiter.check(ip);
      if (!decision.allowed) return { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', ...rateLimitHeaders(decision) }, body: 'Too many requests: try again in a moment.' };
      // An export's rows are charged to the visitor's bucket here, as the API's gateway charges them.
      const r = await o.api.raw({ ...req, ip, headers: {}, meter: requestMeter(limiter, ip, undefined) });
      // An image is never read as anything else, nor run (an API over HTTP passes on only its type and caching).
      return ICON_PATH.test(path) ? { ...r, headers: { ...r.headers, 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'" } } : r;
    }
    if (limited) {
      const decision = limiter.check(clientIp(req.ip, req.headers['x-forwarded-for'], trusted));
      if (!decision.allowed) {
        return { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', ...rateLimitHeaders(decision) }, body: 'Too many requests: try again in a moment.' };
      }
    }
    const session = sessionOf(req);
    let clearSession = false;
    if (session) {
      const raw = req.query.toString();
      const mine = await signedInPage(req, new URL(`http://ui${path}${raw ? `?${raw}` : ''}`), session);
      if (mine) return mine;
      clearSession = true; // expired or revoked: shown as to anyone, and the cookie goes
    }
    // Looked up by the request as sent (no URL parsing on a hit); a page is stored under its
    // canonical URL too on a miss, so a reordered query finds it next time.
    const raw = req.query.toString();
    const sentKey = raw ? `${path}?${raw}` : path;
    const hit = cache?.get(sentKey);
    if (hit) {
      stats.hits++;
      return withCleared(reply(req, hit), clearSession, req);
    }
    const url = new URL(`http://ui${path}${raw ? `?${raw}` : ''}`);
    const sorted = new URLSearchParams([...url.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
    const key = sorted ? `${url.pathname}?${sorted}` : url.pathname;
    const canonical = key === sentKey ? undefined : cache?.get(key);
    if (canonical) {
      stats.hits++;
      return withCleared(reply(req, canonical), clearSession, req);
    }
    stats.misses++;
    const gen = generation;
    const { result, cacheable } = await page(req, url);
    if (result.redirect) {
      return { status: 302, headers: { location: result.redirect, 'cache-control': 'no-store', ...securityHeaders }, body: '' };
    }
    const html = renderPage(result, url.pathname === '/search' ? url.searchParams.get('q') ?? undefined : undefined);
    const status = result.status ?? 200;
    // Pages change with every block: a short life in browsers and edge caches, revalidated by ETag.
    const c = cached(status, html, cacheable && status < 500 ? 'public, max-age=5, stale-while-revalidate=30' : 'no-store');
    if (cache && cacheable && status < 500 && gen === generation) {
      const ttl = attached ? undefined : { ttl: following?.connected ? FOLLOWING_TTL_MS : PAGE_TTL_MS };
      cache.set(key, c, ttl);
      if (sentKey !== key) cache.set(sentKey, c, ttl);
    }
    return withCleared(reply(req, c), clearSession, req);
  }

  /**
   * Search suggestions for the search island: the API's /search/quick, passed through as JSON;
   * asked as the signed-in visitor when there is one (their private tags first, marked), and then
   * private to them.
   */
  async function suggest(req: ApiRequest): Promise<ApiReply> {
    const q = (req.query.get('q') ?? '').slice(0, 200);
    const session = sessionOf(req);
    const json = (status: number, body: unknown): ApiReply => ({
      status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': session ? 'private, no-store' : 'public, max-age=5', ...securityHeaders },
      body: JSON.stringify(body),
    });
    if (q.trim().length < 2) return json(200, []);
    const path = `/api/v2/search/quick?q=${encodeURIComponent(q)}`;
    try {
      const ip = clientIp(req.ip, req.headers['x-forwarded-for'], trusted);
      let r = await (session ? o.api.get<unknown[]>(path, { token: session, ip }) : o.api.get<unknown[]>(path));
      // An ended session: the suggestions anyone gets.
      if (r.status === 401 && session) r = await o.api.get<unknown[]>(path);
      return json(200, r.status === 200 && Array.isArray(r.body) ? r.body : []);
    } catch (e) {
      if (e instanceof ApiUnavailable) return json(503, []);
      throw e;
    }
  }

  function attach(...sources: EventEmitter[]): () => void {
    attached = true;
    cache?.clear();
    const drop = () => {
      generation++;
      cache?.clear();
    };
    for (const s of sources) for (const e of PAGE_EVENTS) s.on(e, drop);
    return () => {
      for (const s of sources) for (const e of PAGE_EVENTS) s.off(e, drop);
      attached = false;
      cache?.clear();
    };
  }

  function follow(socket: Pick<ApiSocketFollower, 'connected' | 'on' | 'off'>): () => void {
    following = socket;
    const drop = () => {
      generation++;
      cache?.clear();
    };
    drop();
    // 'reorg' also when the connection goes or comes back: pages kept while following must not outlive it.
    for (const e of ['block', 'reorg'] as const) socket.on(e, drop);
    return () => {
      for (const e of ['block', 'reorg'] as const) socket.off(e, drop);
      following = undefined;
      drop();
    };
  }

  const front: Front = {
    // Only POSTs carry a body, each at most what its form's action takes (one to no form gets its 404 page).
    bodyLimit: (req) => (req.method.toUpperCase() === 'POST' ? actionBodyLimit(req.path) || MAX_FORM_BYTES : 0),
    admit: async (req) => ({ finish: (body) => handle({ ...req, body }) }),
  };
  return { handle, front, attach, follow, stats };
}
