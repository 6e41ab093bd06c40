// The API key, private tag and custom ABI pages in Debian's chromium, each change checked through
// the Account API: a key's secret shown once (and working on the data API until revoked), never
// again in a page; tags added (also back to an address page), counted as typed, edited, moved and
// removed; ABIs pasted or read from a file, checked in the browser before sending and by the API
// after, replaced and removed; one add with JavaScript off; axe-core and screenshots of each page.
import t, { type Test } from 'tap';
import type { BrowserContext, Page } from 'playwright-core';
import { uiOnDevnet } from './helpers/ui.js';
import { smtpSink } from './helpers/account.js';
import { BROKEN_TEXT, axeViolations, browserMissing, screenshot, withAxe, withBrowser, gotoSettled } from './helpers/browser.js';
import { signedInContext } from './helpers/ui-account.js';

const KEYS = '/account/api/v1/user/api-keys';
const TAGS = '/account/api/v1/user/tags/address';
const ABIS = '/account/api/v1/user/custom-abis';

/** Addresses to tag: any address may be tagged, seen on the chain or not. */
const A1 = '0x1111111111111111111111111111111111111111';
const A2 = '0x2222222222222222222222222222222222222222';
const A3 = '0x3333333333333333333333333333333333333333';

const TRANSFER = { type: 'function', name: 'transfer', inputs: [{ name: 'to', type: 'address' }, { name: 'amount', type: 'uint256' }], outputs: [{ name: '', type: 'bool' }], stateMutability: 'nonpayable' };
const BALANCE = { type: 'function', name: 'balanceOf', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ name: '', type: 'uint256' }], stateMutability: 'view' };
const TRANSFERRED = { type: 'event', name: 'Transfer', anonymous: false, inputs: [{ name: 'from', type: 'address', indexed: true }, { name: 'to', type: 'address', indexed: true }, { name: 'value', type: 'uint256', indexed: false }] };

/** The text of the page's body, checked for words of a broken page. */
async function bodyText(t: Test, page: Page): Promise<string> {
  const text = await page.innerText('body');
  t.notMatch(text, BROKEN_TEXT, `${new URL(page.url()).pathname}: no NaN, undefined or [object Object]`);
  return text;
}

