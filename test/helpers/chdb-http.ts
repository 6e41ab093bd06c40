// Starts test/helpers/chdb-http-server.ts (chDB over ClickHouse's HTTP interface) as its own
// process for a test, and stops it in the test's teardown.
import type { Test } from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpDir } from './tmp.js';

const SERVER = fileURLToPath(new URL('./chdb-http-server.js', import.meta.url));

export interface ChdbHttp {
  /** `http://user:password@127.0.0.1:port`, as CLICKHOUSE_URL takes it. */
  url: string;
  port: number;
  pid: number;
  /** What the server printed on stderr so far (for a failing test's message). */
  stderr(): string;
}

export interface ChdbHttpOptions {
  dataDir?: string;
  user?: string;
  password?: string;
  /** `clickhouse local` arguments for its chDB sessions, e.g. `--config-file=F` (a server's config.d file). */
  engineArgs?: string[];
}

export async function startChdbHttp(t: Test, opts: ChdbHttpOptions = {}): Promise<ChdbHttp> {
  const dataDir = opts.dataDir ?? tmpDir(t, 'explorer-chdb-http-');
  const user = opts.user ?? 'explorer';
  const password = opts.password ?? 'test-secret';
  const engine = (opts.engineArgs ?? []).flatMap((a) => ['--engine-arg', a]);
  const child = spawn(process.execPath, [SERVER, '--data-dir', dataDir, '--user', user, '--password', password, ...engine], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  t.teardown(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`chdb-http-server exited (${code}) before listening: ${err}`)));
  });
  return {
    url: `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    stderr: () => err,
  };
}
