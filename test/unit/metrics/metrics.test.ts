// The metrics server: figures read at scrape time (counters and gauges of the parts' own stats,
// an unknown gauge NaN), API latency by route and status, /metrics only, Prometheus's format.
import t from 'tap';
import { createMetrics, serveMetrics } from '../../../src/metrics/metrics.js';
import { createLogger } from '../../../src/log.js';

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
