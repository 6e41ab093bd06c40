// How a partial notification_methods merges into a watchlist entry (README, "Watchlist
// notifications"): the channels a request names take the given value, the others keep their
// stored value (a new entry: email on, webhook off); a request never turns on a channel it does
// not name. Unknown channels and non-booleans are a 400 that changes nothing. Checked through the
// Account API and in the rows the notifier reads.
import t from 'tap';
import { accountApp, accountPg, client, newAccount } from './helpers/account.js';
import { loadWatchlist } from '../src/storage/postgres/notify.js';

const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');

t.test('notification_methods: named channels replace, unnamed ones keep their value', async (t) => {
  const pg = await accountPg(t);
  const app = await accountApp(t, pg);
  const call = client(app.handle);
  const { token, userId } = await newAccount(pg, 'merge@example.org');

  const create = async (n: number, methods?: unknown) => {
    const r = await call('POST', '/user/watchlist', {
      token,
      body: { address_hash: addr(n), name: `entry ${n}`, ...(methods === undefined ? {} : { notification_methods: methods }) },
    });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.id as string;
  };
  const methodsOf = async (id: string) => {
    const list = await call('GET', '/user/watchlist?limit=1000', { token });
    const api = list.body.data.items.find((i: { id: string }) => i.id === id).notification_methods;
    const [row] = await loadWatchlist(pg, { id });
    t.same(row.notification_methods, api, 'the notifier reads what the API shows');
    return api;
  };
  const patch = (id: string, body: unknown) => call('PATCH', `/user/watchlist/${id}`, { token, body });

  // New entries: unnamed channels take the defaults (email on, webhook off).
  t.same(await methodsOf(await create(1)), { email: true, webhook: false }, 'no methods: the defaults');
  t.same(await methodsOf(await create(2, { webhook: true })), { email: true, webhook: true }, 'new entry, webhook named: email default');
  t.same(await methodsOf(await create(3, { email: false })), { email: false, webhook: false }, 'new entry, email named: webhook default');

  // PATCH naming one channel leaves the other as stored, whichever way it is set.
  const cases: [stored: { email: boolean; webhook: boolean }, patch: Record<string, boolean>, want: { email: boolean; webhook: boolean }][] = [
    [{ email: false, webhook: false }, { email: true }, { email: true, webhook: false }],
    [{ email: false, webhook: false }, { webhook: true }, { email: false, webhook: true }],
    [{ email: false, webhook: true }, { email: true }, { email: true, webhook: true }],
    [{ email: true, webhook: false }, { webhook: true }, { email: true, webhook: true }],
    [{ email: false, webhook: true }, { webhook: false }, { email: false, webhook: false }],
    [{ email: true, webhook: true }, { email: false }, { email: false, webhook: true }],
    [{ email: false, webhook: false }, {}, { email: false, webhook: false }],
    [{ email: true, webhook: true }, { email: false, webhook: false }, { email: false, webhook: false }],
    [{ email: false, webhook: false }, { email: true, webhook: true }, { email: true, webhook: true }],
  ];
  let n = 10;
  for (const [stored, body, want] of cases) {
    const id = await create(n++, stored);
    t.same(await methodsOf(id), stored, 'created as asked');
    const r = await patch(id, { notification_methods: body });
    t.equal(r.status, 200);
    t.same(r.body.data.notification_methods, want, `${JSON.stringify(stored)} + PATCH ${JSON.stringify(body)}: the reply`);
    t.same(await methodsOf(id), want, `${JSON.stringify(stored)} + PATCH ${JSON.stringify(body)}: stored`);
  }

  // A PATCH without notification_methods changes none of them.
  const kept = await create(n++, { email: false, webhook: true });
  t.equal((await patch(kept, { name: 'renamed' })).status, 200);
  t.same(await methodsOf(kept), { email: false, webhook: true }, 'name only: methods kept');
  t.equal((await patch(kept, { notification_settings: { native: { incoming: false, outgoing: true } } })).status, 200);
  t.same(await methodsOf(kept), { email: false, webhook: true }, 'settings only: methods kept');

  // POST of an address already watched updates the entry in place the same way.
  const re = await create(n++, { email: false, webhook: false });
  const again = await call('POST', '/user/watchlist', { token, body: { address_hash: addr(n - 1), name: 'again', notification_methods: { webhook: true } } });
  t.equal(again.body.data.id, re, 'the same entry');
  t.same(await methodsOf(re), { email: false, webhook: true }, 'POST of a watched address naming webhook does not turn email on');
  await call('POST', '/user/watchlist', { token, body: { address_hash: addr(n - 1), name: 'again' } });
  t.same(await methodsOf(re), { email: false, webhook: true }, 'POST without methods keeps them');

  // Refusals change nothing.
  const stay = await create(n++, { email: false, webhook: false });
  for (const bad of [{ sms: true }, { email: true, sms: true }, { email: 'yes' }, { webhook: 1 }, { email: null }, null, [], 'email', true]) {
    const r = await patch(stay, { notification_methods: bad });
    t.equal(r.status, 400, `PATCH ${JSON.stringify(bad)} is a 400`);
    t.match(r.body.message, /notification_methods/);
  }
  t.same(await methodsOf(stay), { email: false, webhook: false }, 'nothing changed by the refused requests');

  // What the notifier acts on: the merged row.
  const rows = await loadWatchlist(pg, { userId });
  t.ok(rows.every((r) => typeof r.notification_methods.email === 'boolean' && typeof r.notification_methods.webhook === 'boolean'), 'every row has both channels');
});
