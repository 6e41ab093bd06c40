// The metrics server: figures read at scrape time (counters and gauges of the parts' own stats,
// an unknown gauge NaN), API latency by route and status, /metrics only, Prometheus's format; and
// the indexer role's own on a devnet: node calls by JSON-RPC method (its ingest workers' included)
// and failed calls by method and kind, the derived lanes' backlog in blocks and queued items.
import t from 'tap';
import { createMetrics, serveMetrics } from '../../../src/metrics/metrics.js';
import { createLogger } from '../../../src/log.js';
import { withDevnet } from '../../helpers/devnet.js';
import { embeddedStores } from '../../helpers/stores.js';
import { tmpDir } from '../../helpers/tmp.js';
import { minedIn, rpc } from '../../helpers/rpc.js';
import { loadConfig } from '../../../src/config/settings.js';
import { Lifecycle } from '../../../src/bin/lifecycle.js';
import { startMetrics } from '../../../src/bin/roles.js';
import { startIndexerRole } from '../../../src/bin/role-indexer.js';
import { freePort } from '../../../src/net/local.js';

t.test('scraped figures', async (t) => {
  const m = createMetrics();
  const stats = { blocks: 3, head: null as number | null };
  m.counter('explorer_test_blocks_total', 'Blocks.', () => stats.blocks);
  m.counter('explorer_test_blocks_total', 'A second registration keeps the first.', () => 999);
  m.gauge('explorer_test_head', 'Head.', () => stats.head);
  m.gauge('explorer_test_async', 'Read asynchronously.', async () => 7);
  m.observeRequest('/api/v2/blocks', 200, 0.004);
  m.observeRequest('/api/v2/blocks', 200, 0.2);
  m.observeRequest('/api/v2/blocks/:block_hash_or_number_param', 404, 0.001);
  const server = await serveMetrics(m, '127.0.0.1', 0, createLogger('metrics-test'));
  t.teardown(() => server.close());
  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  let text = await scrape();
  t.match(text, /^explorer_test_blocks_total 3$/m, 'a counter read from the stats');
  t.match(text, /^explorer_test_head nan$/im, 'a gauge not known now is NaN, never a made-up 0');
  t.match(text, /^explorer_test_async 7$/m);
  t.match(text, /^explorer_api_request_duration_seconds_count\{route="\/api\/v2\/blocks",status="200"\} 2$/m, 'latency by route and status');
  t.match(text, /^explorer_api_request_duration_seconds_bucket\{le="0\.005",route="\/api\/v2\/blocks",status="200"\} 1$/m);
  t.match(text, /^explorer_process_resident_memory_bytes \d+/m, "the process's own figures");
  stats.blocks = 5;
  stats.head = 42;
  text = await scrape();
  t.match(text, /^explorer_test_blocks_total 5$/m, 'read again at each scrape');
  t.match(text, /^explorer_test_head 42$/m);
  t.equal((await fetch(`http://127.0.0.1:${server.port}/other`)).status, 404, 'nothing else is served');
});

t.test('the indexer role on a devnet: node calls by method, lane backlog', async (t) => {
  const devnet = await withDevnet(t);
  const stores = await embeddedStores(t);
  const port = await freePort();
  const cfg = loadConfig({ DATA_DIR: tmpDir(t), HOST: '127.0.0.1', METRICS_PORT: String(port), INDEXER_WORKERS: '1', INDEXER_BATCH_BLOCKS: '8', LOG_LEVEL: 'warn' });
  const life = new Lifecycle();
  t.teardown(() => life.stopAll('test over'));
  await startMetrics(cfg, life);
  const { indexer, derived } = await startIndexerRole(cfg, stores, { url: devnet.url, variant: 'anvil' }, life);
  const head = Number(await rpc<string>(devnet.url, 'eth_blockNumber'));
  await indexer.waitFor(head, 120_000);
  await derived.settle(120_000);
  // A call the node cannot answer (method not found): a failure of kind rpc, counted once.
  await indexer.rpc.request('explorer_noSuchMethod').catch(() => undefined);

  const scrape = async () => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const series = new Map<string, number>();
    for (const line of text.split('\n')) {
      const m = /^(explorer_[a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
      if (m) series.set(m[1]!, Number(m[2]));
    }
    return series;
  };
  // The workers post their figures when a task ends: the last range's may still be on its way.
  let s = await scrape();
  for (let i = 0; i < 100 && (s.get('explorer_rpc_method_calls_total{method="eth_getBlockReceipts"}') ?? 0) < head + 1; i++) {
    await new Promise((r) => setTimeout(r, 50));
    s = await scrape();
  }
  const byMethod = [...s].filter(([k]) => k.startsWith('explorer_rpc_method_calls_total{'));
  t.ok((s.get('explorer_rpc_method_calls_total{method="eth_getBlockReceipts"}') ?? 0) >= head + 1, `block receipts asked for each of the ${head + 1} blocks, by the ingest workers`);
  t.ok((s.get('explorer_rpc_method_calls_total{method="eth_blockNumber"}') ?? 0) >= 1, "the head asked by the indexer's own client");
  t.ok(byMethod.length >= 3, `calls of ${byMethod.length} methods`);
  // One reading (the indexer keeps asking for the head between two scrapes' metrics).
  const calls = indexer.nodeCalls();
  t.equal(Object.values(calls.methods).reduce((a, m) => a + m.calls, 0), calls.calls, 'the calls by method add up to the calls in all');
  t.ok(s.get('explorer_rpc_calls_total')! > s.get('explorer_rpc_http_requests_total')!, 'more calls than HTTP requests: batches');
  t.equal(s.get('explorer_rpc_method_errors_total{method="explorer_noSuchMethod",kind="rpc"}'), 1, 'a failed call by method and kind');
  t.equal(s.get('explorer_rpc_method_calls_total{method="explorer_noSuchMethod"}'), 1, 'not retried: a method the node lacks');
  t.equal(s.get('explorer_derived_lane_backlog_blocks{lane="accounting"}'), 0, 'the accounting lane is at the checkpoint');
  const queues = [...s].filter(([k]) => k.startsWith('explorer_derived_lane_queued_items{')).map(([k, v]) => [/lane="([a-z]+)"/.exec(k)![1], v]);
  t.same(queues.map(([l]) => l).sort(), ['checks', 'code', 'coin', 'nft', 'supply', 'tokens'], 'every queue lane has its figure');
  t.ok(queues.every(([, v]) => v === 0), 'settled: nothing queued');

  // The lanes stopped, three more blocks indexed: the accounting lane is three behind.
  await derived.stop();
  const from = devnet.scenario.accounts[0]!;
  for (let i = 0; i < 3; i++) {
    const hash = await rpc<string>(devnet.url, 'eth_sendTransaction', [{ from, to: '0x00000000000000000000000000000000000000aa', value: '0x1' }]);
    await minedIn(devnet.url, hash);
  }
  await indexer.waitFor(head + 3, 60_000);
  s = await scrape();
  t.equal(s.get('explorer_derived_lane_backlog_blocks{lane="accounting"}'), 3, 'three blocks between the checkpoint and the lane');
});
