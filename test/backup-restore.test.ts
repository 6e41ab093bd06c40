// Backup and restore of the embedded stores (#20), as deploy/README.md tells an operator to do it:
// index a devnet with an account, a watchlist entry, a private tag and a public-name submission;
// `explorer backup` is refused while the explorer runs, then taken with it stopped; the data
// directory is destroyed; `explorer restore` fills a new one, and the explorer started on it must
// answer every block, transaction and account row exactly as before, apply no migration, and
// resume indexing after the last block it had. The point rows (#30, PostgreSQL's copy of each
// block and transaction) come back with the cluster: as many, and the reads by hash use them.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../src/net/local.js';
import { withDevnet } from './helpers/devnet.js';
import { rpcCall } from './helpers/api.js';
import { tmpDir } from './helpers/tmp.js';
import { THIS_CLI, apiAnswers, runExplorer, settles, startExplorerProcess, waitFor } from './helpers/explorer-process.js';
import { openPostgres } from '../src/storage/postgres/store.js';
import { embeddedStores } from './helpers/stores.js';
import { answersFromStores, pointBackfillState, pointRowCounts } from './helpers/point-rows.js';

t.test('explorer backup, a lost data directory, explorer restore: the same answers', async (t) => {
  const devnet = await withDevnet(t);
  const work = tmpDir(t, 'explorer-backup-');
  const dataDir = path.join(work, 'data');
  const backupDir = path.join(work, 'backups', 'first');
  const restored = path.join(work, 'restored');
  const apiPort = await freePort();
  const base = {
    ETHEREUM_JSONRPC_HTTP_URL: devnet.url,
    API_PORT: String(apiPort),
    UI_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    RATE_LIMIT_ANON: '0',
  };
  const api = `http://127.0.0.1:${apiPort}`;
  const head = Number(BigInt(await rpcCall<string>(devnet.url, 'eth_blockNumber')));

  const made = runExplorer(THIS_CLI, ['account', 'create', '--email', 'keep@example.org', '--name', 'Keep'], { DATA_DIR: dataDir });
  t.equal(made.status, 0, made.stderr);
  const auth = { authorization: `Bearer ${made.stdout.trim()}` };
  const post = async (p: string, body: unknown) => {
    const r = await fetch(`${api}/account/api/v1${p}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    t.equal(r.status, 201, `POST ${p}: ${await r.clone().text()}`);
  };
  const [, alice, bob] = devnet.scenario.accounts;

  /** Every answer the comparison covers, as text: chain data from ClickHouse, account rows from PostgreSQL. */
  const snapshot = () =>
    apiAnswers(api, { head, address: alice, accountPaths: ['/user/info', '/user/watchlist', '/user/tags/address', '/user/public-names'], auth });

  // ---- an indexed explorer with account data ----
  const first = startExplorerProcess(t, THIS_CLI, ['start'], { ...base, DATA_DIR: dataDir });
  await first.ready;
  await waitFor(`block ${head} indexed`, async () => (await fetch(`${api}/api/v2/blocks/${head}`)).status === 200);
  t.ok(await settles(snapshot), 'the derived data settles');
  await post('/user/watchlist', { address_hash: alice, name: 'alice, kept by the backup' });
  await post('/user/tags/address', { address_hash: bob, name: 'bob tag' });
  await post('/user/public-names', { address_hash: bob, name: 'Bob Project' });
  const before = await snapshot();
  t.ok(before.size > 100, `${before.size} answers to compare`);
  t.match(before.get('/account/api/v1/user/watchlist'), /alice, kept by the backup/);

  const busy = runExplorer(THIS_CLI, ['backup', backupDir], { DATA_DIR: dataDir });
  t.not(busy.status, 0, 'a backup while the explorer runs is refused');
  t.match(busy.stdout + busy.stderr, /in use by process \d+: stop the explorer first/);
  t.notOk(fs.existsSync(path.join(backupDir, 'backup.json')), 'and writes nothing');
  t.equal(await first.stop(), 0, 'the explorer stops cleanly');

  // The point rows the backup must carry: one per block and transaction the explorer indexed.
  const txPaths = [...before.keys()].filter((p) => /^\/api\/v2\/transactions\/0x[0-9a-f]{64}$/.test(p));
  const pg = await openPostgres({ dataDir: path.join(dataDir, 'postgres') });
  const points = await pointRowCounts(pg).finally(() => pg.close());
  t.same(points, { transactions: txPaths.length, blocks: head + 1 }, `before the backup: a point row for each of the ${txPaths.length} transactions and ${head + 1} blocks`);

  // ---- backup, loss, restore ----
  const b = runExplorer(THIS_CLI, ['backup', backupDir], { DATA_DIR: dataDir });
  t.equal(b.status, 0, `explorer backup: ${b.stdout}${b.stderr}`);
  const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'backup.json'), 'utf8'));
  t.match(manifest, { format: 1, clickhouse_database: 'explorer', postgres_version: '18', devnet: false });
  t.ok(fs.existsSync(path.join(backupDir, 'clickhouse', '.backup')), "ClickHouse's own backup (BACKUP DATABASE ... TO File)");
  t.ok(fs.existsSync(path.join(backupDir, 'postgres', 'PG_VERSION')), "PostgreSQL's cluster");
  fs.rmSync(dataDir, { recursive: true, force: true });

  const r = runExplorer(THIS_CLI, ['restore', backupDir], { DATA_DIR: restored });
  t.equal(r.status, 0, `explorer restore: ${r.stdout}${r.stderr}`);
  const twice = runExplorer(THIS_CLI, ['restore', backupDir], { DATA_DIR: restored });
  t.not(twice.status, 0, 'a restore over existing stores is refused');
  t.match(twice.stdout + twice.stderr, /already holds stores/);

  // The restored point rows: as many as before, the backfill still done, and the transactions by
  // hash answer as before from them (no lookup by hash in ClickHouse).
  const stores = await embeddedStores(t, { dataDir: restored, migrate: false });
  t.same(await pointRowCounts(stores.pg), points, 'the restored PostgreSQL holds the same point rows');
  t.equal((await pointBackfillState(stores.pg))?.done, true, 'and no backfill to do');
  const fromPoints = await answersFromStores(stores, txPaths, devnet.url);
  t.same([...fromPoints.answers], txPaths.map((p) => [p, before.get(p)]), `the ${txPaths.length} transactions by hash answer as before the backup`);
  t.equal(fromPoints.clickhouseHashLookups, 0, 'from the restored point rows');
  await stores.close();

  // ---- the explorer on the restored directory ----
  const second = startExplorerProcess(t, THIS_CLI, ['start'], { ...base, DATA_DIR: restored });
  await second.ready;
  t.match(second.log(), /migrations applied postgres="up to date" clickhouse="up to date"/, 'the restored stores carry their migration records');
  t.match(second.log(), new RegExp(`indexer ready resume_from=${head + 1}\\b`), 'the indexer resumes after the last block it had');
  const after = await snapshot();
  for (const [p, body] of before) {
    if (after.get(p) !== body) t.fail(`${p} answers differently after the restore`, { before: body.slice(0, 2000), after: after.get(p)?.slice(0, 2000) });
  }
  t.pass(`all ${before.size} answers compared`);
  // The chain goes on: the restored explorer indexes a new block.
  const h = await rpcCall<string>(devnet.url, 'eth_sendTransaction', [{ from: alice, to: bob, value: '0x1' }]);
  await waitFor('the new transaction', async () => (await fetch(`${api}/api/v2/transactions/${h}`)).status === 200);
  t.equal(await second.stop(), 0, 'and stops cleanly');
});
