// Issue #30's growth verdicts (bench/api-growth.ts): the larger chain's idle figures held against
// the smaller one's, whichever run is the current one; a record kept and read back; no verdict
// from a missing record, another machine or another concurrency.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { growthTargets, loadIdleRecord, recordPath, saveIdleRecord, type IdleRecord } from '../bench/api-growth.js';
import { evaluate } from '../bench/report.js';

const machine = { cpu: 'AMD EPYC', cores: 2, memGiB: 23.5, os: 'Linux', node: 'v20.20.2' };
const record = (txs: number, figures: [string, number, number][], over: Partial<IdleRecord> = {}): IdleRecord => ({
  date: `2026-12-02T0${txs > 1e6 ? 8 : 7}:00:00.000Z`,
  machine,
  txs,
  connections: 8,
  figures: figures.map(([key, rps, p99ms]) => ({ key, name: `uncached ${key}`, rps, p99ms })),
  ...over,
});
const sizes = { small: 1_000_000, large: 5_000_000 };
const small = record(1_000_000, [['transaction', 2000, 19], ['deepPage', 500, 40], ['search', 1700, 12]]);
const large = record(5_000_000, [['transaction', 1850, 20.8], ['deepPage', 440, 44.5], ['search', 1500, 13.3]]);

t.test('the larger chain against the smaller: a rate and a p99 per read, the p99 alone for search', async (t) => {
  const ev = growthTargets(small, large, sizes).map(evaluate);
  const at = 'on 5,000,000 txs over 1,000,000 at 8 connections';
  t.same(ev.map((e) => [e.name, e.verdict]), [
    [`uncached transaction: req/s ${at}`, 'MET'], // 0.925
    [`uncached transaction: p99 ${at}`, 'MET'], // 1.095
    [`uncached deepPage: req/s ${at}`, 'NOT MET'], // 0.88
    [`uncached deepPage: p99 ${at}`, 'NOT MET'], // 1.1125
    [`uncached search: p99 ${at}`, 'NOT MET'], // 1.108
  ]);
  t.equal(ev[0]!.value, 1850 / 2000);
  t.equal(ev[0]!.bound, 0.9);
  t.equal(ev[1]!.bound, 1.1);
  t.match(ev[0]!.boundIs, /1,850 against 2,000 req\/s; runs of 2026-12-02T07:00:00.000Z and 2026-12-02T08:00:00.000Z/);
  t.match(ev[3]!.boundIs, /44\.5 against 40\.0 ms/);
  t.notOk(ev.some((e) => e.note), 'no caveat when both runs are comparable');
  // The same verdicts whichever run is the current one: the targets depend on the records alone.
  t.same(growthTargets(small, large, sizes), growthTargets(small, large, sizes));
});

t.test('a missing record, another machine, another concurrency: NOT MEASURED, saying why', async (t) => {
  const missing = growthTargets('no run on 5,000,000 txs recorded', small, sizes).map(evaluate);
  t.equal(missing.length, 5, "the current run's figures named all the same");
  t.ok(missing.every((e) => e.verdict === 'NOT MEASURED' && e.note === 'no run on 5,000,000 txs recorded'));
  const fromLarge = growthTargets(small, 'no run on 5,000,000 txs recorded', sizes).map(evaluate);
  t.ok(fromLarge.every((e) => e.verdict === 'NOT MEASURED'));
  const other = growthTargets(small, { ...large, machine: { ...machine, cpu: 'Intel Xeon' } }, sizes).map(evaluate);
  t.ok(other.every((e) => e.verdict === 'NOT MEASURED' && /different machines/.test(e.note ?? '')));
  const conns = growthTargets(small, { ...large, connections: 16 }, sizes).map(evaluate);
  t.ok(conns.every((e) => e.verdict === 'NOT MEASURED' && /at 8 connections, the 5,000,000-tx run at 16/.test(e.note ?? '')));
  const partial = growthTargets(record(1_000_000, [['transaction', 2000, 19]]), large, sizes).map(evaluate);
  t.same(partial.map((e) => e.verdict), ['MET', 'MET', 'NOT MEASURED', 'NOT MEASURED', 'NOT MEASURED'], 'a figure one run lacks');
});

t.test('a record is kept per size and read back; a foreign file is not one', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-growth-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  t.match(loadIdleRecord(dir, 1_000_000), /^no run on 1,000,000 txs recorded in .*api-idle-1000000\.json/);
  t.equal(saveIdleRecord(path.join(dir, 'sub'), small), recordPath(path.join(dir, 'sub'), 1_000_000), 'its folder made');
  t.same(loadIdleRecord(path.join(dir, 'sub'), 1_000_000), small);
  fs.writeFileSync(recordPath(dir, 5_000_000), JSON.stringify({ ...large, txs: 7 }));
  t.match(loadIdleRecord(dir, 5_000_000), /is not a run's record/);
  fs.writeFileSync(recordPath(dir, 5_000_000), '{');
  t.match(loadIdleRecord(dir, 5_000_000), /is not a run's record/);
});
