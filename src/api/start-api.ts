// The API role in one call: the app (routes, cache) on a uWS server with the Phoenix websocket
// (/socket/v2), following the indexer's and the derived lanes' events when they run in the same
// process. `explorer api` and `explorer start` call this.
import type { EventEmitter } from 'node:events';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import type { Logger } from '../log.js';
import { createApiApp, type ApiApp } from './app.js';
import { startServer } from './server.js';
import { createGateway, type AccountLike } from './gateway.js';
import { RateLimiter, clientIp } from '../ratelimit/rate-limiter.js';
import type { RpcClient } from '../rpc/client.js';
import { Hub } from './socket/hub.js';
import { SocketAdmitter } from './socket/admission.js';
import { createSocketEndpoint, type SocketLimits } from './socket/endpoint.js';
import { Feed } from './socket/feed.js';

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
  log: Logger;
  /**
   * The indexer (its 'block' and 'reorg' events) and the derived-data lanes ('derived'), when
   * they run in this process.
   */
  events?: EventEmitter[];
  /** The node, for current values of contract read methods (short timeout, few retries). */
  rpc?: RpcClient;
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

export async function startApi(o: ApiOptions): Promise<RunningApi> {
  const app = createApiApp({ ch: o.ch, pg: o.pg, log: o.log, cacheMaxMb: o.cacheMaxMb, rpc: o.rpc });
  const detach = o.events?.length ? app.attach(...o.events) : () => undefined;
  const limiter = new RateLimiter({ anonymousPerSecond: o.rateLimits?.anonymous ?? 0, keyPerSecond: o.rateLimits?.key ?? 0 });
  const trusted = new Set(o.trustedProxies ?? []);
  const handle = createGateway({ api: app, account: o.account, pg: o.pg, limiter, trustedProxies: trusted, accountBodyBytes: o.accountBodyBytes, log: o.log });
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
  o.log.info('API listening', { host: o.host, port: server.port, cache_mb: o.cacheMaxMb, websocket: socket ? '/socket/v2/websocket' : 'off' });
  return {
    app,
    handle,
    port: server.port,
    socket,
    sockets: () => server.sockets(),
    async close() {
      detach();
      detachFeed();
      socket?.feed.stop();
      await server.close();
    },
  };
}
