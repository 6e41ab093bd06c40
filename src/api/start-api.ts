// The API role in one call: the app (routes, cache) on a uWS server with the Phoenix websocket
// (/socket/v2), following the indexer's and the derived lanes' events when they run in the same
// process. `explorer api` and `explorer start` call this.
import type { EventEmitter } from 'node:events';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import type { Logger } from '../log.js';
import { createApiApp, type ApiApp } from './app.js';
import type { ApiDeps } from './context.js';
import { startServer } from './server.js';
import { createGateway } from './gateway.js';
import { startRouteThreads, type ThreadRpc } from './route-threads.js';
import type { AccountLike } from './front.js';
import { RateLimiter, clientIp } from '../ratelimit/rate-limiter.js';
import { SharedKeyLimits } from '../ratelimit/shared-key-limits.js';
import { forgetIdleReplicas, syncKeyUsage } from '../storage/postgres/api-key-usage.js';
import type { RpcClient } from '../rpc/client.js';
import { Hub } from './socket/hub.js';
import { SocketAdmitter } from './socket/admission.js';
import { createSocketEndpoint, type SocketLimits } from './socket/endpoint.js';
import { Feed } from './socket/feed.js';
import { TOPIC } from './socket/topics.js';
import { CompilerStore } from '../verify/compilers.js';
import { CompilerPool } from '../verify/compiler-pool.js';
import { VerificationService, type VerifiedEvent } from '../verify/service.js';
import { nodeChain, routeLibSourcifyLog } from '../verify/verifier.js';
import { contractRow } from '../storage/postgres/reads/contracts.js';
import { projectRoot } from '../paths.js';

export { createApiApp, type ApiApp } from './app.js';
export { startServer, type RunningServer } from './server.js';

export interface ApiOptions {
  ch: ClickHouseStore;
  pg: PgStore;
  /** HOST */
  host: string;
  /** API_PORT (0: a free port; the bound one is returned). */
  port: number;
  /** CACHE_MAX_MB */
  cacheMaxMb: number;
  /** TOKEN_SEARCH_MEMORY_MAX (src/api/token-search.ts; default there). */
  tokenSearchMemoryMax?: number;
  /** TOKEN_SEARCH_STALE_MS (src/api/token-search.ts; default there). */
  tokenSearchStaleMs?: number;
  /** READY_MAX_LAG_BLOCKS (src/api/health.ts; default there). */
  readyMaxLagBlocks?: number;
  /** SIGNATURE_LOOKUP_URL / _FORMAT (src/api/online-signatures.ts): asked by the main thread only. */
  signatureLookup?: ApiDeps['signatureLookup'];
  /** BEACON_NODE_URL (src/api/beacon-blobs.ts): asked by the main thread and each API thread, each with its own cache. */
  beaconNode?: ApiDeps['beaconNode'];
  /** Set when EXCHANGE_RATES_URL is (src/api/prices.ts): answers show the stored prices. */
  exchangeRates?: ApiDeps['exchangeRates'];
  /** Told of every public API answer (route, status, seconds): the metrics. */
  observe?: (route: string, status: number, seconds: number) => void;
  log: Logger;
  /**
   * The indexer (its 'block' and 'reorg' events) and the derived-data lanes ('derived'), when
   * they run in this process.
   */
  events?: EventEmitter[];
  /** The node, for current values of contract read methods (short timeout, few retries). */
  rpc?: RpcClient;
  /**
   * API_THREADS: worker threads computing the public API's routes (src/api/route-threads.ts);
   * 0 computes them on the main thread. `rpc`: the options `rpc` was made with, for the threads' own clients.
   */
  threads?: { count: number; rpc?: ThreadRpc };
  /** PUBLIC_URL: approved icons' URLs are absolute under it (else under http://localhost:<port>). */
  publicUrl?: string;
  /** The Account API and credential checks (rate limits per key). */
  account?: AccountLike;
  /** RATE_LIMIT_ANON / RATE_LIMIT_KEY (requests per second; 0 = off). */
  rateLimits?: { anonymous: number; key: number };
  trustedProxies?: readonly string[];
  /** Requests of one client in progress at once; more get 429 (default 64, 0: no cap). */
  maxRequestsPerClient?: number;
  /** Largest Account API request body in bytes (default 256 KiB). */
  accountBodyBytes?: number;
  /**
   * The websocket at /socket/v2 (served unless false): open sockets per client (default: as
   * many as maxRequestsPerClient), per-connection bounds, the pending-pool poll (ms, 0: off).
   */
  socket?: false | { maxSocketsPerClient?: number; limits?: Partial<SocketLimits>; pendingPollMs?: number };
  /**
   * Contract verification (unset: not offered): the compiler cache and builds list, the node lib-sourcify
   * matches against (its URL and chain id), and the bounds of a verification.
   */
  verify?: { solcCacheDir: string; solcListUrl: string | null; nodeUrl: string; chainId: number; maxInputBytes: number; timeoutMs: number };
}

