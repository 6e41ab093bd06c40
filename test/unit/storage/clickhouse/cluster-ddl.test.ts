// The cluster form of the ClickHouse migrations (CLICKHOUSE_CLUSTER), checked without a cluster:
// no ClickHouse cluster runs here, and chDB is one server.
//
// What is checked: the cluster DDL of migrate.ts's schema_migrations table and of every file in
// sql/clickhouse, for cluster `explorer` and database `explorer`, equals the checked-in
// test/fixtures/clickhouse-cluster-ddl.sql (read it to review a migration's cluster form);
// every generated statement parses in the embedded engine (chDB's `EXPLAIN AST`, the same
// parser as the server's); every table gets a replicated local table and a Distributed table
// with its sharding key; statements with no cluster form throw, naming the statement.
// Opening a store with a cluster: refused on the embedded engine, and on a server (chDB behind
// ClickHouse's HTTP interface) that has no such cluster.
// What is not checked: that a real cluster runs the statements (Keeper paths, macros
// {uuid}/{shard}/{replica}, ON CLUSTER execution, Distributed inserts and reads) — none here.
//
// After changing a migration or cluster-ddl.ts, regenerate the expected file and review its diff:
//   UPDATE_CLUSTER_DDL=1 npx tap build/test/unit/storage/clickhouse/cluster-ddl.test.js
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { ClusterDdl, SHARDING_KEYS, localTable } from '../../../../src/storage/clickhouse/cluster-ddl.js';
import { openClickHouse } from '../../../../src/storage/clickhouse/store.js';
import { readMigrations, splitStatements, SCHEMA_MIGRATIONS_TABLE } from '../../../../src/storage/migrate.js';
import { projectRoot, sqlDir } from '../../../../src/paths.js';
import { tmpDir } from '../../../helpers/tmp.js';
import { startChdbHttp } from '../../../helpers/chdb-http.js';

const EXPECTED = path.join(projectRoot(), 'test', 'fixtures', 'clickhouse-cluster-ddl.sql');

/** Each source (schema_migrations, then each migration file) with its cluster statements, in the order migrate.ts runs them. */
function generate(): { source: string; statements: string[] }[] {
  const ddl = new ClusterDdl('explorer', 'explorer');
  const out = [{ source: 'schema_migrations (src/storage/migrate.ts)', statements: ddl.transform(SCHEMA_MIGRATIONS_TABLE) }];
  for (const m of readMigrations(sqlDir('clickhouse'))) {
    out.push({ source: `sql/clickhouse/${m.version}_${m.name}.sql`, statements: splitStatements(m.sql).flatMap((s) => ddl.transform(s)) });
  }
  return out;
}

function render(parts: ReturnType<typeof generate>): string {
  const lines = [
    '-- The cluster form (CLICKHOUSE_CLUSTER=explorer, CLICKHOUSE_DATABASE=explorer) of the ClickHouse',
    '-- migrations, as src/storage/clickhouse/cluster-ddl.ts writes it. Generated: do not edit by hand;',
    '-- test/unit/storage/clickhouse/cluster-ddl.test.ts says how to regenerate it.',
  ];
  for (const p of parts) lines.push('', `-- ${p.source}`, ...p.statements.map((s) => `${s};`));
  return lines.join('\n') + '\n';
}

t.test('the cluster DDL of every migration equals the checked-in expected form', async (t) => {
  const text = render(generate());
  if (process.env.UPDATE_CLUSTER_DDL === '1') {
    fs.writeFileSync(EXPECTED, text);
    t.comment(`wrote ${EXPECTED}`);
  }
  t.equal(text, fs.readFileSync(EXPECTED, 'utf8'), `${EXPECTED} is what cluster-ddl.ts writes (UPDATE_CLUSTER_DDL=1 regenerates it)`);
});

t.test('every generated statement parses in the ClickHouse parser (chDB EXPLAIN AST)', async (t) => {
  const ch = await openClickHouse({ database: 'cluster_ddl_test', dataDir: tmpDir(t) });
  t.teardown(() => ch.close());
  let n = 0;
  for (const p of generate()) {
    for (const s of p.statements) {
      await ch.query(`EXPLAIN AST ${s}`).catch((e: Error) => t.fail(`${p.source}: ${s}\n${e.message}`));
      n++;
    }
  }
  t.ok(n > 50, `${n} statements parsed`);
});

