// The HTTP server as clients see it: rate limits per IP and per API key in front of both APIs,
// a revoked key refused at once, the notification settings endpoints of the Account API.
import t from 'tap';
import { embeddedStores } from './helpers/stores.js';
import { startApi } from '../src/api/start-api.js';
import { createAccountApp } from '../src/account/app.js';
import { notificationRoutes } from '../src/notify/routes.js';
import { newAccount } from './helpers/account.js';
import { createLogger } from '../src/log.js';
import crypto from 'node:crypto';

t.test('rate limits, keys and notification settings over a real socket', async (t) => {
  const stores = await embeddedStores(t);
  const account = createAccountApp({
    pg: stores.pg,
    extraRoutes: notificationRoutes(stores.pg, { allowHttp: false, allowPrivate: false, timeoutMs: 1000 }),
  });
  await account.ready();
  t.teardown(() => account.close());
  const api = await startApi({
    ch: stores.ch,
    pg: stores.pg,
    host: '127.0.0.1',
    port: 0,
    cacheMaxMb: 16,
    log: createLogger('api'),
    account,
    rateLimits: { anonymous: 10, key: 50 },
  });
  t.teardown(() => api.close());
  const base = `http://127.0.0.1:${api.port}`;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });

  // Anonymous: the burst passes, then 429 with Retry-After; every response has the headers.
  const statuses: number[] = [];
  let refused: { retryAfter: string | null; body: unknown } | undefined;
  const began = performance.now();
  for (let i = 0; i < 30; i++) {
    const r = await get('/api/v2/stats');
    statuses.push(r.status);
    t.ok(r.headers.get('x-ratelimit-limit') && r.headers.get('x-ratelimit-remaining') && r.headers.get('x-ratelimit-reset'), 'rate-limit headers');
    const body = await r.json();
    if (r.status === 429) refused ??= { retryAfter: r.headers.get('retry-after'), body };
  }
  // The burst of 15, and what the bucket refilled (10/s) while the 30 requests ran: on a slow
  // machine they take longer than the 200 ms a fixed "at most 17" allowed.
  const refilled = Math.floor(((performance.now() - began) / 1000) * 10);
  const passed = statuses.filter((s) => s === 200).length;
  t.ok(passed >= 15 && passed <= 15 + refilled + 1, `anonymous burst then refusals (${refilled} refilled meanwhile): ${statuses.join(',')}`);
  t.ok(refused, 'a burst over the anonymous limit gets 429');
  t.ok(Number(refused!.retryAfter) >= 1, 'with Retry-After');
  t.same(refused!.body, { message: 'Too many requests' });

  // The same load with a key passes.
  const { token: session } = await newAccount(stores.pg, 'gw@example.org');
  const created = await fetch(base + '/account/api/v1/user/api-keys', {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'load' }),
  });
  t.equal(created.status, 201);
  const key = ((await created.json()) as { data: { id: string; api_key: string } }).data;
  let okWithKey = 0;
  for (let i = 0; i < 30; i++) {
    const r = await get('/api/v2/stats', { authorization: `Bearer ${key.api_key}` });
    if (r.status === 200) okWithKey++;
    await r.arrayBuffer();
  }
  t.equal(okWithKey, 30, 'the same load with a key passes');
  const viaHeader = await get('/api/v2/stats', { 'x-api-key': key.api_key });
  t.equal(viaHeader.status, 200, 'x-api-key works');
  t.equal(viaHeader.headers.get('x-ratelimit-limit'), '50', 'the key bucket');
  const viaQuery = await get(`/api/v2/stats?apikey=${key.api_key}`);
  t.equal(viaQuery.status, 200, '?apikey= works');

  // Revocation: refused at once on both APIs.
  const del = await fetch(`${base}/account/api/v1/user/api-keys/${key.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${session}` } });
  t.equal(del.status, 200);
  const after = await get('/api/v2/stats', { authorization: `Bearer ${key.api_key}` });
  t.equal(after.status, 401);
  t.same(await after.json(), { message: 'Invalid API key' });
  const afterAccount = await get('/account/api/v1/user/info', { authorization: `Bearer ${key.api_key}` });
  t.equal(afterAccount.status, 401);

  // Notification settings.
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}/account/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${session}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: (await r.json()) as any };
  };
  const s0 = await call('GET', '/user/notification-settings');
  t.equal(s0.status, 200);
  t.same(s0.body.data, {
    webhook_url: null,
    webhook_set_at: null,
    email: 'gw@example.org',
    email_is_account_address: true,
    email_confirmed: true,
    email_confirmation_expires_at: null,
  });
  const priv = await call('PUT', '/user/notification-settings/webhook', { url: 'https://10.0.0.5/hook' });
  t.equal(priv.status, 400, 'a private webhook target is refused');
  t.match(priv.body.message, /refused \(not a public address\)/);
  const plain = await call('PUT', '/user/notification-settings/webhook', { url: 'http://93.184.216.34/hook' });
  t.equal(plain.status, 400, 'plain http is refused');
  const set = await call('PUT', '/user/notification-settings/webhook', { url: 'https://93.184.216.34/hook' });
  t.equal(set.status, 200);
  t.match(set.body.data.secret, /^whsec_/, 'the secret is shown once');
  const s1 = await call('GET', '/user/notification-settings');
  t.equal(s1.body.data.webhook_url, 'https://93.184.216.34/hook');
  t.notOk(JSON.stringify(s1.body).includes(set.body.data.secret), 'and never again');
  const rot = await call('POST', '/user/notification-settings/webhook/rotate');
  t.equal(rot.status, 200);
  t.not(rot.body.data.secret, set.body.data.secret, 'rotation issues a new secret');
  const [stored] = await stores.pg.query<{ webhook_secret: string }>('SELECT webhook_secret FROM notification_settings');
  t.equal(stored.webhook_secret, rot.body.data.secret);
  t.equal(crypto.createHmac('sha256', stored.webhook_secret).update('x').digest('hex').length, 64);
  const test = await call('POST', '/user/notification-settings/webhook/test');
  t.equal(test.status, 202, 'a test delivery can be triggered');
  const log = await call('GET', '/user/notifications?limit=10');
  t.equal(log.status, 200);
  t.equal(log.body.data[0].event_id, test.body.data.event_id, 'and is listed with its status');
  t.equal(log.body.data[0].status, 'pending');
  t.equal((await call('GET', '/user/notifications?limit=0')).status, 400);
  // Another address must be confirmed by a mailed code (test/notify-email-confirm); without SMTP it cannot be.
  const email = await call('PUT', '/user/notification-settings/email', { email: 'alerts@example.org' });
  t.equal(email.status, 503, 'no SMTP here: another address cannot be confirmed');
  t.match(email.body.message, /SMTP_URL/);
  t.equal((await call('PUT', '/user/notification-settings/email', { email: 'nope' })).status, 400);
  t.equal((await call('DELETE', '/user/notification-settings/webhook')).status, 200);
  t.equal((await call('POST', '/user/notification-settings/webhook/rotate')).status, 404, 'no webhook: nothing to rotate');
  const other = await newAccount(stores.pg, 'other@example.org');
  const r = await fetch(`${base}/account/api/v1/user/notifications`, { headers: { authorization: `Bearer ${other.token}` } });
  t.same(((await r.json()) as any).data, [], "another account sees none of it");
});
