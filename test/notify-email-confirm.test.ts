// A notification e-mail address other than the account's own gets no watchlist e-mail until its
// owner enters the code mailed to it (real SMTP on loopback, a real notifier): the confirmation
// mail carries nothing the account chose; codes expire, allow 5 attempts and are sent at most
// every 30 s per account; bad addresses are refused with a 400. Confirmation mails are limited per
// recipient and per account over an hour, silently (the answer is a sent one's).
import t, { type Test } from 'tap';
import { accountApp, accountPg, client, movableClock, newAccount, smtpSink, type Mail } from './helpers/account.js';
import { createMailer } from '../src/mail.js';
import { CONFIRMATION_LIMITS, notificationRoutes } from '../src/notify/routes.js';
import { Notifier } from '../src/notify/notifier.js';
import { enqueue } from '../src/storage/postgres/notify.js';
import type { PgStore } from '../src/storage/postgres/store.js';
import { insertSession } from '../src/storage/postgres/account/credentials.js';
import { newToken, sha256Hex } from '../src/account/tokens.js';

const WATCHED = '0x00000000000000000000000000000000000000a1';
const ENTRY_NAME = 'Cold <b>wallet</b> of Mallory';

const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/\r?\n[ \t]+/g, ' ');
const header = (m: Mail, name: string) => new RegExp(`^${name}: (.*)$`, 'mi').exec(unfold(m.raw))?.[1]?.trim();
const codeIn = (m: Mail) => {
  const r = /confirmation code is (\d{6})/.exec(unfold(m.raw));
  if (!r) throw new Error(`no code in the mail:\n${m.raw}`);
  return r[1];
};

