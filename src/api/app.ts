// The public API v2 as a plain function from ApiRequest to ApiReply: CORS, routing, parameter
// validation, the response cache, and the error bodies. src/api/server.ts puts it on a socket.
// The stats service's paths the Blockscout frontend asks (/api/v1/counters, /lines, /pages/...:
// src/api/routes/stats-service.ts) go through the same steps.
import type { EventEmitter } from 'node:events';
import { ResponseCache, type CachedResponse } from '../cache/response-cache.js';
import { ApiContext, type ApiDeps } from './context.js';
import { ApiError, INTERNAL_ERROR_BODY, NOT_FOUND_BODY, NotFoundError, UNKNOWN_ACTION_BODY } from './errors.js';
import { CORS_HEADERS, JSON_TYPE, sentCredential, type ApiReply, type ApiRequest } from './http.js';
import { canonicalParams, castParams } from './params.js';
import { Router, type RouteDef } from './router.js';
import type { PriceSnapshot } from './prices.js';
import { blockRoutes } from './routes/blocks.js';
import { transactionRoutes } from './routes/transactions.js';
import { blobRoutes } from './routes/blobs.js';
import { optimismRoutes } from './routes/optimism.js';
import { accountAbstractionRoutes } from './routes/account-abstraction.js';
import { txSummaryRoutes } from './routes/tx-summary.js';
import { utilsRoutes } from './routes/utils.js';
import { addressRoutes } from './routes/addresses.js';
import { listRoutes } from './routes/lists.js';
import { statsRoutes } from './routes/stats.js';
import { searchRoutes } from './routes/search.js';
import { smartContractRoutes } from './routes/smart-contracts.js';
import { tokenRoutes } from './routes/tokens.js';
import { configRoutes } from './routes/config.js';
import { watchlistTransactions } from './routes/watchlist-transactions.js';
import { advancedFilters } from './routes/advanced-filters.js';
import { isRefetchPath, refetchMetadata } from './routes/nft-refetch.js';
import { STATS_SERVICE_PREFIX, statsServiceRoutes } from './routes/stats-service.js';
import { createCsvExport } from './routes/csv-export.js';
import { verificationConfigRoutes, verificationPost } from './routes/verification.js';
import { createEtherscanApi } from './etherscan/etherscan-app.js';
import { isEtherscanPath } from './etherscan/params.js';
import type { NamedRange } from './accounting-lag.js';
import type { RangeNames } from '../chain/named-addresses.js';
import { DEFAULT_READY_MAX_LAG_BLOCKS, HEALTH_PATH, healthReply } from './health.js';
import { VARY, cacheControlOf, etagOf, notModified } from './http-caching.js';
import { getIcon } from '../storage/postgres/public-names.js';
import { PUBLIC_ICONS_PATH } from './serializers/address.js';

export const API_PREFIX = '/api/v2';

export const ROUTES: readonly RouteDef[] = [
  ...configRoutes,
  ...statsRoutes,
  ...blockRoutes,
  ...transactionRoutes,
  ...txSummaryRoutes,
  ...blobRoutes,
  ...optimismRoutes,
  ...accountAbstractionRoutes,
  ...addressRoutes,
  ...listRoutes,
  ...searchRoutes,
  ...smartContractRoutes,
  ...verificationConfigRoutes,
  ...tokenRoutes,
  ...utilsRoutes,
];

export interface ApiAppOptions extends ApiDeps {
  /** Memory bound of the response cache (CACHE_MAX_MB). 0 disables caching. */
  cacheMaxMb?: number;
  routes?: readonly RouteDef[];
  /** Rows per ClickHouse read of a CSV export (default 1,000; tests use small ones). */
  csvChunkRows?: number;
  /** Readiness fails when the index is more blocks than this behind the node (src/api/health.ts). */
  readyMaxLagBlocks?: number;
  /** Told of every answer: its route pattern (or kind of path), status and time (the metrics). */
  observe?: (route: string, status: number, seconds: number) => void;
  /**
   * API threads (src/api/route-threads.ts, API_THREADS): the public API's routes are computed
   * there (their reads, serialisers and JSON) while this thread keeps the sockets, the cache and
   * the rest. Unset: computed here.
   */
  threads?: RouteThreads;
  /**
   * A route's answers are computed in an API thread once they average at least this many bytes
   * (default THREAD_MIN_BYTES; 0: every route there).
   */
  threadMinBytes?: number;
}

