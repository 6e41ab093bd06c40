// The indexer role: the chain's ingest, the derived-data lanes, watchlist matching and the price fetcher.
import type { Config } from '../config/settings.js';
import { createLogger } from '../log.js';
import type { Stores } from '../storage/stores.js';
import { createIndexer } from '../indexer/indexer.js';
import { createDerived } from '../derived/scheduler.js';
import { ExchangeRates } from '../derived/exchange-rates.js';
import { WatchlistMatcher } from '../notify/watchlist.js';
import { publishEvents } from './event-bridge.js';
import { log, metrics, type NodeEndpoint } from './roles.js';
import type { Lifecycle } from './lifecycle.js';

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
