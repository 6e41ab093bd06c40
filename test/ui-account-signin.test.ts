// Signing in to the web UI as a person does, in Debian's chromium: with a wallet (an injected
// EIP-1193 provider that signs with a local viem account: a real signature, no bypass) and with an
// e-mailed code read from a real SMTP sink; the session cookie's attributes; the account page;
// signing out; forms from another site refused; deleting the account with a typed confirmation.
import t from 'tap';
import { privateKeyToAccount } from 'viem/accounts';
import { uiOnDevnet } from './helpers/ui.js';
import { smtpSink, codeOf } from './helpers/account.js';
import { browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { injectWallet } from './helpers/ui-account.js';

const WALLET = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

t.test('signing in and out of the web UI', { skip: browserMissing() ?? false }, async (t) => {
  const smtp = await smtpSink(t);
  const f = await uiOnDevnet(t, { smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
  const browser = await withBrowser(t);

  await t.test('with a wallet (Sign-In with Ethereum)', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const w = await watchedPage(context);
    const wallet = await injectWallet(w.page, WALLET);
    await gotoSettled(w.page, `${f.base}/account`);
    t.match(w.page.url(), /\/account\/sign-in\?next=%2Faccount$/, 'an anonymous visitor is sent to the sign-in page');
    await w.page.click('[data-siwe]');
    await w.page.waitForURL(`${f.base}/account`, { timeout: 15_000 });
    t.equal(wallet.signed.length, 1, 'the wallet signed one message');
    t.match(wallet.signed[0], new RegExp(`^localhost:\\d+ wants you to sign in with your Ethereum account:\\n${WALLET.address}\\n`), 'an EIP-4361 message for this origin and the checksummed address');
    t.match(wallet.signed[0], new RegExp(`\\nURI: ${f.base}\\n`), 'naming this origin as URI');
    t.match(wallet.signed[0], new RegExp(`\\nChain ID: ${f.devnet.scenario.chainId}\\n`), 'and the chain');
    const body = await w.page.innerText('body');
    t.match(body, WALLET.address, 'the account page shows the wallet');
    t.match(body, 'Sign out', 'the header offers to sign out');
    const cookie = (await context.cookies()).find((c) => c.name === 'explorer_session');
    t.ok(cookie, 'a session cookie');
    t.equal(cookie?.httpOnly, true, 'HttpOnly');
    t.equal(cookie?.sameSite, 'Lax', 'SameSite=Lax');
    t.equal(cookie?.secure, false, 'not Secure over plain http');
    t.same(w.errors, [], 'no console error');
    await screenshot(w.page, 'account-profile-wallet');

    // A signed-in page is private: never cached, by the UI or anyone.
    const res = await gotoSettled(w.page, `${f.base}/blocks`);
    t.equal(res?.headers()['cache-control'], 'private, no-store', 'signed-in pages are private, no-store');

    await Promise.all([w.page.waitForURL(`${f.base}/`), w.page.click('header form[action="/account/sign-out"] button')]);
    t.notOk((await context.cookies()).some((c) => c.name === 'explorer_session' && c.value), 'signing out clears the cookie');
    const me = await f.get('/account/api/v1/user/info', { authorization: `Bearer ${cookie!.value}` });
    t.equal(me.status, 404, 'the public app does not serve the Account API');
    const gone = await f.server!.handle({ method: 'GET', path: '/account/api/v1/user/info', query: new URLSearchParams(), headers: { authorization: `Bearer ${cookie!.value}` }, ip: '127.0.0.1' });
    t.equal(gone.status, 401, 'and the session no longer works at the Account API');
    await context.close();
  });

  await t.test('with an e-mailed code, and deleting the account', async (t) => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const w = await watchedPage(context);
    await gotoSettled(w.page, `${f.base}/account/sign-in`);
    await w.page.fill('#email', 'visitor@example.org');
    await Promise.all([w.page.waitForURL(/\/account\/sign-in\/code\?/), w.page.click('form[action="/account/sign-in/email"] button')]);
    const mail = await smtp.next();
    t.same(mail.to, ['visitor@example.org'], 'the code went to the address');
    await w.page.fill('#code', '000000');
    await w.page.click('form[action="/account/sign-in/email/verify"] button');
    t.match(await w.page.innerText('#code-error'), /wrong code/, 'a wrong code is said in the form');
    await w.page.fill('#code', codeOf(mail));
    await Promise.all([w.page.waitForURL(`${f.base}/account`), w.page.click('form[action="/account/sign-in/email/verify"] button')]);
    t.match(await w.page.innerText('body'), 'visitor@example.org', 'signed in: the account page shows the address');
    await screenshot(w.page, 'account-profile-email-phone');

    // A form sent from another site is refused, whatever it carries.
    const cookie = (await context.cookies()).find((c) => c.name === 'explorer_session')!;
    const forged = await fetch(`${f.base}/account/delete`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', cookie: `explorer_session=${cookie.value}` },
      body: 'confirm=delete+my+account',
      redirect: 'manual',
    });
    t.equal(forged.status, 403, 'a cross-site form is refused');
    const noToken = await fetch(`${f.base}/account/delete`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: f.base, cookie: `explorer_session=${cookie.value}` },
      body: 'confirm=delete+my+account',
      redirect: 'manual',
    });
    t.equal(noToken.status, 403, 'a form without the session token is refused');

    await w.page.fill('#confirm', 'delete');
    await w.page.click('form[action="/account/delete"] button');
    t.match(await w.page.innerText('#confirm-error'), /exactly/, 'a wrong confirmation deletes nothing');
    await w.page.fill('#confirm', 'delete my account');
    await Promise.all([w.page.waitForURL(`${f.base}/`), w.page.click('form[action="/account/delete"] button')]);
    const after = await f.server!.handle({ method: 'GET', path: '/account/api/v1/user/info', query: new URLSearchParams(), headers: { authorization: `Bearer ${cookie.value}` }, ip: '127.0.0.1' });
    t.equal(after.status, 401, 'the account is gone');
    t.same(w.errors.filter((e) => !/status of 40[01]/.test(e)), [], 'no console error besides the refused code');
    await context.close();
  });
});
