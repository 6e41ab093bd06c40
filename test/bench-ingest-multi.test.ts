// `make bench-ingest-multi` (bench/ingest-multi.ts) run tiny as a child process: one indexer
// process alone, then 1 and 2 sharing one store (a Debian PostgreSQL server and chDB behind
// ClickHouse's HTTP interface); it exits 0, prints txs/s for each run, the verification and the
// json line, and leaves no temporary directory behind. Behaviour only: no timing is asserted.
import t, { type Test } from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import { runBenchScript } from './helpers/bench-child.js';
import { fileURLToPath } from 'node:url';
import { debianPostgresBin } from '../bench/store-servers.js';
import { modes } from '../bench/ingest-multi.js';

const BENCH = fileURLToPath(new URL('../bench/ingest-multi.js', import.meta.url));
const INGEST = fileURLToPath(new URL('../bench/ingest.js', import.meta.url));
const skip = !debianPostgresBin() ? "Debian's postgresql is not installed (apt-get install postgresql)" : false;

t.test('the runs: the baseline first, worker threads split evenly across processes', async (t) => {
  t.same(modes([1, 2], 4, 2), [
    { processes: 1, claimRanges: 0, workersEach: 2 },
    { processes: 1, claimRanges: 4, workersEach: 2 },
    { processes: 2, claimRanges: 4, workersEach: 1 },
  ]);
  t.same(modes([3], 2, 2).map((m) => m.workersEach), [2, 1], 'at least one thread each');
});

const leftovers = () => new Set(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('bench-ingest-multi-')));

/** Runs the benchmark tiny (3 blocks); BENCH_PROCESSES also routes bench/ingest.js here. */
async function runTiny(t: Test, script: string, processes: string): Promise<string> {
  const before = leftovers();
  const { code, stdout, stderr } = await runBenchScript(script, { BENCH_BLOCKS: '3', BENCH_PROCESSES: processes });
  t.equal(code, 0, `exit code 0${code === 0 ? '' : `; stdout: ${stdout.slice(-2000)}; stderr: ${stderr.slice(-2000)}`}`);
  t.same([...leftovers()].filter((f) => !before.has(f)), [], 'its temporary directory is removed');
  return stdout;
}

t.test('`node build/bench/ingest-multi.js` runs tiny, exits 0 and prints txs/s for 1 and 2 processes', { skip }, async (t) => {
  const stdout = await runTiny(t, BENCH, '1,2');
  for (const re of [
    /^machine: .+, \d+ cores, [\d.]+ GiB RAM, .+, node v\d+/m,
    /^load average before: [\d.]+ [\d.]+ [\d.]+$/m,
    /^store: .*chDB behind ClickHouse's HTTP interface.*on the same \d+ cores.*overhead on this machine, not what a cluster of machines gains$/m,
    /^chain: 3 blocks \+ genesis, [\d,]+ txs/m,
    /^== 1 process, INDEXER_CLAIM_RANGES=0 \(baseline: today's single-process path\), INDEXER_WORKERS=\d+$/m,
    /^== 1 process, INDEXER_CLAIM_RANGES=4 \(shared catch-up\), INDEXER_WORKERS=\d+$/m,
    /^== 2 processes, INDEXER_CLAIM_RANGES=4 \(shared catch-up\), INDEXER_WORKERS=\d+ each$/m,
    /^cpu s during ingest: indexers [\d.]+ \+ [\d.]+, PostgreSQL/m,
    /^summary \(txs\/s, information, no target\): 1 process alone [\d,]+ \(1\.00 x\); 1 process shared [\d,]+ \([\d.]+ x\); 2 processes shared [\d,]+ \([\d.]+ x\)$/m,
    /^summary \(cpu µs per tx of the indexers, stores and replay server\): 1 process alone [\d,]+ \(1\.00 x\); 1 process shared [\d,]+ \([\d.]+ x\); 2 processes shared [\d,]+ \([\d.]+ x\)$/m,
    /^verified: every run stored exactly the generated chain$/m,
  ]) t.match(stdout, re);
  t.equal(stdout.match(/^txs\/s: [\d,]+$/gm)?.length, 3, 'txs/s for each of the three runs');
  t.equal(stdout.match(/^verified: stored blocks, txs, logs, token transfers, internal txs and withdrawals equal the generated chain/gm)?.length, 3, 'each run verified');
  const line = stdout.split('\n').find((l) => l.startsWith('json: '));
  t.ok(line, 'a json line');
  const json = JSON.parse(line!.slice('json: '.length)) as { verified: boolean; runs: { processes: number; claimRanges: number; txsPerS: number }[] };
  t.equal(json.verified, true);
  t.same(json.runs.map((r) => [r.processes, r.claimRanges]), [[1, 0], [1, 4], [2, 4]]);
  t.ok(json.runs.every((r) => r.txsPerS > 0), 'a positive rate for each run');
});

t.test('BENCH_PROCESSES makes `node build/bench/ingest.js` run the multi-process mode', { skip }, async (t) => {
  // Two processes only (the baseline runs anyway): the routing is what is checked.
  const stdout = await runTiny(t, INGEST, '2');
  t.match(stdout, /^ingest benchmark, several indexer processes sharing one store/m);
  t.match(stdout, /^summary \(txs\/s, information, no target\): 1 process alone [\d,]+ \(1\.00 x\); 2 processes shared [\d,]+ /m);
  t.match(stdout, /^verified: every run stored exactly the generated chain$/m);
});
