// The roles a process can run, shared by `explorer start` and the split commands.
import type { Config } from '../config/settings.js';
import { createLogger } from '../log.js';
import { migrateAll, openStores, type Stores } from '../storage/stores.js';
import { createIndexer } from '../indexer/indexer.js';
import { createDerived } from '../derived/scheduler.js';
import { ExchangeRates } from '../derived/exchange-rates.js';
import { startApi } from '../api/start-api.js';
import { Notifier } from '../notify/notifier.js';
import { WatchlistMatcher } from '../notify/watchlist.js';
import { notificationRoutes } from '../notify/routes.js';
import { DEFAULT_POLICY } from '../notify/webhook.js';
import { createAccountApp } from '../account/app.js';
import { createRpcClient } from '../rpc/client.js';
import { createUi } from '../ui/ui-server.js';
import { httpClient, inProcessClient } from '../ui/api-client.js';
import { followApiSocket, type ApiSocketFollower } from '../ui/api-socket.js';
import { publishEvents, subscribeEvents } from './event-bridge.js';
import { createMetrics, serveMetrics } from '../metrics/metrics.js';
import { pendingNotifications } from '../storage/postgres/events.js';

/** This process's metrics: each role registers what it runs; served when METRICS_PORT is set. */
const metrics = createMetrics();

/** Serves this process's metrics on METRICS_PORT, when set. */
export async function startMetrics(cfg: Config, life: Lifecycle): Promise<void> {
  if (cfg.metricsPort === undefined) return;
  const server = await serveMetrics(metrics, cfg.host, cfg.metricsPort, createLogger('metrics'));
  life.add({ name: 'metrics server', stop: () => server.close() });
}
import { startServer } from '../api/server.js';
import type { ApiReply, ApiRequest } from '../api/http.js';
import { createMailer } from '../mail.js';
import type { EventEmitter } from 'node:events';
import type { Lifecycle } from './lifecycle.js';
import type { RpcVariant } from '../rpc/client.js';

const log = createLogger('start');

export interface NodeEndpoint {
  url: string;
  traceUrl?: string;
  variant: RpcVariant;
}

/** Opens (or starts embedded) stores and applies migrations. */
export async function openMigratedStores(cfg: Config, life: Lifecycle): Promise<Stores> {
  const stores = await openStores(cfg);
  life.add({ name: 'stores', stop: () => stores.close() });
  log.info('PostgreSQL ready', { mode: stores.pg.embedded ? 'embedded' : 'server', url: redact(stores.pg.url) });
  log.info('ClickHouse ready', {
    mode: stores.ch.embedded ? 'embedded chDB' : 'server',
    where: stores.ch.embedded ? `${cfg.dataDir}/clickhouse` : redact(cfg.clickhouseUrl ?? ''),
    database: stores.ch.database,
  });
  const mig = await migrateAll(stores);
  log.info('migrations applied', {
    postgres: mig.postgres.applied.length ? mig.postgres.applied.join(',') : 'up to date',
    clickhouse: mig.clickhouse.applied.length ? mig.clickhouse.applied.join(',') : 'up to date',
  });
  return stores;
}

