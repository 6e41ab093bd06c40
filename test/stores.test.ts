import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPostgres } from '../src/storage/postgres/store.js';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { migrateClickHouse, migratePostgres, readMigrations, splitStatements } from '../src/storage/migrate.js';
import { sqlDir } from '../src/paths.js';
import { tmpDir } from './helpers/tmp.js';
import { pidAlive } from '../src/net/local.js';

t.test('migrations are applied once, recorded, and rerunning is a no-op', async (t) => {
  const dataDir = tmpDir(t);
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  const first = await migrateAll(stores);
  const pgFiles = readMigrations(sqlDir('postgres')).map((m) => `${m.version}_${m.name}`);
  const chFiles = readMigrations(sqlDir('clickhouse')).map((m) => `${m.version}_${m.name}`);
  t.same(first.postgres.applied, pgFiles);
  t.same(first.clickhouse.applied, chFiles);
  const second = await migrateAll(stores);
  t.same(second.postgres.applied, []);
  t.same(second.clickhouse.applied, []);
  t.same(second.postgres.skipped, pgFiles);
  const pgRec = await stores.pg.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
  t.same(pgRec.map((r) => r.version), pgFiles.map((f) => f.slice(0, 4)));
  const chRec = await stores.ch.query<{ n: string }>('SELECT count() AS n FROM schema_migrations');
  t.equal(Number(chRec[0].n), chFiles.length, 'one ClickHouse record per file, not doubled');
  const tables = await stores.ch.query<{ name: string }>(
    "SELECT name FROM system.tables WHERE database = 'explorer' ORDER BY name",
  );
  for (const name of ['blocks', 'transactions', 'logs', 'token_transfers', 'internal_transactions', 'address_transactions']) {
    t.ok(tables.some((r) => r.name === name), `table ${name} exists`);
  }
  const pgTables = await stores.pg.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
  t.ok(pgTables.some((r) => r.tablename === 'indexer_checkpoints'));
});

t.test('a new migration file is applied on the next run; an edited applied file is refused', async (t) => {
  const dataDir = tmpDir(t);
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  const pgDir = path.join(tmpDir(t), 'pg');
  const chDir = path.join(tmpDir(t), 'ch');
  fs.mkdirSync(pgDir);
  fs.mkdirSync(chDir);
  fs.writeFileSync(path.join(pgDir, '0001_a.sql'), 'CREATE TABLE a (x int);');
  fs.writeFileSync(path.join(chDir, '0001_a.sql'), 'CREATE TABLE IF NOT EXISTS a (x UInt8) ENGINE = MergeTree ORDER BY x;\n-- note; not a statement\nCREATE TABLE IF NOT EXISTS b (x UInt8) ENGINE = MergeTree ORDER BY x;\n');
  t.same((await migratePostgres(stores.pg, pgDir)).applied, ['0001_a']);
  t.same((await migrateClickHouse(stores.ch, chDir)).applied, ['0001_a']);
  fs.writeFileSync(path.join(pgDir, '0002_b.sql'), 'INSERT INTO a VALUES (7);');
  fs.writeFileSync(path.join(chDir, '0002_c.sql'), 'INSERT INTO a VALUES (7);');
  t.same((await migratePostgres(stores.pg, pgDir)).applied, ['0002_b']);
  t.same((await migrateClickHouse(stores.ch, chDir)).applied, ['0002_c']);
  t.same((await migratePostgres(stores.pg, pgDir)).applied, []);
  t.same(await stores.pg.query('SELECT x FROM a'), [{ x: 7 }], 'the insert ran once');
  t.same(await stores.ch.query('SELECT x FROM a'), [{ x: 7 }], 'the insert ran once');
  fs.writeFileSync(path.join(pgDir, '0001_a.sql'), 'CREATE TABLE a (x bigint);');
  await t.rejects(migratePostgres(stores.pg, pgDir), /changed after it was applied/);
  fs.writeFileSync(path.join(chDir, '0001_a.sql'), '-- edited\n');
  await t.rejects(migrateClickHouse(stores.ch, chDir), /changed after it was applied/);
  fs.writeFileSync(path.join(pgDir, 'bad-name.sql'), '');
  await t.rejects(migratePostgres(stores.pg, pgDir), /not named NNNN_name.sql/);
});

