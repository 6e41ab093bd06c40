// The watchlist and notification pages in Debian's chromium, each change checked through the
// Account API: add (with chosen settings), edit, remove and page through watched addresses; set,
// rotate and test a webhook whose signing secret is shown once; choose another notification
// e-mail and confirm it with the mailed code; and end to end: a webhook receiver and a watched
// address set from the UI, a transfer on the devnet, the signed delivery at the receiver and its
// line in the delivery log page.
import t, { type Test } from 'tap';
import http from 'node:http';
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { uiOnDevnet } from './helpers/ui.js';
import { codeOf, smtpSink } from './helpers/account.js';
import { axeViolations, browserMissing, screenshot, withBrowser, gotoSettled } from './helpers/browser.js';
import { signedInContext } from './helpers/ui-account.js';
import { devAccount } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { DEFAULT_POLICY, type WebhookPolicy } from '../src/notify/webhook.js';

const WATCH = '/account/api/v1/user/watchlist';
const SETTINGS = '/account/api/v1/user/notification-settings';

/** A plain-http receiver on loopback recording every delivery (the test's policy allows both). */
async function httpReceiver(t: Test) {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

/** What a receiver written from SERVICE.md alone checks: hex HMAC-SHA256 of the raw body. */
function signedWith(secret: string, d: { headers: http.IncomingHttpHeaders; body: string }): boolean {
  return d.headers['x-service-signature'] === crypto.createHmac('sha256', secret).update(d.body).digest('hex');
}

async function until(fn: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rowsOf = (items: { address_hash: string; name: string }[]) => items.map((e) => [e.address_hash.toLowerCase(), e.name]);

t.test('watchlist and notification pages', { skip: browserMissing() ?? false }, async (t) => {
  const smtp = await smtpSink(t);
  const policy: WebhookPolicy = { ...DEFAULT_POLICY, allowHttp: true, allowPrivate: true };
  const f = await uiOnDevnet(t, { smtpUrl: `smtp://127.0.0.1:${smtp.port}`, webhookPolicy: policy, notify: true });
  const browser = await withBrowser(t);
  const s = await signedInContext(browser, f, smtp, 'watcher@example.org');
  t.teardown(() => s.context.close());
  const page = s.page;
  const A = '0x00000000000000000000000000000000000a0a01';

  await t.test('add with chosen settings, edit, remove', async (t) => {
    await gotoSettled(page, `${f.base}/account/watchlist`);
    t.match(await page.innerText('main'), /No address is watched yet/, 'an empty watchlist says so');
    t.ok(await page.isChecked('#add-ERC-721-in'), 'a new entry notifies about everything by default');
    t.ok(await page.isChecked('#add-email'), 'by e-mail');
    t.notOk(await page.isChecked('#add-webhook'), 'not by webhook while none is set');
    await page.fill('#add-address', A);
    await page.fill('#add-name', 'Cold wallet');
    await page.uncheck('#add-ERC-721-in');
    await page.uncheck('#add-ERC-1155-out');
    await Promise.all([page.waitForURL(/done=added/), page.click('form[action="/account/watchlist"] button[type=submit]')]);
    let api = (await s.api('GET', WATCH)).body.data.items;
    t.same(rowsOf(api), [[A, 'Cold wallet']], 'the entry is stored');
    t.same(api[0].notification_settings['ERC-721'], { incoming: false, outgoing: true }, 'with the settings chosen');
    t.same(api[0].notification_settings['ERC-1155'], { incoming: true, outgoing: false });
    t.same(api[0].notification_methods, { email: true, webhook: false });
    t.match(await page.innerText('.form-ok'), 'on your watchlist', 'the page says it is added');
    const row = await page.innerText(`#watch-${api[0].id}`);
    t.match(row, 'Cold wallet');
    t.match(row, /ERC-721 out/, 'the list sums up the settings');
    t.same(await axeViolations(page), [], 'the watchlist page is accessible');
    await screenshot(page, 'account-watchlist');

    // A refusal of the API shows in the add form, the values kept.
    await page.fill('#add-address', A);
    await page.fill('#add-name', 'x'.repeat(255));
    await page.evaluate(() => document.querySelector<HTMLInputElement>('#add-address')!.removeAttribute('pattern'));
    await page.fill('#add-address', '0x1234');
    const [refusedAdd] = await Promise.all([page.waitForNavigation(), page.click('form[action="/account/watchlist"] button[type=submit]')]);
    t.equal(refusedAdd?.status(), 400, "the page answers with the API's status");
    s.errors.length = 0; // chromium logs the 400 of the page itself
    t.match(await page.innerText('#add-error'), /address_hash/, "the API's message is shown in the add form");
    t.equal(await page.inputValue('#add-address'), '0x1234', 'the address is kept to correct it');
    t.equal((await s.api('GET', WATCH)).body.data.items.length, 1, 'nothing was added');

    await Promise.all([page.waitForURL(/\/edit/), page.click(`#watch-${api[0].id} a:text("Edit")`)]);
    t.equal(await page.inputValue('#edit-name'), 'Cold wallet', 'the edit form holds the entry');
    t.notOk(await page.isChecked('#edit-ERC-721-in'), 'and its settings');
    await page.fill('#edit-name', 'Cold wallet 2');
    await page.check('#edit-ERC-721-in');
    await page.uncheck('#edit-native-out');
    await page.uncheck('#edit-email');
    t.same(await axeViolations(page), [], 'the edit page is accessible');
    await screenshot(page, 'account-watchlist-edit');
    await Promise.all([page.waitForURL(/done=saved/), page.click('form[action$="/edit"] button[type=submit]')]);
    api = (await s.api('GET', WATCH)).body.data.items;
    t.same(rowsOf(api), [[A, 'Cold wallet 2']], 'the new name is stored');
    t.same(api[0].notification_settings['ERC-721'], { incoming: true, outgoing: true });
    t.same(api[0].notification_settings.native, { incoming: true, outgoing: false });
    t.same(api[0].notification_methods, { email: false, webhook: false });
    t.match(await page.innerText(`#watch-${api[0].id}`), /none/, 'no channel is shown as none');

    await Promise.all([page.waitForURL(/\/remove/), page.click(`#watch-${api[0].id} a:text("Remove")`)]);
    t.match(await page.innerText('main'), /Stop watching “Cold wallet 2”/, 'removing asks first');
    t.equal((await s.api('GET', WATCH)).body.data.items.length, 1, 'the confirmation page removes nothing');
    await Promise.all([page.waitForURL(/done=removed/), page.click('form[action$="/remove"] button[type=submit]')]);
    t.same((await s.api('GET', WATCH)).body.data.items, [], 'the entry is gone from the API');
    t.match(await page.innerText('main'), /No address is watched yet/, 'and from the list');
    t.same(s.errors, [], 'no console error');
  });

  await t.test('paging through 30 entries', async (t) => {
    const hashes = Array.from({ length: 30 }, (_, i) => `0x${(0xb000 + i).toString(16).padStart(40, '0')}`);
    for (const [i, h] of hashes.entries()) t.equal((await s.api('POST', WATCH, { address_hash: h, name: `entry ${i}` })).status, 201);
    await gotoSettled(page, `${f.base}/account/watchlist`);
    t.equal(await page.locator('tr[id^="watch-"]').count(), 25, 'the first page holds 25');
    t.match(await page.innerText('.pager'), /1–25 of 30/);
    await Promise.all([page.waitForURL(/skip=25/), page.click('.pager a[rel=next]')]);
    const second = await page.locator('tr[id^="watch-"] .watch-name').allInnerTexts();
    const api = (await s.api('GET', `${WATCH}?skip=25&limit=25`)).body.data.items;
    t.same(second, api.map((e: { name: string }) => e.name), 'the second page holds the rest, as the API pages them');
    t.equal(second.length, 5);
    t.equal(await page.locator('.pager a[rel=next]').count(), 0, 'and no next page');
    for (const e of (await s.api('GET', `${WATCH}?limit=100`)).body.data.items) await s.api('DELETE', `${WATCH}/${e.id}`);
  });

  const receiver = await httpReceiver(t);
  let secret = '';

  await t.test('webhook: set (secret once), refused URL, rotate, test delivery', async (t) => {
    await gotoSettled(page, `${f.base}/account/notifications`);
    policy.allowPrivate = false;
    await page.fill('#webhook-url', receiver.url);
    const [refusedUrl] = await Promise.all([page.waitForNavigation(), page.click('form[action="/account/notifications/webhook"] button')]);
    t.equal(refusedUrl?.status(), 400);
    s.errors.length = 0; // chromium logs the 400 of the page itself
    t.match(await page.innerText('#webhook-error'), /the target is refused/, "a URL the policy refuses shows the API's reason in the webhook form (without the address behind it)");
    t.equal(await page.inputValue('#webhook-url'), receiver.url, 'the URL is kept');
    policy.allowPrivate = true;

    await Promise.all([page.waitForLoadState('networkidle'), page.click('form[action="/account/notifications/webhook"] button')]);
    secret = (await page.innerText('#webhook-secret')).trim();
    t.ok(secret.length >= 32, 'the signing secret is shown');
    t.match(await page.innerText('main'), /shown only this once/, 'with the warning');
    t.equal(await page.innerText('.who-name'), 'watcher', "a page answered in place names the visitor like any other");
    t.equal(page.url(), `${f.base}/account/notifications/webhook`, 'on the answer to the form itself, not a URL to come back to');
    t.same(await axeViolations(page), [], 'the secret page is accessible');
    await screenshot(page, 'account-notifications-secret');
    const set = (await s.api('GET', SETTINGS)).body.data;
    t.equal(set.webhook_url, receiver.url, 'the webhook is stored');

    await gotoSettled(page, `${f.base}/account/notifications`);
    t.notMatch(await page.content(), secret, 'the settings page never shows the secret again');
    const again = await page.goto(`${f.base}/account/notifications/webhook`);
    t.notMatch(await again!.text(), secret, 'nor does a GET of the form address');
    await gotoSettled(page, `${f.base}/account/notifications`);

    await Promise.all([page.waitForURL(/webhook\/rotate$/), page.click('a:text("Rotate the secret")')]);
    await Promise.all([page.waitForLoadState('networkidle'), page.click('form[action="/account/notifications/webhook/rotate"] button')]);
    const rotated = (await page.innerText('#webhook-secret')).trim();
    t.not(rotated, secret, 'rotating gives a new secret');
    secret = rotated;

    await gotoSettled(page, `${f.base}/account/notifications`);
    await Promise.all([page.waitForURL(/done=test-queued/), page.click('form[action="/account/notifications/webhook/test"] button')]);
    t.match(await page.innerText('#webhook .form-ok'), /test delivery is queued/i);
    await until(() => receiver.got.some((d) => JSON.parse(d.body).event === 'watchlist.test'), 'the test delivery');
    const test = receiver.got.find((d) => JSON.parse(d.body).event === 'watchlist.test')!;
    t.ok(signedWith(secret, test), 'the test delivery is signed with the rotated secret');
  });

  await t.test('notification e-mail to another address, confirmed with the mailed code', async (t) => {
    await gotoSettled(page, `${f.base}/account/notifications`);
    await page.fill('#notify-email', 'alerts@example.org');
    await Promise.all([page.waitForURL(/done=code-sent/), page.click('form[action="/account/notifications/email"] button')]);
    const mail = await smtp.next();
    t.same(mail.to, ['alerts@example.org'], 'the code goes to the new address');
    t.match(await page.innerText('#email'), /waiting for confirmation/);
    const code = codeOf(mail);
    const wrong = code === '000000' ? '111111' : '000000';
    await page.fill('#email-code', wrong);
    const [refusedCode] = await Promise.all([page.waitForNavigation(), page.click('form[action="/account/notifications/email/confirm"] button')]);
    t.equal(refusedCode?.status(), 400);
    s.errors.length = 0;
    t.match(await page.innerText('#code-error'), /code/i, 'a wrong code is refused in the code form');
    await page.fill('#email-code', code);
    await Promise.all([page.waitForURL(/done=email-confirmed/), page.click('form[action="/account/notifications/email/confirm"] button')]);
    const set = (await s.api('GET', SETTINGS)).body.data;
    t.equal(set.email, 'alerts@example.org');
    t.equal(set.email_confirmed, true, 'the address is confirmed');
    t.match(await page.innerText('#email'), /confirmed/);
  });

  await t.test('a transfer to an address watched from the UI reaches the webhook set from the UI', async (t) => {
    const W = '0x00000000000000000000000000000000000c0c0b';
    await gotoSettled(page, `${f.base}/account/watchlist?address=${W}`);
    t.equal(await page.inputValue('#add-address'), W, '?address= fills the form');
    t.ok(await page.isChecked('#add-webhook'), 'with a webhook set, a new entry sends by webhook');
    await page.fill('#add-name', 'Deposit box');
    await Promise.all([page.waitForURL(/done=added/), page.click('form[action="/account/watchlist"] button[type=submit]')]);

    const before = receiver.got.length;
    const from = devAccount(2).address;
    const hash = await rpc<string>(f.devnet.url, 'eth_sendTransaction', [{ from, to: W, value: '0xde0b6b3a7640000' }]);
    await minedIn(f.devnet.url, hash);
    await until(() => receiver.got.slice(before).some((d) => JSON.parse(d.body).event === 'watchlist.transaction'), 'the transfer delivery');
    const d = receiver.got.slice(before).find((x) => JSON.parse(x.body).event === 'watchlist.transaction')!;
    const body = JSON.parse(d.body);
    t.ok(signedWith(secret, d), 'the delivery verifies with the secret the UI showed');
    t.equal(body.transaction.hash.toLowerCase(), hash.toLowerCase(), 'it is about the transfer');
    t.equal(body.watchlist_entry.address_hash.toLowerCase(), W);

    await until(async () => {
      await gotoSettled(page, `${f.base}/account/notifications/log`);
      return (await page.locator(`tr:has(a[href$="${hash.toLowerCase()}"]) .status.ok`).count()) > 0;
    }, 'the delivered line in the log page');
    const line = await page.innerText(`tr:has(a[href$="${hash.toLowerCase()}"]):has-text("webhook")`);
    t.match(line, /ETH incoming/, 'the log says what it was about');
    t.match(line, /delivered/, 'and that it was delivered');
    t.same(await axeViolations(page), [], 'the log page is accessible');
    await screenshot(page, 'account-notifications-log');
    await gotoSettled(page, `${f.base}/account/notifications`);
    t.match(await page.innerText('main'), /delivered/, 'the settings page lists recent deliveries');
    t.same(await axeViolations(page), [], 'the notifications page is accessible');
    await screenshot(page, 'account-notifications');
    t.same(s.errors, [], 'no console error');
  });

  await t.test('the pages on a phone', async (t) => {
    const phone = await s.context.newPage();
    await phone.setViewportSize({ width: 360, height: 740 });
    for (const [path, name] of [
      ['/account/watchlist', 'account-watchlist-phone'],
      ['/account/notifications', 'account-notifications-phone'],
    ]) {
      await gotoSettled(phone, f.base + path);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      t.ok(overflow <= 0, `${path} fits 360 px (overflow ${overflow})`);
      const spill = await phone.evaluate(() => Array.from(document.querySelectorAll('.card, fieldset')).filter((e) => e.scrollWidth > e.clientWidth && !e.querySelector('table')).length);
      t.equal(spill, 0, `nothing spills out of its box on ${path}`);
      await screenshot(phone, name);
    }
  });
});