export async function startIndexerRole(cfg: Config, stores: Stores, node: NodeEndpoint, life: Lifecycle) {
  const indexer = createIndexer({
    ch: stores.ch,
    pg: stores.pg,
    rpc: {
      url: node.url,
      traceUrl: node.traceUrl,
      variant: node.variant,
      timeoutMs: cfg.rpcTimeoutMs,
      maxRetries: cfg.rpcMaxRetries,
      concurrency: cfg.rpcConcurrency,
    },
    firstBlock: cfg.firstBlock,
    batchBlocks: cfg.batchBlocks,
    workers: cfg.workers,
    claimRanges: cfg.claimRanges,
    chainFamily: cfg.chainFamily,
    opL1: cfg.opL1RpcUrl && cfg.opPortalAddress
      ? { url: cfg.opL1RpcUrl, portal: cfg.opPortalAddress, startBlock: cfg.opL1StartBlock, confirmations: cfg.opL1Confirmations, timeoutMs: cfg.rpcTimeoutMs, maxRetries: cfg.rpcMaxRetries }
      : undefined,
    // Test-only fault injection (see IndexerOptions.crashAfterInsert, claimPauseMs); not settings.
    crashAfterInsert: Number(process.env.EXPLORER_TEST_CRASH_AFTER_INSERT) || undefined,
    claimPauseMs: Number(process.env.EXPLORER_TEST_CLAIM_PAUSE_MS) || undefined,
  });
  const derived = createDerived({
    pg: stores.pg,
    ch: stores.ch,
    rpc: indexer.rpc,
    firstBlock: cfg.firstBlock,
    ipfsGateway: cfg.ipfsGateway,
  });
  derived.attach(indexer);
  // Watchlist matching happens in the indexer's commit transaction.
  const matcher = new WatchlistMatcher(stores.pg);
  await matcher.start();
  matcher.attach(indexer);
  life.add({ name: 'watchlist matcher', stop: () => matcher.stop() });
  const s = indexer.stats;
  metrics.counter('explorer_indexed_blocks_total', 'Blocks committed by the indexer since this process started.', () => s.blocks);
  metrics.counter('explorer_indexed_transactions_total', 'Transactions committed by the indexer since this process started.', () => s.txs);
  metrics.counter('explorer_reorgs_total', 'Reorgs rewound by the indexer since this process started.', () => s.reorgs);
  metrics.gauge('explorer_node_head_block', "The node's head block as the indexer last saw it.", () => s.head);
  metrics.gauge('explorer_indexed_block', 'The highest block committed (the checkpoint).', () => s.committed);
  metrics.gauge('explorer_head_lag_blocks', "Blocks between the node's head and the checkpoint.", () => (s.head === null ? null : s.head - (s.committed ?? -1)));
  const rpc = indexer.rpc;
  // The ingest workers' calls included (indexer.nodeCalls): they make most of them.
  metrics.counter('explorer_rpc_calls_total', 'JSON-RPC calls made to the node by the indexer, its ingest workers and the lanes.', () => indexer.nodeCalls().calls);
  metrics.counter('explorer_rpc_http_requests_total', 'HTTP requests (single calls or batches) made to the node.', () => indexer.nodeCalls().httpRequests);
  metrics.counter('explorer_rpc_retries_total', 'JSON-RPC requests retried after a failure (timeouts, network and server errors).', () => indexer.nodeCalls().retries);
  metrics.gauge('explorer_rpc_in_flight', "JSON-RPC HTTP requests in progress now (the indexer's own and the lanes', not the ingest workers').", () => rpc.stats().inFlight);
  metrics.labelledCounter('explorer_rpc_method_calls_total', 'JSON-RPC calls made to the node, by method (each attempt counts, as in explorer_rpc_calls_total).', ['method'], () =>
    Object.entries(indexer.nodeCalls().methods).map(([method, m]) => ({ labels: { method }, value: m.calls })),
  );
  metrics.labelledCounter(
    'explorer_rpc_method_errors_total',
    'JSON-RPC calls that failed for good (after their retries), by method and kind: rpc (an error object), http, timeout, network, parse, size.',
    ['method', 'kind'],
    () => Object.entries(indexer.nodeCalls().methods).flatMap(([method, m]) => Object.entries(m.errors).map(([kind, n]) => ({ labels: { method, kind }, value: n ?? 0 }))),
  );
  metrics.labelledGauge('explorer_derived_lane_backlog_blocks', "Blocks between the chain checkpoint and a derived lane's own cursor (lanes that follow the chain: accounting).", ['lane'], async () =>
    (await derived.backlog()).filter((l) => l.unit === 'blocks').map((l) => ({ labels: { lane: l.lane }, value: l.due })),
  );
  metrics.labelledGauge('explorer_derived_lane_queued_items', 'Items queued and due in a derived lane (token and NFT metadata, supplies, coin balances, contract code, balance checks).', ['lane'], async () =>
    (await derived.backlog()).filter((l) => l.unit === 'items').map((l) => ({ labels: { lane: l.lane }, value: l.due })),
  );
  // API processes of split roles follow the chain through these (src/bin/event-bridge.ts).
  life.add({ name: 'event publisher', stop: publishEvents(stores.pg, [indexer, derived], createLogger('events')) });
  await indexer.start();
  derived.start();
  life.add({ name: 'indexer', stop: () => indexer.stop() });
  life.add({ name: 'derived data lanes', stop: () => derived.stop() });
  startExchangeRates(cfg, stores, life);
  return { indexer, derived };
}