t.test('a failing Postgres migration leaves nothing behind', async (t) => {
  const dataDir = tmpDir(t);
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  const pgDir = path.join(tmpDir(t), 'pg');
  fs.mkdirSync(pgDir);
  fs.writeFileSync(path.join(pgDir, '0001_ok.sql'), 'CREATE TABLE ok (x int);');
  fs.writeFileSync(path.join(pgDir, '0002_bad.sql'), 'CREATE TABLE bad (x int); SELECT nonsense FROM nowhere;');
  await t.rejects(migratePostgres(stores.pg, pgDir));
  const tables = await stores.pg.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public'");
  t.notOk(tables.some((r) => r.tablename === 'ok' || r.tablename === 'bad'), 'the whole run was rolled back');
});

t.test('splitStatements', async (t) => {
  t.same(splitStatements('-- c;\nA;\nB\n  x;\n\nC'), ['A', 'B\n  x', 'C']);
});

t.test('embedded stores keep data across a restart', async (t) => {
  const dataDir = tmpDir(t);
  let stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  await migrateAll(stores);
  await stores.pg.query("INSERT INTO indexer_checkpoints (lane, block_number, block_hash) VALUES ('blocks', 42, '0xabc')");
  await stores.ch.insertRaw('withdrawals', Buffer.from('[7,1,9,"0x00000000000000000000000000000000000000aa","1000",1700000000]\n'));
  const url1 = stores.pg.url;
  await stores.close();
  const owner = path.join(dataDir, 'postgres.owner');
  t.notOk(fs.existsSync(owner), 'a clean stop removes the owner file');

  stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  let closed = false;
  t.teardown(() => (closed ? undefined : stores.close()));
  const again = await migrateAll(stores);
  t.same(again.postgres.applied, [], 'no migration runs twice');
  t.same(await stores.pg.query('SELECT lane, block_number, block_hash FROM indexer_checkpoints'), [
    { lane: 'blocks', block_number: 42, block_hash: '0xabc' },
  ]);
  t.same(await stores.ch.query('SELECT block_number, address, amount FROM withdrawals'), [
    { block_number: '7', address: '0x00000000000000000000000000000000000000aa', amount: '1000' },
  ]);
  t.not(stores.pg.url, url1, 'a fresh loopback port is chosen each start');
  // The URL names the Unix socket, in a folder of its own; the port answers on loopback too (tools).
  const u = new URL(stores.pg.url);
  const socketDir = decodeURIComponent(u.hostname);
  t.equal(path.dirname(socketDir), os.tmpdir(), 'the socket folder is under the temporary one');
  t.match(path.basename(socketDir), /^explorer-pg-/);
  t.ok(fs.existsSync(path.join(socketDir, `.s.PGSQL.${u.port}`)), 'the socket is there');
  const viaTcp = await openPostgres({ url: `postgres://explorer:${u.password}@127.0.0.1:${u.port}/postgres`, poolSize: 1 });
  t.same(await viaTcp.query('SELECT count(*)::int AS n FROM indexer_checkpoints'), [{ n: 1 }], 'and 127.0.0.1 at its port');
  await viaTcp.close();
  closed = true;
  await stores.close();
  t.notOk(fs.existsSync(socketDir), 'the socket folder is removed at stop');
});

t.test('a PostgreSQL server orphaned by a killed run is stopped and the data reused', async (t) => {
  const dataDir = tmpDir(t);
  const { startEmbeddedPostgres } = await import('../src/storage/postgres/store.js');
  const first = await startEmbeddedPostgres(path.join(dataDir, 'postgres'));
  // Pretend the owning process died: rewrite the owner file with a dead pid.
  const ownerFile = path.join(dataDir, 'postgres.owner');
  const owner = JSON.parse(fs.readFileSync(ownerFile, 'utf8'));
  t.ok(pidAlive(owner.postgresPid), 'server running');
  fs.writeFileSync(ownerFile, JSON.stringify({ ...owner, pid: 999999999 }));
  const second = await startEmbeddedPostgres(path.join(dataDir, 'postgres'));
  t.teardown(() => second.stop());
  t.notOk(pidAlive(owner.postgresPid), 'the orphan was stopped');
  t.ok(owner.socketDir, 'the owner file names the socket folder');
  t.notOk(fs.existsSync(owner.socketDir), "and the orphan's socket folder is removed");
  await first.stop().catch(() => undefined);
});

