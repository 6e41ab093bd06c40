// Backup and restore of the store servers (#20) with deploy/README.md's composed-stack commands, run
// here against a Debian PostgreSQL server and chDB over ClickHouse's HTTP interface configured with
// deploy/clickhouse-backups.xml (no Docker engine and no ClickHouse server here): an indexed devnet
// with an account and a watchlist entry is backed up with `pg_dump --format=custom` and `BACKUP
// DATABASE explorer TO Disk('backups', NAME)`, the backup folder is copied to a new ClickHouse's
// backups disk, both are restored into new, empty servers as the docs say (`pg_restore --clean
// --if-exists --no-owner`, `DROP DATABASE IF EXISTS explorer SYNC`, `RESTORE DATABASE ...`), and
// `explorer api` on the restored pair must answer every block, transaction, token transfer, log
// and the watchlist as before; `explorer migrate` finds nothing to apply and `explorer indexer`
// resumes after the last block it had indexed. The same restore is then run again over those
// servers once they have indexed past the backup (the docs' "restore into the same stack").
// pg_dump carries the point rows (#30, PostgreSQL's copy of each block and transaction) with every
// other table: each restore holds as many, and the reads by hash use them.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { freePort } from '../src/net/local.js';
import { PROJECT_ROOT } from './helpers/fixtures.js';
import { debianPostgresBin, startDebianPostgres, type DebianPostgres } from './helpers/debian-postgres.js';
import { startChdbHttp, type ChdbHttp } from './helpers/chdb-http.js';
import { withDevnet } from './helpers/devnet.js';
import { rpcCall } from './helpers/api.js';
import { tmpDir } from './helpers/tmp.js';
import { THIS_CLI, apiAnswers, runExplorer, settles, startExplorerProcess, waitFor } from './helpers/explorer-process.js';
import { openPostgres } from '../src/storage/postgres/store.js';
import { openStores } from '../src/storage/stores.js';
import { answersFromStores, pointBackfillState, pointRowCounts } from './helpers/point-rows.js';

const pgBin = debianPostgresBin();
const skip = pgBin ? false : "Debian's postgresql is not installed (apt-get install postgresql)";

/** The compose stack's ClickHouse config, its /backups/ (the volume's mount point) moved to `dir`. */
function backupsConfig(work: string, dir: string): string {
  const xml = fs.readFileSync(path.join(PROJECT_ROOT, 'deploy', 'clickhouse-backups.xml'), 'utf8');
  const moved = xml.replaceAll('/backups/', `${dir}/`);
  if (moved === xml) throw new Error('deploy/clickhouse-backups.xml no longer names /backups/');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(work, `${path.basename(dir)}.xml`);
  fs.writeFileSync(file, moved);
  return file;
}

