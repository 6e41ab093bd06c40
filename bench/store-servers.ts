// Store servers for the multi-process ingest benchmark (bench/ingest-multi.ts): a Debian
// PostgreSQL server and chDB behind ClickHouse's HTTP interface (test/helpers/chdb-http-server.ts,
// the stand-in the tests use, since no ClickHouse server can be installed here), each its own
// process on 127.0.0.1 with its data in a given directory. Several `explorer indexer` processes
// can share them, which the embedded stores (one process per data directory) do not allow.
// The test helpers start the same servers but tie their lifetime to a tap test; these return a
// stop() the benchmark calls itself, also on failure, and stop only the pids they started.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/net/local.js';

/** The compiled stand-in, beside this compiled file (build/bench -> build/test/helpers). */
const CHDB_HTTP_SERVER = fileURLToPath(new URL('../test/helpers/chdb-http-server.js', import.meta.url));

export interface StoreServer {
  /** As DATABASE_URL or CLICKHOUSE_URL takes it. */
  url: string;
  pid: number;
  /** Ends the server (its pid only) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Debian's PostgreSQL bin directory (newest version), or null when the package is missing. */
export function debianPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

/** Signals one child, escalating to SIGKILL after `graceMs`, and waits for its exit. */
function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  return gone.finally(() => clearTimeout(timer));
}

/** The package's `postgres` user when running as root (PostgreSQL refuses to run as root). */
function postgresOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root, and the Debian package\'s "postgres" user is missing');
  return { uid, gid: id('-g') };
}

/** A fresh cluster in `dir` with database `explorer`, fsync off (a benchmark's throwaway data). */
export async function startPostgres(bin: string, dir: string): Promise<StoreServer> {
  const owner = postgresOwner();
  fs.mkdirSync(dir, { recursive: true });
  const password = 'bench-secret';
  const pwFile = path.join(dir, 'pw');
  fs.writeFileSync(pwFile, `${password}\n`);
  if (owner) for (const p of [dir, pwFile]) fs.chownSync(p, owner.uid, owner.gid);
  const data = path.join(dir, 'data');
  const asOwner = { ...(owner ?? {}), encoding: 'utf8' as const };
  const init = spawnSync(path.join(bin, 'initdb'), [`--pgdata=${data}`, '--username=explorer', `--pwfile=${pwFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'], asOwner);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  // max_connections: each indexer process holds a pool plus its catch-up session.
  const child = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'], {
    ...(owner ?? {}),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (d) => (log += d));
  // SIGINT is PostgreSQL's fast shutdown: clients disconnected, then a clean exit.
  const stop = () => stopChild(child, 'SIGINT', 15_000);
  try {
    const env = { ...process.env, PGPASSWORD: password };
    for (let i = 0; ; i++) {
      const ready = spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'explorer', '-d', 'postgres'], { env });
      if (ready.status === 0) break;
      if (child.exitCode !== null || i > 150) throw new Error(`PostgreSQL did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const create = spawnSync(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'explorer', 'explorer'], { env, encoding: 'utf8' });
    if (create.status !== 0) throw new Error(`createdb failed: ${create.stderr}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `postgres://explorer:${password}@127.0.0.1:${port}/explorer`, pid: child.pid!, stop };
}

/** chDB over ClickHouse's HTTP interface, its data in `dir`. */
export async function startChdbHttp(dir: string): Promise<StoreServer> {
  if (!fs.existsSync(CHDB_HTTP_SERVER)) throw new Error(`${CHDB_HTTP_SERVER} is missing: the benchmark runs from a full build (tsc -p .), which compiles test/helpers too`);
  fs.mkdirSync(dir, { recursive: true });
  const user = 'explorer';
  const password = 'bench-secret';
  const child = spawn(process.execPath, [CHDB_HTTP_SERVER, '--data-dir', dir, '--user', user, '--password', password], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const stop = () => stopChild(child, 'SIGTERM', 10_000);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /listening (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`chdb-http-server exited (${code}) before listening: ${err}`)));
    });
    return { url: `http://${user}:${password}@127.0.0.1:${port}`, pid: child.pid!, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