export interface RunningApi {
  app: ApiApp;
  /** The composed handler (rate limits, public API, Account API), as the socket sees it. */
  handle(req: import('./http.js').ApiRequest): Promise<import('./http.js').ApiReply>;
  port: number;
  /** The websocket's topics and feed (undefined when not served). */
  socket?: { hub: Hub; feed: Feed; admitter: SocketAdmitter };
  /** Open websockets and the bytes queued for them. */
  sockets(): { open: number; bufferedBytes: number; maxBufferedBytes: number };
  close(): Promise<void>;
}

/** The verification parts of an API process: compilers (seeded from npm), the compile thread, the service. */
async function startVerification(v: NonNullable<ApiOptions['verify']>, pg: PgStore, log: Logger, rpc: RpcClient | undefined) {
  const compilers = new CompilerStore({ dir: v.solcCacheDir, listUrl: v.solcListUrl });
  const seeded = compilers.seedFromNpm(projectRoot());
  routeLibSourcifyLog(log.child('verify'));
  const pool = new CompilerPool({ store: compilers, maxInputBytes: v.maxInputBytes, maxQueue: 8, timeoutMs: v.timeoutMs });
  const service = new VerificationService({
    pg,
    pool,
    // 8 places as the pool has; one network holds at most 2 of them.
    queue: { maxWaiting: 8, perNetwork: 2, timeoutMs: v.timeoutMs },
    chain: nodeChain(v.chainId, v.nodeUrl),
    log: log.child('verify'),
    contractOf: async (address) => {
      const c = await contractRow(pg, address);
      if (c) return { isContract: true, creationTx: c.creation_tx };
      // Not created in the indexed history: a contract if the node has code there.
      const code = rpc ? await rpc.request<string>('eth_getCode', [address, 'latest']).catch(() => null) : null;
      return { isContract: typeof code === 'string' && code !== '0x', creationTx: null };
    },
  });
  await service.start();
  log.info('contract verification on', { solc_cache: v.solcCacheDir, cached_versions: seeded.length });
  return { compilers, pool, service };
}

