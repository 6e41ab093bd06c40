// Point reads that concurrent requests share (src/storage/clickhouse/coalesce.ts): a transaction
// by hash and the frame facts of a page (revert data, failed inner frames) give each caller
// exactly what it would get reading alone, when many ask at once and their keys go into the same
// queries, including keys that have no row.
import t from 'tap';
import { openClickHouse } from '../../../../src/storage/clickhouse/store.js';
import { migrateClickHouse } from '../../../../src/storage/migrate.js';
import { insertChainRows } from '../../../../src/storage/clickhouse/chain.js';
import { transactionByHash } from '../../../../src/storage/clickhouse/reads/transactions.js';
import { topFramesAndFailures } from '../../../../src/storage/clickhouse/reads/internal-transactions.js';
import { generateApiChain } from '../../../../bench/api-chain.js';
import { tmpDir } from '../../../helpers/tmp.js';

t.test('concurrent lookups answer each caller as a lookup alone does', async (t) => {
  const ch = await openClickHouse({ database: 'explorer', dataDir: tmpDir(t) });
  t.teardown(() => ch.close());
  await migrateClickHouse(ch);
  await generateApiChain({ txs: 4000, seed: 7 }, (tables) => insertChainRows(ch, tables));

  const sample = await ch.query<{ hash: string; block_number: string; transaction_index: number; status: number; internal_count: number }>(
    'SELECT hash, block_number, transaction_index, status, internal_count FROM transactions ORDER BY cityHash64(hash) LIMIT 120',
  );
  const misses = ['0x' + '0'.repeat(64), '0x' + 'f'.repeat(64), 'not a hash'];
  const asked = [...sample.map((s) => s.hash), ...misses, sample[0].hash, sample[1].hash];
  // Alone: one lookup at a time (each its own query).
  const alone = [];
  for (const h of asked) alone.push(await transactionByHash(ch, h));
  const where = alone.map((r) => (r ? `${r.hash}@${r.block_number}/${r.transaction_index}` : null));
  const direct = [];
  for (const h of asked) {
    const [r] = await ch.query<{ k: string }>("SELECT concat(hash, '@', toString(block_number), '/', toString(transaction_index)) AS k FROM transactions WHERE hash = {h:String}", { h });
    direct.push(r?.k ?? null);
  }
  t.same(where, direct, 'alone: each hash is the row a plain query by hash finds, the misses none');
  // Together: all at once.
  const together = await Promise.all(asked.map((h) => transactionByHash(ch, h)));
  t.same(together, alone, 'together: the same row (or null) for each caller');

  // The benchmark chain fails top-level frames only: a failed inner frame for about half of the
  // sampled transactions that have inner frames.
  const failInner = sample.filter((s) => s.internal_count > 0 && s.transaction_index % 2 === 0);
  await ch.command(
    // (The filter in a subquery: the store's older analyzer would apply it to the replaced columns.)
    `INSERT INTO internal_transactions SELECT * REPLACE (trace_index + 1000 AS trace_index, 'out of gas' AS error) FROM (
       SELECT * FROM internal_transactions WHERE trace_index = 1 AND has(arrayZip({b:Array(UInt64)}, {i:Array(UInt32)}), (block_number, transaction_index)))`,
    { b: failInner.map((s) => BigInt(s.block_number)), i: failInner.map((s) => s.transaction_index) },
  );
  const [{ n: added }] = await ch.query<{ n: string }>("SELECT count() AS n FROM internal_transactions WHERE error = 'out of gas'");
  t.equal(Number(added), failInner.length, `${failInner.length} failed inner frames added`);
  // Frame facts: pages of 10 transactions each, asked at once.
  const reverted = sample.filter((s) => s.status === 0).length;
  const nested = sample.filter((s) => s.internal_count > 0).length;
  t.ok(reverted > 0 && nested > 0, `the sample has reverted (${reverted}) and nested (${nested}) transactions`);
  const pages = [];
  for (let i = 0; i < sample.length; i += 10) {
    const page = sample.slice(i, i + 10);
    pages.push({
      reverted: page.filter((s) => s.status === 0).map((s) => ({ block: BigInt(s.block_number), index: s.transaction_index })),
      // Some keys asked by two pages, and keys with no failed frame.
      nested: [...page.filter((s) => s.internal_count > 0), sample[0]].map((s) => ({ block: BigInt(s.block_number), index: s.transaction_index })),
    });
  }
  const sort = (rows: { block_number: string; transaction_index: number; top: number }[]) =>
    [...rows].sort((a, b) => Number(a.block_number) - Number(b.block_number) || a.transaction_index - b.transaction_index || a.top - b.top);
  // What each page must get, by plain queries: the top frame of each reverted transaction, and
  // a failed frame below the top for each nested one that has one.
  const expected = [];
  for (const p of pages) {
    const want: { block_number: string; transaction_index: number; top: number; output: string }[] = [];
    for (const k of p.reverted) {
      const [top] = await ch.query<{ output: string }>('SELECT output FROM internal_transactions WHERE block_number = {b:UInt64} AND transaction_index = {i:UInt32} AND trace_index = 0', { b: k.block, i: k.index });
      if (top) want.push({ block_number: String(k.block), transaction_index: k.index, top: 1, output: top.output });
    }
    for (const k of new Map(p.nested.map((x) => [`${x.block}:${x.index}`, x])).values()) {
      const [f] = await ch.query<{ n: string }>("SELECT count() AS n FROM internal_transactions WHERE block_number = {b:UInt64} AND transaction_index = {i:UInt32} AND trace_index > 0 AND error != ''", { b: k.block, i: k.index });
      if (Number(f.n) > 0) want.push({ block_number: String(k.block), transaction_index: k.index, top: 0, output: '' });
    }
    expected.push(sort(want));
  }
  const norm = (rows: { block_number: string; transaction_index: number; top: number; output: string }[]) =>
    sort(rows.map((r) => ({ block_number: String(r.block_number), transaction_index: r.transaction_index, top: Number(r.top), output: r.output })));
  const framesAlone = [];
  for (const p of pages) framesAlone.push(norm(await topFramesAndFailures(ch, p.reverted, p.nested)));
  t.same(framesAlone, expected, 'alone: each page gets the frames plain queries find');
  const framesTogether = (await Promise.all(pages.map((p) => topFramesAndFailures(ch, p.reverted, p.nested)))).map(norm);
  t.same(framesTogether, expected, 'together: the same for each page');
  const tops = expected.flat().filter((f) => f.top === 1).length;
  const inner = expected.flat().filter((f) => f.top === 0).length;
  t.ok(tops > 0 && inner > 0, `revert data (${tops}) and failed inner frames (${inner}) among them`);
  t.same(await topFramesAndFailures(ch, [], []), [], 'nothing asked, nothing read');
});
