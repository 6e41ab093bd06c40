// Migration 0006 (sql/clickhouse/0006_primary_key_suffix.sql): every column of a table's sort key
// stays in the primary index, so a condition on the later ones narrows the granules read. The
// case that made it: a deep page of a busy address in address_transactions, whose first key
// column (address) changes at nearly every granule, which made ClickHouse drop the later columns
// from the index and read every granule of the address's history for any page of it.
import t from 'tap';
import { openClickHouse, type ClickHouseStore } from '../../../../src/storage/clickhouse/store.js';
import { migrateClickHouse } from '../../../../src/storage/migrate.js';
import { tmpDir } from '../../../helpers/tmp.js';

/** Granules the primary index selects for `where` in address_transactions (EXPLAIN indexes = 1). */
async function granules(ch: ClickHouseStore, where: string): Promise<{ selected: number; total: number }> {
  const lines = (await ch.query<{ explain: string }>(`EXPLAIN indexes = 1 SELECT block_number FROM address_transactions WHERE ${where}`)).map((r) => r.explain);
  const m = lines.map((l) => /Granules: (\d+)\/(\d+)/.exec(l)).find(Boolean);
  if (!m) throw new Error(`no granule count in ${lines.join('\n')}`);
  return { selected: Number(m[1]), total: Number(m[2]) };
}

t.test('a busy address deep in its history: only the granules of the page are selected', async (t) => {
  const ch = await openClickHouse({ database: 'explorer', dataDir: tmpDir(t) });
  t.teardown(() => ch.close());
  await migrateClickHouse(ch);
  // 500,000 one-transaction addresses around one busy address with 25,000 (4 of the 8,192-row
  // granules), in one part: the address changes at more than 90% of the granules.
  const BUSY = `0x${'e'.repeat(40)}`;
  await ch.command(
    `INSERT INTO address_transactions (address, block_number, transaction_index, is_from, is_to)
     SELECT if(number % 21 = 0, '${BUSY}', concat('0x', lower(hex(sipHash128(number))))), intDiv(number, 200), number % 200, 1, 0
     FROM numbers(525000)`,
  );
  await ch.command('OPTIMIZE TABLE address_transactions FINAL');
  const busy = `address = '${BUSY}'`;
  const all = await granules(ch, busy);
  t.ok(all.selected >= 3, `the busy address spans ${all.selected} of ${all.total} granules`);
  const deep = await granules(ch, `${busy} AND (block_number < 20 OR (block_number = 20 AND transaction_index < 100))`);
  t.equal(deep.selected, 1, `a page of its oldest transactions selects 1 granule, not all ${all.selected} of the address's`);
  const middle = await granules(ch, `${busy} AND block_number BETWEEN 1000 AND 1010`);
  t.ok(middle.selected <= 2, `a range in the middle of its history selects ${middle.selected}`);
});