async function until(fn: () => Promise<boolean> | boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

let seq = 0;
/** A watchlist event for the entry, queued as the indexer's commit hook queues it. */
async function event(pg: PgStore, userId: string, watchlistId: string): Promise<string> {
  const n = ++seq;
  const hash = `0x${n.toString(16).padStart(64, '0')}`;
  const eventId = `${hash}:native:incoming:${n}`;
  const payload = {
    event: 'watchlist.transaction',
    watchlist_entry: { address_hash: WATCHED, name: ENTRY_NAME },
    transaction: { hash, from: '0x00000000000000000000000000000000000000b2', to: WATCHED, value: '1000', block: n, timestamp: '2024-01-01T00:00:00Z' },
    transfer: { kind: 'native', direction: 'incoming', token_address: null, token_id: null },
  };
  await pg.tx((c) => enqueue(c, [{ eventId, channel: 'email', userId, watchlistId, kind: 'native', direction: 'incoming', blockNumber: n, payload }]));
  return eventId;
}

async function outcome(pg: PgStore, eventId: string): Promise<{ status: string; last_error: string | null }> {
  let row: { status: string; last_error: string | null } | undefined;
  await until(async () => {
    [row] = await pg.query<{ status: string; last_error: string | null }>(
      "SELECT status, last_error FROM notification_outbox WHERE event_id = $1 AND channel = 'email'",
      [eventId],
    );
    return row !== undefined && row.status !== 'pending';
  }, `the outcome of ${eventId}`);
  return row!;
}

/** The Account API with the notification routes, mailing through an SMTP sink, on a movable clock. */
async function mailingApp(t: Test) {
  const pg = await accountPg(t);
  const smtp = await smtpSink(t);
  const clock = movableClock();
  const mailer = createMailer({ url: `smtp://127.0.0.1:${smtp.port}`, from: 'Explorer <no-reply@explorer.test>' });
  const routes = notificationRoutes(pg, { allowHttp: false, allowPrivate: false, timeoutMs: 1000 }, { mailer, clock: clock.now });
  const app = await accountApp(t, pg, { clock: clock.now, mailer, extraRoutes: routes });
  const call = client(app.handle);
  return { pg, smtp, clock, call };
}

t.test('a chosen e-mail address is mailed only once confirmed', async (t) => {
  const { pg, smtp, clock, call } = await mailingApp(t);
  const notifier = new Notifier({ pg, smtp: { url: `smtp://127.0.0.1:${smtp.port}`, from: 'explorer@explorer.test' }, pollMs: 25 });
  notifier.start();
  t.teardown(() => notifier.stop());

  const owner = await newAccount(pg, 'owner@example.org', 'Mallory <script>');
  const token = owner.token;
  const added = await call('POST', '/user/watchlist', {
    token,
    body: { address_hash: WATCHED, name: ENTRY_NAME, notification_methods: { email: true, webhook: false } },
  });
  t.equal(added.status, 201);
  const entry = added.body.data.id as string;

  // The account's own sign-in address counts as confirmed.
  const s0 = await call('GET', '/user/notification-settings', { token });
  t.match(s0.body.data, { email: 'owner@example.org', email_is_account_address: true, email_confirmed: true, email_confirmation_expires_at: null });
  const own = await event(pg, owner.userId, entry);
  t.equal((await outcome(pg, own)).status, 'delivered', 'the account address gets watchlist mail');
  t.same((await smtp.next()).to, ['owner@example.org']);

  // Another address: stored unconfirmed, and a code is mailed to it.
  const put = await call('PUT', '/user/notification-settings/email', { token, body: { email: ' Alerts@Example.ORG ' } });
  t.equal(put.status, 200, JSON.stringify(put.body));
  t.match(put.body.data, { email: 'alerts@example.org', email_is_account_address: false, email_confirmed: false });
  t.equal(put.body.data.email_confirmation_expires_at, new Date(clock.now() + 10 * 60_000).toISOString(), 'the code is valid 10 minutes');
  const confirmation = await smtp.next();
  t.same(confirmation.to, ['alerts@example.org'], 'the code goes to the new address');
  t.equal(header(confirmation, 'Subject'), 'Confirm this address for watchlist notifications', 'a fixed subject');
  for (const chosen of ['Mallory', 'wallet', '<b>', 'script']) t.notOk(confirmation.raw.includes(chosen), `nothing the account chose (${chosen}) in the mail`);
  const code = codeIn(confirmation);

  // Until confirmed, a watchlist event mails nobody; the delivery log says why.
  const before = await event(pg, owner.userId, entry);
  const skipped = await outcome(pg, before);
  t.equal(skipped.status, 'cancelled', 'the e-mail delivery is skipped');
  t.match(skipped.last_error, /not confirmed/);
  const log = await call('GET', '/user/notifications?limit=5', { token });
  t.match(log.body.data.find((d: { event_id: string }) => d.event_id === before), { channel: 'email', status: 'cancelled', last_error: /not confirmed/ });
  await new Promise((r) => setTimeout(r, 200));
  t.equal(smtp.mails.length, 0, 'no mail to the unconfirmed address (nor to the old one)');

  // Wrong and malformed codes.
  const wrong = code === '000000' ? '111111' : '000000';
  const w1 = await call('POST', '/user/notification-settings/email/confirm', { token, body: { code: wrong } });
  t.equal(w1.status, 400, 'a wrong code');
  t.match(w1.body.message, 'wrong code; 4 attempt(s) left');
  for (const bad of [{}, { code: '12345' }, { code: 123456 }, { code: '123456', email: 'x@example.org' }]) {
    const r = await call('POST', '/user/notification-settings/email/confirm', { token, body: bad });
    t.equal(r.status, 400, `malformed ${JSON.stringify(bad)}`);
    t.type(r.body.message, 'string');
  }
  const other = await newAccount(pg, 'other@example.org');
  const foreign = await call('POST', '/user/notification-settings/email/confirm', { token: other.token, body: { code } });
  t.equal(foreign.status, 400, "another account cannot use this account's code");

  const ok = await call('POST', '/user/notification-settings/email/confirm', { token, body: { code } });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  t.match(ok.body.data, { email: 'alerts@example.org', email_confirmed: true, email_confirmation_expires_at: null });
  t.equal((await call('POST', '/user/notification-settings/email/confirm', { token, body: { code } })).status, 400, 'a code works once');

  const afterConfirm = await event(pg, owner.userId, entry);
  t.equal((await outcome(pg, afterConfirm)).status, 'delivered', 'after confirmation the event is mailed');
  const watch = await smtp.next();
  t.same(watch.to, ['alerts@example.org'], 'to the confirmed address');
  t.equal(header(watch, 'X-Service-Event-Id'), afterConfirm);
  t.equal((await outcome(pg, before)).status, 'cancelled', 'the event skipped before confirmation is not sent later');

  // PUT of the confirmed address again: nothing changes, no mail.
  const same = await call('PUT', '/user/notification-settings/email', { token, body: { email: 'alerts@example.org' } });
  t.equal(same.status, 200);
  t.equal(same.body.data.email_confirmed, true, 'still confirmed');

  // A code at most every 30 s per account, whatever the address.
  clock.advance(31_000);
  t.equal((await call('PUT', '/user/notification-settings/email', { token, body: { email: 'second@example.org' } })).status, 200);
  const code2 = codeIn(await smtp.next());
  const soon = await call('PUT', '/user/notification-settings/email', { token, body: { email: 'third@example.org' } });
  t.equal(soon.status, 429, 'a second code within 30 s is refused');
  t.ok(Number(soon.headers['retry-after']) > 0, 'with Retry-After');
  t.equal((await call('GET', '/user/notification-settings', { token })).body.data.email, 'second@example.org', 'the refused PUT changed nothing');
  const unconfirmedAgain = await event(pg, owner.userId, entry);
  t.equal((await outcome(pg, unconfirmedAgain)).status, 'cancelled', 'a changed address is unconfirmed again: no mail');

  // Codes expire after 10 minutes.
  clock.advance(10 * 60_000 + 1000);
  const late = await call('POST', '/user/notification-settings/email/confirm', { token, body: { code: code2 } });
  t.equal(late.status, 400, 'an expired code');
  t.match(late.body.message, /no confirmation code is outstanding/);
  t.equal((await call('GET', '/user/notification-settings', { token })).body.data.email_confirmation_expires_at, null);

  // Five wrong attempts kill the code.
  t.equal((await call('PUT', '/user/notification-settings/email', { token, body: { email: 'second@example.org' } })).status, 200, 'a new code');
  const code3 = codeIn(await smtp.next());
  const wrong3 = code3 === '000000' ? '111111' : '000000';
  for (let i = 0; i < 5; i++) t.equal((await call('POST', '/user/notification-settings/email/confirm', { token, body: { code: wrong3 } })).status, 400);
  const dead = await call('POST', '/user/notification-settings/email/confirm', { token, body: { code: code3 } });
  t.equal(dead.status, 400, 'after 5 wrong attempts the right code is refused');
  t.equal((await call('GET', '/user/notification-settings', { token })).body.data.email_confirmed, false);

  // Bad forms are refused and mail nobody.
  clock.advance(31_000);
  for (const bad of ['nope', 'a@b.c\r\nBcc: x@y.z', 'two@@example.org', `${'a'.repeat(65)}@example.org`, 5, true, { a: 1 }]) {
    const r = await call('PUT', '/user/notification-settings/email', { token, body: { email: bad } });
    t.equal(r.status, 400, `email ${JSON.stringify(bad).slice(0, 40)}`);
    t.match(r.body.message, /email/);
  }
  t.equal((await call('PUT', '/user/notification-settings/email', { token, body: {} })).status, 400, 'email missing');
  t.equal((await call('PUT', '/user/notification-settings/email', { token, body: { email: null, cc: 'x@example.org' } })).status, 400, 'an unknown field');

  // Back to the account's own address (null, or the same address spelled out): confirmed, no code.
  const back = await call('PUT', '/user/notification-settings/email', { token, body: { email: 'OWNER@example.org' } });
  t.match(back.body.data, { email: 'owner@example.org', email_is_account_address: true, email_confirmed: true, email_confirmation_expires_at: null });
  const home = await event(pg, owner.userId, entry);
  t.equal((await outcome(pg, home)).status, 'delivered');
  t.same((await smtp.next()).to, ['owner@example.org'], 'mail goes to the account address again');
  await new Promise((r) => setTimeout(r, 200));
  t.equal(smtp.mails.length, 0, 'no stray mail');

  // An address stored before confirmation existed (email_confirmed_at NULL after the migration) gets nothing.
  await pg.query("UPDATE notification_settings SET email = 'legacy@example.org', email_confirmed_at = NULL WHERE user_id = $1", [owner.userId]);
  const legacy = await event(pg, owner.userId, entry);
  t.equal((await outcome(pg, legacy)).status, 'cancelled', 'a legacy unconfirmed address is not mailed');
  t.match((await call('GET', '/user/notification-settings', { token })).body.data, { email: 'legacy@example.org', email_confirmed: false });
});

t.test('without SMTP another address cannot be chosen; a wallet account has no address to confirm', async (t) => {
  const pg = await accountPg(t);
  const app = await accountApp(t, pg, { extraRoutes: notificationRoutes(pg, { allowHttp: false, allowPrivate: false, timeoutMs: 1000 }) });
  const call = client(app.handle);
  const { token } = await newAccount(pg, 'solo@example.org');
  const r = await call('PUT', '/user/notification-settings/email', { token, body: { email: 'elsewhere@example.org' } });
  t.equal(r.status, 503);
  t.match(r.body.message, /SMTP_URL/);
  t.match((await call('GET', '/user/notification-settings', { token })).body.data, { email: 'solo@example.org', email_confirmed: true }, 'nothing changed');
  t.equal((await call('PUT', '/user/notification-settings/email', { token, body: { email: null } })).status, 200, 'the account address needs no mail');

  const [wallet] = await pg.query<{ id: string }>(
    "INSERT INTO users (name, nickname, address) VALUES ('w', 'w', '0x00000000000000000000000000000000000000c3') RETURNING id::text",
  );
  const wt = newToken('session');
  await insertSession(pg, { tokenHash: sha256Hex(wt), userId: wallet.id, at: new Date(), expiresAt: new Date(Date.now() + 3600_000) });
  t.match((await call('GET', '/user/notification-settings', { token: wt })).body.data, { email: null, email_is_account_address: true, email_confirmed: false });
});

t.test('confirmation mails are limited per recipient (silently) and per account', async (t) => {
  const { pg, smtp, clock, call } = await mailingApp(t);
  const { mailsPerRecipient, codesPerAccount, windowMs } = CONFIRMATION_LIMITS;
  /** Waits for the mails in flight, then takes every mail the sink has. */
  const delivered = async () => {
    await new Promise((r) => setTimeout(r, 300));
    return smtp.mails.splice(0);
  };

  // Fresh accounts all choose the victim's address (spelled differently, with +tags) at once.
  const spellings = ['victim@example.org', 'Victim@Example.ORG', 'victim+1@example.org', 'victim+news@example.org'];
  const accounts = await Promise.all(Array.from({ length: 12 }, (_, i) => newAccount(pg, `flooder-${i}@example.org`)));
  const sent = await Promise.all(
    accounts.map((a, i) => call('PUT', '/user/notification-settings/email', { token: a.token, body: { email: spellings[i % spellings.length] } })),
  );
  const expected = (email: string) => ({
    status: 200,
    body: {
      data: {
        webhook_url: null,
        webhook_set_at: null,
        email,
        email_is_account_address: false,
        email_confirmed: false,
        email_confirmation_expires_at: new Date(clock.now() + 10 * 60_000).toISOString(),
      },
    },
  });
  sent.forEach((r, i) => t.same({ status: r.status, body: r.body }, expected(spellings[i % spellings.length]!.toLowerCase()), `account ${i}: the answer of a sent code`));
  t.same(new Set(sent.map((r) => Object.keys(r.headers).sort().join())).size, 1, 'with the same headers');
  const flood = await delivered();
  t.equal(flood.length, mailsPerRecipient, `${accounts.length} accounts got ${mailsPerRecipient} mails to the one mailbox`);
  for (const m of flood) t.match(m.to[0], /^victim(\+[a-z0-9]+)?@example\.org$/);

  // Another address is not affected; the victim's limit frees up as the hour passes.
  const bystander = await newAccount(pg, 'bystander@example.org');
  t.equal((await call('PUT', '/user/notification-settings/email', { token: bystander.token, body: { email: 'someone-else@example.org' } })).status, 200);
  t.same((await delivered()).map((m) => m.to), [['someone-else@example.org']], 'another recipient still gets its mail');
  clock.advance(windowMs + 1000);
  const later = await newAccount(pg, 'later@example.org');
  t.equal((await call('PUT', '/user/notification-settings/email', { token: later.token, body: { email: 'victim@example.org' } })).status, 200);
  t.same((await delivered()).map((m) => m.to), [['victim@example.org']], 'an hour later the victim can be mailed again');
  const [kept] = await pg.query<{ n: number }>('SELECT count(*)::int AS n FROM notification_email_codes_sent');
  t.equal(kept.n, 1, 'the counts of the past hour are deleted as new ones are written');

  // One account changing its address again and again (30 s apart, as the cooldown allows).
  const busy = await newAccount(pg, 'busy@example.org');
  for (let i = 0; i < codesPerAccount; i++) {
    clock.advance(31_000);
    const r = await call('PUT', '/user/notification-settings/email', { token: busy.token, body: { email: `target-${i}@example.org` } });
    t.equal(r.status, 200, `code ${i + 1} of the hour`);
  }
  t.equal((await delivered()).length, codesPerAccount, `${codesPerAccount} codes mailed`);
  clock.advance(31_000);
  const over = await call('PUT', '/user/notification-settings/email', { token: busy.token, body: { email: 'target-x@example.org' } });
  t.same({ status: over.status, body: over.body }, expected('target-x@example.org'), 'one more in the hour: the answer of a sent code');
  t.equal((await delivered()).length, 0, 'but nobody is mailed');
  clock.advance(windowMs);
  t.equal((await call('PUT', '/user/notification-settings/email', { token: busy.token, body: { email: 'target-y@example.org' } })).status, 200, 'an hour later it may again');
  t.equal((await delivered()).length, 1);
});
