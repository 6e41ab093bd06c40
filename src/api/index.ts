// The API role in one call: the app (routes, cache) on a uWS server, following the indexer's
// events when it runs in the same process. `explorer api` and `explorer start` call this.
import type { EventEmitter } from 'node:events';
import type { ClickHouseStore } from '../storage/clickhouse/index.js';
import type { PgStore } from '../storage/postgres/index.js';
import type { Logger } from '../log.js';
import { createApiApp, type ApiApp } from './app.js';
import { startServer } from './server.js';
import { createGateway, type AccountLike } from './gateway.js';
import { RateLimiter, clientIp } from '../ratelimit/index.js';
import type { RpcClient } from '../rpc/client.js';

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
}

export interface RunningApi {
  app: ApiApp;
  /** The composed handler (rate limits, public API, Account API), as the socket sees it. */
  handle(req: import('./http.js').ApiRequest): Promise<import('./http.js').ApiReply>;
  port: number;
  close(): Promise<void>;
}

export async function startApi(o: ApiOptions): Promise<RunningApi> {
  const app = createApiApp({ ch: o.ch, pg: o.pg, log: o.log, cacheMaxMb: o.cacheMaxMb, rpc: o.rpc });
  const detach = o.events?.length ? app.attach(...o.events) : () => undefined;
  const limiter = new RateLimiter({ anonymousPerSecond: o.rateLimits?.anonymous ?? 0, keyPerSecond: o.rateLimits?.key ?? 0 });
  const trusted = new Set(o.trustedProxies ?? []);
  const handle = createGateway({ api: app, account: o.account, pg: o.pg, limiter, trustedProxies: trusted, accountBodyBytes: o.accountBodyBytes, log: o.log });
  const server = await startServer({
    front: handle,
    host: o.host,
    port: o.port,
    log: o.log,
    maxRequestsPerClient: o.maxRequestsPerClient,
    // Behind a trusted reverse proxy every socket is the proxy's: count the client it names.
    clientOf: (ip, headers) => clientIp(ip, headers['x-forwarded-for'], trusted),
  });
  o.log.info('API listening', { host: o.host, port: server.port, cache_mb: o.cacheMaxMb });
  return {
    app,
    handle,
    port: server.port,
    async close() {
      detach();
      await server.close();
    },
  };
}
