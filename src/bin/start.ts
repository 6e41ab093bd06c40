// `explorer start`: everything in one process. Opens (or starts embedded) stores, applies
// migrations, starts a devnet with a demo workload when no node is configured, then the roles
// that exist, and on Ctrl-C / SIGTERM stops them all in reverse order.
import fs from 'node:fs';
import type { Config } from '../config/settings.js';
import { createLogger } from '../log.js';
import { Lifecycle } from './lifecycle.js';
import { openMigratedStores, redact, startApiRole, startIndexerRole, startMetrics, startNotifierRole, startUiRole, type NodeEndpoint } from './roles.js';

const log = createLogger('start');

export async function runStart(cfg: Config): Promise<number> {
  const life = new Lifecycle();
  try {
    fs.mkdirSync(cfg.dataDir, { recursive: true });
    log.info('data directory', { path: cfg.dataDir });
    const stores = await openMigratedStores(cfg, life);
    if (life.signalled) return await life.untilStopped();

    let node: NodeEndpoint;
    if (cfg.rpcUrl) {
      node = { url: cfg.rpcUrl, traceUrl: cfg.traceUrl, variant: cfg.variant };
    } else {
      const { startLocalDevnet } = await import('./devnet.js');
      const dev = await startLocalDevnet(cfg.dataDir);
      // A local trial on its own devnet: SIWE may bind to the local web UI's origin when PUBLIC_URL is unset.
      if (!cfg.publicUrl) {
        cfg = { ...cfg, publicUrl: `http://localhost:${cfg.uiPort}` };
        log.info('PUBLIC_URL is not set: Sign-In with Ethereum binds to the local origin on this devnet', { origin: cfg.publicUrl });
      }
      life.add(...dev.parts);
      node = { url: dev.url, variant: 'anvil' };
    }
    log.info('node', { rpc: redact(node.url), trace: redact(node.traceUrl ?? node.url), variant: node.variant });
    if (life.signalled) return await life.untilStopped();
    const { indexer, derived } = await startIndexerRole(cfg, stores, node, life);
    const api = await startApiRole(cfg, stores, life, [indexer, derived], node);
    const verification = api.app.ctx.verification?.service;
    await startUiRole(cfg, life, { handle: api.app.handle, gateway: api.handle, events: [indexer, derived, ...(verification ? [verification] : [])], apiPort: api.port, chainId: api.chainId });
    startNotifierRole(cfg, stores, life);
    await startMetrics(cfg, life);
    log.info('running; press Ctrl-C to stop');
  } catch (e) {
    await life.stopAll('start failed');
    throw e;
  }
  return life.untilStopped();
}
