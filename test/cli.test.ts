import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../src/paths.js';
import { freePort, pidAlive } from '../src/net/local.js';
import { tmpDir } from './helpers/tmp.js';

const CLI = path.join(projectRoot(), 'build', 'src', 'bin', 'explorer.js');
const cleanEnv = (extra: Record<string, string> = {}) => {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };
  return { ...env, ...extra };
};
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], { env: cleanEnv(env), encoding: 'utf8', timeout: 60_000 });

t.test('help for the command and each role', async (t) => {
  const main = run(['--help']);
  t.equal(main.status, 0);
  for (const role of ['start', 'indexer', 'api', 'notifier', 'migrate']) {
    t.match(main.stdout, new RegExp(`\\n  ${role}\\s`), `lists ${role}`);
    const r = run([role, '--help']);
    t.equal(r.status, 0, `${role} --help exits 0`);
    t.match(r.stdout, `Usage: explorer ${role}`);
  }
  const settings = run(['--help', 'settings']);
  t.match(settings.stdout, '`ETHEREUM_JSONRPC_HTTP_URL`');
  const none = run([]);
  t.equal(none.status, 2, 'no command is a usage error');
  const unknown = run(['frobnicate']);
  t.equal(unknown.status, 2);
  t.match(unknown.stderr, 'unknown command "frobnicate"');
});

t.test('the indexer role needs a node URL', async (t) => {
  const r = run(['indexer'], { DATA_DIR: tmpDir(t) });
  t.equal(r.status, 78);
  t.match(r.stderr, 'ETHEREUM_JSONRPC_HTTP_URL is not set');
});

t.test('a bad setting stops the start with a message naming it', async (t) => {
  const r = run(['start'], { API_PORT: 'eighty', DATA_DIR: tmpDir(t) });
  t.equal(r.status, 78);
  t.match(r.stderr, 'API_PORT="eighty" is invalid: expected an integer from 0 to 65535');
});

t.test('migrate applies once and is a no-op the second time', async (t) => {
  const dataDir = tmpDir(t);
  const a = run(['migrate'], { DATA_DIR: dataDir });
  t.equal(a.status, 0, a.stderr);
  t.match(a.stdout, /postgres_applied="?0001_indexer/);
  const b = run(['migrate'], { DATA_DIR: dataDir });
  t.equal(b.status, 0, b.stderr);
  t.match(b.stdout, /postgres_applied=none clickhouse_applied=none/);
});

function startExplorer(t: Test, dataDir: string, uiPort: number) {
  const child = spawn(process.execPath, [CLI, 'start'], {
    env: cleanEnv({ DATA_DIR: dataDir, API_PORT: '0', UI_PORT: String(uiPort), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  t.teardown(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`start did not become ready:\n${out}`)), 120_000);
    const check = () => {
      if (out.includes('running; press Ctrl-C to stop')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`start exited early:\n${out}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, ready, exited, log: () => out };
}

type Owner = { pid: number; postgresPid: number };

t.test('start with no settings brings everything up, stops it all on a signal, and reuses the data', async (t) => {
  const dataDir = tmpDir(t);
  // A free port for the UI, known in advance: PUBLIC_URL defaults to http://localhost:UI_PORT.
  const uiPort = await freePort();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    const s = startExplorer(t, dataDir, uiPort);
    await s.ready;
    const log = s.log();
    t.match(log, /PostgreSQL ready mode=embedded/);
    t.match(log, /ClickHouse ready mode="embedded chDB"/);
    t.match(log, /anvil devnet listening rpc=http:\/\/127\.0\.0\.1:\d+/);
    const owner = JSON.parse(fs.readFileSync(path.join(dataDir, 'postgres.owner'), 'utf8')) as Owner;
    t.ok(pidAlive(owner.postgresPid), 'postgres runs');
    const anvilPid = Number(/anvil devnet listening/.test(log) && findChildPid(s.child.pid!, 'anvil'));
    t.ok(anvilPid > 0 && pidAlive(anvilPid), 'anvil runs');
    const port = Number(/API listening host=\S+ port=(\d+)/.exec(log)?.[1]);
    t.ok(port > 0, 'the API listens');
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/main-page/indexing-status`);
    t.equal(res.status, 200, 'and answers');
    t.match(await res.json(), { finished_indexing_blocks: Boolean, indexed_blocks_ratio: String });
    // Its own devnet without PUBLIC_URL: SIWE binds to the local UI origin and the devnet's chain.
    const nonce = await fetch(`http://127.0.0.1:${port}/account/api/v1/auth/siwe/nonce`);
    t.equal(nonce.status, 200, 'SIWE works on its own devnet without PUBLIC_URL');
    t.match(await nonce.json(), { data: { domain: `localhost:${uiPort}`, uri: `http://localhost:${uiPort}`, chain_id: 31337 } });
    t.match(s.log(), new RegExp(`Sign-In with Ethereum binds to the local origin on this devnet origin=http://localhost:${uiPort}`));
    t.match(log, new RegExp(`web UI listening host=127\\.0\\.0\\.1 port=${uiPort}`), 'the web UI listens on UI_PORT');
    const home = await fetch(`http://127.0.0.1:${uiPort}/`);
    t.equal(home.status, 200, 'and serves the home page');
    t.match(await home.text(), /Latest blocks/);
    // Once both answer, the log names the URLs to open (not only host= and port=).
    for (let i = 0; i < 300 && !s.log().includes('in a browser'); i++) await new Promise((r) => setTimeout(r, 100));
    t.match(
      s.log(),
      new RegExp(`open http://127\\.0\\.0\\.1:${uiPort} in a browser web_ui=http://127\\.0\\.0\\.1:${uiPort} api=http://127\\.0\\.0\\.1:${port}/api/v2`),
      'the URLs to open are said once they answer',
    );
    if (sig === 'SIGINT') t.match(log, /fresh devnet: running the demo scenario/);
    else t.match(log, /devnet state restored head=\d+/, 'the second start continues the same chain');
    s.child.kill(sig);
    t.equal(await s.exited, 0, `clean exit on ${sig}`);
    t.match(s.log(), /all stopped/);
    t.match(s.log(), /indexer ready resume_from=\d+/, 'the indexer ran');
    t.notOk(pidAlive(owner.postgresPid), 'postgres stopped');
    t.notOk(pidAlive(anvilPid), 'anvil stopped');
    t.notOk(fs.existsSync(path.join(dataDir, 'postgres.owner')));
  }
  t.ok(fs.existsSync(path.join(dataDir, 'anvil', 'state.json')), 'devnet state kept');
  t.ok(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION')));
  t.ok(fs.existsSync(path.join(dataDir, 'clickhouse')));
});

/** pid of a direct child process with the given command name (from /proc). */
function findChildPid(parent: number, name: string): number {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
      if (m && m[1] === name && Number(m[2]) === parent) return Number(d);
    } catch {
      /* gone */
    }
  }
  return 0;
}
