// The API role: the public API v2 and the Account API on API_PORT (no indexer code is loaded with it).
import type { EventEmitter } from 'node:events';
import type { Config } from '../config/settings.js';
import { createLogger } from '../log.js';
import type { Stores } from '../storage/stores.js';
import { startApi } from '../api/start-api.js';
import { notificationRoutes } from '../notify/routes.js';
import { DEFAULT_POLICY } from '../notify/webhook.js';
import { createAccountApp } from '../account/app.js';
import { createRpcClient } from '../rpc/client.js';
import { createMailer } from '../mail.js';
import { publishEvents, subscribeEvents } from './event-bridge.js';
import { log, metrics, nodeChainId, nodeOwnerOf, type NodeEndpoint } from './roles.js';
import type { Lifecycle } from './lifecycle.js';

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
    tokenSearchStaleMs: cfg.tokenSearchStaleMs,
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
