// The local devnet of `explorer start` when no node is configured: anvil on a free loopback port
// with its state kept under DATA_DIR/anvil (so a second start continues the same chain), the
// demo scenario on a fresh chain, then a small periodic workload.
import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '../log.js';
import { runScenario, startAnvil, startDemoWorkload } from '../devnet/devnet.js';
import type { Running } from './lifecycle.js';

const log = createLogger('devnet');

export async function startLocalDevnet(dataDir: string): Promise<{ url: string; parts: Running[] }> {
  const dir = path.join(dataDir, 'anvil');
  fs.mkdirSync(dir, { recursive: true });
  const anvil = await startAnvil({ extraArgs: ['--state', path.join(dir, 'state.json')] });
  const parts: Running[] = [{ name: 'anvil devnet', stop: () => anvil.stop() }];
  try {
    log.info('anvil devnet listening', { rpc: anvil.url, state: path.join(dir, 'state.json') });
    const head = await blockNumber(anvil.url);
    if (head === 0) {
      log.info('fresh devnet: running the demo scenario');
      const r = await runScenario(anvil.url);
      log.info('demo scenario done', { txs: r.txs.length, blocks: `${r.fromBlock}-${r.toBlock}` });
    } else {
      log.info('devnet state restored', { head });
    }
    const demo = startDemoWorkload(anvil.url);
    parts.push({ name: 'demo workload', stop: () => demo.stop() });
    return { url: anvil.url, parts };
  } catch (e) {
    for (const p of parts.reverse()) await p.stop().catch(() => undefined);
    throw e;
  }
}

async function blockNumber(url: string): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  const body = (await res.json()) as { result?: string };
  return Number(body.result ?? 0);
}
