// The explorer's pages as a signed-in account holder sees them, in Debian's chromium: their private
// tag and watchlist name replace the hash (marked as theirs) on the address page, in transaction
// lists and in search (suggestions and results); their custom ABI names a method on their view of
// a transaction (a standard call is named for everyone, their ABI over the table); "add private
// tag" and "add to watchlist" in one step from the address page. Another account and an anonymous
// visitor see none of it, also when asking right after the owner (no shared page cache holds a
// personal page).
import t from 'tap';
import { parseAbi } from 'viem';
import { uiOnDevnet } from './helpers/ui.js';
import { smtpSink } from './helpers/account.js';
import { axeViolations, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { signedInContext } from './helpers/ui-account.js';

const TOKEN_ABI = [
  'function transfer(address to, uint256 amount) returns (bool)',
  'function mint(address to, uint256 amount)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
];

t.test("an account's own labels and ABIs on the explorer's pages", { skip: browserMissing() ?? false }, async (t) => {
  const smtp = await smtpSink(t);
  const f = await uiOnDevnet(t, { smtpUrl: `smtp://127.0.0.1:${smtp.port}` });
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const transfer = s.txs.find((x) => x.label === 'erc20 transfer alice -> bob 100')!;
  const sender = transfer.from;
  const token = s.contracts.DevnetToken;
  const TAG = 'Alice treasury';

  const a = await signedInContext(browser, f, smtp, 'a@example.org');
  const b = await signedInContext(browser, f, smtp, 'b@example.org');
  const anon = await watchedPage(await browser.newContext({ viewport: { width: 1366, height: 900 }, bypassCSP: true }));
  t.teardown(async () => {
    await a.context.close();
    await b.context.close();
  });

  await t.test('add a private tag and watch an address from its page', async (t) => {
    await gotoSettled(a.page, `${f.base}/address/${sender}`);
    await a.page.fill('#own-tag-name', TAG);
    await Promise.all([a.page.waitForURL(`${f.base}/address/${sender}`), a.page.click('form[action="/account/tags"] button')]);
    const tags = await a.api('GET', '/account/api/v1/user/tags/address');
    t.same(
      tags.body.data.map((x: { address_hash: string; name: string }) => [x.address_hash.toLowerCase(), x.name]),
      [[sender.toLowerCase(), TAG]],
      'the tag is stored for A',
    );
    t.match(await a.page.innerText('h1'), TAG, "A's address page is headed with the tag");
    t.match(await a.page.innerText('.addr-head'), /private/i, 'marked as private');

    await gotoSettled(a.page, `${f.base}/address/${token}`);
    await Promise.all([a.page.waitForURL(`${f.base}/address/${token}`), a.page.click('form[action="/account/watchlist"] button')]);
    const watch = await a.api('GET', '/account/api/v1/user/watchlist');
    t.equal(watch.body.data.items.length, 1, 'one click put the address on the watchlist');
    t.equal(watch.body.data.items[0].address_hash.toLowerCase(), token.toLowerCase());
    t.match(await a.page.innerText('.own-actions'), /In your watchlist as/, 'and the page says so');
    t.same(a.errors, [], 'no console error');
    t.same(await axeViolations(a.page), [], 'the personal strip is accessible');
  });

  await t.test("A's tag in lists and on the transaction, the hash for B and anyone else", async (t) => {
    const path = `/address/${token}`;
    await gotoSettled(a.page, f.base + path);
    const own = await a.page.locator('.own-label', { hasText: TAG }).count();
    t.ok(own > 0, "the token's transaction list names A's tagged sender by the tag");
    t.ok((await a.page.locator('.own-tag').count()) > 0, 'with the private mark');
    await screenshot(a.page, 'account-personal-address');

    // Right after A's visit, the same page for anyone else: no trace of A (no shared cache hit).
    for (const [who, page] of [['anonymous', anon.page], ['B', b.page]] as const) {
      const res = await gotoSettled(page, f.base + path);
      t.notMatch(await page.content(), TAG, `${who} does not see A's tag on the address page`);
      if (who === 'anonymous') t.match(res?.headers()['cache-control'] ?? '', /public/, 'the anonymous page is the shared one');
    }
    const raw = await fetch(f.base + path);
    t.notMatch(await raw.text(), TAG, 'nor does a plain request after A');

    await gotoSettled(a.page, `${f.base}/tx/${transfer.hash}`);
    t.match(await a.page.innerText('.details'), TAG, "A's transaction page shows the tagged sender by the tag");
    for (const [who, page] of [['anonymous', anon.page], ['B', b.page]] as const) {
      await gotoSettled(page, `${f.base}/tx/${transfer.hash}`);
      t.notMatch(await page.innerText('body'), TAG, `${who}: the plain hash on the transaction page`);
    }
  });

  await t.test("A's custom ABI names the method for A only", async (t) => {
    // mint(address,uint256) is in the catalogue: without an ABI everyone sees it named by it, and
    // told so; A's custom ABI names and decodes it A's way for A only.
    const mint = s.txs.find((x) => x.label === 'erc20 mint alice 1000')!;
    await gotoSettled(b.page, `${f.base}/tx/${mint.hash}`);
    t.equal(await b.page.innerText('.tx-method'), 'mint', 'without an ABI the catalogue names it');
    t.match(await b.page.innerText('.tx-naming'), 'Named by the built-in catalogue', 'and the page says by what');
    const added = await a.api('POST', '/account/api/v1/user/custom-abis', { contract_address_hash: token, name: 'token', abi: JSON.stringify(parseAbi(TOKEN_ABI)) });
    t.equal(added.status, 201, 'A adds a custom ABI for the token');
    await gotoSettled(a.page, `${f.base}/tx/${mint.hash}`);
    t.equal(await a.page.innerText('.tx-method'), 'mint', "A's transaction page names the method");
    t.match(await a.page.innerText('body'), 'mint(address to, uint256 amount)', "and decodes the input with A's parameter names");
    t.match(await a.page.innerText('.tx-naming'), 'Named by your custom ABI', "and says it is A's ABI");
    await screenshot(a.page, 'account-personal-tx');
    for (const [who, page] of [['B', b.page], ['an anonymous visitor', anon.page]] as const) {
      await gotoSettled(page, `${f.base}/tx/${mint.hash}`);
      t.match(await page.innerText('.tx-naming'), 'Named by the built-in catalogue', `${who} still sees the catalogue's naming`);
      t.notMatch(await page.innerText('body'), 'mint(address to, uint256 amount)', `${who}: not A's parameter names`);
    }
    // A standard call is named for everyone by the interface table; A's ABI words it A's way.
    await gotoSettled(anon.page, `${f.base}/tx/${transfer.hash}`);
    t.equal(await anon.page.innerText('.tx-method'), 'transfer', 'an ERC-20 transfer is named for anyone');
    t.match(await anon.page.innerText('body'), 'transfer(address to, uint256 value)', "with the standard's parameter names");
    await gotoSettled(a.page, `${f.base}/tx/${transfer.hash}`);
    t.match(await a.page.innerText('body'), 'transfer(address to, uint256 amount)', "and A's custom ABI over the table for A");
  });

  await t.test("search finds A's tag for A only, marked as private", async (t) => {
    await gotoSettled(a.page, `${f.base}/`);
    await a.page.fill('#q', 'treasury');
    const option = a.page.locator('.suggest li a').first();
    await option.waitFor({ timeout: 10_000 });
    t.match(await option.innerText(), new RegExp(`^${TAG} \\(your private tag\\) · ${sender}`, 'i'), "A's suggestion is the tag, marked");
    await screenshot(a.page, 'account-personal-suggest');
    await gotoSettled(a.page, `${f.base}/search?q=treasury`);
    t.match(await a.page.innerText('.results'), TAG, "A's results list the tagged address");
    t.ok((await a.page.locator('.results .own-tag').count()) > 0, 'marked as private');

    const suggestB = await b.page.evaluate(async () => (await fetch('/search/suggest?q=treasury')).json());
    t.same(suggestB, [], 'B gets no suggestion for it');
    await gotoSettled(b.page, `${f.base}/search?q=treasury`);
    t.notMatch(await b.page.innerText('main'), TAG, "B's results do not list it");
    const anonSuggest = await (await fetch(`${f.base}/search/suggest?q=treasury`)).json();
    t.same(anonSuggest, [], 'nor an anonymous visitor');
  });
});
