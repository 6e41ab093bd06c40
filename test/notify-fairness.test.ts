// A slow receiver cannot stall other accounts' deliveries: each account gets at most a few of
// the notifier's slots.
import t from 'tap';
import { accountPg, newAccount } from './helpers/account.js';
import { startReceiver, TEST_CA } from './helpers/receiver.js';
import { Notifier } from '../src/notify/notifier.js';
import { enqueue } from '../src/storage/postgres/notify.js';

t.test('a slow receiver does not hold back another account', async (t) => {
  const pg = await accountPg(t);
  const slow = await startReceiver();
  const fast = await startReceiver();
  t.teardown(() => slow.close());
  t.teardown(() => fast.close());
  slow.delayMs = 2500;
  const a = await newAccount(pg, 'slow@example.org');
  const b = await newAccount(pg, 'fast@example.org');
  for (const [who, r] of [[a, slow], [b, fast]] as const) {
    await pg.query('INSERT INTO notification_settings (user_id, webhook_url, webhook_secret) VALUES ($1, $2, $3)', [who.userId, r.url, 'secret']);
  }
  const rows = (user: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({
      eventId: `${user}:${i}`,
      channel: 'webhook' as const,
      userId: user,
      watchlistId: null,
      kind: 'test',
      direction: 'none',
      blockNumber: i,
      payload: { event: 'watchlist.test', n: i },
    }));
  await pg.tx((c) => enqueue(c, rows(a.userId, 20)));
  await pg.tx((c) => enqueue(c, rows(b.userId, 3)));
  const notifier = new Notifier({ pg, webhook: { allowPrivate: true, ca: TEST_CA, timeoutMs: 5000 }, concurrency: 4, perUser: 2, pollMs: 20 });
  const t0 = Date.now();
  notifier.start();
  t.teardown(() => notifier.stop());
  while (fast.deliveries.length < 3 && Date.now() - t0 < 20_000) await new Promise((r) => setTimeout(r, 20));
  const took = Date.now() - t0;
  t.equal(fast.deliveries.length, 3, 'the fast account got all its deliveries');
  t.ok(took < 2000, `while the slow receiver was still busy (${took} ms; it answers after 2500 ms)`);
  t.ok(slow.pending() <= 2, `the slow account held at most 2 slots (${slow.pending()} in flight)`);
});
