// Public names (#19) in the web UI, in Debian's chromium: a signed-in project submits a name, tags,
// website and an uploaded PNG icon for its token with JavaScript off (a name with <script> refused
// first, the API's message shown and what was typed kept), and a signed one through the wallet
// island; a second account made admin (the `explorer admin grant` function) reviews on the review
// page (signer, deployer, icon preview) and approves; the address page then shows the name, the
// tags and the "verified" mark, the token pages the icon; an edit changes the name, a rejection and
// a revert make them go away; a non-admin gets the 404 page. axe-core, 1366 and 360 px wide, light
// and dark screenshots (test-output/screenshots).
import t, { type Test } from 'tap';
import { privateKeyToAccount } from 'viem/accounts';
import type { BrowserContext, Page } from 'playwright-core';
import { uiOnDevnet } from './helpers/ui.js';
import { smtpSink } from './helpers/account.js';
import { image } from './helpers/images.js';
import { BROKEN_TEXT, VIEWPORTS, axeViolations, browserMissing, eachLook, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { injectWallet, signedInContext } from './helpers/ui-account.js';
import { runAdmin } from '../src/account/admin-cli.js';

/** Anvil's dev account #0: it deploys the scenario's contracts. */
const DEPLOYER = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const MINE = '/account/api/v1/user/public-names';

async function bodyText(t: Test, page: Page): Promise<string> {
  const text = await page.innerText('body');
  t.notMatch(text, BROKEN_TEXT, `${new URL(page.url()).pathname}: no NaN, undefined or [object Object]`);
  return text;
}

/** What sticks out on the right of the page (inside a box that scrolls sideways it does not count). */
async function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('main *'))
      .filter((e) => {
        for (let p = e.parentElement; p; p = p.parentElement) if (/auto|scroll/.test(getComputedStyle(p).overflowX)) return false;
        return e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5;
      })
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${String(e.className).split(' ').join('.')}` : ''}`),
  );
}

