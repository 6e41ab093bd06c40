// `explorer notifier` killed with kill -9 in the middle of deliveries, then restarted: every
// event is delivered at least once.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { withDevnet, devAccount } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { tmpDir } from './helpers/tmp.js';
import { startReceiver } from './helpers/receiver.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { WatchlistMatcher } from '../src/notify/watchlist.js';
import { projectRoot } from '../src/paths.js';

const CLI = path.join(projectRoot(), 'build', 'src', 'bin', 'explorer.js');

async function until(fn: () => boolean | Promise<boolean>, what: string, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('kill -9 of the notifier mid-delivery loses nothing', async (t) => {
  const devnet = await withDevnet(t);
  const url = devnet.url;
  const stores = await embeddedStores(t);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false });
  const matcher = new WatchlistMatcher(stores.pg);
  await matcher.start();
  matcher.attach(indexer);
  await indexer.start();
  t.teardown(async () => {
    await indexer.stop();
    await matcher.stop();
  });
  await indexer.waitFor(Number(await rpc<string>(url, 'eth_blockNumber')));

  const W = devAccount(7).address.toLowerCase();
  const [user] = await stores.pg.query<{ id: string }>("INSERT INTO users (name, email, nickname) VALUES ('n', 'n@example.org', 'n') RETURNING id::text");
  const all = { incoming: true, outgoing: true };
  await stores.pg.query(
    `INSERT INTO watchlist (user_id, address_hash, name, notification_settings, notification_methods) VALUES ($1, $2, 'w', $3, '{"email": false, "webhook": true}')`,
    [user.id, W, JSON.stringify({ native: all, 'ERC-20': all, 'ERC-721': all, 'ERC-1155': all })],
  );
  await stores.pg.query("INSERT INTO notification_settings (user_id, webhook_url, webhook_secret) VALUES ($1, $2, 's')", [user.id, receiver.url]);
  await until(() => matcher.index.size === 1, 'the matcher');

  const spawnNotifier = (): ChildProcess => {
    const child = spawn(process.execPath, [CLI, 'notifier'], {
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: stores.pg.url,
        DATA_DIR: tmpDir(t),
        WEBHOOK_ALLOW_PRIVATE: 'true',
        NODE_EXTRA_CA_CERTS: path.join(projectRoot(), 'test', 'fixtures', 'tls', 'cert.pem'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.resume();
    child.stderr!.resume();
    t.teardown(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    return child;
  };

  receiver.delayMs = 1500; // deliveries hang long enough to be cut
  const hashes: string[] = [];
  for (let i = 1; i <= 4; i++) hashes.push(await rpc<string>(url, 'eth_sendTransaction', [{ from: devAccount(0).address, to: W, value: `0x${i.toString(16)}` }]));
  await indexer.waitFor(await minedIn(url, hashes[3]!));
  const first = spawnNotifier();
  await until(() => receiver.deliveries.length > 0 || receiver.pending() > 0, 'a delivery in flight');
  first.kill('SIGKILL');
  await new Promise((r) => first.once('exit', r));
  const [beforeRestart] = await stores.pg.query<{ n: number }>("SELECT count(*)::int AS n FROM notification_outbox WHERE status = 'delivered'");
  t.ok(beforeRestart.n < 4, `killed before everything was recorded (${beforeRestart.n} recorded)`);

  receiver.delayMs = 0;
  const second = spawnNotifier();
  await until(async () => {
    const [r] = await stores.pg.query<{ n: number }>("SELECT count(*)::int AS n FROM notification_outbox WHERE status = 'delivered'");
    return r.n === 4;
  }, 'every row delivered after the restart');
  second.kill('SIGTERM');
  await new Promise((r) => second.once('exit', r));
  const got = new Set(receiver.deliveries.filter((d) => d.status === 200).map((d) => JSON.parse(d.body).transaction.hash));
  for (const h of hashes) t.ok(got.has(h), `event ${h.slice(0, 10)} delivered at least once`);
});
