// The ClickHouse store's server code path (CLICKHOUSE_URL: @clickhouse/client over HTTP, server-side
// parameter binding, streamed inserts), run against chDB behind ClickHouse's HTTP interface
// (test/helpers/chdb-http-server.ts), and shared by two stores as two processes would.
import t from 'tap';
import { openClickHouse } from '../src/storage/clickhouse/store.js';
import { migrateClickHouse } from '../src/storage/migrate.js';
import { startChdbHttp } from './helpers/chdb-http.js';

t.test('the store works over HTTP: migrations, binding, inserts, errors, two clients', async (t) => {
  const server = await startChdbHttp(t);
  const a = await openClickHouse({ url: server.url, database: 'explorer' });
  t.teardown(() => a.close());
  t.notOk(a.embedded, 'server mode');
  const mig = await migrateClickHouse(a);
  t.ok(mig.applied.length > 0, 'migrations applied over HTTP');
  t.same((await migrateClickHouse(a)).applied, [], 'and recorded: a second run applies nothing');

  // Parameters bound by the server, with the characters a binder must not lose.
  const tricky = "it's a \\ back\tslash\nline";
  const rows = await a.query<{ s: string; n: string; arr: string[]; nul: number | null }>(
    'SELECT {s:String} AS s, {n:UInt64} AS n, {arr:Array(String)} AS arr, {nul:Nullable(UInt8)} AS nul',
    { s: tricky, n: '18446744073709551615', arr: ['0xab', '0xcd'], nul: null },
  );
  t.same(rows, [{ s: tricky, n: '18446744073709551615', arr: ['0xab', '0xcd'], nul: null }], 'values arrive as sent');

  await a.command('CREATE TABLE IF NOT EXISTS http_probe (k UInt64, v String) ENGINE = MergeTree ORDER BY k');
  const lines = Array.from({ length: 5000 }, (_, i) => JSON.stringify([i, `v${i}`])).join('\n') + '\n';
  const bytes = Buffer.from(lines);
  const cut = bytes.indexOf('\n', 20000) + 1;
  await a.insertRaw('http_probe', [bytes.subarray(0, cut), bytes.subarray(cut)], ['k', 'v']);
  const b = await openClickHouse({ url: server.url, database: 'explorer' });
  t.teardown(() => b.close());
  const [count] = await b.query<{ n: string; s: string }>('SELECT count() AS n, toString(sum(k)) AS s FROM http_probe');
  t.same(count, { n: '5000', s: String((4999 * 5000) / 2) }, 'a second client sees every row of one streamed insert, once');

  await t.rejects(a.query('SELECT * FROM no_such_table'), { code: '60' }, 'an unknown table is ClickHouse error 60');
  await t.rejects(a.query('SELEC 1'), { code: '62' }, 'a syntax error is ClickHouse error 62');
  const wrong = new URL(server.url);
  wrong.password = 'nope';
  await t.rejects(openClickHouse({ url: wrong.toString(), database: 'explorer' }), /Authentication failed/, 'a wrong password is refused');
});
