// The column lists in src/chain/clickhouse-rows.ts must match the chain tables' CREATE TABLE statements
// (sql/clickhouse/0001_chain.sql, 0004_block_rewards.sql), less the columns later migrations drop,
// exactly, and the compiled encoders must
// put every value in its column's position with the right JSON type.
import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TABLES, TABLE_COLUMNS, TABLE_NAMES, type TableName } from '../../../src/chain/clickhouse-rows.js';
import { encodeRow, encodeRows, TableWriter, ownedBuffer } from '../../../src/chain/clickhouse-encode.js';
import { PROJECT_ROOT } from '../../helpers/fixtures.js';

/** Split on commas outside parentheses and quotes. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let cur = '';
  for (const c of s) {
    if (c === "'") quote = !quote;
    if (!quote && c === '(') depth++;
    if (!quote && c === ')') depth--;
    if (!quote && depth === 0 && c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur);
  return out;
}

export function parseCreateTables(sql: string): Map<string, [string, string][]> {
  const noComments = sql.replace(/--[^\n]*/g, '');
  const re = /CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?\s*\(([\s\S]*?)\)\s*ENGINE/gi;
  const tables = new Map<string, [string, string][]>();
  for (const m of noComments.matchAll(re)) {
    const cols = splitTop(m[2]!)
      .map((c) => c.trim())
      .filter((c) => c && !/^(INDEX|PROJECTION|CONSTRAINT)\b/i.test(c))
      .map((c) => {
        const mm = /^`?(\w+)`?\s+(.+)$/s.exec(c);
        if (!mm) throw new Error(`cannot parse column: ${c}`);
        // Drop DEFAULT/CODEC/COMMENT clauses, normalize whitespace.
        const type = mm[2]!.replace(/\s+(DEFAULT|MATERIALIZED|ALIAS|CODEC|COMMENT|TTL)\b[\s\S]*$/i, '').replace(/\s+/g, ' ').trim();
        return [mm[1]!, type] as [string, string];
      });
    tables.set(m[1]!, cols);
  }
  return tables;
}

const sqlPath = join(PROJECT_ROOT, 'sql', 'clickhouse', '0001_chain.sql');
/** The migrations that create the tables the indexer's TableWriter fills. */
const CHAIN_SQL = ['0001_chain.sql', '0004_block_rewards.sql', '0008_transaction_blobs.sql', '0010_user_operations.sql'].map((f) => join(PROJECT_ROOT, 'sql', 'clickhouse', f));

/** `tables` less the columns any migration drops (ALTER TABLE t DROP COLUMN [IF EXISTS] c), with those it adds. */
function withDrops(tables: Map<string, [string, string][]>): Map<string, [string, string][]> {
  const dir = join(PROJECT_ROOT, 'sql', 'clickhouse');
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.sql')).sort()) {
    const sql = readFileSync(join(dir, f), 'utf8').replace(/--[^\n]*/g, '');
    for (const m of sql.matchAll(/ALTER\s+TABLE\s+`?(\w+)`?\s+DROP\s+COLUMN\s+(?:IF\s+EXISTS\s+)?`?(\w+)`?/gi)) {
      const cols = tables.get(m[1]!);
      if (cols) tables.set(m[1]!, cols.filter((c) => c[0] !== m[2]));
    }
    // And with the columns any migration adds (ALTER TABLE t ADD COLUMN [IF NOT EXISTS] c Type ...), at the end.
    for (const m of sql.matchAll(/ALTER\s+TABLE\s+`?(\w+)`?\s+ADD\s+COLUMN\s+(?:IF\s+NOT\s+EXISTS\s+)?`?(\w+)`?\s+([^\n,;]+)/gi)) {
      const cols = tables.get(m[1]!);
      const type = m[3]!.replace(/\s+(DEFAULT|MATERIALIZED|ALIAS|CODEC|COMMENT|TTL)\b[\s\S]*$/i, '').trim();
      if (cols && !cols.some((c) => c[0] === m[2])) cols.push([m[2]!, type]);
    }
  }
  return tables;
}

