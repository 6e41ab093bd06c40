// Credentials of the Account API: revocation at once (in one process and across two processes
// sharing the database, through LISTEN/NOTIFY), identify() for the public API, last_used_at,
// session expiry, sign-out, account deletion, and the two sign-in methods: Sign-In with
// Ethereum (a key made here, viem's createSiweMessage) and an e-mailed code received by a real
// SMTP server on loopback.
import t from 'tap';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { getAddress } from 'viem';
import type { PgStore } from '../src/storage/postgres/store.js';
import { accountApp, accountPg, client, codeOf, dump, makeRequest, movableClock, newAccount, smtpSink } from './helpers/account.js';

const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');

/** A PgStore that counts the credential lookups going to the database. */
function countingPg(pg: PgStore) {
  const counter = { keyLookups: 0 };
  const wrapped: PgStore = {
    ...pg,
    query: (sql: string, params?: unknown[]) => {
      if (sql.includes('FROM api_keys WHERE secret_hash')) counter.keyLookups++;
      return pg.query(sql, params);
    },
    tx: (fn) => pg.tx(fn),
    close: () => pg.close(),
  } as PgStore;
  return { pg: wrapped, counter };
}

t.test('credentials, revocation and sign-in', async (t) => {
  const pg = await accountPg(t);

  await t.test('a revoked key is refused at once by the revoking process and by another one that had it cached', async (t) => {
    const a = await accountApp(t, pg);
    const cb = countingPg(pg);
    const b = await accountApp(t, cb.pg);
    const callA = client(a.handle);
    const callB = client(b.handle);
    const { token: session } = await newAccount(pg, 'revoke@example.org');
    const made = await callA('POST', '/user/api-keys', { token: session, body: { name: 'k' } });
    t.equal(made.status, 201);
    const key = made.body.data.api_key;

    // Both processes have looked the key up and cached it.
    t.equal((await callA('GET', '/user/info', { token: key })).status, 200);
    t.equal((await callB('GET', '/user/info', { token: key })).status, 200);
    const lookups = cb.counter.keyLookups;
    t.equal((await callB('GET', '/user/info', { token: key })).status, 200);
    t.equal((await callB('GET', '/user/tags/address', { token: key })).status, 200);
    t.ok(await b.identify(makeRequest('GET', '/api/v2/stats', { headers: { 'x-api-key': key } })));
    t.equal(cb.counter.keyLookups, lookups, 'process B answers from its cache (no lookup in the database)');

    const del = await callA('DELETE', `/user/api-keys/${made.body.data.id}`, { token: session });
    t.equal(del.status, 200);
    // Right after the DELETE's reply, with no wait:
    const onA = await callA('GET', '/user/info', { token: key });
    const onB = await callB('GET', '/user/info', { token: key });
    t.equal(onA.status, 401, 'refused by the revoking process');
    t.same(onA.body, { message: 'Invalid API key' });
    t.equal(onB.status, 401, 'refused by the other process');
    t.same(onB.body, { message: 'Invalid API key' });
    t.equal(await b.identify(makeRequest('GET', '/api/v2/stats', { token: key })), null, 'identify() refuses it too');
  });

  await t.test('a process whose revocation listener drops forgets its cache (notices may be missed)', async (t) => {
    const cb = countingPg(pg);
    const b = await accountApp(t, cb.pg);
    const callB = client(b.handle);
    const { token: session } = await newAccount(pg, 'listener@example.org');
    const made = await callB('POST', '/user/api-keys', { token: session, body: { name: 'l' } });
    const key = made.body.data.api_key;
    t.equal((await callB('GET', '/user/info', { token: key })).status, 200);
    const n = cb.counter.keyLookups;
    t.equal((await callB('GET', '/user/info', { token: key })).status, 200);
    t.equal(cb.counter.keyLookups, n, 'cached');
    // Cut every listening connection, and revoke behind the processes' backs (no notice at all).
    await pg.query("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = 'explorer-auth-listener'");
    await pg.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [made.body.data.id]);
    const r = await callB('GET', '/user/info', { token: key });
    t.equal(r.status, 401, 'refused: the cache is not trusted once the listener dropped');
    await b.ready();
    t.equal((await callB('GET', '/user/info', { token: key })).status, 401, 'still refused after reconnecting');
  });

  await t.test('a key revoked while another process is mid-lookup is not cached stale', async (t) => {
    // Many rounds of: B looks the key up while A revokes it; afterwards B must refuse it.
    const a = await accountApp(t, pg);
    const b = await accountApp(t, pg);
    const { token: session } = await newAccount(pg, 'race@example.org');
    for (let i = 0; i < 15; i++) {
      const made = await client(a.handle)('POST', '/user/api-keys', { token: session, body: { name: `r${i}` } });
      const key = made.body.data.api_key;
      const lookup = b.handle(makeRequest('GET', '/user/info', { token: key }));
      const revoke = a.handle(makeRequest('DELETE', `/account/api/v1/user/api-keys/${made.body.data.id}`, { token: session }));
      await Promise.all([lookup, revoke]);
      const after = await b.handle(makeRequest('GET', '/account/api/v1/user/info', { token: key }));
      t.equal(after.status, 401, `round ${i}`);
    }
  });

  await t.test('identify(): Bearer, x-api-key and ?apikey=; sessions; unknown credentials', async (t) => {
    const app = await accountApp(t, pg);
    const call = client(app.handle);
    const { token: session, userId } = await newAccount(pg, 'identify@example.org');
    const made = await call('POST', '/user/api-keys', { token: session, body: { name: 'id' } });
    const key = made.body.data.api_key;
    const keyId = made.body.data.id;
    const want = { userId, keyId, kind: 'api_key' };
    t.same(await app.identify(makeRequest('GET', '/api/v2/blocks', { token: key })), want, 'Authorization: Bearer');
    t.same(await app.identify(makeRequest('GET', '/api/v2/blocks', { headers: { authorization: `bearer   ${key}` } })), want, 'scheme in any case');
    t.same(await app.identify(makeRequest('GET', '/api/v2/blocks', { headers: { 'x-api-key': key } })), want, 'x-api-key');
    t.same(await app.identify(makeRequest('GET', `/api/v2/blocks?apikey=${encodeURIComponent(key)}`)), want, '?apikey=');
    t.same(await app.identify(makeRequest('GET', '/api/v2/blocks', { token: session })), { userId, kind: 'session' }, 'a session token');
    t.equal(await app.identify(makeRequest('GET', '/api/v2/blocks')), null, 'nothing sent');
    t.equal(await app.identify(makeRequest('GET', '/api/v2/blocks', { token: 'ek_' + 'A'.repeat(43) })), null, 'unknown key');
    t.equal(await app.identify(makeRequest('GET', '/api/v2/blocks', { headers: { 'x-api-key': 'garbage' } })), null, 'malformed');
    // The Account API itself takes only the Authorization header.
    t.equal((await call('GET', '/user/info', { headers: { 'x-api-key': key } })).status, 401);
    t.equal((await call('GET', `/user/info?apikey=${key}`)).status, 401);
  });

  await t.test('last_used_at: null until used, then the time of the last use after the flush', async (t) => {
    const clock = movableClock(Date.parse('2030-01-02T03:04:05.000Z'));
    const app = await accountApp(t, pg, { clock: clock.now, usageFlushMs: 100 });
    const other = await accountApp(t, pg); // sees only what was written
    const { token: session } = await newAccount(pg, 'used@example.org', 'U', 'U', clock.now);
    const made = await client(app.handle)('POST', '/user/api-keys', { token: session, body: { name: 'u' } });
    const key = made.body.data.api_key;
    const list = async () => (await client(other.handle)('GET', '/user/api-keys', { token: session })).body.data[0];
    t.equal((await list()).last_used_at, null, 'never used');
    await client(app.handle)('GET', '/user/info', { token: key });
    clock.advance(60_000);
    await app.identify(makeRequest('GET', '/api/v2/stats', { token: key })); // a public API request counts too
    // Written by the periodic flush (every 100 ms here), not per request.
    const until = Date.now() + 5000;
    let seen: string | null = null;
    while (Date.now() < until) {
      seen = (await list()).last_used_at;
      if (seen === '2030-01-02T03:05:05.000Z') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    t.equal(seen, '2030-01-02T03:05:05.000Z', 'the last use, written by the flush');
    // An older buffered time never moves it back.
    clock.advance(-3600_000);
    await client(app.handle)('GET', '/user/info', { token: key });
    await app.flushUsage();
    t.equal((await list()).last_used_at, '2030-01-02T03:05:05.000Z', 'never moved back');
  });

  await t.test('last_used_at is written on close', async (t) => {
    const app = await accountApp(t, pg, { usageFlushMs: 3_600_000 });
    const { token: session } = await newAccount(pg, 'close@example.org');
    const made = await client(app.handle)('POST', '/user/api-keys', { token: session, body: { name: 'c' } });
    await client(app.handle)('GET', '/user/info', { token: made.body.data.api_key });
    const listed = await client(app.handle)('GET', '/user/api-keys', { token: session });
    t.match(listed.body.data[0].last_used_at, /Z$/, 'the process shows its own buffered use');
    await app.close();
    const rows = (await dump(pg)).api_keys as { id: string; last_used_at: Date | null }[];
    t.ok(rows.find((r) => r.id === made.body.data.id)?.last_used_at, 'written by close()');
  });

  await t.test('sessions expire after 30 days; sign-out ends one at once', async (t) => {
    const clock = movableClock();
    const app = await accountApp(t, pg, { clock: clock.now });
    const call = client(app.handle);
    const { token } = await newAccount(pg, 'expiry@example.org');
    t.equal((await call('GET', '/user/info', { token })).status, 200);
    clock.advance(29 * 24 * 3600_000);
    t.equal((await call('GET', '/user/info', { token })).status, 200, 'day 29');
    clock.advance(24 * 3600_000 + 1000);
    const r = await call('GET', '/user/info', { token });
    t.equal(r.status, 401, 'day 30: expired');
    t.same(r.body, { message: 'Invalid API key' });

    const other = await accountApp(t, pg);
    const third = await accountApp(t, pg);
    const s2 = (await newAccount(pg, 'logout@example.org')).token;
    t.equal((await client(third.handle)('GET', '/user/info', { token: s2 })).status, 200, 'cached by another process');
    const lo = await client(other.handle)('POST', '/auth/logout', { token: s2 });
    t.equal(lo.status, 200);
    t.equal((await client(other.handle)('GET', '/user/info', { token: s2 })).status, 401, 'signed out');
    t.equal((await client(third.handle)('GET', '/user/info', { token: s2 })).status, 401, 'signed out everywhere');
  });

  await t.test('DELETE /user removes the account and everything of it at once', async (t) => {
    const a = await accountApp(t, pg);
    const b = await accountApp(t, pg);
    const call = client(a.handle);
    const keep = await newAccount(pg, 'keep@example.org');
    await call('POST', '/user/watchlist', { token: keep.token, body: { address_hash: addr(1), name: 'kept' } });
    const before = await dump(pg);
    const gone = await newAccount(pg, 'gone@example.org');
    const key = (await call('POST', '/user/api-keys', { token: gone.token, body: { name: 'g' } })).body.data.api_key;
    await call('POST', '/user/watchlist', { token: key, body: { address_hash: addr(1), name: 'w' } });
    await call('POST', '/user/tags/address', { token: key, body: { address_hash: addr(2), name: 't' } });
    await call('POST', '/user/custom-abis', {
      token: key,
      body: { contract_address_hash: addr(3), name: 'a', abi: [{ type: 'event', name: 'E', inputs: [] }] },
    });
    t.equal((await client(b.handle)('GET', '/user/info', { token: key })).status, 200, 'cached elsewhere');
    const del = await call('DELETE', '/user', { token: key });
    t.equal(del.status, 200);
    t.equal((await call('GET', '/user/info', { token: key })).status, 401);
    t.equal((await client(b.handle)('GET', '/user/info', { token: key })).status, 401, 'other process too');
    t.equal((await client(b.handle)('GET', '/user/info', { token: gone.token })).status, 401, 'and the session');
    const after = await dump(pg);
    for (const table of ['users', 'watchlist', 'address_tags', 'custom_abis']) {
      t.same(after[table], before[table], `${table}: only the other account's rows are left`);
    }
    t.notOk((after.api_keys as { user_id: unknown }[]).some((k) => String(k.user_id) === gone.userId), 'no key left');
    t.notOk((after.sessions as { user_id: unknown }[]).some((k) => String(k.user_id) === gone.userId), 'no session left');
    t.equal((await call('GET', '/user/info', { token: keep.token })).status, 200, 'the other account works');
  });

  await t.test('Sign-In with Ethereum', async (t) => {
    const clock = movableClock();
    const app = await accountApp(t, pg, { clock: clock.now });
    const call = client(app.handle);
    const account = privateKeyToAccount(generatePrivateKey());
    const sign = async (o: { nonce: string; domain?: string; expirationTime?: Date; signer?: typeof account; address?: `0x${string}` }) => {
      const message = createSiweMessage({
        address: o.address ?? account.address,
        chainId: 1,
        domain: o.domain ?? 'explorer.test',
        nonce: o.nonce,
        uri: 'https://explorer.test/login',
        version: '1',
        issuedAt: new Date(clock.now()),
        expirationTime: o.expirationTime,
        statement: 'Sign in to the explorer',
      });
      const signature = await (o.signer ?? account).signMessage({ message });
      return { message, signature };
    };
    const nonce = async () => {
      const r = await call('GET', '/auth/siwe/nonce');
      t.equal(r.status, 200);
      t.match(r.body.data.nonce, /^[A-Za-z0-9]{8,}$/);
      return r.body.data.nonce as string;
    };

    const n1 = await nonce();
    const body = await sign({ nonce: n1 });
    const ok = await call('POST', '/auth/siwe/verify', { body });
    t.equal(ok.status, 200, JSON.stringify(ok.body));
    const token = ok.body.data.token;
    t.match(token, /^es_/);
    const info = await call('GET', '/user/info', { token });
    t.equal(info.status, 200);
    t.equal(info.body.data.name, getAddress(account.address), 'a new account named after the wallet');
    t.equal(info.body.data.email, null, 'no e-mail');
    const key = await call('POST', '/user/api-keys', { token, body: { name: 'from siwe' } });
    t.equal(key.status, 201, 'the session creates API keys');
    await call('POST', '/user/tags/address', { token, body: { address_hash: addr(9), name: 'mine' } });

    const replay = await call('POST', '/auth/siwe/verify', { body });
    t.equal(replay.status, 401, 'a used nonce is refused (no replay)');

    const again = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: await nonce() }) });
    t.equal(again.status, 200, 'a second sign-in');
    const tags = await call('GET', '/user/tags/address', { token: again.body.data.token });
    t.equal(tags.body.data.length, 1, 'into the same account');

    const other = privateKeyToAccount(generatePrivateKey());
    const forged = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: await nonce(), signer: other }) });
    t.equal(forged.status, 401, 'signed by another key');
    t.match(forged.body.message, /signature/);
    const wrongDomain = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: await nonce(), domain: 'evil.test' }) });
    t.equal(wrongDomain.status, 401, 'another domain');
    t.match(wrongDomain.body.message, /domain/);
    const expiredMsg = await call('POST', '/auth/siwe/verify', {
      body: await sign({ nonce: await nonce(), expirationTime: new Date(clock.now() - 1000) }),
    });
    t.equal(expiredMsg.status, 401, 'an expired message');
    t.match(expiredMsg.body.message, /expired/);
    const unknown = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: 'abcdefgh12345678' }) });
    t.equal(unknown.status, 401, 'a nonce we never gave');
    t.match(unknown.body.message, /nonce/);

    const late = await nonce();
    clock.advance(10 * 60_000 + 1000);
    const expiredNonce = await call('POST', '/auth/siwe/verify', { body: await sign({ nonce: late }) });
    t.equal(expiredNonce.status, 401, 'a nonce older than 10 minutes');
    t.match(expiredNonce.body.message, /nonce/);

    for (const bad of [{}, { message: 'hello', signature: '0x00' }, { message: 1, signature: 2 }, { message: body.message, signature: 'zz' }]) {
      const r = await call('POST', '/auth/siwe/verify', { body: bad });
      t.equal(r.status, 400, `malformed ${JSON.stringify(bad).slice(0, 40)}`);
      t.type(r.body.message, 'string');
    }
  });

  await t.test('Sign-in with an e-mailed code', async (t) => {
    const smtp = await smtpSink(t);
    const clock = movableClock();
    const app = await accountApp(t, pg, {
      clock: clock.now,
      smtp: { url: `smtp://127.0.0.1:${smtp.port}`, from: 'Explorer <no-reply@explorer.test>' },
    });
    const call = client(app.handle);
    const email = 'Mail.User@Example.org';

    const sent = await call('POST', '/auth/email/code', { body: { email } });
    t.equal(sent.status, 200, JSON.stringify(sent.body));
    const mail = await smtp.next();
    t.same(mail.to, ['mail.user@example.org']);
    const code = codeOf(mail);
    t.match(code, /^\d{6}$/);

    const soon = await call('POST', '/auth/email/code', { body: { email } });
    t.equal(soon.status, 429, 'a new code at most every 30 s');
    t.ok(Number(soon.headers['retry-after']) > 0);

    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 1; i <= 4; i++) {
      const r = await call('POST', '/auth/email/verify', { body: { email, code: wrong } });
      t.equal(r.status, 401, `wrong code ${i}`);
      t.match(r.body.message, `${5 - i} attempt`);
    }
    const ok = await call('POST', '/auth/email/verify', { body: { email: 'mail.user@example.org', code } });
    t.equal(ok.status, 200, 'the right code on the 5th attempt');
    const token = ok.body.data.token;
    const info = await call('GET', '/user/info', { token });
    t.equal(info.body.data.email, 'mail.user@example.org', 'first verification created the account');
    t.equal((await call('POST', '/user/api-keys', { token, body: { name: 'mail' } })).status, 201, 'the session creates keys');
    t.equal((await call('POST', '/auth/email/verify', { body: { email, code } })).status, 401, 'a code works once');

    // Five wrong attempts kill the code: the right one is refused afterwards.
    clock.advance(31_000);
    t.equal((await call('POST', '/auth/email/code', { body: { email } })).status, 200);
    const code2 = codeOf(await smtp.next());
    const wrong2 = code2 === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) t.equal((await call('POST', '/auth/email/verify', { body: { email, code: wrong2 } })).status, 401);
    const dead = await call('POST', '/auth/email/verify', { body: { email, code: code2 } });
    t.equal(dead.status, 401, 'after 5 wrong attempts the code is dead');

    // Expired after 10 minutes.
    clock.advance(31_000);
    t.equal((await call('POST', '/auth/email/code', { body: { email } })).status, 200);
    const code3 = codeOf(await smtp.next());
    clock.advance(10 * 60_000 + 1000);
    const expired = await call('POST', '/auth/email/verify', { body: { email, code: code3 } });
    t.equal(expired.status, 401, 'an expired code');

    // A second sign-in reaches the same account.
    t.equal((await call('POST', '/auth/email/code', { body: { email } })).status, 200);
    const code4 = codeOf(await smtp.next());
    const again = await call('POST', '/auth/email/verify', { body: { email, code: code4 } });
    t.equal(again.status, 200);
    const keys = await call('GET', '/user/api-keys', { token: again.body.data.token });
    t.equal(keys.body.data.length, 1, 'same account');

    for (const bad of [{}, { email: 'not-an-address' }, { email: 5 }, { email: 'a@b.c\r\nBcc: x@y.z' }]) {
      t.equal((await call('POST', '/auth/email/code', { body: bad })).status, 400, `code for ${JSON.stringify(bad)}`);
    }
    for (const bad of [{ email }, { email, code: '12345' }, { email, code: 123456 }, { code: '123456' }]) {
      t.equal((await call('POST', '/auth/email/verify', { body: bad })).status, 400, `verify ${JSON.stringify(bad)}`);
    }
    t.equal(smtp.mails.length, 0, 'no stray mail');

    const noSmtp = await accountApp(t, pg);
    const r = await client(noSmtp.handle)('POST', '/auth/email/code', { body: { email: 'x@example.org' } });
    t.equal(r.status, 503, 'without SMTP settings');
    t.type(r.body.message, 'string');
  });
});
