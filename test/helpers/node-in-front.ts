// A node in front of anvil, for tests of what the explorer does when the node refuses things (old
// state, whole methods): chosen methods relayed to anvil as they are, the others the test's own
// (refusals, handlers); and the indexer with its derived lanes indexing through it, with a logger
// that records their warnings (for "said once").
import type { Test } from 'tap';
import { startReplayRpc, type ReplayServer } from './replay-rpc.js';
import { embeddedStores } from './stores.js';
import { rpc } from './rpc.js';
import { createIndexer, type Indexer } from '../../src/indexer/indexer.js';
import { createDerived, type Derived, type DerivedOptions } from '../../src/derived/scheduler.js';
import { createLogger, type Logger } from '../../src/log.js';

/** What an indexing node answers besides state reads; each test adds or refuses the rest. */
export const FORWARDED = [
  'eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockReceipts', 'eth_getTransactionReceipt', 'trace_block',
  'debug_traceBlockByNumber', 'txpool_content',
];

/** A JSON-RPC call relayed as is: the result, or the node's error object. */
export async function relay(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  return body.error ? { error: body.error as { code: number; message: string } } : { result: body.result };
}

/** A logger (`name`:test) that also pushes each warning's message to `lines` (and each error's to `errors`, if given). */
export function recordingLogger(name: string, lines: string[], errors?: string[]): Logger {
  const make = (l: Logger): Logger => ({
    debug: l.debug,
    info: l.info,
    error: (m, f) => {
      errors?.push(m);
      l.error(m, f);
    },
    warn: (m, f) => {
      lines.push(m);
      l.warn(m, f);
    },
    child: (s) => make(l.child(s)),
  });
  return make(createLogger(name).child('test'));
}

/** A replay node on a free port relaying `methods` to `upstream`, closed when `t` ends. */
export async function nodeInFront(t: Test, upstream: string, methods: readonly string[]): Promise<ReplayServer> {
  const node = await startReplayRpc();
  t.teardown(() => node.close());
  for (const m of methods) node.handle(m, (params) => relay(upstream, m, params));
  return node;
}

export interface IndexedThrough {
  stores: Awaited<ReturnType<typeof embeddedStores>>;
  indexer: Indexer;
  derived: Derived;
  /** Stops the derived lanes and starts a new run of them on the same stores (a restart); its warnings go to `lines`. */
  restartDerived(lines: string[]): Promise<Derived>;
}

/**
 * Indexes `upstream`'s chain through `node` from `firstBlock`, with the derived lanes (their
 * warnings pushed to `warnings`), until the head is stored and the lanes settled.
 */
export async function indexThrough(
  t: Test,
  node: ReplayServer,
  upstream: string,
  opts: { firstBlock?: number; warnings: string[]; derived?: Partial<DerivedOptions> },
): Promise<IndexedThrough> {
  const stores = await embeddedStores(t);
  const firstBlock = opts.firstBlock ?? 0;
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: node.url, variant: 'anvil' }, firstBlock, batchBlocks: 8, workers: 1, pollMs: 100, pending: false, log: createLogger('indexer').child('test') });
  const startDerived = (lines: string[]) => {
    const d = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, firstBlock, pollMs: 50, nftTimeoutMs: 500, nftMaxAttempts: 1, allowPrivateMetadataHosts: true, ...opts.derived, log: recordingLogger('derived', lines) });
    d.attach(indexer);
    d.start();
    return d;
  };
  await indexer.start();
  const out: IndexedThrough = {
    stores,
    indexer,
    derived: startDerived(opts.warnings),
    async restartDerived(lines) {
      await out.derived.stop();
      out.derived = startDerived(lines);
      return out.derived;
    },
  };
  t.teardown(async () => {
    await out.derived.stop();
    await indexer.stop();
  });
  await indexer.waitFor(Number(await rpc<string>(upstream, 'eth_blockNumber')), 120_000);
  await out.derived.settle(120_000);
  return out;
}
