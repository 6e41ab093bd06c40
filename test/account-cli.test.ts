// `explorer account create` prints a working session token. The built CLI runs in its own
// process on a temporary DATA_DIR; the test opens that directory's PostgreSQL only after the CLI
// has exited (embedded stores allow one process per data directory).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../src/paths.js';
import { openPostgres } from '../src/storage/postgres/store.js';
import { tmpDir } from './helpers/tmp.js';
import { accountApp, client } from './helpers/account.js';

const CLI = path.join(projectRoot(), 'build', 'src', 'bin', 'explorer.js');
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });

t.test('account --help and usage errors', async (t) => {
  const main = run(['--help']);
  t.match(main.stdout, /\n {2}account\s/, 'listed by explorer --help');
  for (const args of [['account', '--help'], ['account', 'create', '--help']]) {
    const r = run(args);
    t.equal(r.status, 0, `${args.join(' ')} exits 0`);
    t.match(r.stdout, 'Usage: explorer account create --email');
  }
  const dataDir = tmpDir(t);
  for (const [args, msg] of [
    [['account'], 'a sub-command is required'],
    [['account', 'delete'], 'unknown sub-command'],
    [['account', 'create', '--name', 'N'], '--email is required'],
    [['account', 'create', '--email', 'a@example.org'], '--name is required'],
    [['account', 'create', '--email', 'not-an-email', '--name', 'N'], '--email must be an e-mail address'],
    [['account', 'create', '--email', 'a@example.org', '--name', ''], '--name must not be empty'],
    [['account', 'create', '--email', 'a@example.org', '--name'], '--name needs a value'],
    [['account', 'create', '--email', 'a@example.org', '--name', 'N', '--admin'], 'unexpected argument'],
  ] as const) {
    const r = run([...args], { DATA_DIR: dataDir });
    t.equal(r.status, 2, `${args.join(' ')}: usage error`);
    t.match(r.stderr, msg);
    t.equal(r.stdout, '', 'nothing on stdout');
  }
});

t.test('account create prints one line: a session token that works', async (t) => {
  const dataDir = tmpDir(t);
  const r = run(['account', 'create', '--email', 'Operator@Example.org', '--name', 'Operator', '--nickname', 'op'], { DATA_DIR: dataDir });
  t.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n').filter(Boolean);
  t.equal(lines.length, 1, 'one line on stdout');
  const token = lines[0];
  t.match(token, /^es_[A-Za-z0-9_-]{43}$/);

  const again = run(['account', 'create', '--email', 'operator@example.org', '--name', 'Other'], { DATA_DIR: dataDir });
  t.equal(again.status, 1, 'the same e-mail twice');
  t.match(again.stderr, 'already exists');
  t.equal(again.stdout, '');

  // The CLI has exited: this process may now open the same data directory.
  const pg = await openPostgres({ dataDir: path.join(dataDir, 'postgres') });
  t.teardown(() => pg.close());
  const app = await accountApp(t, pg);
  const call = client(app.handle);
  const info = await call('GET', '/user/info', { token });
  t.equal(info.status, 200);
  t.equal(info.body.data.name, 'Operator');
  t.equal(info.body.data.nickname, 'op');
  t.equal(info.body.data.email, 'operator@example.org');
  const key = await call('POST', '/user/api-keys', { token, body: { name: 'first key' } });
  t.equal(key.status, 201, 'the token creates API keys');
  t.equal((await call('GET', '/user/info', { token: key.body.data.api_key })).status, 200);
});
