// A PostgreSQL server from Debian's `postgresql` package for a test: bench/store-servers.ts's
// server (its own cluster in a temporary directory, a free port of 127.0.0.1, password
// authentication, as the package's `postgres` user when run as root), stopped in the test's teardown.
import type { Test } from 'tap';
import { startPostgres } from '../../bench/store-servers.js';
import { tmpDir } from './tmp.js';

export { debianPostgresBin } from '../../bench/store-servers.js';

export interface DebianPostgres {
  /** `postgres://explorer:<password>@127.0.0.1:<port>/explorer`, as DATABASE_URL takes it. */
  url: string;
  port: number;
  pid: number;
  bin: string;
}

export async function startDebianPostgres(t: Test, bin: string): Promise<DebianPostgres> {
  const server = await startPostgres(bin, tmpDir(t, 'explorer-pg-server-'));
  t.teardown(() => server.stop());
  return { url: server.url, port: Number(new URL(server.url).port), pid: server.pid, bin };
}