/**
 * A thread costs a message each way and the answer's copy: worth it for the routes whose answers
 * take long to serialise (pages of items, tens of KB), not for a single entity's 1-3 KB (on 2 cores,
 * single reads computed in two threads lost up to a fifth of their rate: bench/README.md, "Issue #30,
 * third session").
 */
export const THREAD_MIN_BYTES = 8 * 1024;

/** Where a route's answer is computed off this thread (src/api/route-threads.ts). */
export interface RouteThreads {
  /** The answer of ROUTES' route `pattern`, or undefined when no thread can take it (computed here then). */
  compute(pattern: string, path: Record<string, unknown>, query: Record<string, unknown>): Promise<CachedResponse> | undefined;
  /** Tells the threads' contexts what this one is told (events, names, attachment). */
  tell(m: ThreadNews): void;
}

/** What an API thread's context must hear as this thread's does (src/api/api-thread.ts applies it). */
export type ThreadNews =
  | { kind: 'attached'; attached: boolean }
  | { kind: 'block'; createdContracts: string[]; range?: NamedRange; to?: number }
  | { kind: 'reorg' | 'derived' | 'verified' | 'names' }
  | { kind: 'icon-origin'; origin: string }
  /** The prices the main thread's book shows now (src/api/prices.ts): a thread shows the same. */
  | { kind: 'prices'; snapshot: PriceSnapshot };

export interface ApiApp {
  handle(req: ApiRequest): Promise<ApiReply>;
  /**
   * Follows the chain's events: an indexer's 'block' and 'reorg', the derived-data lanes'
   * 'derived' (src/derived: a lane changed what responses show). Returns a function that detaches.
   */
  attach(...sources: EventEmitter[]): () => void;
  readonly cache: ResponseCache | null;
  readonly ctx: ApiContext;
  readonly router: Router;
  /** The stats service's routes (under /api/v1). */
  readonly statsRouter: Router;
  /** A public-name decision was taken in this process: names are read again, cached responses go. */
  publicNamesChanged(): void;
  /** Icons are linked under this origin when PUBLIC_URL is unset (the API's own address). */
  setIconOrigin(origin: string): void;
  /**
   * The answer of one of ROUTES by its pattern and cast parameters, never cached: what an API
   * thread computes for the app on the main thread (src/api/api-thread.ts).
   */
  computeRoute(pattern: string, path: Record<string, unknown>, query: Record<string, unknown>): Promise<CachedResponse>;
}

/** A stored icon's path: '<sha256>.<ext>' (src/account/icons.ts names them so). */
const ICON_PATH = new RegExp(`^${PUBLIC_ICONS_PATH}/([0-9a-f]{64})\\.(png|jpg|webp|gif)$`);

/** Volatile entries without indexer events in this process: a block may come at any time. */
const UNATTACHED_VOLATILE_TTL_MS = 1000;

