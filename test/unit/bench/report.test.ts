// The benchmark targets and `make bench`'s report (bench/report.ts, bench/run.ts, bench/node-rate.ts):
// verdicts at and around each bound, the pipeline bound, the ingest targets from runs' figures,
// reading a benchmark's json line, the markdown and JSON written, and node URLs kept secret-free.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  TARGETS,
  againstNeighbours,
  evaluate,
  ingestTargets,
  parseBenchOutput,
  pipelineBound,
  redactUrl,
  renderMarkdown,
  summary,
  targetLine,
  writeReport,
  type Report,
  type Target,
} from '../../../bench/report.js';
import { settingsOf, steps } from '../../../bench/run.js';
import { nodeBound, type MethodRate } from '../../../bench/node-rate.js';

const target = (over: Partial<Target>): Target => ({ area: 'x', name: 'n', unit: 'u', value: 1, bound: 1, kind: 'atLeast', boundIs: 'target', ...over });

t.test('verdicts at, above and below each kind of bound', async (t) => {
  t.equal(evaluate(target({ value: 10, bound: 10, kind: 'atLeast' })).verdict, 'MET', 'atLeast: equal is met');
  t.equal(evaluate(target({ value: 9.99, bound: 10, kind: 'atLeast' })).verdict, 'NOT MET');
  t.equal(evaluate(target({ value: 10, bound: 10, kind: 'atMost' })).verdict, 'MET', 'atMost: equal is met');
  t.equal(evaluate(target({ value: 10.01, bound: 10, kind: 'atMost' })).verdict, 'NOT MET');
  t.equal(evaluate(target({ value: 50, bound: 50, kind: 'below' })).verdict, 'NOT MET', 'below: equal is not met (p99 < 50 ms)');
  t.equal(evaluate(target({ value: 49.9, bound: 50, kind: 'below' })).verdict, 'MET');
  t.equal(evaluate(target({ value: 3, bound: 4 })).ratio, 0.75, 'ratio is value over bound');
  for (const [value, bound] of [[NaN, 1], [1, NaN], [null, 1], [1, null], [Infinity, 1]] as const) {
    const e = evaluate(target({ value, bound }));
    t.equal(e.verdict, 'NOT MEASURED', `value ${value}, bound ${bound}: not measured`);
    t.equal(e.ratio, null);
  }
  t.match(targetLine(evaluate(target({ name: 'rate', value: 2000, bound: 1000, unit: 'req/s', note: 'small chain' }))), /^target x: rate: 2,000 req\/s >= 1,000 req\/s \(target; ratio 2\.00\): MET \[small chain\]$/);
});

t.test('each inner window against the mean of its two neighbours', async (t) => {
  t.same(againstNeighbours([10, 12, 10]), [1.2], 'one inner window, 20% above the two around it');
  t.same(againstNeighbours([8, 9, 12, 6]), [9 / 10, 12 / 7.5], 'each inner one against its own two');
  t.same(againstNeighbours([5, 5]), [], 'no window has two neighbours');
  t.same(againstNeighbours([]), []);
});

t.test('the pipeline bound of stages sharing the cores', async (t) => {
  t.equal(pipelineBound(100, 100), 50, 'equal stages: half of either');
  t.equal(pipelineBound(300, 150), 100, '1/(1/300 + 1/150)');
  t.equal(pipelineBound(300, 300, 300), 100, 'three stages: each costs its share');
  t.ok(Number.isNaN(pipelineBound(300, 150, NaN)), 'the third stage not measured: no bound');
  t.ok(Number.isNaN(pipelineBound(NaN, 100)), 'a stage not measured: no bound');
  t.ok(Number.isNaN(pipelineBound(0, 100)));
  const rate = (blocksPerS: number): MethodRate => ({ method: 'm', blocks: 1, seconds: 1, blocksPerS, bytes: 0, errors: 0 });
  t.equal(nodeBound([rate(10), rate(10)]), 5, "a node's methods one after another");
  t.ok(Number.isNaN(nodeBound([])));
});

t.test('ingest targets from the runs of one invocation', async (t) => {
  const run = { blocks: 301, txsPerS: 18_000, boundTxsPerS: 20_000, storageBytesPerTx: 1_400 };
  const one = ingestTargets([run], { synthetic: true, breakdown: true, variant: 'geth' }).map(evaluate);
  t.same(one.map((e) => e.verdict), ['MET', 'NOT MET', 'MET'], 'over the bound (0.9 >= 0.85), under 20,000 txs/s, storage under 1.5 KB');
  t.equal(one[0]!.bound, TARGETS.ingestOverBound * run.boundTxsPerS, 'the bound is the share of the same run\'s pipeline bound');
  t.equal(one[1]!.bound, TARGETS.ingestTxsPerS);
  t.equal(one[2]!.area, 'storage');
  const slow = ingestTargets([{ ...run, txsPerS: 16_000 }], { synthetic: true, breakdown: true, variant: 'geth' }).map(evaluate);
  t.equal(slow[0]!.verdict, 'NOT MET', '0.8 of the bound is not enough');
  const noParts = ingestTargets([{ ...run, boundTxsPerS: NaN }], { synthetic: true, breakdown: false, variant: 'geth' }).map(evaluate);
  t.equal(noParts[0]!.verdict, 'NOT MEASURED', 'without the breakdown there is no bound');
  t.match(noParts[0]!.note, /BENCH_BREAKDOWN=0/);
  const grown = ingestTargets(
    [run, { ...run, blocks: 1201, txsPerS: 17_000 }, { ...run, blocks: 4801, txsPerS: 15_000, storageBytesPerTx: 1_600 }],
    { synthetic: true, breakdown: true, variant: 'geth' },
  ).map(evaluate);
  const growth = grown.filter((e) => e.name.startsWith('growth'));
  t.same(growth.map((e) => e.verdict), ['MET', 'NOT MET'], 'growth: 17,000 keeps 0.9 x 18,000, 15,000 does not');
  t.equal(grown.filter((e) => e.area === 'storage').length, 1, 'storage once, from the largest run');
  t.equal(grown.find((e) => e.area === 'storage')!.verdict, 'NOT MET');
  t.ok(grown.filter((e) => e.area === 'ingest' && !e.name.startsWith('growth')).every((e) => /\(\d[\d,]* blocks\)$/.test(e.name)), 'each size named');
  const node = ingestTargets([run], { synthetic: false, breakdown: true, variant: 'geth' });
  t.match(node.find((e) => e.area === 'storage')!.note, /operator/, "storage on an operator's chain says so");
});