t.test('column lists match the CREATE TABLE statements exactly', async (t) => {
  const parsed = withDrops(parseCreateTables(CHAIN_SQL.map((p) => readFileSync(p, 'utf8')).join('\n')));
  t.ok(parsed.size >= 13, `parsed ${parsed.size} tables`);
  t.same([...parsed.keys()].sort(), [...TABLE_NAMES].sort(), 'same set of tables');
  for (const name of TABLE_NAMES) {
    const sqlCols = parsed.get(name);
    t.ok(sqlCols, `${name} is in the SQL file`);
    if (!sqlCols) continue;
    t.same(TABLES[name], sqlCols.map((c) => c[0]), `${name}: names and order`);
    t.same(
      TABLE_COLUMNS[name].map((c) => [c[0], c[1]]),
      sqlCols,
      `${name}: types`,
    );
  }
});

t.test('the parser itself notices a drift', async (t) => {
  const original = readFileSync(sqlPath, 'utf8');
  const sql = original.replace('  miner String,\n', '  miner String,\n  extra_col UInt8,\n');
  const parsed = parseCreateTables(sql);
  // Against the file as it is (TABLES.blocks has columns later migrations add, 0012's op_fees).
  t.equal(parsed.get('blocks')!.length, parseCreateTables(original).get('blocks')!.length + 1);
  t.ok(parsed.get('blocks')!.some((c) => c[0] === 'extra_col'));
});

/** A distinctive value for column #i of a type, and what JSON.parse should give back. */
function sample(type: string, i: number): [unknown, unknown] {
  const nullable = /^Nullable\((.*)\)$/.exec(type);
  if (nullable) return i % 2 === 0 ? [null, null] : sample(nullable[1]!, i);
  const lc = /^LowCardinality\((.*)\)$/.exec(type);
  if (lc) return sample(lc[1]!, i);
  if (type === 'UInt8' || type === 'UInt32') return [i, i];
  if (type === 'UInt64') return i % 3 === 0 ? ['18446744073709551615', '18446744073709551615'] : [1000 + i, 1000 + i];
  if (type === 'UInt256') return [`1${'0'.repeat(40)}${i}`, `1${'0'.repeat(40)}${i}`];
  if (type.startsWith('DateTime')) return [1_700_000_000 + i, 1_700_000_000 + i];
  if (type.startsWith('Enum8')) return ['transaction', 'transaction'];
  if (type === 'String') return [`s${i} "quoted" \\ \n`, `s${i} "quoted" \\ \n`];
  if (type === 'Array(String)') return [[`a${i}`, 'b'], [`a${i}`, 'b']];
  if (type === 'Array(UInt32)') return [[i, 0, 7], [i, 0, 7]];
  throw new Error(`no sample for ${type}`);
}

t.test('encoders emit every column in order with the right JSON type', async (t) => {
  for (const name of TABLE_NAMES) {
    const cols = TABLE_COLUMNS[name] as readonly (readonly [string, string])[];
    const row: Record<string, unknown> = {};
    const expected: unknown[] = [];
    cols.forEach(([c, type], i) => {
      const [v, e] = sample(type, i);
      row[c] = v;
      expected.push(e);
    });
    const line = encodeRow(name as TableName, row as never);
    t.notOk(line.includes('\n'), `${name}: one line`);
    const parsed = JSON.parse(line) as unknown[];
    t.equal(parsed.length, cols.length, `${name}: one value per column`);
    t.same(parsed, expected, `${name}: values in column order`);
    // UInt256 always quoted, big UInt64 quoted.
    cols.forEach(([, type], i) => {
      if (type === 'UInt256') t.type(parsed[i], 'string', `${name}[${i}] UInt256 is a string`);
    });
  }
});

t.test('encodeRows / TableWriter / ownedBuffer', async (t) => {
  const row = { address: '0xabc', block_number: 5, log_index: 2 };
  t.equal(encodeRows('address_logs', [row, row]), '["0xabc",5,2]\n["0xabc",5,2]\n');
  t.equal(encodeRows('address_logs', []), '');
  const w = new TableWriter();
  w.add('address_logs', row);
  const bufs = w.toBuffers();
  // RowBinary: String as length + bytes, UInt64 and UInt32 little-endian.
  t.equal(bufs.address_logs.toString('hex'), '05' + Buffer.from('0xabc').toString('hex') + '0500000000000000' + '02000000');
  t.equal(bufs.blocks.length, 0);
  for (const name of TABLE_NAMES) {
    t.equal(bufs[name].buffer.byteLength, bufs[name].length, `${name} owns its ArrayBuffer`);
  }
  const small = ownedBuffer('héllo');
  t.equal(small.buffer.byteLength, 6);
  t.equal(small.toString(), 'héllo');
});
