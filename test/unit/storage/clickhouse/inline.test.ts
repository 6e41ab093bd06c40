// Embedded chDB: parameters are written into the SQL as typed literals (chdb-node runs
// parameterized queries one at a time for the whole process), and queries are spread over
// several sessions so they run in parallel. Values must come back exactly, whatever they hold.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { inlineParams, quoteString } from '../../../../src/storage/clickhouse/inline.js';
import { openClickHouse } from '../../../../src/storage/clickhouse/store.js';
import { tmpDir } from '../../../helpers/tmp.js';

t.test('literals: strings escaped, integers as typed casts, arrays, unknown names left alone', async (t) => {
  t.equal(quoteString("a'b\\c"), "'a\\'b\\\\c'");
  t.equal(inlineParams('x = {a:UInt64}', { a: 5n }), "x = CAST('5' AS UInt64)");
  t.equal(inlineParams('x = {a:Int64}', { a: -1 }), "x = CAST('-1' AS Int64)");
  t.equal(inlineParams('x IN {a:Array(String)}', { a: ['p', "q'"] }), "x IN CAST(['p','q\\''] AS Array(String))");
  t.equal(inlineParams('x IN {a:Array(UInt32)}', { a: [] }), 'x IN CAST([] AS Array(UInt32))');
  t.equal(inlineParams("'{b:String}' = {a:String}", { a: 'v' }), "'{b:String}' = CAST('v' AS String)", 'a placeholder of no given name is not touched');
  t.equal(inlineParams('x = {a:UInt8}', { a: true }), 'x = CAST(1 AS UInt8)');
  t.throws(() => inlineParams('x = {a:UInt64}', { a: undefined }), /a has no value/);
  t.throws(() => inlineParams('x = {a:UInt64}', { a: Number.NaN }), /not an integer/);
  t.throws(() => inlineParams('x = {a:Float64}', { a: Number.NaN }), /not a finite number/);
  t.throws(() => inlineParams('x = {a:String}', { a: { y: 1 } }), /cannot write a object/);
  t.throws(() => inlineParams('x = {a:UInt64}', { a: [1] }), /an array for type UInt64/);
  t.throws(() => inlineParams('x = {a:Array(UInt64)}', { a: 1 }), /needs an array/);
  t.throws(() => inlineParams('x = {a:UInt64}', { a: 2n ** 64n }), /out of range for UInt64/);
  t.throws(() => inlineParams('x = {a:Int8}', { a: -129 }), /out of range for Int8/);
  t.equal(inlineParams('x = {a:Int8}', { a: -128 }), "x = CAST('-128' AS Int8)");
  t.throws(() => inlineParams("x = {a:String') OR (1}", { a: 'v' }), /unsupported type/);
});

t.test('embedded chDB: values round-trip exactly and queries run on several sessions', async (t) => {
  const ch = await openClickHouse({ database: 'inline_test', dataDir: tmpDir(t) });
  t.teardown(() => ch.close());
  const nasty = ["plain", "it's", 'back\\slash', "\\'", "' OR 1=1 --", "x'); DROP TABLE t; --", 'ünï\u0000cødé\n\t', '{a:String}', ''];
  for (const s of nasty) {
    const rows = await ch.query<{ s: string; n: string }>('SELECT {s:String} AS s, length({s:String}) AS n', { s });
    t.equal(rows[0].s, s, `string ${JSON.stringify(s)} comes back unchanged`);
    t.equal(Number(rows[0].n), Buffer.byteLength(s), 'and has its byte length');
  }
  const big = (2n ** 256n - 1n).toString();
  const r = await ch.query<{ u: string; i: string; a: string[] }>(
    'SELECT {u:UInt256} AS u, {i:Int64} AS i, {a:Array(UInt64)} AS a',
    { u: big, i: -9223372036854775808n, a: [0, 18446744073709551615n] },
  );
  t.same(r[0], { u: big, i: '-9223372036854775808', a: ['0', '18446744073709551615'] });
  await ch.command('CREATE TABLE IF NOT EXISTS kv (k String, v UInt64) ENGINE = MergeTree ORDER BY k');
  await ch.command('INSERT INTO kv VALUES ({k:String}, {v:UInt64})', { k: "o'neil", v: 7 });
  const kv = await ch.query<{ v: string }>('SELECT v FROM kv WHERE k IN {ks:Array(String)}', { ks: ["o'neil", 'other'] });
  t.same(kv, [{ v: '7' }]);
  // Sessions share one engine: what one wrote, the others read, in parallel.
  const reads = await Promise.all(Array.from({ length: 12 }, (_, i) => ch.query<{ n: string; i: string }>('SELECT count() AS n, {i:UInt32} AS i FROM kv', { i })));
  t.same(reads.map((x) => [x[0].n, x[0].i]), Array.from({ length: 12 }, (_, i) => ['1', String(i)]));
  // Out-of-range values are refused, never wrapped into a wrong answer.
  await t.rejects(ch.query('SELECT {v:UInt8} AS v', { v: 300 }), /out of range for UInt8/);
  await t.rejects(ch.query('SELECT {v:Array(UInt64)} AS v', { v: [-1] }), /out of range for UInt64/);
  await t.rejects(ch.query('SELECT {v:UInt64} AS v', { v: '1e3' }), /not an integer/);
});

