// ClickHouse migrations on a cluster (CLICKHOUSE_CLUSTER), against a store that records what it
// is sent (no cluster runs here): the cluster form of each statement runs, the versions and
// checksums recorded are the files' own, and a database made for one server is refused. The
// single-node path runs on chDB in test/stores.test.ts and every devnet test.
import t from 'tap';
import { migrateClickHouse, readMigrations, splitStatements } from '../../../src/storage/migrate.js';
import { ClusterDdl } from '../../../src/storage/clickhouse/cluster-ddl.js';
import type { ClickHouseStore } from '../../../src/storage/clickhouse/store.js';
import { sqlDir } from '../../../src/paths.js';

function recorder(schemaMigrationsEngine: string | null, applied: { version: string; checksum: string }[] = []) {
  const commands: { sql: string; params?: Record<string, unknown> }[] = [];
  const ch = {
    cluster: 'explorer',
    database: 'explorer',
    async query(sql: string) {
      if (sql.includes('system.tables')) return schemaMigrationsEngine ? [{ engine: schemaMigrationsEngine }] : [];
      if (sql.includes('FROM schema_migrations')) return applied;
      throw new Error(`unexpected query ${sql}`);
    },
    async command(sql: string, params?: Record<string, unknown>) {
      commands.push({ sql, params });
    },
  } as unknown as ClickHouseStore;
  return { ch, commands };
}

t.test('a new cluster database: every statement in its cluster form, the files\' versions and checksums recorded', async (t) => {
  const { ch, commands } = recorder(null);
  const report = await migrateClickHouse(ch);
  const files = readMigrations(sqlDir('clickhouse'));
  t.same(report.applied, files.map((m) => `${m.version}_${m.name}`));
  const ddl = new ClusterDdl('explorer', 'explorer');
  const records = commands.filter((c) => c.sql.startsWith('INSERT INTO schema_migrations'));
  t.same(records.map((c) => c.params), files.map((m) => ({ v: m.version, n: m.name, c: m.checksum })));
  const ddlSent = commands.filter((c) => !c.sql.startsWith('INSERT INTO schema_migrations')).map((c) => c.sql);
  t.match(ddlSent[0], /^CREATE TABLE IF NOT EXISTS schema_migrations_local ON CLUSTER explorer /);
  t.match(ddlSent[1], /^CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER explorer AS schema_migrations_local ENGINE = Distributed/);
  const want = files.flatMap((m) => splitStatements(m.sql).flatMap((s) => ddl.transform(s)));
  t.same(ddlSent.slice(2), want, 'the migrations, transformed, in order');
});

t.test('already applied files are skipped as on one server', async (t) => {
  const files = readMigrations(sqlDir('clickhouse'));
  const { ch, commands } = recorder('Distributed', files.map((m) => ({ version: m.version, checksum: m.checksum })));
  const report = await migrateClickHouse(ch);
  t.same(report.applied, []);
  t.equal(report.skipped.length, files.length);
  t.equal(commands.length, 2, 'only the (idempotent) schema_migrations tables');
});

t.test('a database made for one server is refused with a cluster', async (t) => {
  const { ch, commands } = recorder('ReplacingMergeTree');
  await t.rejects(migrateClickHouse(ch), /CLICKHOUSE_CLUSTER=explorer: database explorer was made for one server \(schema_migrations is ReplacingMergeTree\); a cluster needs a new database/);
  t.same(commands, [], 'nothing was run');
});