export async function startApi(o: ApiOptions): Promise<RunningApi> {
  const verification = o.verify ? await startVerification(o.verify, o.pg, o.log, o.rpc) : undefined;
  const threads = o.threads?.count
    ? await startRouteThreads({ count: o.threads.count, ch: o.ch, pgUrl: o.pg.url, rpc: o.threads.rpc, publicUrl: o.publicUrl, tokenSearchMemoryMax: o.tokenSearchMemoryMax, tokenSearchStaleMs: o.tokenSearchStaleMs, beaconNode: o.beaconNode, log: o.log.child('threads') })
    : undefined;
  const app = createApiApp({ ch: o.ch, pg: o.pg, log: o.log, cacheMaxMb: o.cacheMaxMb, tokenSearchMemoryMax: o.tokenSearchMemoryMax, tokenSearchStaleMs: o.tokenSearchStaleMs, rpc: o.rpc, verification, publicUrl: o.publicUrl, readyMaxLagBlocks: o.readyMaxLagBlocks, signatureLookup: o.signatureLookup, beaconNode: o.beaconNode, exchangeRates: o.exchangeRates, observe: o.observe, threads });
  const detach = o.events?.length ? app.attach(...o.events) : () => undefined;
  // A public-name decision taken through the Account API shows at once: names read again, cached responses dropped.
  const detachNames = o.account?.onPublicNamesChanged?.(() => app.publicNamesChanged()) ?? (() => undefined);
  const limiter = new RateLimiter({ anonymousPerSecond: o.rateLimits?.anonymous ?? 0, keyPerSecond: o.rateLimits?.key ?? 0 });
  // An API key's limit holds across the replicas sharing this PostgreSQL (per-IP limits stay per replica).
  const sharedKeys = limiter.limitsKeys
    ? new SharedKeyLimits(
        limiter,
        {
          sync: (replica, totals, keys) => syncKeyUsage(o.pg, replica, totals, keys),
          forgetIdle: (s) => forgetIdleReplicas(o.pg, s),
        },
        { log: o.log.child('ratelimit') },
      )
    : undefined;
  sharedKeys?.start();
  const trusted = new Set(o.trustedProxies ?? []);
  const handle = createGateway({
    api: app,
    account: o.account,
    pg: o.pg,
    limiter,
    trustedProxies: trusted,
    accountBodyBytes: o.accountBodyBytes,
    verificationBodyBytes: o.verify?.maxInputBytes,
    // Etherscan's verifysourcecode carries the whole input in its form, and its action is named
    // in that form (forge and hardhat-verify post module and action in the body): the limit is
    // decided before the body is read, so every /api POST may be as large as a verification.
    etherscanBodyBytes: o.verify ? Math.max(o.verify.maxInputBytes, 256 * 1024) : undefined,
    log: o.log,
  });
  let socket: RunningApi['socket'];
  let detachFeed = () => {};
  if (o.socket !== false) {
    const hub = new Hub();
    const admitter = new SocketAdmitter({
      limiter,
      account: o.account,
      trustedProxies: trusted,
      maxSocketsPerClient: o.socket?.maxSocketsPerClient ?? o.maxRequestsPerClient ?? 64,
    });
    // The feed reads payloads through the app itself (its cache, no rate limits), after the app's own listeners.
    const feed = new Feed({ hub, handle: (req) => app.handle(req), ch: o.ch, pg: o.pg, log: o.log.child('socket'), pendingPollMs: o.socket?.pendingPollMs });
    // With no emitters (`explorer api` alone) only the pending-pool poll feeds topics.
    detachFeed = feed.attach(...(o.events ?? []));
    // Blockscout's verification result on the contract's topic.
    verification?.service.on('verified', (e: VerifiedEvent) => {
      hub.broadcast(TOPIC.address(e.address), 'verification_result', JSON.stringify(e.ok ? { status: 'success' } : { status: 'error', errors: { contract_source_code: [e.message ?? 'not verified'] } }));
    });
    socket = { hub, feed, admitter };
  }
  const server = await startServer({
    front: handle,
    host: o.host,
    port: o.port,
    log: o.log,
    maxRequestsPerClient: o.maxRequestsPerClient,
    // Behind a trusted reverse proxy every socket is the proxy's: count the client it names.
    clientOf: (ip, headers) => clientIp(ip, headers['x-forwarded-for'], trusted),
    socket: socket ? createSocketEndpoint({ hub: socket.hub, admitter: socket.admitter, limits: o.socket ? o.socket.limits : undefined }) : undefined,
  });
  // Without PUBLIC_URL, icons are linked where this server answers on this machine.
  app.setIconOrigin(`http://localhost:${server.port}`);
  o.log.info('API listening', { host: o.host, port: server.port, cache_mb: o.cacheMaxMb, threads: threads ? o.threads!.count : 0, websocket: socket ? '/socket/v2/websocket' : 'off' });
  return {
    app,
    handle,
    port: server.port,
    socket,
    sockets: () => server.sockets(),
    async close() {
      detach();
      detachNames();
      detachFeed();
      await sharedKeys?.stop();
      socket?.feed.stop();
      await server.close();
      await threads?.close();
      await verification?.pool.close();
    },
  };
}
