// What every role of a process shares: the stores opened and migrated, the metrics registry, the node's
// small answers. Each role lives in its own file (role-*.ts), loaded only by a process that runs it:
// `explorer api` loads no indexer code, and `explorer migrate` or `--help` none of the roles.
import type { Config } from '../config/settings.js';
import { createLogger } from '../log.js';
import { migrateAll, openStores, type Stores } from '../storage/stores.js';
import { createRpcClient, type RpcVariant } from '../rpc/client.js';
import { createMetrics, serveMetrics } from '../metrics/metrics.js';
import type { Lifecycle } from './lifecycle.js';

/** This process's metrics: each role registers what it runs; served when METRICS_PORT is set. */
export const metrics = createMetrics();

export const log = createLogger('start');

/** Serves this process's metrics on METRICS_PORT, when set. */
export async function startMetrics(cfg: Config, life: Lifecycle): Promise<void> {
  if (cfg.metricsPort === undefined) return;
  const server = await serveMetrics(metrics, cfg.host, cfg.metricsPort, createLogger('metrics'));
  life.add({ name: 'metrics server', stop: () => server.close() });
}

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

/** The node's chain id (eth_chainId). */
export async function nodeChainId(url: string): Promise<number> {
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

