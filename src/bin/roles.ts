// The roles a process can run, shared by `explorer start` and the split commands.
import type { Config } from '../config/index.js';
import { createLogger } from '../log.js';
import { migrateAll, openStores, type Stores } from '../storage/index.js';
import { createIndexer } from '../indexer/index.js';
import { createDerived } from '../derived/index.js';
import { startApi } from '../api/index.js';
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
    // Test-only fault injection (see IndexerOptions.crashAfterInsert); not a setting.
    crashAfterInsert: Number(process.env.EXPLORER_TEST_CRASH_AFTER_INSERT) || undefined,
  });
  const derived = createDerived({
    pg: stores.pg,
    ch: stores.ch,
    rpc: indexer.rpc,
    firstBlock: cfg.firstBlock,
    ipfsGateway: cfg.ipfsGateway,
  });
  derived.attach(indexer);
  await indexer.start();
  derived.start();
  life.add({ name: 'indexer', stop: () => indexer.stop() });
  life.add({ name: 'derived data lanes', stop: () => derived.stop() });
  return indexer;
}

/** The public API (and, in this process, the indexer's events to keep its cache fresh). */
export async function startApiRole(cfg: Config, stores: Stores, life: Lifecycle, events?: EventEmitter) {
  const api = await startApi({
    ch: stores.ch,
    pg: stores.pg,
    host: cfg.host,
    port: cfg.apiPort,
    cacheMaxMb: cfg.cacheMaxMb,
    log: createLogger('api'),
    events,
  });
  life.add({ name: 'API server', stop: () => api.close() });
  return api;
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