/** One statement sent as clickhouse-client sends it to the server: the SQL, nothing else. */
async function clickhouse(ch: ChdbHttp, sql: string): Promise<string> {
  const u = new URL(ch.url);
  const auth = Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
  const r = await fetch(`http://127.0.0.1:${ch.port}/`, { method: 'POST', headers: { authorization: `Basic ${auth}` }, body: sql });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${sql}: ${r.status} ${text}`);
  return text;
}

/** A pg tool from the server's own bin directory, as `docker compose exec -T postgres` runs it. */
function pgTool(pg: DebianPostgres, tool: string, args: string[], input?: Buffer) {
  return spawnSync(path.join(pg.bin, tool), ['-h', '127.0.0.1', '-p', String(pg.port), ...args], {
    env: { PATH: process.env.PATH ?? '', PGPASSWORD: new URL(pg.url).password },
    input,
    maxBuffer: 1 << 30,
  });
}

/** Stops a server a helper started (its teardown then finds it gone). */
async function stopServer(pid: number, signal: NodeJS.Signals): Promise<void> {
  process.kill(pid, signal);
  await waitFor(`process ${pid} to exit`, async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, 30_000);
}

t.test('pg_dump + ClickHouse BACKUP, restored into new servers: the same answers', { skip }, async (t) => {
  const devnet = await withDevnet(t);
  const head = Number(BigInt(await rpcCall<string>(devnet.url, 'eth_blockNumber')));
  const work = tmpDir(t, 'explorer-backup-servers-');
  const name = `explorer-${new Date().toISOString().slice(0, 10)}`;
  const [pg1, ch1] = await Promise.all([
    startDebianPostgres(t, pgBin!),
    startChdbHttp(t, { engineArgs: [`--config-file=${backupsConfig(work, path.join(work, 'backups-1'))}`] }),
  ]);
  const apiPort = await freePort();
  const api = `http://127.0.0.1:${apiPort}`;
  const envOf = (pg: DebianPostgres, ch: ChdbHttp, dir: string) => ({
    DATABASE_URL: pg.url,
    CLICKHOUSE_URL: ch.url,
    DATA_DIR: path.join(work, dir),
    ETHEREUM_JSONRPC_HTTP_URL: devnet.url,
    API_PORT: String(apiPort),
    HOST: '127.0.0.1',
    RATE_LIMIT_ANON: '0',
  });
  const env1 = envOf(pg1, ch1, 'first');
  const [, alice] = devnet.scenario.accounts;

  /** Chain data from ClickHouse and the account's rows from PostgreSQL, each answer as text. */
  const snapshot = (auth: Record<string, string>) =>
    apiAnswers(api, { head, address: alice, more: ['/api/v2/token-transfers'], accountPaths: ['/user/info', '/user/watchlist'], auth });

  // ---- the first stack: migrated, indexed, with an account ----
  const migrated = runExplorer(THIS_CLI, ['migrate'], env1);
  t.equal(migrated.status, 0, 'explorer migrate', { output: migrated.stdout + migrated.stderr });
  t.notMatch(migrated.stdout + migrated.stderr, /postgres_applied=none/, 'the first migrate creates the schema');
  const indexer1 = startExplorerProcess(t, THIS_CLI, ['indexer'], env1, { readyLine: 'indexer ready' });
  const api1 = startExplorerProcess(t, THIS_CLI, ['api'], env1, { readyLine: 'API listening' });
  await Promise.all([indexer1.ready, api1.ready]);
  const made = runExplorer(THIS_CLI, ['account', 'create', '--email', 'keep@example.org', '--name', 'Keep'], env1);
  t.equal(made.status, 0, 'explorer account create', { output: made.stderr });
  const auth = { authorization: `Bearer ${made.stdout.trim()}` };
  const added = await fetch(`${api}/account/api/v1/user/watchlist`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ address_hash: alice, name: 'alice, kept by pg_dump' }),
  });
  t.equal(added.status, 201, 'POST /user/watchlist', { body: await added.text() });
  await waitFor(`block ${head} indexed`, async () => (await fetch(`${api}/api/v2/blocks/${head}`)).status === 200);
  // Once the derived data settles, the indexer (and its lanes) stops, as the docs do before a backup.
  t.ok(await settles(() => snapshot(auth)), 'the derived data settles');
  t.equal(await indexer1.stop(), 0, 'the indexer stops cleanly');
  const before = await snapshot(auth);
  t.ok(before.size > 100, `${before.size} answers to compare`);
  t.match(before.get('/account/api/v1/user/watchlist'), /alice, kept by pg_dump/);
  t.ok(JSON.parse(before.get('/api/v2/token-transfers')!).items.length > 0, 'the devnet has token transfers');
  const txPaths = [...before.keys()].filter((p) => /^\/api\/v2\/transactions\/0x[0-9a-f]{64}$/.test(p));
  const pgBefore = await openPostgres({ url: pg1.url });
  const points = await pointRowCounts(pgBefore).finally(() => pgBefore.close());
  t.same(points, { transactions: txPaths.length, blocks: head + 1 }, `a point row for each of the ${txPaths.length} transactions and ${head + 1} blocks`);

  // ---- the backup, while the API keeps serving ----
  const dump = pgTool(pg1, 'pg_dump', ['-U', 'explorer', '-d', 'explorer', '--format=custom']);
  t.equal(dump.status, 0, 'pg_dump -U explorer -d explorer --format=custom', { stderr: String(dump.stderr) });
  const pgdump = path.join(work, `${name}.pgdump`);
  fs.writeFileSync(pgdump, dump.stdout);
  t.equal(dump.stdout.subarray(0, 5).toString('latin1'), 'PGDMP', 'a custom-format archive');
  const backup = await clickhouse(ch1, `BACKUP DATABASE explorer TO Disk('backups', '${name}')`);
  t.match(backup, /\tBACKUP_CREATED\b/, 'ClickHouse reports the backup created');
  t.ok(fs.existsSync(path.join(work, 'backups-1', name, '.backup')), "the backup folder is on the backups disk's path");
  // `docker compose cp clickhouse:/backups/$NAME ./$NAME.clickhouse`, the copy kept off the host.
  const kept = path.join(work, `${name}.clickhouse`);
  fs.cpSync(path.join(work, 'backups-1', name), kept, { recursive: true });
  t.equal(await api1.stop(), 0, 'the API stops cleanly');
  // The first stack is gone: nothing below can read it.
  await Promise.all([stopServer(ch1.pid, 'SIGTERM'), stopServer(pg1.pid, 'SIGINT')]);

  // ---- new, empty servers, restored as the docs say ----
  const [pg2, ch2] = await Promise.all([
    startDebianPostgres(t, pgBin!), // with its empty database explorer, as POSTGRES_DB makes it
    startChdbHttp(t, { engineArgs: [`--config-file=${backupsConfig(work, path.join(work, 'backups-2'))}`] }),
  ]);
  // CLICKHOUSE_DB=explorer: the image's entrypoint creates the database empty on first start.
  await clickhouse(ch2, 'CREATE DATABASE IF NOT EXISTS explorer');
  // `docker compose cp ./$NAME.clickhouse clickhouse:/backups/$NAME`
  fs.cpSync(kept, path.join(work, 'backups-2', name), { recursive: true });
  const env2 = envOf(pg2, ch2, 'second');

  /** deploy/README.md's restore, then the explorer on the restored pair answers as before. */
  async function restoreAndCompare(into: string, more: () => Promise<void> = async () => undefined): Promise<void> {
    const restored = pgTool(pg2, 'pg_restore', ['-U', 'explorer', '-d', 'explorer', '--clean', '--if-exists', '--no-owner'], fs.readFileSync(pgdump));
    t.equal(restored.status, 0, `pg_restore --clean --if-exists --no-owner into ${into}`, { stderr: String(restored.stderr) });
    t.equal(String(restored.stderr), '', 'with no warning or error');
    t.equal(await clickhouse(ch2, 'DROP DATABASE IF EXISTS explorer SYNC'), '', 'DROP DATABASE IF EXISTS explorer SYNC');
    t.match(await clickhouse(ch2, `RESTORE DATABASE explorer FROM Disk('backups', '${name}')`), /\tRESTORED\b/, 'ClickHouse reports the database restored');
    const again = runExplorer(THIS_CLI, ['migrate'], env2);
    t.equal(again.status, 0, 'explorer migrate on the restored pair', { output: again.stdout + again.stderr });
    t.match(again.stdout + again.stderr, /migrations done postgres_applied=none clickhouse_applied=none/, 'which has nothing to apply');
    const stores = await openStores({ databaseUrl: pg2.url, clickhouseUrl: ch2.url, dataDir: path.join(work, 'unused'), clickhouseDatabase: 'explorer' });
    try {
      t.same(await pointRowCounts(stores.pg), points, `the point rows restored into ${into}: as many as before`);
      t.equal((await pointBackfillState(stores.pg))?.done, true, 'and no backfill to do');
      const fromPoints = await answersFromStores(stores, txPaths, devnet.url);
      t.same([...fromPoints.answers], txPaths.map((p) => [p, before.get(p)]), `the ${txPaths.length} transactions by hash answer as before the backup`);
      t.equal(fromPoints.clickhouseHashLookups, 0, 'from the restored point rows');
    } finally {
      await stores.close();
    }
    const api2 = startExplorerProcess(t, THIS_CLI, ['api'], env2, { readyLine: 'API listening' });
    await api2.ready;
    const after = await snapshot(auth);
    let same = 0;
    for (const [p, body] of before) {
      if (after.get(p) === body) same++;
      else t.fail(`${p} answers differently after the restore`, { before: body.slice(0, 2000), after: after.get(p)?.slice(0, 2000) });
    }
    t.equal(same, before.size, `all ${before.size} answers as before the backup`);
    await more();
    t.equal(await api2.stop(), 0, 'the API stops cleanly');
  }

  /** The indexer on the restored pair resumes after the backup's last block and indexes a new one. */
  async function resume(): Promise<string> {
    const indexer = startExplorerProcess(t, THIS_CLI, ['indexer'], env2, { readyLine: 'indexer ready' });
    await indexer.ready;
    t.match(indexer.log(), new RegExp(`indexer ready resume_from=${head + 1}\\b`), 'the indexer resumes after the last block it had');
    const api2 = startExplorerProcess(t, THIS_CLI, ['api'], env2, { readyLine: 'API listening' });
    await api2.ready;
    const h = await rpcCall<string>(devnet.url, 'eth_sendTransaction', [{ from: alice, to: devnet.scenario.accounts[2], value: '0x1' }]);
    await waitFor('the new transaction', async () => (await fetch(`${api}/api/v2/transactions/${h}`)).status === 200);
    t.pass('and indexes a new block, served by the API');
    t.equal(await indexer.stop(), 0, 'the indexer stops cleanly');
    t.equal(await api2.stop(), 0, 'the API stops cleanly');
    return h;
  }

  await restoreAndCompare('the new, empty database');
  const newer = await resume();
  // "Restore into the same stack": the same commands over stores that moved on since the backup
  // (a block and a transaction more) bring back the backup's state, and indexing resumes again.
  await restoreAndCompare('the same, non-empty database', async () => {
    const gone = await fetch(`${api}/api/v2/transactions/${newer}`);
    t.equal(gone.status, 404, 'the transaction indexed after the backup is gone until indexed again');
  });
  await resume();
});
