// `make bench-api` run tiny as a child process (a few thousand transactions and tokens, one
// second per scenario): it exits 0 and prints every figure line (the point rows filled, the
// ceilings, the cached endpoint, each uncached scenario at each concurrency with its point reads
// counted, the ratios and the targets, issue #30's read targets marked not measured when not run
// at their 8 connections). Behaviour only: no timing is asserted. Also the pieces alone: the generated chain's rows are consistent
// (what the API reads agrees with what was generated), the load generator counts what a server
// answers, and the query mix is deterministic.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runBenchScript } from './helpers/bench-child.js';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generateApiChain, searchQueries, tokenCatalogue } from '../bench/api-chain.js';
import { runLoad } from '../bench/api-load.js';
import { TABLE_NAMES, type TableName } from '../src/chain/clickhouse-rows.js';
import { decodeTableBytes } from '../src/chain/clickhouse-encode.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BENCH = path.resolve(here, '../bench/api.js');

t.test('the generated chain: consistent rows, deterministic', async (t) => {
  const tables: Partial<Record<TableName, unknown[][]>> = {};
  const chain = await generateApiChain({ txs: 1000, txsPerBlock: 100, seed: 5 }, async (chunk) => {
    for (const name of TABLE_NAMES) (tables[name] ??= []).push(...decodeTableBytes(name, chunk[name]));
  }, 3);
  const lines = (name: TableName) => tables[name] ?? [];
  t.equal(chain.txs, 1000);
  t.equal(chain.blocks, 10);
  t.equal(lines('transactions').length, 1000, 'one row per transaction');
  t.equal(lines('blocks').length, 10);
  t.equal(lines('hash_index').length, 1010, 'every transaction and block hash indexed');
  t.equal(lines('withdrawals').length, 160);
  t.equal(new Set(lines('transactions').map((r) => r[2])).size, 1000, 'unique hashes');
  const top = lines('internal_transactions').filter((r) => r[2] === 0);
  t.equal(top.length, 1000, 'a top-level frame per transaction');
  t.equal(lines('logs').length, lines('address_logs').length, 'every log indexed by address');
  t.equal(lines('token_transfers').length, lines('token_transfers_by_token').length);
  const busyRows = lines('address_transactions').filter((r) => r[0] === chain.busy).length;
  t.equal(busyRows, chain.busyTxs, 'the busy address count');
  t.ok(chain.busyTxs > 50, `busy address: ${chain.busyTxs} of 1000`);
  for (const name of TABLE_NAMES) t.equal(chain.rows[name], lines(name).length, `${name}: counted rows`);
  const again = await generateApiChain({ txs: 1000, txsPerBlock: 100, seed: 5 }, async () => undefined, 3);
  t.equal(again.busy, chain.busy, 'deterministic');
  t.same(again.sampleTxs, chain.sampleTxs);

  const cat = tokenCatalogue(500, chain.tokens, 3);
  t.equal(cat.length, 500);
  t.same(cat.slice(0, chain.tokens.length).map((x) => x.address), chain.tokens, "the chain's tokens first");
  t.ok(cat.every((x) => x.holders >= 0 && (x.name === null || /^[A-Z]/.test(x.name))));
  t.same(searchQueries(cat, 50, 1), searchQueries(cat, 50, 1), 'queries deterministic');
});

t.test('the load generator counts what a server answers', async (t) => {
  let n = 0;
  const server = http.createServer((req, res) => {
    n++;
    if (req.url === '/chunked') {
      res.write('{"a":');
      res.end('1}');
      return;
    }
    res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'content-length': '2' });
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const res = await runLoad({ host: '127.0.0.1', port, paths: ['/a', '/missing', '/chunked'], connections: 3, warmupMs: 100, durationMs: 400 });
  t.ok(res.requests > 10, `${res.requests} requests`);
  t.equal(res.errors, 0);
  t.ok(res.statuses['200']! > 0 && res.statuses['404']! > 0, `statuses ${JSON.stringify(res.statuses)}`);
  t.ok(res.p50ms > 0 && res.p99ms >= res.p50ms, 'percentiles');
  t.ok(n >= res.requests, 'the server saw at least the counted requests');
});