t.test('every embedded session carries the store settings', async (t) => {
  const ch = await openClickHouse({ database: 'settings_test', dataDir: tmpDir(t) });
  t.teardown(() => ch.close());
  // Several at once, so they land on different sessions.
  const rows = await Promise.all(
    Array.from({ length: 8 }, () =>
      ch.query<{ q: string; m: string; a: string; big: string; db: string }>(
        "SELECT toString(toUInt8(getSetting('output_format_json_quote_64bit_integers'))) AS q, toString(getSetting('mutations_sync')) AS m, toString(toUInt8(getSetting('enable_analyzer'))) AS a, toUInt64(18446744073709551615) AS big, currentDatabase() AS db",
      ),
    ),
  );
  for (const r of rows) t.same(r[0], { q: '1', m: '2', a: '0', big: '18446744073709551615', db: 'settings_test' });
});

t.test('embedded inserts go through staging files that never outlive them', async (t) => {
  const dir = tmpDir(t);
  const staging = path.join(dir, 'insert-staging');
  fs.mkdirSync(staging, { recursive: true });
  fs.writeFileSync(path.join(staging, '999999999-1.JSONCompactEachRow'), '[1]\n'); // a killed process's
  const ch = await openClickHouse({ database: 'staging_test', dataDir: dir });
  t.teardown(() => ch.close());
  t.same(fs.readdirSync(staging), [], 'a dead process\'s staging file is removed at open');
  await ch.command("CREATE TABLE t (a UInt64, s String) ENGINE = MergeTree ORDER BY a");
  const rows = Array.from({ length: 1000 }, (_, i) => JSON.stringify([i, `it's "row" ${i}\\`])).join('\n') + '\n';
  await Promise.all([ch.insertRaw('t', Buffer.from(rows)), ch.insertRaw('t', Buffer.from('[5000,"x"]\n'), ['a', 's'])]);
  t.same(await ch.query('SELECT count() AS n, sum(a) AS s FROM t'), [{ n: '1001', s: String(999 * 500 + 5000) }]);
  t.same(await ch.query('SELECT s FROM t WHERE a = 7'), [{ s: 'it\'s "row" 7\\' }]);
  // Several buffers in order are one insert of their rows.
  await ch.insertRaw('t', [Buffer.from('[6000,"a"]\n[6001,"b"]\n'), new Uint8Array(0), Buffer.from('[6002,"c"]\n')], ['a', 's']);
  t.same(await ch.query('SELECT groupArray(s) AS s FROM (SELECT s FROM t WHERE a >= 6000 ORDER BY a)'), [{ s: ['a', 'b', 'c'] }]);
  t.same(fs.readdirSync(staging), [], 'nothing left after the inserts');
  await t.rejects(ch.insertRaw('t', Buffer.from('[1, 2, 3]\n')), 'a bad row is the engine\'s error');
  t.same(fs.readdirSync(staging), [], 'nor after a failed one');
});
