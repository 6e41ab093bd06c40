// `explorer start`: everything in one process. Opens (or starts embedded) stores, applies
// migrations, starts a devnet with a demo workload when no node is configured, then the roles
// that exist, and on Ctrl-C / SIGTERM stops them all in reverse order.
import fs from 'node:fs';
import type { Config } from '../config/settings.js';
import { createLogger } from '../log.js';
import { Lifecycle } from './lifecycle.js';
import { openMigratedStores, redact, startMetrics, type NodeEndpoint } from './roles.js';
import { startIndexerRole } from './role-indexer.js';
import { startApiRole } from './role-api.js';
import { startNotifierRole } from './role-notifier.js';
import { startUiRole } from './role-ui.js';

const log = createLogger('start');

/** How long the URLs to open may take to answer before the start says they do not. */
const ANSWER_WAIT_MS = 30_000;

/**
 * Once the web UI and the API answer over HTTP, the URLs to open (a first start otherwise ends
 * its log with `host=0.0.0.0 port=3000`, which is not an address a browser opens).
 */
async function announceUrls(host: string, uiPort: number, apiPort: number): Promise<void> {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const reach = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : shown;
  const ui = `http://${shown}:${uiPort}`;
  const api = `http://${shown}:${apiPort}/api/v2`;
  const answers = async (url: string) => {
    const deadline = Date.now() + ANSWER_WAIT_MS;
    while (Date.now() < deadline) {
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
        await res.arrayBuffer();
        if (res.status < 500) return true;
      } catch {
        // not yet
      }
      await new Promise((r) => setTimeout(r, 250).unref());
    }
    return false;
  };
  const [uiOk, apiOk] = await Promise.all([answers(`http://${reach}:${uiPort}/`), answers(`http://${reach}:${apiPort}/api/health/liveness`)]);
  if (uiOk && apiOk) log.info(`open ${ui} in a browser`, { web_ui: ui, api, account_api: `http://${shown}:${apiPort}/account/api/v1` });
  else log.warn('the explorer does not answer over HTTP yet', { web_ui: uiOk ? ui : `${ui} (no answer)`, api: apiOk ? api : `${api} (no answer)` });
}

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
    const ui = await startUiRole(cfg, life, { handle: api.app.handle, gateway: api.handle, events: [indexer, derived, ...(verification ? [verification] : [])], apiPort: api.port, chainId: api.chainId });
    startNotifierRole(cfg, stores, life);
    await startMetrics(cfg, life);
    log.info('running; press Ctrl-C to stop');
    void announceUrls(cfg.host, ui.port, api.port);
  } catch (e) {
    await life.stopAll('start failed');
    throw e;
  }
  return life.untilStopped();
}