t.test('every table is a replicated local table with a Distributed table over it, on the cluster', async (t) => {
  const all = generate().flatMap((p) => p.statements);
  for (const s of all) {
    if (s.startsWith('INSERT')) t.notMatch(s, /_local\b/, `a backfill goes through the Distributed tables: ${s.slice(0, 60)}`);
    else t.match(s, / ON CLUSTER explorer\b/, `runs on the cluster: ${s.slice(0, 60)}`);
  }
  for (const [table, key] of Object.entries(SHARDING_KEYS)) {
    const local = all.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${localTable(table)} ON CLUSTER explorer (`));
    t.ok(local, `${table}: local table created`);
    t.match(local ?? '', /ENGINE = ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/\{uuid\}\/\{shard\}', '\{replica\}'\)/, `${table}: replicated`);
    t.ok(
      all.includes(`CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER explorer AS ${localTable(table)} ENGINE = Distributed('explorer', 'explorer', '${localTable(table)}', ${key})`),
      `${table}: Distributed by ${key}`,
    );
  }
  t.notOk(all.some((s) => /ENGINE = (Replacing|Summing|Aggregating|Collapsing)?MergeTree/.test(s)), 'no plain MergeTree table is left');
});

t.test('a rebuilt copy takes its source\'s key and only the local tables are exchanged (0003)', async (t) => {
  const ddl = new ClusterDdl('c1', 'db');
  t.same(ddl.transform('DROP TABLE IF EXISTS logs__re'), ['DROP TABLE IF EXISTS logs__re ON CLUSTER c1', 'DROP TABLE IF EXISTS logs__re_local ON CLUSTER c1']);
  t.same(ddl.transform('CREATE TABLE logs__re AS logs ENGINE = ReplacingMergeTree ORDER BY (block_number, log_index)'), [
    "CREATE TABLE logs__re_local ON CLUSTER c1 AS logs_local ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}') ORDER BY (block_number, log_index)",
    "CREATE TABLE logs__re ON CLUSTER c1 AS logs__re_local ENGINE = Distributed('c1', 'db', 'logs__re_local', block_number)",
  ]);
  t.same(ddl.transform('INSERT INTO logs__re SELECT * FROM logs'), ['INSERT INTO logs__re SELECT * FROM logs'], 'a backfill goes through the Distributed tables');
  t.same(ddl.transform('EXCHANGE TABLES logs AND logs__re'), ['EXCHANGE TABLES logs_local AND logs__re_local ON CLUSTER c1']);
  t.same(
    ddl.transform('CREATE TABLE IF NOT EXISTS coin_balance_history (a String) ENGINE = ReplacingMergeTree(ver) ORDER BY a'),
    [
      "CREATE TABLE IF NOT EXISTS coin_balance_history_local ON CLUSTER c1 (a String) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{uuid}/{shard}', '{replica}', ver) ORDER BY a",
      "CREATE TABLE IF NOT EXISTS coin_balance_history ON CLUSTER c1 AS coin_balance_history_local ENGINE = Distributed('c1', 'db', 'coin_balance_history_local', cityHash64(address))",
    ],
    'engine arguments follow the replication arguments',
  );
});

t.test('ALTER: local tables first for added and changed columns, the Distributed table first for dropped ones, codecs only on the local tables', async (t) => {
  const ddl = new ClusterDdl('c1', 'db');
  t.same(ddl.transform('ALTER TABLE logs\n  MODIFY COLUMN data String CODEC(ZSTD(1)),\n  MODIFY COLUMN log_index UInt32 CODEC(Delta, ZSTD(1))'), [
    'ALTER TABLE logs_local ON CLUSTER c1\n  MODIFY COLUMN data String CODEC(ZSTD(1)),\n  MODIFY COLUMN log_index UInt32 CODEC(Delta, ZSTD(1))',
    'ALTER TABLE logs ON CLUSTER c1\n  MODIFY COLUMN data String,\n  MODIFY COLUMN log_index UInt32',
  ]);
  t.same(ddl.transform('ALTER TABLE logs ADD COLUMN x UInt8 DEFAULT 0, DROP COLUMN y, MODIFY COLUMN z CODEC(ZSTD(3))'), [
    'ALTER TABLE logs ON CLUSTER c1\n  DROP COLUMN y',
    'ALTER TABLE logs_local ON CLUSTER c1\n  ADD COLUMN x UInt8 DEFAULT 0,\n  DROP COLUMN y,\n  MODIFY COLUMN z CODEC(ZSTD(3))',
    'ALTER TABLE logs ON CLUSTER c1\n  ADD COLUMN x UInt8 DEFAULT 0',
  ]);
});

t.test('MergeTree settings and the primary index: the local tables alone (a Distributed table has neither)', async (t) => {
  const ddl = new ClusterDdl('c1', 'db');
  t.same(ddl.transform('ALTER TABLE logs MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1'), [
    'ALTER TABLE logs_local ON CLUSTER c1\n  MODIFY SETTING primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1',
  ]);
  t.same(ddl.transform('SYSTEM UNLOAD PRIMARY KEY logs'), ['SYSTEM UNLOAD PRIMARY KEY ON CLUSTER c1 logs_local']);
});

t.test('a statement with no cluster form throws, naming it', async (t) => {
  const ddl = new ClusterDdl('c1', 'db');
  const cases: [string, RegExp][] = [
    ['CREATE TABLE IF NOT EXISTS mystery (a UInt8) ENGINE = ReplacingMergeTree ORDER BY a', /"CREATE TABLE IF NOT EXISTS mystery .*": table mystery has no sharding key/],
    ['CREATE TABLE IF NOT EXISTS blocks (a UInt8) ENGINE = Memory', /no cluster form for the ClickHouse statement "CREATE TABLE IF NOT EXISTS blocks/],
    ["CREATE TABLE IF NOT EXISTS blocks (a UInt8) ENGINE = ReplicatedReplacingMergeTree('/p', 'r') ORDER BY a", /replicated already/],
    ['CREATE MATERIALIZED VIEW mv TO blocks AS SELECT * FROM logs', /"CREATE MATERIALIZED VIEW mv .*": a view needs its own cluster form/],
    ['CREATE TABLE x__copy AS nowhere ENGINE = MergeTree ORDER BY a', /neither x__copy nor nowhere has a sharding key/],
    ['ALTER TABLE logs ADD INDEX i address TYPE bloom_filter', /"ALTER TABLE logs ADD INDEX .*": the ALTER command "ADD INDEX i address TYPE bloom_filter" has no rule/],
    ['ALTER TABLE logs ON CLUSTER c1 DROP COLUMN y', /has no rule/],
    ['ALTER TABLE logs DELETE WHERE block_number > 5', /has no rule/],
    ['EXCHANGE TABLES logs AND address_logs', /logs and address_logs must have the same known sharding key \(block_number and cityHash64\(address\)\)/],
    ['EXCHANGE TABLES logs AND unknown', /must have the same known sharding key/],
    ['OPTIMIZE TABLE logs FINAL', /"OPTIMIZE TABLE logs FINAL": this kind of statement has no rule/],
    ['TRUNCATE TABLE logs', /"TRUNCATE TABLE logs"/],
    ['DELETE FROM logs WHERE block_number > 5', /"DELETE FROM logs WHERE block_number > 5"/],
    ['RENAME TABLE logs TO logs2', /"RENAME TABLE logs TO logs2"/],
    ['CREATE TABLE IF NOT EXISTS logs ON CLUSTER c1 (a UInt8) ENGINE = ReplacingMergeTree ORDER BY a', /no cluster form/],
  ];
  for (const [stmt, want] of cases) t.throws(() => ddl.transform(stmt), want, stmt);
  t.throws(() => new ClusterDdl('bad-name', 'db'), /invalid ClickHouse cluster name "bad-name"/);
  t.throws(() => new ClusterDdl('c1', 'db;'), /invalid ClickHouse database name/);
});

t.test('a store with a cluster: refused on the embedded engine, and by a server that has no such cluster', async (t) => {
  await t.rejects(
    openClickHouse({ database: 'explorer', dataDir: tmpDir(t), cluster: 'explorer' }),
    /CLICKHOUSE_CLUSTER=explorer needs CLICKHOUSE_URL: the embedded engine \(chDB\) is one server/,
  );
  const server = await startChdbHttp(t);
  await t.rejects(
    openClickHouse({ url: server.url, database: 'explorer', cluster: 'explorer' }),
    /CLICKHOUSE_CLUSTER=explorer: the ClickHouse server knows no such cluster \(system.clusters/,
  );
  await t.rejects(openClickHouse({ url: server.url, database: 'explorer', cluster: 'a-b' }), /invalid ClickHouse cluster name "a-b"/);
});
