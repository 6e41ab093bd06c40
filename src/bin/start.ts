// `explorer start`: everything in one process. Opens (or starts embedded) stores, applies
// migrations, starts a devnet with a demo workload when no node is configured, then the roles
// that exist, and on Ctrl-C / SIGTERM stops them all in reverse order.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/index.js';
import { createLogger } from '../log.js';
import { migrateAll, openStores } from '../storage/index.js';

const log = createLogger('start');

export interface Running {
  name: string;
  stop(): Promise<void>;
}

/** Roles that `start` does not run yet, said once at start so nobody is misled. */
const NOT_BUILT = ['indexer', 'API server (:API_PORT)', 'web UI (:UI_PORT)', 'notifier'];

export async function runStart(cfg: Config): Promise<number> {
  const running: Running[] = [];
  let stopping: Promise<void> | undefined;
  let markStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));
  const stopAll = (why: string): Promise<void> =>
    (stopping ??= (async () => {
      log.info('stopping', { reason: why });
      for (const r of running.reverse()) {
        try {
          await r.stop();
          log.info('stopped', { part: r.name });
        } catch (e) {
          log.warn('stop failed', { part: r.name, error: e });
        }
      }
      markStopped();
    })());

  let signalled: string | undefined;
  const onSignal = (sig: string) => {
    if (signalled) {
      log.warn('second signal: exiting now');
      process.exit(130);
    }
    signalled = sig;
    void stopAll(sig);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  try {
    fs.mkdirSync(cfg.dataDir, { recursive: true });
    log.info('data directory', { path: cfg.dataDir });
    const stores = await openStores(cfg);
    running.push({ name: 'stores', stop: () => stores.close() });
    log.info('PostgreSQL ready', { mode: stores.pg.embedded ? 'embedded' : 'server', url: redact(stores.pg.url) });
    log.info('ClickHouse ready', {
      mode: stores.ch.embedded ? 'embedded chDB' : 'server',
      where: stores.ch.embedded ? path.join(cfg.dataDir, 'clickhouse') : redact(cfg.clickhouseUrl ?? ''),
      database: stores.ch.database,
    });
    if (signalled) return await finish();
    const mig = await migrateAll(stores);
    log.info('migrations applied', {
      postgres: mig.postgres.applied.length ? mig.postgres.applied.join(',') : 'up to date',
      clickhouse: mig.clickhouse.applied.length ? mig.clickhouse.applied.join(',') : 'up to date',
    });
    if (signalled) return await finish();

    let rpcUrl = cfg.rpcUrl;
    let variant = cfg.variant;
    if (!rpcUrl) {
      const { startLocalDevnet } = await import('./devnet.js');
      const dev = await startLocalDevnet(cfg.dataDir);
      running.push(...dev.parts);
      rpcUrl = dev.url;
      variant = 'anvil';
    }
    log.info('node', { rpc: redact(rpcUrl), trace: redact(cfg.traceUrl ?? rpcUrl), variant });
    log.warn('not built yet, not started', { parts: NOT_BUILT.join('; ') });
    log.info('running; press Ctrl-C to stop');
  } catch (e) {
    await stopAll('start failed');
    throw e;
  }
  return finish();

  async function finish(): Promise<number> {
    await stopped;
    log.info('all stopped');
    return 0;
  }
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