t.test('a data directory in use by a live process is refused', async (t) => {
  const dataDir = tmpDir(t);
  fs.mkdirSync(path.join(dataDir, 'postgres'), { recursive: true });
  // pid 1 is always alive.
  fs.writeFileSync(path.join(dataDir, 'postgres.owner'), JSON.stringify({ pid: 1 }));
  await t.rejects(openStores({ dataDir, clickhouseDatabase: 'explorer' }), /in use by process 1/);
});

t.test('lightweight delete removes rows for reorgs and resumption', async (t) => {
  const dataDir = tmpDir(t);
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  await migrateAll(stores);
  const rows = [1, 2, 3].map((n) => `[${n},1,9,"0xaa","1",1700000000]`).join('\n') + '\n';
  await stores.ch.insertRaw('withdrawals', Buffer.from(rows));
  await stores.ch.insertRaw('withdrawals', Buffer.from(rows)); // a re-insert after a crash
  await stores.ch.command('OPTIMIZE TABLE withdrawals FINAL');
  t.same(await stores.ch.query('SELECT count() AS n FROM withdrawals'), [{ n: '3' }], 're-insert replaces');
  await stores.ch.command('DELETE FROM withdrawals WHERE block_number >= {n:UInt64}', { n: 2 });
  t.same(await stores.ch.query('SELECT block_number FROM withdrawals'), [{ block_number: '1' }]);
});

t.test('0003 rebuilds the point-read tables with small granules, keeping every row, and can be rerun after a crash', async (t) => {
  const dataDir = tmpDir(t);
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  await migrateAll(stores);
  const ch = stores.ch;
  for (const name of ['blocks', 'hash_index', 'transactions', 'logs', 'token_transfers', 'internal_transactions']) {
    const [d] = await ch.query<{ q: string }>("SELECT create_table_query AS q FROM system.tables WHERE database = 'explorer' AND name = {n:String}", { n: name });
    t.match(d.q, /index_granularity = 1024/, `${name} has 1,024-row granules`);
  }
  await ch.command(
    `INSERT INTO transactions (block_number, transaction_index, hash, "from", value, input)
     SELECT intDiv(number, 10), number % 10, concat('0x', hex(number)), 'a''b\\\\c', number * 1000000007, repeat('ab', number % 50) FROM numbers(5000)`,
  );
  const digest = async () => (await ch.query<{ n: string; h: string }>('SELECT count() AS n, toString(groupBitXor(cityHash64(*))) AS h FROM transactions'))[0];
  const before = await digest();
  t.equal(before.n, '5000');
  const m = readMigrations(sqlDir('clickhouse')).find((x) => x.version === '0003');
  t.ok(m, 'the migration file exists');
  const stmts = splitStatements(m!.sql);
  const txStmts = stmts.filter((s) => /(^|[^_])transactions__regranulated/.test(s));
  t.equal(txStmts.length, 5, 'drop copy, create, copy rows, exchange, drop old');
  // Killed between the swap and the drop: the rerun must find every row under the original name.
  for (const s of txStmts.slice(0, 4)) await ch.command(s);
  t.same(await digest(), before, 'after the swap');
  for (const s of txStmts) await ch.command(s);
  t.same(await digest(), before, 'after a whole rerun');
  // Killed while copying: the partial copy is dropped and made again.
  await ch.command(txStmts[0]);
  await ch.command(txStmts[1]);
  await ch.command('INSERT INTO transactions__regranulated SELECT * FROM transactions LIMIT 100');
  for (const s of txStmts) await ch.command(s);
  t.same(await digest(), before, 'after a rerun over a partial copy');
  t.same(await ch.query("SELECT name FROM system.tables WHERE database = 'explorer' AND name LIKE '%regranulated'"), [], 'no copy left behind');
});