t.test("a benchmark's json line: the last one, its targets evaluated again", async (t) => {
  const claimed = { ...evaluate(target({ value: 1, bound: 10 })), verdict: 'MET' };
  const stdout = ['noise', 'json: {"targets":[]}', `json: ${JSON.stringify({ a: 1, targets: [claimed, { bogus: true }] })}`, 'load average after: 1'].join('\n');
  const r = parseBenchOutput(stdout);
  t.same((r.json as { a: number }).a, 1);
  t.equal(r.targets.length, 1, 'entries without a name and kind dropped');
  t.equal(r.targets[0]!.verdict, 'NOT MET', 'the verdict is computed from value and bound, not taken as printed');
  t.same(parseBenchOutput('no json here').targets, []);
  t.same(parseBenchOutput('json: {broken').targets, []);
  const nulls = parseBenchOutput(`json: ${JSON.stringify({ targets: [target({ value: NaN })] })}`);
  t.equal(nulls.targets[0]!.verdict, 'NOT MEASURED', 'NaN comes back from JSON as null: not measured');
});

t.test('the report: markdown and JSON, the latest kept beside the dated one', async (t) => {
  const report: Report = {
    date: '2026-11-24T13:00:00.000Z',
    machine: { cpu: 'Test CPU', cores: 2, memGiB: 4, os: 'Linux 6', node: 'v20.0.0' },
    loadBefore: '0.10 0.20 0.30',
    loadAfter: '1.00 1.00 1.00',
    settings: { BENCH_BLOCKS: '30' },
    steps: [
      { name: 'ingest', command: 'node build/bench/ingest.js', exitCode: 0, seconds: 12.3, log: 'bench-output/logs/ingest.log', targets: [evaluate(target({ name: 'a | b', value: 2, bound: 1 }))] },
      { name: 'api', command: 'node build/bench/api.js', exitCode: 1, seconds: 1, log: 'l', targets: [evaluate(target({ value: 0, bound: 1 })), evaluate(target({ value: null }))] },
      { name: 'ingest-derived', command: 'c', exitCode: 0, seconds: 1, log: 'l', targets: [], info: 'txs/s 5' },
    ],
  };
  t.same(summary(report), { MET: 1, 'NOT MET': 1, 'NOT MEASURED': 1 });
  const md = renderMarkdown(report);
  t.match(md, /Machine: Test CPU, 2 cores, 4 GiB RAM, Linux 6, node v20\.0\.0\. Load average before 0\.10 0\.20 0\.30/);
  t.match(md, /Targets: 1 met, 1 not met, 1 not measured\./);
  t.match(md, /Settings: BENCH_BLOCKS=30/);
  t.match(md, /\| ingest \| a \\\| b \| 2\.00 u \| >= 1\.00 u \| target \| 2\.00 \| MET \|/, 'a pipe in a name is escaped');
  t.match(md, /\| api \| `node build\/bench\/api\.js` \| 1 \|/);
  t.match(md, /\| ingest-derived \| `c` \| 0 \| 1\.0 \| l \| txs\/s 5 \|/, 'information-only figures in the steps table');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const paths = writeReport(path.join(dir, 'out'), report);
  t.equal(path.basename(paths.md), 'report-2026-11-24T13-00-00-000Z.md');
  t.equal(fs.readFileSync(paths.md, 'utf8'), md);
  t.same(JSON.parse(fs.readFileSync(paths.json, 'utf8')), JSON.parse(JSON.stringify(report)));
  t.equal(fs.readFileSync(path.join(dir, 'out', 'report.md'), 'utf8'), md, 'report.md is the latest');
});

t.test('node URLs lose their secrets; steps and settings of `make bench`', async (t) => {
  t.equal(redactUrl('https://user:pw@mainnet.example.com/v3/abcdef?key=1'), 'https://mainnet.example.com/…');
  t.equal(redactUrl('http://127.0.0.1:8545'), 'http://127.0.0.1:8545');
  t.equal(redactUrl('not a url'), '(unparsable URL)');
  t.same(steps({}).map((s) => s.name), ['ingest', 'ingest-derived', 'storage', 'watchlist', 'api', 'socket', 'ui']);
  t.same(steps({ BENCH_RPC_URL: 'http://n' }).map((s) => s.name), ['ingest', 'storage', 'watchlist', 'api', 'socket', 'ui'], 'a node is not indexed twice');
  t.same(steps({ BENCH_STEPS: 'api, ingest' }).map((s) => s.name), ['ingest', 'api'], 'in the usual order');
  t.throws(() => steps({ BENCH_STEPS: 'ingest,nope' }), /unknown step nope/);
  t.same(settingsOf({ BENCH_RPC_URL: 'https://h.example/key123', BENCH_FROM: '5', PATH: '/bin' }), { BENCH_FROM: '5', BENCH_RPC_URL: 'https://h.example/…' });
});