t.test('make bench-api, tiny: exits 0 and prints the figures', async (t) => {
  const { code, stdout, stderr } = await runBenchScript(BENCH, {
    BENCH_API_TXS: '3000',
    BENCH_API_TOKENS: '2000',
    BENCH_API_SECONDS: '1',
    BENCH_API_WARMUP: '0',
    BENCH_API_CONNECTIONS: '4',
    BENCH_API_UNCACHED_CONNECTIONS: '1,2',
    BENCH_API_FOLLOW_BLOCKS: '6',
    BENCH_API_FOLLOW_EVERY_MS: '1500',
    BENCH_API_LIMITER_SECONDS: '2',
    BENCH_API_FOLLOW_REPEATS: '2',
  });
  t.equal(code, 0, `exit code 0${code === 0 ? '' : `; stderr: ${stderr.slice(-2000)}`}`);
  const fig = String.raw`[\d,]+ req/s, p50 [\d.]+ ms, p99 [\d.]+ ms`;
  for (const re of [
    /^date: \d{4}-\d\d-\d\dT/m,
    /^machine: .+, \d+ cores, [\d.]+ GiB RAM, .+, node v\d+/m,
    /^load average before: [\d.]+ [\d.]+ [\d.]+$/m,
    /^chain: [\d,]+ blocks, 3,000 txs/m,
    /^point rows: 3,000 transactions and [\d,]+ blocks filled from ClickHouse by PointBackfill .* rows\/s, then VACUUM ANALYZE .*; fact point_rows_backfill done$/m,
    /^tokens: 2,000 in PostgreSQL/m,
    new RegExp(`^bare uWS ceiling: ${fig}`, 'm'),
    new RegExp(`^cached GET /api/v2/main-page/blocks: ${fig}`, 'm'),
    new RegExp(`^uncached address transactions page: ${fig} .*1 connection;`, 'm'),
    new RegExp(`^uncached address transactions page: ${fig} .*2 connections;`, 'm'),
    new RegExp(`^uncached block: ${fig}`, 'm'),
    new RegExp(`^uncached transaction: ${fig}`, 'm'),
    new RegExp(`^uncached address: ${fig}`, 'm'),
    new RegExp(`^uncached deep page: ${fig}`, 'm'),
    new RegExp(`^uncached /search/quick: ${fig}`, 'm'),
    // The point reads go to the pool itself (prepared statements): counted too.
    /^uncached transaction: one request alone: [\d.]+ ms, \d+ store queries \(ClickHouse \d+, PostgreSQL [1-9]\d*;/m,
    /^uncached block: one request alone: [\d.]+ ms, \d+ store queries \(ClickHouse \d+, PostgreSQL [1-9]\d*;/m,
    /^point store alone: [\d,]+ req\/s, p50 [\d.]+ ms, p99 [\d.]+ ms .*2 PostgreSQL clients in one process/m,
    /^uncached \/ the point store's lookup rate at 2 connections: .*transaction [\d.]+% \([\d,]+ req\/s\).* of [\d,]+ req\/s$/m,
    /^cached \/ ceiling: [\d.]+ \(/m,
    new RegExp(`^cached GET /api/v2/main-page/blocks through the rate limiter: ${fig}`, 'm'),
    // The limiter's cost in alternating slices, and the same endpoint against itself (the method's noise).
    /^rate limiter cost on the cached endpoint: -?[\d.]+% \([\d,]+ vs [\d,]+ req\/s, p99 [\d.]+ vs [\d.]+ ms; 2 s in alternating 250 ms slices, 4 connections each\); the cached endpoint against itself the same way: -?[\d.]+% \([\d,]+ vs [\d,]+ req\/s, p99 [\d.]+ vs [\d.]+ ms\); target < 5%: (MET|NOT MET)$/m,
    /^targets: cached >= 0.5 x ceiling: (MET|NOT MET) .*\/search\/quick p99 < 20 ms: /m,
    /^json: \{.*"scenarios":\[/m,
    // The reads again while the indexer follows the replay node's head (issue #30), beside the idle figures.
    /^reads while indexing: the indexer follows a replay node \(pid \d+\) that shows one more block .* after block [\d,]+ .* one block a 1\.5 s window/m,
    new RegExp(`^uncached transaction beside the indexer, no new block: ${fig}`, 'm'),
    // Two blocks a scenario, each window with a block between two without (shared).
    new RegExp(`^uncached transaction while indexing \\(block 1 of 2\\): ${fig}`, 'm'),
    new RegExp(`^uncached transaction beside the indexer, no new block again \\(block 1 of 2\\): ${fig}`, 'm'),
    new RegExp(`^uncached transaction while indexing \\(block 2 of 2\\): ${fig}`, 'm'),
    new RegExp(`^uncached transaction beside the indexer, no new block again \\(block 2 of 2\\): ${fig}`, 'm'),
    new RegExp(`^uncached address transactions page while indexing \\(block 2 of 2\\): ${fig}`, 'm'),
    // Where in a block's window its requests fell: while it was committed, while the lane applied it, after.
    /^  by completion time: (.*; )?shown to committed \([\d.]+ s\): [\d,]+ req\/s, p50 [\d.]+ ms, p99 [\d.]+ ms, \d+ of the slowest 1%/m,
    /"phases":\{"shownAt":"\d{4}-\d\d-\d\dT[\d:.]+Z","before":\{"requests":\d+/,
    // One block's own CPU with no reads beside it, against the slot's cores.
    /^reads while indexing: a block's own cost with no reads beside it: -?[\d.]+ core-s of the machine, -?[\d.]+% of the [\d.]+ s slot's \d+ cores \(a slot with the block: [\d.]+ core-s, .*; the slot before, with none: [\d.]+ core-s, .*\)$/m,
    /"blockOwnCost":\{"coreS":-?[\d.e-]+,"share":-?[\d.e-]+\}/,
    // The windows with no block held against their own neighbours (one per scenario with two blocks).
    /^reads while indexing, windows with no block against the no-block windows around them \(the machine's own movement\): rate ratios ([\d.]+(, )?){6}; p99 ratios ([\d.]+(, )?){6}; beyond 20%: \d of 6 on the rate, \d of 6 on the p99 \(the windows with a block: \d+ of 12 on the rate, \d+ of 12 on the p99\)$/m,
    /^reads while indexing: 14 blocks \([\d,]+ txs\) committed \(the first, the one measured alone, and one in each while-indexing window, 2 a scenario\), ([\d,]+\/[\d,]+(, )?){12} ms from shown to committed\/applied; indexer at [\d,]+, node head [\d,]+, accounting lane at [\d,]+$/m,
    /^target api: uncached transaction while indexing: req\/s at 2 connections: [\d,]+ req\/s >= [\d,]+ req\/s \(block [12], the median of 2 blocks' ratios \([\d.]+, [\d.]+\); within 20% of [\d,]+ req\/s, the mean of the windows just before and after with no new block \([\d,]+, [\d,]+\); step 4's idle window [\d,]+ req\/s/m,
    /^target api: uncached transaction while indexing: p99 at 2 connections: [\d.]+ ms < [\d.]+ ms \(block [12], the median of 2 blocks' ratios \([\d.]+, [\d.]+\); within 20% of [\d.]+ ms, the mean of the windows just before and after/m,
    // Issue #30's read targets are at 8 connections: run at 1 and 2 they are not measured, and say why.
    /^target api: uncached transaction: p99 at 8 connections: n\/a ms < 20\.0 ms .*: NOT MEASURED \[not run at 8 connections/m,
    /^target api: uncached transaction: req\/s at 8 connections: n\/a req\/s >= 2,000 req\/s .*: NOT MEASURED/m,
    /^target api: uncached block: req\/s at 8 connections: n\/a req\/s >= 2,000 req\/s .*: NOT MEASURED/m,
    /^target api: uncached address: p99 at 8 connections: n\/a ms < 20\.0 ms .*: NOT MEASURED/m,
    /^target api: uncached address transactions page: req\/s at 8 connections: n\/a req\/s >= 1,000 req\/s .*: NOT MEASURED/m,
    /^target api: uncached address transactions page: p99 at 8 connections: n\/a ms < 30\.0 ms .*: NOT MEASURED/m,
    /^target api: uncached deep page: req\/s at 8 connections: n\/a req\/s >= 500 req\/s .*: NOT MEASURED/m,
    /^target api: \/search\/quick p99 at 2 connections: [\d.,]+ ms < 20\.0 ms .*: (MET|NOT MET)$/m,
  ]) {
    t.match(stdout, re, `prints ${re.source.slice(0, 60)}`);
  }
  // A refused or failed request is reported as "<count> x <status>"; the count is what tells it
  // from a latency such as "max 451.20 ms" (which a bare /x 4\d\d/ matched on a slow machine).
  const errorLines = (stdout + stderr).split('\n').filter((l) => /\b\d+ x [45]\d\d\b/.test(l));
  t.same(errorLines, [], 'no error statuses reported');
});
