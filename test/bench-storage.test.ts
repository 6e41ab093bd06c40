// `make bench-storage` run small as a child process (6 blocks): it exits 0, prints both stores per
// table (ClickHouse's parts after merges, PostgreSQL's point tables with their indexes) and issue
// #21's and #30's storage targets, and its json line carries figures that add up: the point rows
// counted are the chain's transactions and both stores' total is the sum of the two. Bytes only: no
// timing is asserted.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parseBenchOutput } from '../bench/report.js';
import { runBenchScript } from './helpers/bench-child.js';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../bench/storage.js');

t.test('make bench-storage, small: both stores per table and the two targets', async (t) => {
  const { code, stdout, stderr } = await runBenchScript(BENCH, { STORAGE_BLOCKS: '6', STORAGE_COLUMNS: '0' });
  t.equal(code, 0, `exit code 0${code === 0 ? '' : `; stderr: ${stderr.slice(-2000)}`}`);

  const chainLine = /^chain: 6 blocks \+ genesis, .*: ([\d,]+) txs,/m.exec(stdout);
  t.ok(chainLine, 'the chain it stored');
  const txs = Number(chainLine?.[1]?.replace(/,/g, ''));
  for (const table of ['transactions', 'internal_transactions', 'logs', 'hash_index', 'blocks']) {
    t.match(stdout, new RegExp(`^  ${table} +[\\d,]+ +1 +[\\d,.]+ +[\\d,.]+ `, 'm'), `ClickHouse: ${table} in one part after the merge`);
  }
  t.match(stdout, new RegExp(`^  point_transactions +${txs.toLocaleString('en-US')} +[\\d,.]+ +[\\d,.]+ +[\\d,.]+ +[\\d,.]+ +[\\d,.]+$`, 'm'), 'PostgreSQL: a point row per transaction, heap to indexes');
  t.match(stdout, /^  point_blocks +7 /m, 'and one per block, genesis included');
  t.match(stdout, /^both stores: ClickHouse [\d,.]+ \(compressed parts\) \+ PostgreSQL [\d,.]+ \(point tables with their indexes\) = [\d,.]+ bytes\/tx$/m);
  t.match(stdout, /^target storage: ClickHouse: compressed bytes per transaction after merges, all tables: [\d,]+ B\/tx <= 1,500 B\/tx .*: (MET|NOT MET)$/m);
  t.match(stdout, /^target storage: both stores: ClickHouse compressed parts \+ PostgreSQL point tables, per transaction: [\d,]+ B\/tx <= 2,000 B\/tx .*: (MET|NOT MET)$/m);
  t.notMatch(stdout, /verification FAILED/);

  const { json, targets } = parseBenchOutput(stdout);
  const j = json as { txs: number; bytesPerTx: number; postgresBytesPerTx: number; bothBytesPerTx: number; verified: boolean; postgresTables: { table: string; rows: number }[] };
  t.equal(j.txs, txs);
  t.equal(j.verified, true);
  t.equal(j.postgresTables.find((x) => x.table === 'point_transactions')?.rows, txs);
  t.ok(j.bytesPerTx > 0 && j.postgresBytesPerTx > 0);
  t.ok(Math.abs(j.bothBytesPerTx - (j.bytesPerTx + j.postgresBytesPerTx)) < 1e-6, 'both stores are the sum of the two');
  t.same(targets.map((x) => [x.area, x.bound]), [['storage', 1500], ['storage', 2000]], 'the json line carries both targets for the report');
  t.equal(targets[1]!.value, j.bothBytesPerTx);
});