/** The price fetcher (EXCHANGE_RATES_URL; off when unset), beside the indexer: it writes what the API reads. */
function startExchangeRates(cfg: Config, stores: Stores, life: Lifecycle): void {
  if (!cfg.exchangeRatesUrl) return;
  const rates = new ExchangeRates({
    pg: stores.pg,
    url: cfg.exchangeRatesUrl,
    coinId: cfg.exchangeRatesCoinId,
    platform: cfg.exchangeRatesPlatform,
    apiKey: cfg.exchangeRatesApiKey,
    periodMs: cfg.exchangeRatesPeriodS * 1000,
    tokensPeriodMs: cfg.exchangeRatesTokensPeriodS * 1000,
    tokensMax: cfg.exchangeRatesTokensMax,
    log: createLogger('prices'),
  });
  if (!rates.kinds.length) {
    log.warn('EXCHANGE_RATES_URL is set but neither EXCHANGE_RATES_COIN_ID nor EXCHANGE_RATES_PLATFORM (with EXCHANGE_RATES_TOKENS_MAX > 0): no price is asked');
    return;
  }
  rates.start();
  life.add({ name: 'price fetcher', stop: () => rates.stop() });
}

/** Delivers due watchlist notifications (webhooks, e-mail); several may run at once. */
export function startNotifierRole(cfg: Config, stores: Stores, life: Lifecycle): Notifier {
  const notifier = new Notifier({
    pg: stores.pg,
    coin: cfg.coin,
    maxAttempts: cfg.notifyMaxAttempts,
    webhook: { allowHttp: cfg.webhookAllowHttp, allowPrivate: cfg.webhookAllowPrivate },
    smtp: cfg.smtpUrl ? { url: cfg.smtpUrl, from: cfg.smtpFrom } : undefined,
  });
  notifier.start();
  life.add({ name: 'notifier', stop: () => notifier.stop() });
  const n = notifier.stats;
  metrics.counter('explorer_notifications_sent_total', 'Watchlist notifications delivered since this process started.', () => n.sent);
  metrics.counter('explorer_notifications_retried_total', 'Notification attempts that failed and were rescheduled.', () => n.retried);
  metrics.counter('explorer_notifications_failed_total', 'Notifications given up after their last attempt.', () => n.failed);
  metrics.gauge('explorer_notifications_pending', 'Notifications waiting to be delivered (all notifiers).', () => pendingNotifications(stores.pg));
  if (!cfg.smtpUrl) log.warn('SMTP_URL is not set: e-mail notifications and e-mailed sign-in codes are off');
  return notifier;
}

/**
 * The HTTP API: the public API v2 (following the indexer's and the derived lanes' events when
 * they run in this process), the Account API with the notification settings, and rate limits in front of both.
 */
