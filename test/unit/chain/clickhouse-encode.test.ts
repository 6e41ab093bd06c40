// TableWriter's RowBinary against the reference JSONCompactEachRow encoding: rows of every chain
// table with edge values (long and non-ASCII strings, quotes, control characters, the largest
// UInt64 and UInt256, nulls, arrays, enums) stored through either form read back identically
// from embedded ClickHouse; decodeTableBytes reads the bytes back to the reference values; a
// value that does not fit its column is refused with the table named, and nothing of that row
// is written.
import t from 'tap';
import { encodeRows, decodeTableBytes, TableWriter, TABLE_WRITER_FORMAT } from '../../../src/chain/clickhouse-encode.js';
import { TABLES, TABLE_COLUMNS, TABLE_NAMES, type TableName } from '../../../src/chain/clickhouse-rows.js';
import { openClickHouse } from '../../../src/storage/clickhouse/store.js';
import { migrateClickHouse } from '../../../src/storage/migrate.js';
import { tmpDir } from '../../helpers/tmp.js';

// Deterministic pseudo-random numbers (mulberry32).
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = [
  '',
  '0x',
  '0xabc',
  '0x' + 'ab'.repeat(20),
  '0x' + 'cd'.repeat(32),
  '0x' + 'ef'.repeat(700), // long input data
  'Tether "USD" \\ back',
  'tab\there\nnew line\u0001\u001f',
  'héllo wörld',
  '日本語のトークン',
  'emoji 🦄 and more 🚀',
  'x'.repeat(47),
  'y'.repeat(48),
  'é'.repeat(40) + 'long non-ascii ' + 'ü'.repeat(100),
];
const U64 = [0, 1, 255, 256, 65535, 4294967295, 4294967296, 9007199254740991, '9007199254740993', '18446744073709551615', '1000000000000000000'];
const U256 = [
  '0',
  '1',
  '4294967296',
  '1000000000000000000',
  '123456789012345678901234567890',
  (2n ** 128n + 12345n).toString(),
  (2n ** 256n - 1n).toString(),
  '00000000000000000042',
];

function valueFor(type: string, r: () => number, i: number): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const m = /^Nullable\((.*)\)$/.exec(type);
  if (m) return r() < 0.3 ? null : valueFor(m[1]!, r, i);
  const lc = /^LowCardinality\((.*)\)$/.exec(type);
  if (lc) return valueFor(lc[1]!, r, i);
  if (type === 'UInt8') return Math.floor(r() * 256);
  if (type === 'UInt16') return Math.floor(r() * 65536);
  if (type === 'UInt32') return pick([0, 1, 4294967295, Math.floor(r() * 4294967296)]);
  if (type.startsWith('DateTime')) return pick([0, 1_700_000_000, 4294967295]);
  if (type === 'UInt64') return pick(U64);
  if (type === 'UInt256') return pick(U256);
  if (type === 'String') return pick(STRINGS) + (r() < 0.5 ? String(i) : '');
  if (type.startsWith('Enum8(')) return pick([...type.matchAll(/'([^']*)'/g)].map((m) => m[1]!)); // the type's own names
  if (type === 'Array(String)') return r() < 0.3 ? [] : [pick(STRINGS), pick(STRINGS)];
  if (type === 'Array(UInt32)') return r() < 0.3 ? [] : [0, Math.floor(r() * 100), 4294967295];
  throw new Error(`no test values for ${type}`);
}

function rowsFor(table: TableName, n: number, seed: number): Record<string, unknown>[] {
  const r = rng(seed);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const row: Record<string, unknown> = {};
    for (const [name, type] of TABLE_COLUMNS[table] as readonly (readonly [string, string])[]) row[name] = valueFor(type, r, i);
    // Distinct sorting keys, so that no row replaces another on insert.
    if ('block_number' in row) row.block_number = i;
    if ('number' in row) row.number = i;
    if (table === 'hash_index') row.hash = `0x${i.toString(16).padStart(64, '0')}`;
    out.push(row);
  }
  return out;
}

t.test('RowBinary rows are stored exactly as the reference JSON rows', async (t) => {
  const ch = await openClickHouse({ database: 'explorer', dataDir: tmpDir(t) });
  t.teardown(() => ch.close());
  await migrateClickHouse(ch);
  for (const table of TABLE_NAMES) {
    const rows = rowsFor(table, 300, TABLE_NAMES.indexOf(table) + 1);
    const read = async () => {
      const cols = TABLES[table].map((c) => `\`${c}\``).join(', ');
      const out = await ch.query<Record<string, unknown>>(`SELECT ${cols} FROM ${table} ORDER BY ${cols}`);
      await ch.command(`TRUNCATE TABLE ${table}`);
      return out;
    };
    await ch.insertRaw(table, Buffer.from(encodeRows(table, rows as never)), TABLES[table]);
    const viaJson = await read();
    const w = new TableWriter();
    for (const row of rows) w.add(table, row as never);
    t.equal(w.count(table), rows.length, `${table}: rows counted`);
    const bytes = w.toBuffers()[table];
    w.release();
    await ch.insertRaw(table, [bytes.subarray(0, 7), bytes.subarray(7)], TABLES[table], TABLE_WRITER_FORMAT); // chunks split mid-value
    const viaBinary = await read();
    t.equal(viaBinary.length, rows.length, `${table}: every row stored`);
    t.same(viaBinary, viaJson, `${table}: stored values identical to the JSON insert`);
    // decodeTableBytes gives the values JSON.parse gives for the reference encoding.
    // (A decimal with leading zeros reads back without them.)
    const expected = encodeRows(table, rows as never)
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as unknown[]).map((v) => (typeof v === 'string' && /^0[0-9]+$/.test(v) ? BigInt(v).toString() : v)));
    t.same(decodeTableBytes(table, bytes), expected, `${table}: decodeTableBytes reads the reference values back`);
  }
});

t.test('values that do not fit their column are refused, naming the table', async (t) => {
  const good = rowsFor('transactions', 1, 7)[0]!;
  const cases: [string, unknown][] = [
    ['value', '-1'],
    ['value', '1.5'],
    ['value', '0x10'],
    ['value', ''],
    ['value', (2n ** 256n).toString()],
    ['value', 12.5],
    ['value', {}],
    ['nonce', '18446744073709551616'],
    ['nonce', -1],
    ['transaction_index', 4294967296],
    ['transaction_index', 1.5],
    ['type', 256],
    ['input', { not: 'a string' }],
  ];
  const w = new TableWriter();
  for (const [col, v] of cases) {
    t.throws(() => w.add('transactions', { ...good, [col]: v } as never), { name: 'RowValueError' }, `${col} = ${String(v)} refused`);
    try {
      w.add('transactions', { ...good, [col]: v } as never);
    } catch (e) {
      t.match((e as Error).message, /^transactions: /, 'the message names the table');
    }
  }
  for (const kind of ['account', 'toString', '__proto__', 'constructor', 3]) {
    t.throws(() => w.add('hash_index', { hash: '0x1', kind, block_number: 1, transaction_index: 0 } as never), { name: 'RowValueError' }, `enum value ${String(kind)} refused`);
  }
  t.equal(w.count('hash_index'), 0);
  t.equal(w.count('transactions'), 0, 'no refused row counted');
  w.add('transactions', good as never);
  const bytes = w.toBuffers().transactions;
  t.same(decodeTableBytes('transactions', bytes), [JSON.parse(encodeRows('transactions', [good] as never))], 'nothing of the refused rows was written');
  w.release();
});