t.test('API keys, private tags and custom ABIs in the web UI', { skip: browserMissing() ?? false }, async (t) => {
  const smtp = await smtpSink(t);
  const f = await uiOnDevnet(t, { smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
  const browser = await withBrowser(t);
  const s = await signedInContext(browser, f, smtp, 'records@example.org');
  const page = s.page;
  /** A further context signed in as the same account (the session cookie copied). */
  const sameAccount = async (o: Parameters<typeof browser.newContext>[0]): Promise<BrowserContext> => {
    const c = await browser.newContext(o);
    await c.addCookies(await s.context.cookies());
    return c;
  };
  const phone = await sameAccount({ viewport: { width: 360, height: 740 } });
  const axeContext = await sameAccount({ viewport: { width: 1366, height: 900 }, bypassCSP: true });
  await withAxe(axeContext);
  const axePage = await axeContext.newPage();
  t.teardown(async () => {
    await s.context.close();
    await phone.close();
    await axeContext.close();
  });
  const phonePage = await phone.newPage();
  /** Screenshots of `path` at 1366 (the signed-in page as it is) and 360 wide, and axe-core on it. */
  const look = async (t: Test, path: string, name: string) => {
    await screenshot(page, name);
    await gotoSettled(phonePage, f.base + path);
    await screenshot(phonePage, `${name}-phone`);
    // What sticks out on the right (inside a box that scrolls sideways, as tables and tabs do, it does not count).
    const over = await phonePage.evaluate(() =>
      Array.from(document.querySelectorAll('main *'))
        .filter((e) => {
          for (let p = e.parentElement; p; p = p.parentElement) if (/auto|scroll/.test(getComputedStyle(p).overflowX)) return false;
          return e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5;
        })
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${String(e.className).split(' ').join('.')}` : ''}`),
    );
    t.same(over, [], `${path} at 360 wide: nothing in the page sticks out of the screen`);
    await gotoSettled(axePage, f.base + path);
    t.same(await axeViolations(axePage), [], `${path}: axe-core finds no serious or critical violation`);
  };
  /** Stats from the data API with `authorization: Bearer <key>`. */
  const statsWith = (key: string) => f.server!.handle({ method: 'GET', path: '/api/v2/stats', query: new URLSearchParams(), headers: { authorization: `Bearer ${key}` }, ip: '127.0.0.1' });

  await t.test('API keys: created with the secret shown once, listed, revoked after a confirmation', async (t) => {
    await gotoSettled(page, `${f.base}/account/api-keys`);
    t.match(await bodyText(t, page), 'No API key yet', 'none at first');

    // A name the API refuses (blank once trimmed): its message in the form, nothing created.
    await page.fill('#key-name', '   ');
    await page.click('form[action="/account/api-keys"] button');
    t.match(await page.innerText('#create-error'), /name/i, "the API's refusal is said next to the form");
    t.equal(await page.getAttribute('#key-name', 'aria-describedby'), 'create-error', 'the input points at its error');
    t.same((await s.api('GET', KEYS)).body.data, [], 'and no key was made');

    await page.fill('#key-name', 'CI indexer');
    await page.click('form[action="/account/api-keys"] button');
    await page.waitForSelector('#new-key-secret');
    const secret = (await page.innerText('#new-key-secret')).trim();
    t.match(secret, /^\S{40,}$/, 'the secret is shown');
    t.match(await page.innerText('[data-forget-post] .notice'), /not shown again/, 'with the warning that it will not be shown again');
    t.ok(await page.isVisible(`button.copy[data-copy="${secret}"]`), 'and a copy button');
    await screenshot(page, 'account-api-keys-secret');

    const keys = (await s.api('GET', KEYS)).body.data as { id: string; name: string; last_used_at: string | null }[];
    t.same(keys.map((k) => [k.name, k.last_used_at]), [['CI indexer', null]], 'the Account API lists the key, never used');
    t.notOk(JSON.stringify(keys).includes(secret), 'without its secret');
    t.equal((await statsWith(secret)).status, 200, 'the shown secret is a working key on the data API');
    t.equal((await statsWith(`${secret.slice(0, -2)}xx`)).status, 401, 'a changed one is not');

    // Reloading the answer asks the list again: no secret, and no second key.
    await page.reload({ waitUntil: 'networkidle' });
    t.equal(page.url(), `${f.base}/account/api-keys`, 'the reloaded page is the list');
    t.notOk((await page.content()).includes(secret), 'the reload does not show the secret');
    t.equal((await s.api('GET', KEYS)).body.data.length, 1, 'nor make another key');
    const row = await page.innerText(`#key-${keys[0].id}`);
    t.match(row, 'CI indexer', 'the list shows the name');
    t.match(row, keys[0].id.slice(0, 8), 'the start of the key id');
    t.match(row, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/, 'when it was created');
    t.notMatch(row, /never/, 'and that it has been used (just now, on the data API)');
    const other = await fetch(`${f.base}/account/api-keys`, { headers: { cookie: `explorer_session=${s.token}` } });
    t.notOk((await other.text()).includes(secret), 'the list page sent anew holds no secret either');
    await look(t, '/account/api-keys', 'account-api-keys');

    await page.click(`#key-${keys[0].id} a:text("Revoke")`);
    await page.waitForURL(`${f.base}/account/api-keys/${keys[0].id}/revoke`);
    t.match(await bodyText(t, page), /Every request that sends this key is refused/, 'a confirmation page says what revoking does');
    t.match(await page.innerText('main'), keys[0].id, 'and names the key by its whole id');
    t.equal((await statsWith(secret)).status, 200, 'opening it revokes nothing');
    await gotoSettled(axePage, page.url());
    t.same(await axeViolations(axePage), [], 'the confirmation page: axe-core clean');
    await Promise.all([page.waitForURL(`${f.base}/account/api-keys?done=revoked`), page.click('form.confirm-form button[type=submit]')]);
    t.match(await page.innerText('.form-ok'), /revoked/, 'revoked');
    t.same((await s.api('GET', KEYS)).body.data, [], 'the key is gone from the Account API');
    t.equal((await statsWith(secret)).status, 401, 'and refused on the data API');
    t.notOk(await page.isVisible(`#key-${keys[0].id}`), 'and from the list');
  });

  await t.test('private tags: added, counted as typed, edited, moved, removed', async (t) => {
    await gotoSettled(page, `${f.base}/account/tags?address=${A1}#add`);
    t.equal(await page.inputValue('#add-address'), A1, 'the address from ?address= is filled in');
    t.equal(await page.getAttribute('#add-name', 'maxlength'), '35', 'the name is limited to 35 characters');
    await page.click('#add-name');
    await page.keyboard.type('a'.repeat(12));
    t.equal(await page.innerText('#add-name-count'), '12/35', 'the counter follows the typing');
    await page.keyboard.type('b'.repeat(30));
    t.equal((await page.inputValue('#add-name')).length, 35, 'the 36th character cannot be typed');
    t.equal(await page.innerText('#add-name-count'), '35/35', 'the counter is at the limit');
    t.match(await page.getAttribute('#add-name', 'aria-describedby'), 'add-name-count', 'the count describes the input');

    // Blank once trimmed: the API refuses, its words in the add form, the address kept.
    await page.fill('#add-name', '  ');
    await page.click('form[action="/account/tags"] button');
    t.match(await page.innerText('#add-error'), /name/i, "the API's refusal in the add form");
    t.equal(await page.inputValue('#add-address'), A1, 'the address is kept');
    t.same((await s.api('GET', TAGS)).body.data, [], 'nothing stored');

    await page.fill('#add-name', 'Cold wallet');
    await Promise.all([page.waitForURL(`${f.base}/account/tags?done=added`), page.click('form[action="/account/tags"] button')]);
    let tags = (await s.api('GET', TAGS)).body.data as { id: string; address_hash: string; name: string }[];
    t.same(tags.map((g) => [g.address_hash.toLowerCase(), g.name]), [[A1, 'Cold wallet']], 'the Account API has the tag');
    t.match(await page.innerText(`#tag-${tags[0].id}`), 'Cold wallet', 'the list shows it');

    // From an address page's link: back there afterwards (`next`).
    await gotoSettled(page, `${f.base}/account/tags?address=${A2}&next=${encodeURIComponent(`/address/${A2}`)}`);
    await page.fill('#add-name', 'Hot wallet');
    await Promise.all([page.waitForURL(`${f.base}/address/${A2}`), page.click('form[action="/account/tags"] button')]);
    t.pass('back on the address page');
    const offsite = await fetch(`${f.base}/account/tags`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: f.base, cookie: `explorer_session=${s.token}` },
      body: new URLSearchParams({ csrf: await page.getAttribute('input[name=csrf]', 'value').then((v) => v ?? ''), address_hash: A2, name: 'Hot wallet', next: '//evil.example/' }).toString(),
      redirect: 'manual',
    });
    t.equal(offsite.headers.get('location'), '/account/tags?done=added', 'a `next` off this site is not followed');

    // Edit the name: replaced in place.
    await gotoSettled(page, `${f.base}/account/tags`);
    const first = tags[0].id;
    await page.click(`#tag-${first} a:text("Edit")`);
    await page.waitForURL(`${f.base}/account/tags/${first}/edit`);
    t.equal(await page.inputValue('#edit-name'), 'Cold wallet', 'the edit form holds the tag');
    t.equal(await page.innerText('#edit-name-count'), '11/35', 'counted there too');
    await gotoSettled(axePage, page.url());
    t.same(await axeViolations(axePage), [], 'the edit page: axe-core clean');
    await page.fill('#edit-name', 'Cold storage');
    await Promise.all([page.waitForURL(`${f.base}/account/tags?done=saved`), page.click(`form[action="/account/tags/${first}/edit"] button`)]);
    tags = (await s.api('GET', TAGS)).body.data;
    t.same(tags.map((g) => [g.id, g.address_hash.toLowerCase(), g.name]), [[first, A1, 'Cold storage'], [tags[1].id, A2, 'Hot wallet']], 'renamed in place (same record)');

    // Moving it onto an address with its own tag would replace that one: refused, nothing lost.
    await gotoSettled(page, `${f.base}/account/tags/${first}/edit`);
    await page.fill('#edit-address', A2);
    await page.click(`form[action="/account/tags/${first}/edit"] button`);
    t.match(await page.innerText('#edit-error'), /already has your tag “Hot wallet”/, 'a move onto a tagged address is refused in the form');
    t.same(((await s.api('GET', TAGS)).body.data as typeof tags).map((g) => g.name), ['Cold storage', 'Hot wallet'], 'both tags kept');
    // Moving it to a new address: added there, the old one removed.
    await page.fill('#edit-address', A3);
    await Promise.all([page.waitForURL(`${f.base}/account/tags?done=saved`), page.click(`form[action="/account/tags/${first}/edit"] button`)]);
    tags = (await s.api('GET', TAGS)).body.data;
    t.same(tags.map((g) => [g.address_hash.toLowerCase(), g.name]).sort(), [[A2, 'Hot wallet'], [A3, 'Cold storage']], 'the tag moved to the new address');
    await bodyText(t, page);
    await look(t, '/account/tags', 'account-tags');

    const hot = tags.find((g) => g.name === 'Hot wallet')!;
    await page.click(`#tag-${hot.id} a:text("Remove")`);
    await page.waitForURL(`${f.base}/account/tags/${hot.id}/remove`);
    t.match(await page.innerText('main'), 'Hot wallet', 'the confirmation names the tag');
    await Promise.all([page.waitForURL(`${f.base}/account/tags?done=removed`), page.click('form.confirm-form button[type=submit]')]);
    t.same(((await s.api('GET', TAGS)).body.data as typeof tags).map((g) => g.name), ['Cold storage'], 'removed from the Account API');
    t.notOk(await page.isVisible(`#tag-${hot.id}`), 'and from the list');
  });

  await t.test('custom ABIs: checked in the browser and by the API, pasted or read from a file, replaced, removed', async (t) => {
    const contract = f.devnet.scenario.contracts.DevnetToken;
    await gotoSettled(page, `${f.base}/account/custom-abis`);
    t.ok(await page.isVisible('#add-abi-file'), 'with JavaScript the file input is offered');
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    await page.fill('#add-address', contract);
    await page.fill('#add-name', 'Devnet token');
    await page.fill('#add-abi', '[{"type":"function",');
    await page.click('form[action="/account/custom-abis"] button');
    t.match(await page.innerText('#add-abi-check'), /not valid JSON/, 'JSON that does not parse is refused in the browser');
    await page.fill('#add-abi', '[{"type":"banana","name":"x"}]');
    await page.click('form[action="/account/custom-abis"] button');
    t.match(await page.innerText('#add-abi-check'), /Item 0 has no valid "type"/, 'an item without a valid type is refused in the browser');
    await page.fill('#add-abi', '{"abi":[]}');
    await page.click('form[action="/account/custom-abis"] button');
    t.match(await page.innerText('#add-abi-check'), /JSON array/, 'so is an object');
    t.equal(await page.getAttribute('#add-abi', 'aria-invalid'), 'true', 'the textarea is marked invalid');
    t.same(posts, [], 'nothing was sent');

    // The browser checks item types only: the API finds a bad function name, said in the form.
    await page.fill('#add-abi', '[{"type":"function","name":"1transfer","inputs":[]}]');
    await page.click('form[action="/account/custom-abis"] button');
    await page.waitForSelector('#add-error');
    t.equal(posts.length, 1, 'this one was sent');
    t.match(await page.innerText('#add-error'), /abi\[0\]\.name/, "the API's message is in the form");
    t.equal(await page.inputValue('#add-name'), 'Devnet token', 'the values are kept');
    t.same((await s.api('GET', ABIS)).body.data, [], 'nothing stored');

    // A compiler artifact read from a file: its "abi" goes into the textarea.
    await page.setInputFiles('#add-abi-file', { name: 'DevnetToken.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ contractName: 'DevnetToken', abi: [TRANSFER, BALANCE, TRANSFERRED] })) });
    // The island reads the file asynchronously (FileReader): wait until the textarea holds it.
    await page.waitForFunction(() => {
      try {
        return JSON.parse((document.querySelector('#add-abi') as HTMLTextAreaElement).value).length === 3;
      } catch {
        return false;
      }
    });
    t.same(JSON.parse(await page.inputValue('#add-abi')), [TRANSFER, BALANCE, TRANSFERRED], 'the file is read into the textarea');
    t.notOk(await page.isVisible('#add-abi-check'), 'and passes the check');
    await Promise.all([page.waitForURL(`${f.base}/account/custom-abis?done=added`), page.click('form[action="/account/custom-abis"] button')]);
    let abis = (await s.api('GET', ABIS)).body.data as { id: string; contract_address_hash: string; name: string; abi: { type: string; name?: string }[] }[];
    t.same(abis.map((a) => [a.contract_address_hash.toLowerCase(), a.name, a.abi.map((i) => i.name)]), [[contract.toLowerCase(), 'Devnet token', ['transfer', 'balanceOf', 'Transfer']]], 'the Account API has the ABI');
    const id = abis[0].id;
    t.match(await page.innerText(`#abi-${id}`), /Devnet token[\s\S]*2 functions, 1 event/, 'the list shows the name and the counts');
    t.ok(await page.isVisible(`#abi-${id} a[href="/address/${abis[0].contract_address_hash}"]`), 'and links the contract');
    await bodyText(t, page);
    await look(t, '/account/custom-abis', 'account-custom-abis');

    await page.click(`#abi-${id} a:text("Replace")`);
    await page.waitForURL(`${f.base}/account/custom-abis/${id}/edit`);
    t.same(JSON.parse(await page.inputValue('#edit-abi')), abis[0].abi, 'the replace form holds the ABI');
    await gotoSettled(axePage, page.url());
    t.same(await axeViolations(axePage), [], 'the replace page: axe-core clean');
    await page.fill('#edit-abi', JSON.stringify([BALANCE]));
    await page.fill('#edit-name', 'Devnet token (read-only)');
    await Promise.all([page.waitForURL(`${f.base}/account/custom-abis?done=saved`), page.click(`form[action="/account/custom-abis/${id}/edit"] button`)]);
    abis = (await s.api('GET', ABIS)).body.data;
    t.same(abis.map((a) => [a.id, a.name, a.abi.map((i) => i.name)]), [[id, 'Devnet token (read-only)', ['balanceOf']]], 'replaced in place');
    t.match(await page.innerText(`#abi-${id}`), '1 function, 0 events', 'the list shows the new counts');

    await page.click(`#abi-${id} a:text("Remove")`);
    await page.waitForURL(`${f.base}/account/custom-abis/${id}/remove`);
    await Promise.all([page.waitForURL(`${f.base}/account/custom-abis?done=removed`), page.click('form.confirm-form button[type=submit]')]);
    t.same((await s.api('GET', ABIS)).body.data, [], 'removed from the Account API');
    t.notOk(await page.isVisible(`#abi-${id}`), 'and from the list');
  });

  await t.test('with JavaScript off: a tag and an ABI are added, the file input is not offered', async (t) => {
    const off = await sameAccount({ viewport: { width: 1366, height: 900 }, javaScriptEnabled: false });
    t.teardown(() => off.close());
    const p = await off.newPage();
    await p.goto(`${f.base}/account/tags?address=${A1}`);
    await p.fill('#add-name', 'Without JS');
    await Promise.all([p.waitForURL(`${f.base}/account/tags?done=added`), p.click('form[action="/account/tags"] button')]);
    const tags = (await s.api('GET', TAGS)).body.data as { address_hash: string; name: string }[];
    t.ok(tags.some((g) => g.address_hash.toLowerCase() === A1 && g.name === 'Without JS'), 'the tag is stored');
    t.notOk(await p.isVisible('#add-name-count'), 'no counter without JavaScript (maxlength still limits)');

    await p.goto(`${f.base}/account/custom-abis`);
    t.notOk(await p.isVisible('#add-abi-file'), 'the file input needs JavaScript: not shown');
    await p.fill('#add-address', A2);
    await p.fill('#add-name', 'Pasted');
    await p.fill('#add-abi', JSON.stringify([TRANSFERRED], null, 2));
    await Promise.all([p.waitForURL(`${f.base}/account/custom-abis?done=added`), p.click('form[action="/account/custom-abis"] button')]);
    const abis = (await s.api('GET', ABIS)).body.data as { contract_address_hash: string; abi: unknown[] }[];
    t.same(abis.map((a) => [a.contract_address_hash.toLowerCase(), a.abi.length]), [[A2, 1]], 'the pasted ABI is stored');
  });

  t.same(s.errors.filter((e) => !/status of 4\d\d/.test(e)), [], 'no console error besides the refused forms');
});