export async function startApiRole(cfg: Config, stores: Stores, life: Lifecycle, events: EventEmitter[] = [], node?: NodeEndpoint) {
  const policy = { ...DEFAULT_POLICY, allowHttp: cfg.webhookAllowHttp, allowPrivate: cfg.webhookAllowPrivate };
  // One mailer for sign-in codes and notification address confirmations; the Account API closes it.
  const mailer = cfg.smtpUrl ? createMailer({ url: cfg.smtpUrl, from: cfg.smtpFrom }) : undefined;
  const nodeUrl = node?.url ?? cfg.rpcUrl;
  if (!cfg.publicUrl) log.warn('PUBLIC_URL is not set: Sign-In with Ethereum is refused (503) until it is');
  const account = createAccountApp({
    pg: stores.pg,
    mailer,
    publicUrl: cfg.publicUrl,
    // SIWE messages must name the chain: CHAIN_ID, else the node's eth_chainId (asked when first needed).
    chainId: cfg.chainId ?? (nodeUrl ? () => nodeChainId(nodeUrl) : undefined),
    extraRoutes: notificationRoutes(stores.pg, policy, { mailer }),
    publicNames: {
      iconMaxBytes: cfg.publicIconMaxBytes,
      submissionsPerHour: cfg.publicNameSubmissionsPerHour,
      ownerOf: nodeUrl ? nodeOwnerOf(nodeUrl) : undefined,
    },
  });
  await account.ready();
  life.add({ name: 'Account API', stop: () => account.close() });
  // Verification matches against the node: offered when there is one and its chain id is known.
  let verifyChainId: number | undefined = cfg.chainId;
  if (nodeUrl && verifyChainId === undefined) {
    verifyChainId = await nodeChainId(nodeUrl).catch((e) => {
      log.warn('the node did not say its chain id: contract verification is off', { error: e instanceof Error ? e.message : String(e) });
      return undefined;
    });
  }
  // Without the indexer in this process (split roles), its events arrive through PostgreSQL.
  let sources = events;
  if (!events.length) {
    const listener = await subscribeEvents(stores.pg, createLogger('events'));
    life.add({ name: 'event listener', stop: () => listener.close() });
    sources = [listener];
  }
  // Contract read methods ask the node on demand: a short timeout, no long retry chains.
  const apiRpc = nodeUrl ? { url: nodeUrl, timeoutMs: 5000, maxRetries: 1 } : undefined;
  const api = await startApi({
    ch: stores.ch,
    pg: stores.pg,
    host: cfg.host,
    port: cfg.apiPort,
    cacheMaxMb: cfg.cacheMaxMb,
    tokenSearchMemoryMax: cfg.tokenSearchMemoryMax,
    readyMaxLagBlocks: cfg.readyMaxLagBlocks,
    signatureLookup: cfg.signatureLookupUrl ? { url: cfg.signatureLookupUrl, format: cfg.signatureLookupFormat } : undefined,
    beaconNode: cfg.beaconNodeUrl ? { url: cfg.beaconNodeUrl } : undefined,
    // Answers show the prices the indexer process's fetcher stored; one not renewed for a day (or
    // three periods, if longer) is no longer shown as current.
    exchangeRates: cfg.exchangeRatesUrl
      ? { staleMs: Math.max(24 * 3600_000, 3000 * Math.max(cfg.exchangeRatesPeriodS, cfg.exchangeRatesTokensPeriodS)) }
      : undefined,
    log: createLogger('api'),
    events: sources,
    observe: (route, status, seconds) => metrics.observeRequest(route, status, seconds),
    account,
    publicUrl: cfg.publicUrl,
    rateLimits: { anonymous: cfg.rateLimitAnon, key: cfg.rateLimitKey },
    maxRequestsPerClient: cfg.maxRequestsPerClient,
    rpc: apiRpc && createRpcClient(apiRpc),
    threads: { count: cfg.apiThreads, rpc: apiRpc },
    trustedProxies: cfg.trustedProxies,
    verify:
      nodeUrl && verifyChainId !== undefined
        ? {
            solcCacheDir: cfg.solcCacheDir!,
            solcListUrl: cfg.solcListUrl,
            nodeUrl,
            chainId: verifyChainId,
            maxInputBytes: cfg.verifyMaxInputMb * 1024 * 1024,
            timeoutMs: cfg.verifyTimeoutS * 1000,
          }
        : undefined,
  });
  life.add({ name: 'API server', stop: () => api.close() });
  const cache = api.app.cache;
  if (cache) {
    metrics.counter('explorer_api_cache_hits_total', 'API answers served from the response cache.', () => cache.stats.hits + cache.stats.shared);
    metrics.counter('explorer_api_cache_misses_total', 'API answers computed (not in the response cache).', () => cache.stats.misses);
  }
  metrics.gauge('explorer_websocket_connections', 'Open /socket/v2 websockets.', () => api.sockets().open);
  // Other API processes learn of this one's verifications (their caches name and decode with them).
  const verification = api.app.ctx.verification?.service;
  if (verification) life.add({ name: 'verification events', stop: publishEvents(stores.pg, [verification], createLogger('events')) });
  // The chain id goes with it: a web UI in this process shows it to the wallet forms.
  return Object.assign(api, { chainId: verifyChainId });
}

