// What the Account API tells a user about URLs it refuses or cannot reach, and what it stores of
// their text: webhook and icon URLs that are, or resolve to, internal addresses or do not resolve
// are answered "refused" or "unreachable" without the address or the DNS error (the delivery log
// too); a webhook URL with CR/LF is refused (not stored as sent); a NUL in any text or URL field is
// a 400 naming the field, never a 500, and nothing is stored.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { accountApp, accountPg, client, newAccount } from './helpers/account.js';
import { notificationRoutes } from '../src/notify/routes.js';
import { Notifier } from '../src/notify/notifier.js';
import { DEFAULT_POLICY } from '../src/notify/webhook.js';
import { waitFor } from './helpers/explorer-process.js';

/** What no answer to a user may contain: resolved loopback addresses and DNS error codes or hosts. */
const INTERNAL = /127\.0\.0\.1|::1|ENOTFOUND|EAI_AGAIN|getaddrinfo|no-such-host|resolves to/;

t.test('refused and unreachable targets: no internal names or addresses in the answers', async (t) => {
  const pg = await accountPg(t);
  // A loopback service a user must not be able to map (the icon host, the webhook receiver).
  let hits = 0;
  const internal = http.createServer((_req, res) => {
    hits++;
    res.end('internal');
  });
  await new Promise<void>((r) => internal.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => internal.close(() => r())));
  const port = (internal.address() as AddressInfo).port;

  const app = await accountApp(t, pg, { extraRoutes: notificationRoutes(pg, DEFAULT_POLICY), publicNames: { submissionsPerHour: 100, iconFetchTimeoutMs: 5000 } });
  const call = client(app.handle);
  const { token, userId } = await newAccount(pg, 'prober@example.org');

  // Webhook URLs, checked when saved.
  const local = await call('PUT', '/user/notification-settings/webhook', { token, body: { url: `https://localhost:${port}/hook` } });
  t.equal(local.status, 400, 'a name resolving to loopback is refused');
  t.match(local.body.message, /^url: the target is refused/);
  t.notMatch(local.raw, INTERNAL, 'without the address it resolves to');

  // Icon URLs, fetched at submission.
  const address = '0x00000000000000000000000000000000000000c1';
  await pg.query('INSERT INTO addresses (hash, first_seen_block) VALUES ($1, 1)', [address]);
  for (const [url, said] of [
    [`http://localhost:${port}/icon.png`, /the target is refused/],
    [`http://127.0.0.1:${port}/icon.png`, /the target is refused/],
    ['http://no-such-host.invalid/icon.png', /the target is unreachable/],
  ] as const) {
    const r = await call('POST', '/user/public-names', { token, body: { address_hash: address, name: 'Probe', icon_url: url } });
    t.equal(r.status, 422, url);
    t.match(r.body.message, said);
    t.notMatch(r.raw.replace(url, ''), INTERNAL, `${url}: no address or DNS detail`);
  }

  // The delivery log: a URL stored before (or valid when saved) that is refused or unreachable when delivered.
  const deliveries = new Notifier({ pg, webhook: { timeoutMs: 5000 }, pollMs: 25, maxAttempts: 1 });
  deliveries.start();
  t.teardown(() => deliveries.stop());
  const unresolvable = await call('PUT', '/user/notification-settings/webhook', { token, body: { url: 'https://no-such-host.invalid/hook' } });
  t.equal(unresolvable.status, 200, 'a name that does not resolve now may later: accepted');
  for (const [url, said] of [
    ['https://no-such-host.invalid/hook', 'the target is unreachable'],
    [`https://localhost:${port}/hook`, 'the target is refused (not a public address)'],
  ] as const) {
    await pg.query('UPDATE notification_settings SET webhook_url = $2 WHERE user_id = $1', [userId, url]);
    const queued = await call('POST', '/user/notification-settings/webhook/test', { token });
    t.equal(queued.status, 202);
    const id = queued.body.data.event_id as string;
    let row: { status: string; last_error: string | null } | undefined;
    await waitFor(`the delivery to ${url} to fail`, async () => {
      row = ((await call('GET', '/user/notifications?limit=10', { token })).body.data as { event_id: string; status: string; last_error: string | null }[]).find(
        (d) => d.event_id === id,
      );
      return row?.status === 'failed';
    }, 20_000);
    t.equal(row!.last_error, said, `the delivery log says "${said}"`);
    t.notMatch(JSON.stringify(row), INTERNAL);
  }
  t.equal(hits, 0, 'the internal service got no request');
});