function reply(status: number, body: Buffer | string, head = false): ApiReply {
  return { status, headers: { 'content-type': JSON_TYPE, ...CORS_HEADERS }, body: head ? '' : body };
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

export function createApiApp(opts: ApiAppOptions): ApiApp {
  const ctx = new ApiContext(opts);
  const router = new Router(opts.routes ?? ROUTES);
  // Under /api/v1: the stats service's routes, and Blockscout's legacy /api/v1/search (the same
  // search as /api/v2/search: its controller serves both paths).
  const statsRouter = new Router([...statsServiceRoutes(opts.coin), ...searchRoutes.filter((r) => r.pattern === '/search')]);
  const maxBytes = Math.floor((opts.cacheMaxMb ?? 256) * 1024 * 1024);
  const cache = maxBytes > 0 ? new ResponseCache({ maxBytes, volatileTtlMs: UNATTACHED_VOLATILE_TTL_MS }) : null;
  const log = opts.log;
  // CSV exports are streamed and never pass through the response cache.
  const csv = createCsvExport(ctx, { chunkRows: opts.csvChunkRows });
  // A verification changes how every response naming the contract reads (its name, decoded
  // calls and logs, also in old blocks' cached answers): everything cached goes.
  const threads = opts.threads;
  opts.verification?.service.on('verified', (e: { ok: boolean }) => {
    if (!e.ok) return;
    ctx.onVerified();
    threads?.tell({ kind: 'verified' });
    cache?.clear();
  });
  const byPattern = new Map((opts.routes ?? ROUTES).map((d) => [d.pattern, d]));
  // The average size of each route's answers (bytes, a moving average): which go to a thread.
  const threadMinBytes = opts.threadMinBytes ?? THREAD_MIN_BYTES;
  const answerBytes = new Map<string, number>();
  const inThread = (route: string) => threads !== undefined && (answerBytes.get(route) ?? Infinity) >= threadMinBytes;
  const learn = (route: string, r: CachedResponse) => {
    const was = answerBytes.get(route);
    answerBytes.set(route, was === undefined ? r.body.length : was + (r.body.length - was) / 16);
    return r;
  };
  // The Etherscan-compatible API (/api?module=…): its own envelopes, on the same context and cache.
  const etherscan = createEtherscanApi({ ctx, cache, log });

  async function compute(def: RouteDef, path: Record<string, never>, query: Record<string, never>): Promise<CachedResponse> {
    try {
      const r = await def.handler({ path, query, ctx });
      return { status: r.status ?? 200, body: json(r.body), policy: r.policy, block: r.block === undefined ? undefined : BigInt(r.block) };
    } catch (e) {
      if (e instanceof ApiError) {
        // A missing block or transaction may appear with the next block (or sooner: see NotFoundError).
        return { status: e.status, body: json(e.body), policy: e instanceof NotFoundError ? e.cache : 'none' };
      }
      throw e;
    }
  }

  /** Answers, and tells `observe` how long it took under its route's pattern (or kind of path). */
  /** The signature book's generation the cached answers were built at. */
  let signatureGen = ctx.signatures.generation;

  async function handle(req: ApiRequest): Promise<ApiReply> {
    if (!opts.observe) return answer(req, { route: '' });
    const started = performance.now();
    const label = { route: 'other' };
    const r = await answer(req, label);
    opts.observe(label.route, r.status, (performance.now() - started) / 1000);
    return r;
  }

  /** Facts every answer may show that change outside this process: what changed clears the cache. */
  async function refreshSharedFacts(): Promise<void> {
    // A public name approved elsewhere (`explorer admin`) changes responses cached here.
    // So do names new in the signatures table (an import, a verification, an online answer).
    await ctx.signatures.refresh();
    const signaturesChanged = ctx.signatures.generation !== signatureGen;
    signatureGen = ctx.signatures.generation;
    if ((await ctx.refreshPublicNames()) || signaturesChanged) {
      threads?.tell({ kind: 'names' });
      cache?.clear();
    }
    // New prices from the source (or prices gone stale): every cached answer goes, whatever its
    // policy (a stored block's transactions show the coin's rate too), and the threads show the same.
    if (await ctx.prices.refresh()) {
      threads?.tell({ kind: 'prices', snapshot: ctx.prices.snapshot() });
      cache?.clear();
    }
  }

  async function answer(req: ApiRequest, label: { route: string }): Promise<ApiReply> {
    const method = req.method.toUpperCase();
    const rawPath = req.path || '/';
    if (isEtherscanPath(rawPath)) {
      label.route = '/api (etherscan)';
      return etherscan.handle(req);
    }
    const inApi = rawPath === API_PREFIX || rawPath.startsWith(API_PREFIX + '/');
    // Under /api/v1: the stats service's routes and the legacy search; anything else stays a 404.
    const statsMatch = inApi || !rawPath.startsWith(STATS_SERVICE_PREFIX + '/') ? null : statsRouter.match(rawPath.slice(STATS_SERVICE_PREFIX.length).split('/').filter(Boolean));
    const health = method === 'GET' || method === 'HEAD' ? HEALTH_PATH.exec(rawPath) : null;
    if (health) label.route = '/api/health';
    if (health) return healthReply(ctx, health[1], opts.readyMaxLagBlocks ?? DEFAULT_READY_MAX_LAG_BLOCKS, method === 'HEAD');
    if (!inApi && !statsMatch) return reply(404, json(NOT_FOUND_BODY));
    // A refetch is a PATCH (Blockscout's): its preflight allows it.
    if (method === 'OPTIONS') return { status: 204, headers: { ...CORS_HEADERS, ...(isRefetchPath(rawPath) ? { 'access-control-allow-methods': 'PATCH, OPTIONS' } : {}) }, body: '' };
    const head = method === 'HEAD';
    if (method === 'POST' && inApi) {
      try {
        // One running verification per client: its key, else its address (the gateway has rate-limited it already).
        const client = req.headers.authorization || req.query.get('apikey') || req.ip;
        const verified = await verificationPost(req, ctx.verification?.service, client);
        if (verified) return verified;
      } catch (e) {
        log.error('verification request failed', { path: rawPath.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
        return reply(500, json(INTERNAL_ERROR_BODY));
      }
    }
    if (method === 'PATCH' && inApi) {
      try {
        const refetch = await refetchMetadata(ctx, req);
        if (refetch) label.route = 'nft refetch';
        if (refetch) return refetch;
      } catch (e) {
        log.error('request failed', { path: rawPath.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
        return reply(500, json(INTERNAL_ERROR_BODY));
      }
    }
    if (method !== 'GET' && !head) return reply(400, json(UNKNOWN_ACTION_BODY));
    const icon = inApi ? ICON_PATH.exec(rawPath) : null;
    if (icon) label.route = PUBLIC_ICONS_PATH;
    if (icon) return serveIcon(icon[1]!, icon[2]!, head);
    // Paths answered before the router, each recognised without an await (null: not its path).
    let early: Promise<ApiReply> | null = null;
    if (inApi && (early = csv.handle(req, rawPath, head))) label.route = 'csv export';
    else if (inApi && (early = watchlistTransactions(ctx, req))) label.route = 'watchlist transactions';
    else if (inApi && (early = advancedFilters(ctx, req, head))) label.route = 'advanced filters';
    if (early) {
      try {
        return await early;
      } catch (e) {
        log.error('request failed', { path: rawPath.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
        return reply(500, json(INTERNAL_ERROR_BODY), head);
      }
    }
    const segments = rawPath.slice(API_PREFIX.length).split('/').filter(Boolean);
    const match = statsMatch ?? router.match(segments);
    if (!match) return reply(400, json(UNKNOWN_ACTION_BODY), head);
    label.route = `${statsMatch ? STATS_SERVICE_PREFIX : API_PREFIX}${match.def.pattern}`;
    try {
      // Checked without an await when nothing is due (most requests): each await is a turn of
      // the microtask queue, which a cached answer feels.
      const now = Date.now();
      if (ctx.signatures.due(now) || ctx.publicNamesDue(now) || ctx.prices.due(now) || ctx.signatures.generation !== signatureGen) await refreshSharedFacts();
      const params = castParams(match.pathValues, match.def.path ?? {}, req.query, match.def.query ?? {});
      // A public API route with large answers in an API thread when there is one (a route is
      // tried there until its answers' size is known; the stats service's stay here).
      const pattern = match.def.pattern;
      const run = async () =>
        learn(
          label.route,
          await ((statsMatch || !inThread(label.route) ? undefined : threads?.compute(pattern, params.path, params.query)) ??
            compute(match.def, params.path as Record<string, never>, params.query as Record<string, never>)),
        );
      const key = `${statsMatch ? STATS_SERVICE_PREFIX : ''}${match.def.pattern} ${canonicalParams(params)}`;
      const r = cache ? await cache.get(key, run) : await run();
      const out = reply(r.status, r.body, head);
      // An answer is kept by browsers and edges as long as the response cache keeps it, a recent
      // block's data only seconds (http-caching.ts).
      out.headers['cache-control'] = cacheControlOf(r.policy, r.block, r.block === undefined ? null : await ctx.head());
      out.headers.vary = VARY;
      if (r.status === 200) {
        const etag = etagOf(r.body);
        out.headers.etag = etag;
        // Credentials may personalise the answer after this (the gateway), so only anonymous requests get a 304 here.
        if (!sentCredential(req) && notModified(req.headers['if-none-match'], etag)) return { ...out, status: 304, body: '' };
      }
      return out;
    } catch (e) {
      if (e instanceof ApiError) return reply(e.status, json(e.body), head);
      log.error('request failed', { path: rawPath.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
      return reply(500, json(INTERNAL_ERROR_BODY), head);
    }
  }

  /**
   * A stored icon (#19), with the type its checks proved, never sniffed, and no active content:
   * content-addressed, so cacheable for good.
   */
  async function serveIcon(sha256: string, ext: string, head: boolean): Promise<ApiReply> {
    try {
      const found = await getIcon(ctx.pg, sha256, ext);
      if (!found) return reply(404, json(NOT_FOUND_BODY), head);
      return {
        status: 200,
        headers: {
          ...CORS_HEADERS,
          'content-type': found.content_type,
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'",
          'cache-control': 'public, max-age=31536000, immutable',
        },
        body: head ? '' : found.bytes,
      };
    } catch (e) {
      log.error('icon request failed', { error: e instanceof Error ? e.message : String(e) });
      return reply(500, json(INTERNAL_ERROR_BODY), head);
    }
  }

  function publicNamesChanged(): void {
    ctx.onPublicNamesChanged();
    // An API thread hears of new signatures this way too: it reads them now, not at its next timed look.
    void ctx.signatures.refresh(true).catch(() => undefined);
    threads?.tell({ kind: 'names' });
    cache?.clear();
  }

  function setIconOrigin(origin: string): void {
    ctx.setIconOrigin(origin);
    threads?.tell({ kind: 'icon-origin', origin });
  }

  function computeRoute(pattern: string, path: Record<string, unknown>, query: Record<string, unknown>): Promise<CachedResponse> {
    const def = byPattern.get(pattern);
    if (!def) return Promise.reject(new Error(`no route ${pattern}`));
    return compute(def, path as Record<string, never>, query as Record<string, never>);
  }

  function attach(...sources: EventEmitter[]): () => void {
    cache?.setVolatileTtl(undefined);
    ctx.setAttached(true);
    threads?.tell({ kind: 'attached', attached: true });
    const onBlock = (e?: {
      summary?: { createdContracts?: { address: string }[] };
      from?: number;
      to?: number;
      blocks?: { hash: string; parentHash: string }[];
      named?: RangeNames;
      /** An API thread's event: the range as the main thread passed it on. */
      range?: NamedRange;
    }) => {
      const created = (e?.summary?.createdContracts ?? []).map((c) => c.address);
      // The indexer in this process names the range's addresses; another process's events do not.
      const blocks = e?.blocks;
      const range: NamedRange | undefined =
        e?.range ??
        (e?.named && blocks?.length ? { from: e.from!, to: e.to!, parentHash: blocks[0]!.parentHash, hash: blocks[blocks.length - 1]!.hash, named: e.named } : undefined);
      ctx.onChainChange('block', created, range, e?.to);
      threads?.tell({ kind: 'block', createdContracts: created, range, to: e?.to });
      cache?.invalidate('block');
    };
    const onReorg = () => {
      ctx.onChainChange('reorg');
      threads?.tell({ kind: 'reorg' });
      cache?.invalidate('reorg');
    };
    const onDerived = () => {
      ctx.onDerivedChange();
      threads?.tell({ kind: 'derived' });
      cache?.invalidate('derived');
    };
    // A verification in another API process (src/bin/event-bridge.ts), as this process's own below.
    const onVerified = (e?: { ok?: boolean }) => {
      if (e?.ok === false) return;
      ctx.onVerified();
      threads?.tell({ kind: 'verified' });
      cache?.clear();
    };
    for (const events of sources) {
      events.on('block', onBlock);
      events.on('reorg', onReorg);
      events.on('derived', onDerived);
      events.on('verified', onVerified);
    }
    return () => {
      for (const events of sources) {
        events.off('block', onBlock);
        events.off('reorg', onReorg);
        events.off('derived', onDerived);
        events.off('verified', onVerified);
      }
      cache?.setVolatileTtl(UNATTACHED_VOLATILE_TTL_MS);
      ctx.setAttached(false);
      threads?.tell({ kind: 'attached', attached: false });
    };
  }

  return { handle, attach, cache, ctx, router, statsRouter, publicNamesChanged, setIconOrigin, computeRoute };
}