/** The node's chain id (eth_chainId). */
async function nodeChainId(url: string): Promise<number> {
  const hex = await createRpcClient({ url, timeoutMs: 5000, maxRetries: 1 }).request<string>('eth_chainId');
  return Number(BigInt(hex));
}

/**
 * A contract's owner() (Ownable, selector 0x8da5cb5b) at the node's head, for reviewers of a
 * public-name submission signed by it; null when the contract has none or the node does not say.
 */
export function nodeOwnerOf(url: string): (address: string) => Promise<string | null> {
  const rpc = createRpcClient({ url, timeoutMs: 5000, maxRetries: 1 });
  return async (address) => {
    const out = await rpc.request<string>('eth_call', [{ to: address, data: '0x8da5cb5b' }, 'latest']).catch(() => null);
    return typeof out === 'string' && /^0x[0-9a-fA-F]{64}$/.test(out) ? `0x${out.slice(26).toLowerCase()}` : null;
  };
}

/** URLs in logs without their passwords. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The web UI on UI_PORT. With `inProcess` (explorer start) it hands its API requests to the API
 * of this process and follows the chain's events; on its own it reads API_URL over HTTP and
 * follows new blocks on the API's websocket (pages kept a couple of seconds while it is down).
 */
export async function startUiRole(
  cfg: Config,
  life: Lifecycle,
  inProcess?: { handle(req: ApiRequest): Promise<ApiReply>; gateway(req: ApiRequest): Promise<ApiReply>; events: EventEmitter[]; apiPort: number; chainId?: number },
) {
  const uiLog = createLogger('ui');
  const apiUrl = cfg.apiUrl ?? `http://127.0.0.1:${cfg.apiPort}`;
  const api = inProcess ? inProcessClient(inProcess.handle, inProcess.gateway) : httpClient(apiUrl);
  const ui = createUi({
    api,
    coin: cfg.coin,
    // A UI of its own knows the chain only from CHAIN_ID: it reads chain data from the API, never the node.
    chainId: cfg.chainId ?? inProcess?.chainId,
    socket: cfg.uiSocketUrl ?? `:${inProcess?.apiPort ?? cfg.apiPort}`,
    log: uiLog,
    ratePerSecond: cfg.rateLimitAnon,
    trustedProxies: cfg.trustedProxies,
    publicUrl: cfg.publicUrl,
  });
  let detach: () => void;
  let following: ApiSocketFollower | undefined;
  if (inProcess) detach = ui.attach(...inProcess.events);
  else {
    const socket = (following = followApiSocket(apiUrl, uiLog));
    const unfollow = ui.follow(socket);
    detach = () => {
      unfollow();
      socket.close();
    };
  }
  const server = await startServer({ front: ui.front, host: cfg.host, port: cfg.uiPort, log: uiLog, maxRequestsPerClient: cfg.maxRequestsPerClient });
  life.add({
    name: 'web UI',
    stop: async () => {
      detach();
      await server.close();
    },
  });
  uiLog.info('web UI listening', { host: cfg.host, port: server.port, api: inProcess ? 'in process' : apiUrl });
  // What it follows on the API's websocket when on its own (tests watch it).
  return Object.assign(server, { following });
}