t.test('CR/LF in a webhook URL and NUL in any field: a 400 naming the field, nothing stored', async (t) => {
  const pg = await accountPg(t);
  const app = await accountApp(t, pg, { extraRoutes: notificationRoutes(pg, { ...DEFAULT_POLICY, allowPrivate: true }) });
  const call = client(app.handle);
  const { token } = await newAccount(pg, 'nul@example.org');
  const address = '0x00000000000000000000000000000000000000d1';
  await pg.query('INSERT INTO addresses (hash, first_seen_block) VALUES ($1, 1)', [address]);

  for (const url of ['https://93.184.216.34/hook\r\nX-Injected: 1', 'https://93.184.216.34/ho\nok', 'https://93.184.216.34/\thook']) {
    const r = await call('PUT', '/user/notification-settings/webhook', { token, body: { url } });
    t.equal(r.status, 400, JSON.stringify(url));
    t.match(r.body.message, /^url must not contain control characters/);
  }
  const [stored] = await pg.query<{ n: string }>('SELECT count(*)::text AS n FROM notification_settings WHERE webhook_url IS NOT NULL');
  t.equal(stored.n, '0', 'no webhook URL was stored');

  const NUL = 'a\u0000b';
  const cases: [string, string, Record<string, unknown>, RegExp][] = [
    ['PUT', '/user/notification-settings/webhook', { url: `https://93.184.216.34/${NUL}` }, /^url must not contain a NUL/],
    ['PUT', '/user/notification-settings/email', { email: `x${NUL}@example.org` }, /^email must not contain a NUL/],
    ['POST', '/user/public-names', { address_hash: address, name: 'Fine', website: `https://example.org/${NUL}` }, /^website must not contain a NUL/],
    ['POST', '/user/public-names', { address_hash: address, name: 'Fine', links: { twitter: `https://x.com/${NUL}` } }, /^links\.twitter must not contain a NUL/],
    ['POST', '/user/public-names', { address_hash: address, name: 'Fine', description: NUL }, /^description must not contain a NUL/],
    ['POST', '/user/public-names', { address_hash: address, name: 'Fine', tags: ['ok', NUL] }, /^tags\[1\] must not contain a NUL/],
    ['POST', '/user/public-names', { address_hash: address, name: NUL, icon_url: `https://example.org/${NUL}` }, /^name must not contain a NUL.*; icon_url must not contain a NUL/],
    ['POST', '/user/watchlist', { address_hash: address, name: NUL }, /^name must not contain a NUL/],
    ['POST', '/user/tags/address', { address_hash: address, name: NUL }, /^name must not contain a NUL/],
    ['POST', '/user/custom-abis', { contract_address_hash: address, name: 'abi', abi: [{ type: 'function', name: NUL, inputs: [], outputs: [] }] }, /^abi\[0\]\.name must not contain a NUL/],
    ['POST', '/user/api-keys', { name: NUL }, /^name must not contain a NUL/],
    ['POST', '/user/watchlist', { address_hash: address, name: 'x', [`k${NUL}`]: 1 }, /^a field name must not contain a NUL/],
  ];
  for (const [method, path, body, said] of cases) {
    const r = await call(method, path, { token, body });
    t.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
    t.match(r.body.message, said);
  }
  const counts = await pg.query<{ n: number }>(
    `SELECT ((SELECT count(*) FROM public_name_submissions) + (SELECT count(*) FROM watchlist) + (SELECT count(*) FROM address_tags)
          + (SELECT count(*) FROM custom_abis) + (SELECT count(*) FROM api_keys) + (SELECT count(*) FROM notification_settings WHERE webhook_url IS NOT NULL))::int AS n`,
  );
  t.equal(counts[0].n, 0, 'nothing was stored');
});
