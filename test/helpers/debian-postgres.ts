// A PostgreSQL server from Debian's `postgresql` package for a test: its own cluster in a
// temporary directory, on a free port of 127.0.0.1, with password authentication, stopped in the
// test's teardown. As root it runs as the package's `postgres` user (PostgreSQL refuses root).
import type { Test } from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { freePort } from '../../src/net/local.js';
import { tmpDir } from './tmp.js';

/** The bin directory of the newest Debian PostgreSQL, or null (its tests then skip, saying so). */
export function debianPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

export interface DebianPostgres {
  /** `postgres://explorer:<password>@127.0.0.1:<port>/explorer`, as DATABASE_URL takes it. */
  url: string;
  port: number;
  pid: number;
  bin: string;
}

function ids(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('running as root, and the Debian package\'s "postgres" user is missing');
  return { uid, gid: id('-g') };
}

export async function startDebianPostgres(t: Test, bin: string): Promise<DebianPostgres> {
  const user = ids();
  const dir = tmpDir(t, 'explorer-pg-server-');
  const data = path.join(dir, 'data');
  const password = 'pg-test-secret';
  const pwFile = path.join(dir, 'pw');
  fs.writeFileSync(pwFile, `${password}\n`);
  if (user) for (const p of [dir, pwFile]) fs.chownSync(p, user.uid, user.gid);
  const asOwner = { ...(user ?? {}), encoding: 'utf8' as const };
  const init = spawnSync(path.join(bin, 'initdb'), [`--pgdata=${data}`, '--username=explorer', `--pwfile=${pwFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'], asOwner);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const child = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'], {
    ...(user ?? {}),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (d) => (log += d));
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT'); // fast shutdown: disconnects clients, then exits cleanly
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await gone;
    clearTimeout(timer);
  });
  const env = { ...process.env, PGPASSWORD: password };
  for (let i = 0; ; i++) {
    const ready = spawnSync(path.join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'explorer', '-d', 'postgres'], { env });
    if (ready.status === 0) break;
    if (child.exitCode !== null || i > 150) throw new Error(`PostgreSQL did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const create = spawnSync(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'explorer', 'explorer'], { env, encoding: 'utf8' });
  if (create.status !== 0) throw new Error(`createdb failed: ${create.stderr}`);
  return { url: `postgres://explorer:${password}@127.0.0.1:${port}/explorer`, port, pid: child.pid!, bin };
}