t.test('public names in the web UI: submit, review, where they show', { skip: browserMissing() ?? false }, async (t) => {
  const smtp = await smtpSink(t);
  const f = await uiOnDevnet(t, { smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
  const browser = await withBrowser(t);
  const token = f.devnet.scenario.contracts.DevnetToken;
  const forwarder = f.devnet.scenario.contracts.Forwarder;
  const project = await signedInContext(browser, f, smtp, 'project@example.org');
  const reviewer = await signedInContext(browser, f, smtp, 'reviewer@example.org');
  const out: string[] = [];
  const grant = await runAdmin(f.stores.pg, ['grant', 'reviewer@example.org'], { out: (s) => out.push(s), err: (s) => out.push(s), actor: 'cli:test' });
  t.equal(grant, 0, `explorer admin grant reviewer@example.org (${out.join('')})`);

  /** A further context signed in as `who` (its session cookie copied). */
  const contexts: BrowserContext[] = [];
  const as = async (who: { context: BrowserContext }, o: Parameters<typeof browser.newContext>[0]): Promise<BrowserContext> => {
    const c = await browser.newContext(o);
    await c.addCookies(await who.context.cookies());
    contexts.push(c);
    return c;
  };
  const anon = async (o: Parameters<typeof browser.newContext>[0]) => {
    const c = await browser.newContext(o);
    contexts.push(c);
    return c;
  };
  t.teardown(async () => {
    for (const c of contexts) await c.close();
    await project.context.close();
    await reviewer.context.close();
  });

  /** At 1366 and 360 wide (both themes with screenshots: eachLook), side by side: nothing wider than the phone's screen, axe-core clean. */
  const look = async (t: Test, who: { context: BrowserContext } | null, path: string, name: string) => {
    await eachLook(browser, async (c, { vp: size, scheme }) => {
      if (who) await c.addCookies(await who.context.cookies());
      const w = await watchedPage(c);
      await gotoSettled(w.page, f.base + path);
      await screenshot(w.page, `${name}-${size}-${scheme}`);
      if (size === 'phone') t.same(await overflow(w.page), [], `${path} at 360 wide (${scheme}): nothing sticks out of the screen`);
      t.same(w.errors, [], `${path} (${size}, ${scheme}): no console error`);
      t.same(w.failed, [], `${path} (${size}, ${scheme}): no failed request`);
    });
    const c = who ? await as(who, { viewport: VIEWPORTS.desktop, bypassCSP: true }) : await anon({ viewport: VIEWPORTS.desktop, bypassCSP: true });
    const p = await c.newPage();
    await gotoSettled(p, f.base + path);
    t.same(await axeViolations(p), [], `${path}: axe-core finds no serious or critical violation`);
    await c.close();
  };

  await t.test('the address page links to the submission form, prefilled', async (t) => {
    await gotoSettled(project.page, `${f.base}/address/${token}`);
    const href = await project.page.getAttribute('.own-actions a[href^="/account/public-names"]', 'href');
    t.equal(href, `/account/public-names?address=${token}#submit`, 'a "Submit a public name" link with the address');
    const a = await (await anon({ viewport: VIEWPORTS.desktop })).newPage();
    await gotoSettled(a, `${f.base}/address/${token}`);
    t.match(await a.innerText('.own-actions'), /Submit a public name/, 'anyone sees it too (sign-in first)');
    t.notOk(await a.$('.verified-mark'), 'no public name yet');
  });

  let submissionId = '';
  await t.test('a submission with JavaScript off: refused <script>, then name, tags and an uploaded icon', async (t) => {
    const off = await as(project, { viewport: VIEWPORTS.desktop, javaScriptEnabled: false });
    const w = await watchedPage(off);
    const page = w.page;
    await gotoSettled(page, `${f.base}/account/public-names?address=${token}`);
    t.equal(await page.inputValue('#pn-address'), token, 'the address is prefilled');
    t.ok(await page.$eval('details.pn-links', (d) => (d as HTMLDetailsElement).open), "a token's official links are open");
    t.match(await bodyText(t, page), 'No submission yet', 'nothing submitted yet');

    await page.fill('#pn-name', '<script>alert(1)</script>');
    await page.fill('#pn-tags', 'exchange, bridge');
    await page.click('form[data-public-name-form] button[type=submit]');
    t.match(await page.innerText('#submit-error'), /name must not contain < or >/, "the API's refusal is shown next to the form");
    t.equal(await page.inputValue('#pn-name'), '<script>alert(1)</script>', 'what was typed is kept (as text)');
    t.equal(await page.inputValue('#pn-tags'), 'exchange, bridge', 'the tags too');
    t.equal(await page.$$eval('script', (s) => s.filter((x) => x.textContent?.includes('alert(1)')).length), 0, 'and never run or written as markup');
    t.same((await project.api('GET', MINE)).body.data, [], 'nothing was submitted');
    await screenshot(page, 'public-names-refused');

    await page.fill('#pn-name', 'Devnet Exchange');
    await page.fill('#pn-website', 'https://devnet.example');
    await page.fill('#pn-description', 'The devnet token of "Devnet Exchange" & friends.');
    await page.fill('#pn-link-github', 'https://github.com/devnet/token');
    await page.setInputFiles('#pn-icon', { name: 'icon.png', mimeType: 'image/png', buffer: await image('png', 32, 32, [30, 160, 200, 255]) });
    await Promise.all([page.waitForURL(/done=submitted/), page.click('form[data-public-name-form] button[type=submit]')]);
    t.match(await page.innerText('.form-ok'), /Submitted/, 'it says the submission was sent');
    const mine = (await project.api('GET', MINE)).body.data;
    t.equal(mine.length, 1, 'one submission');
    t.match(mine[0], { name: 'Devnet Exchange', tags: ['exchange', 'bridge'], website: 'https://devnet.example', status: 'pending', kind: 'token', links: { github: 'https://github.com/devnet/token' } });
    t.match(mine[0].icon_url, /\/api\/v2\/public-icons\/[0-9a-f]{64}\.png$/, 'with the uploaded icon');
    submissionId = mine[0].id;
    const row = await page.innerText(`#submission-${submissionId}`);
    t.match(row, /Devnet Exchange[\s\S]*exchange[\s\S]*bridge[\s\S]*Pending review/, 'the list shows it, pending');
    t.equal(await page.$eval(`#submission-${submissionId} img.pn-icon`, (i) => (i as HTMLImageElement).naturalWidth), 32, 'with its icon loaded');
    t.same(w.failed.filter((x) => !x.endsWith('/account/public-names (400)')), [], 'no failed request but the refusal (400)');
  });

  let signedId = '';
  await t.test('with JavaScript and a wallet, the owner signs in place', async (t) => {
    const c = await as(project, { viewport: VIEWPORTS.desktop });
    const w = await watchedPage(c);
    const wallet = await injectWallet(w.page, DEPLOYER);
    await gotoSettled(w.page, `${f.base}/account/public-names?address=${forwarder}`);
    await w.page.fill('#pn-name', 'Devnet Forwarder');
    await w.page.fill('#pn-tags', 'router');
    t.ok(await w.page.isVisible('[data-owner-sign]'), 'the sign button shows with a wallet');
    await w.page.click('[data-owner-sign]');
    await w.page.waitForFunction(() => /^0x[0-9a-f]{130}$/i.test((document.querySelector('#pn-signature') as HTMLInputElement).value));
    t.match(wallet.signed[0], /^Public name submission to localhost:\d+\nAddress: 0x[0-9a-fA-F]{40}\nName: Devnet Forwarder$/, 'the wallet signed the API message');
    t.match(await w.page.innerText('[data-owner-sign-status]'), /Signed by/, 'and it says so');
    await Promise.all([w.page.waitForURL(/done=submitted/), w.page.click('form[data-public-name-form] button[type=submit]')]);
    const mine = (await project.api('GET', MINE)).body.data as { id: string; name: string; signer: string | null }[];
    const s = mine.find((x) => x.name === 'Devnet Forwarder')!;
    t.equal(s.signer, DEPLOYER.address, 'the submission records the signer');
    signedId = s.id;
    t.same(w.errors, [], 'no console error');
    await look(t, project, '/account/public-names', 'public-names');
  });

  await t.test('a non-admin gets the 404 page on the review pages', async (t) => {
    for (const path of ['/account/admin/public-names', `/account/admin/public-names/${submissionId}/edit`]) {
      const r = await gotoSettled(project.page, f.base + path);
      t.equal(r?.status(), 404, `${path}: 404`);
      t.match(await project.page.innerText('main'), /Page not found/, 'the UI\'s not-found page');
    }
    await gotoSettled(project.page, `${f.base}/account/public-names`);
    t.notOk(await project.page.$('.pn-admin-note'), 'no review link for a non-admin');
    const csrf = await project.page.inputValue('input[name=csrf]');
    const r = await project.page.request.post(`${f.base}/account/admin/public-names/${submissionId}/approve`, {
      form: { csrf, back: '/account/admin/public-names' },
      headers: { origin: f.base },
      maxRedirects: 0,
    });
    t.equal(r.status(), 404, "a non-admin's approve (with a valid form token) is the 404 page");
    t.equal((await project.api('GET', MINE)).body.data.find((x: { id: string }) => x.id === submissionId).status, 'pending', 'still pending');
  });

  await t.test('the admin reviews and approves without JavaScript; the name shows', async (t) => {
    const off = await as(reviewer, { viewport: VIEWPORTS.desktop, javaScriptEnabled: false });
    const w = await watchedPage(off);
    const page = w.page;
    await gotoSettled(page, `${f.base}/account/admin/public-names`);
    const card = `#review-${submissionId}`;
    const text = await page.innerText(card);
    t.match(text, /Devnet Exchange[\s\S]*Pending review/, 'the pending submission');
    t.match(text, /exchange[\s\S]*bridge/, 'its tags');
    t.match(text, /https:\/\/devnet\.example/, 'its website');
    t.match(text, /not signed/, 'unsigned');
    t.equal(await page.$eval(`${card} img.pn-icon`, (i) => (i as HTMLImageElement).naturalWidth), 32, 'the icon preview loads from the API');
    const signed = await page.innerText(`#review-${signedId}`);
    t.match(signed, /signed by[\s\S]*deployer: yes/, "the signed one names its signer, the contract's deployer");
    await screenshot(page, 'public-names-review');

    await Promise.all([page.waitForURL(/done=approved/), page.click(`${card} form[action$="/approve"] button`)]);
    t.match(await page.innerText('.form-ok'), /Approved/, 'approved');
    const a = await f.get(`/api/v2/addresses/${token}`);
    t.equal(a.body.name, 'Devnet Exchange', "the API's address object has the name");
    t.same(a.body.public_tags.map((x: { display_name: string }) => x.display_name), ['exchange', 'bridge'], 'and the tags');
    t.same(w.failed, [], 'no failed request');
    await look(t, reviewer, '/account/admin/public-names', 'public-names-review');
  });

  await t.test('the address page shows the name, tags, mark and icon; the token pages the icon', async (t) => {
    const page = await (await anon({ viewport: VIEWPORTS.desktop })).newPage();
    await gotoSettled(page, `${f.base}/address/${token}`);
    t.match(await page.innerText('.addr-head h1'), /Devnet Exchange/, 'the public name in the heading');
    const mark = await page.$('.addr-head .verified-mark');
    t.ok(mark, 'the verified mark');
    t.match(await mark!.getAttribute('title'), /verified by this explorer/i, 'with a tooltip');
    t.match(await mark!.innerText(), /Verified/, 'and words, also for screen readers');
    t.same(await page.$$eval('.addr-tags .public-tag', (e) => e.map((x) => x.textContent)), ['exchange', 'bridge'], 'the tags as labels');
    const img = await page.$('.addr-head img.pn-icon');
    t.ok(img, "the token's icon");
    t.match(await img!.getAttribute('alt'), /Devnet Exchange/, 'with alt text');
    t.equal(await img!.getAttribute('loading'), 'lazy');
    t.equal(await img!.getAttribute('referrerpolicy'), 'no-referrer');
    t.equal(await img!.getAttribute('width'), '28', 'a fixed size');
    t.equal(await img!.evaluate((i) => (i as HTMLImageElement).naturalWidth), 32, 'loaded under the CSP');
    const iconRes = await page.request.get(String(await img!.getAttribute('src')));
    t.equal(iconRes.status(), 200, 'the icon is served on the UI\'s origin (PUBLIC_URL here)');
    t.match(iconRes.headers(), { 'content-type': 'image/png', 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'" }, 'as an image only');
    await look(t, null, `/address/${token}`, 'public-names-address');

    await gotoSettled(page, `${f.base}/token/${token}`);
    t.equal(await page.$eval('.token-title img.pn-icon', (i) => (i as HTMLImageElement).naturalWidth), 32, 'the token page shows the icon');
    await screenshot(page, 'public-names-token');
    await gotoSettled(page, `${f.base}/tokens`);
    t.equal(await page.$$eval(`a[href="/token/${token}"]`, (as) => as.length > 0), true, 'the token is listed');
    t.equal(await page.$eval(`tr:has(a[href="/token/${token}"]) img.pn-icon`, (i) => (i as HTMLImageElement).naturalWidth), 32, 'the token list shows the icon');
    await look(t, null, '/tokens', 'public-names-tokens');
  });

  await t.test('edit, reject and revert on the review page', async (t) => {
    const off = await as(reviewer, { viewport: VIEWPORTS.desktop, javaScriptEnabled: false });
    const page = (await watchedPage(off)).page;
    // A new visitor each time: a browser keeps a page anyone sees for 5 s (Cache-Control max-age).
    let anonPage = await (await anon({ viewport: VIEWPORTS.desktop })).newPage();
    const fresh = async () => {
      await anonPage.context().close();
      anonPage = await (await anon({ viewport: VIEWPORTS.desktop })).newPage();
    };
    const heading = async () => {
      await fresh();
      await gotoSettled(anonPage, `${f.base}/address/${token}`);
      return { h1: await anonPage.innerText('.addr-head h1'), mark: !!(await anonPage.$('.verified-mark')), tags: await anonPage.$$eval('.public-tag', (e) => e.map((x) => x.textContent)) };
    };

    await gotoSettled(page, `${f.base}/account/admin/public-names/${submissionId}/edit`);
    t.equal(await page.inputValue('#edit-name'), 'Devnet Exchange', 'the edit form holds the submission');
    await page.fill('#edit-name', 'Devnet <b>');
    await page.click('form[action$="/edit"] button[type=submit]');
    t.match(await page.innerText('#edit-error'), /must not contain < or >/, "the API's refusal of an edit is shown");
    await page.fill('#edit-name', 'Devnet Exchange Ltd');
    await page.fill('#edit-note', 'official spelling');
    await Promise.all([page.waitForURL(/done=edited/), page.click('form[action$="/edit"] button[type=submit]')]);
    t.match((await heading()).h1, /Devnet Exchange Ltd/, 'the edited name shows at once');

    await page.fill(`#reason-${submissionId}`, 'not the token owner');
    await Promise.all([page.waitForURL(/done=rejected/), page.click(`#review-${submissionId} form[action$="/reject"] button`)]);
    let h = await heading();
    t.notMatch(h.h1, /Devnet Exchange/, 'rejected: the name is gone');
    t.equal(h.mark, false, 'and the mark');
    t.same(h.tags, [], 'and the tags');
    t.match(await page.innerText(`#review-${submissionId}`), /not the token owner/, 'the reason is kept with the decision');

    // Revert the rejection: the approved (edited) name is back.
    const rejectDecision = await page.$eval(`#review-${submissionId} .pn-decisions li:has(strong:text-is("reject"))`, (li) => li.id.replace('decision-', ''));
    await Promise.all([page.waitForURL(/done=reverted/), page.click(`#decision-${rejectDecision} button`)]);
    h = await heading();
    t.match(h.h1, /Devnet Exchange Ltd/, 'the rejection reverted: the name is back');
    t.equal(h.mark, true, 'with its mark');

    // Approve the signed submission, then revert that approval: it goes away again.
    await gotoSettled(page, `${f.base}/account/admin/public-names`);
    await Promise.all([page.waitForURL(/done=approved/), page.click(`#review-${signedId} form[action$="/approve"] button`)]);
    await fresh();
    await gotoSettled(anonPage, `${f.base}/address/${forwarder}`);
    t.match(await anonPage.innerText('.addr-head h1'), /Devnet Forwarder/, 'the second name shows');
    const approveDecision = await page.$eval(`#review-${signedId} .pn-decisions li:has(strong:text-is("approve"))`, (li) => li.id.replace('decision-', ''));
    await Promise.all([page.waitForURL(/done=reverted/), page.click(`#decision-${approveDecision} button`)]);
    await fresh();
    await gotoSettled(anonPage, `${f.base}/address/${forwarder}`);
    t.notMatch(await anonPage.innerText('.addr-head h1'), /Devnet Forwarder/, 'the approval reverted: gone');
    t.notOk(await anonPage.$('.verified-mark'), 'and its mark');
    t.match(await page.innerText(`#review-${signedId}`), /Pending review/, 'the submission is pending again');
  });
});
