// Forward-only migrations: numbered files sql/clickhouse/NNNN_name.sql and
// sql/postgres/NNNN_name.sql, each applied once and recorded with its checksum. Rerunning is a
// no-op; an applied file that was edited afterwards stops the run (write a new file instead).
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { sqlDir } from '../paths.js';
import type { ClickHouseStore } from './clickhouse/store.js';
import { ClusterDdl } from './clickhouse/cluster-ddl.js';
import type { PgStore } from './postgres/store.js';

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationReport {
  applied: string[];
  skipped: string[];
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function readMigrations(dir: string): Migration[] {
  if (!fs.existsSync(dir)) return [];
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  const seen = new Set<string>();
  return files.map((f) => {
    const m = FILE.exec(f);
    if (!m) throw new Error(`migration file ${f} in ${dir} is not named NNNN_name.sql`);
    if (seen.has(m[1])) throw new Error(`two migrations in ${dir} share the number ${m[1]}`);
    seen.add(m[1]);
    const sql = fs.readFileSync(path.join(dir, f), 'utf8');
    return { version: m[1], name: m[2], sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') };
  });
}

/** Splits a file into statements at semicolons that end a line, ignoring `--` comment lines. */
export function splitStatements(sql: string): string[] {
  const lines = sql.split('\n').filter((l) => !/^\s*--/.test(l));
  const out: string[] = [];
  let cur: string[] = [];
  for (const line of lines) {
    cur.push(line);
    if (/;\s*$/.test(line)) {
      const stmt = cur.join('\n').trim().replace(/;\s*$/, '');
      if (stmt) out.push(stmt);
      cur = [];
    }
  }
  const rest = cur.join('\n').trim();
  if (rest) out.push(rest);
  return out;
}

function checkApplied(engine: string, m: Migration, recorded: string | undefined): boolean {
  if (recorded === undefined) return false;
  if (recorded !== m.checksum) {
    throw new Error(
      `${engine} migration ${m.version}_${m.name} was changed after it was applied; migrations are forward-only: add a new file instead`,
    );
  }
  return true;
}

export async function migratePostgres(pg: PgStore, dir = sqlDir('postgres')): Promise<MigrationReport> {
  const report: MigrationReport = { applied: [], skipped: [] };
  await pg.tx(async (c) => {
    // One migrator at a time across processes.
    await c.query('SELECT pg_advisory_xact_lock(7461234001)');
    await c.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now())`);
    const rows = (await c.query<{ version: string; checksum: string }>('SELECT version, checksum FROM schema_migrations')).rows;
    const done = new Map(rows.map((r) => [r.version, r.checksum]));
    for (const m of readMigrations(dir)) {
      if (checkApplied('postgres', m, done.get(m.version))) {
        report.skipped.push(`${m.version}_${m.name}`);
        continue;
      }
      await c.query(m.sql);
      await c.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
      report.applied.push(`${m.version}_${m.name}`);
    }
  });
  return report;
}

export const SCHEMA_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version String, name String, checksum String, applied_at DateTime('UTC') DEFAULT now()
  ) ENGINE = ReplacingMergeTree ORDER BY version`;

/**
 * A cluster (CLICKHOUSE_CLUSTER) runs the cluster form of each statement (cluster-ddl.ts); the
 * versions and checksums recorded are the files' own, as on one server. A database a single
 * server made is refused: its tables are not Distributed, and recording nothing new would leave
 * it so.
 */
async function clusterForm(ch: ClickHouseStore): Promise<((stmt: string) => string[]) | undefined> {
  if (!ch.cluster) return undefined;
  const [existing] = await ch.query<{ engine: string }>(
    `SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'schema_migrations'`,
  );
  if (existing && existing.engine !== 'Distributed') {
    throw new Error(
      `CLICKHOUSE_CLUSTER=${ch.cluster}: database ${ch.database} was made for one server (schema_migrations is ${existing.engine}); a cluster needs a new database (CLICKHOUSE_DATABASE)`,
    );
  }
  const ddl = new ClusterDdl(ch.cluster, ch.database);
  return (stmt) => ddl.transform(stmt);
}

/**
 * ClickHouse DDL is not transactional, so every statement of a migration must be idempotent
 * (IF NOT EXISTS, ...): a run stopped half-way is completed by the next one.
 */
export async function migrateClickHouse(ch: ClickHouseStore, dir = sqlDir('clickhouse')): Promise<MigrationReport> {
  const report: MigrationReport = { applied: [], skipped: [] };
  const cluster = await clusterForm(ch);
  for (const stmt of cluster ? cluster(SCHEMA_MIGRATIONS_TABLE) : [SCHEMA_MIGRATIONS_TABLE]) await ch.command(stmt);
  const rows = await ch.query<{ version: string; checksum: string }>(
    `SELECT version, argMax(checksum, applied_at) AS checksum FROM schema_migrations GROUP BY version`,
  );
  const done = new Map(rows.map((r) => [r.version, r.checksum]));
  for (const m of readMigrations(dir)) {
    if (checkApplied('clickhouse', m, done.get(m.version))) {
      report.skipped.push(`${m.version}_${m.name}`);
      continue;
    }
    // On a cluster the whole file is transformed before anything runs: a statement with no
    // cluster form stops the run before the file's first statement, not half-way through it.
    const statements = cluster ? splitStatements(m.sql).flatMap(cluster) : splitStatements(m.sql);
    for (const stmt of statements) {
      await ch.command(stmt);
    }
    await ch.command(
      `INSERT INTO schema_migrations (version, name, checksum) VALUES ({v:String}, {n:String}, {c:String})`,
      { v: m.version, n: m.name, c: m.checksum },
    );
    report.applied.push(`${m.version}_${m.name}`);
  }
  return report;
}

