// The web UI's islands in a browser: a block mined on the devnet appears on the home page without
// a reload (live updates over /socket/v2); typing part of a token name or the start of an address
// shows suggestions, arrows and Enter open one, and Enter on a transaction hash opens its page; "/" focuses the search box;
// with JavaScript off the home and block pages still show their data.
import t from 'tap';
import { uiOnDevnet } from './helpers/ui.js';
import { browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { minedIn } from './helpers/rpc.js';
import { devAccount } from './helpers/devnet.js';
import { groupDigits } from '../src/ui/format.js';

t.test('live updates and search in a browser', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t);
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });

  await t.test('a new block appears on the home page without a reload', async (t) => {
    const w = await watchedPage(context);
    await gotoSettled(w.page, f.base + '/');
    const before = Number(await f.rpc<string>('eth_blockNumber'));
    t.ok(await w.page.isVisible(`#live a[href="/block/${before}"]`), `block ${before} is listed`);
    // A value transfer mines a block; the indexer commits it, the socket announces it.
    const hash = await f.rpc<string>('eth_sendTransaction', [{ from: devAccount(0).address, to: devAccount(5).address, value: '0x1' }]);
    const block = await minedIn(f.devnet.url, hash);
    await w.page.waitForSelector(`#live a[href="/block/${block}"]`, { timeout: 30_000 });
    t.pass(`block ${block} appeared without a reload`);
    const tiles = await w.page.innerText('#live .tiles');
    const stats = (await f.get('/api/v2/stats')).body;
    t.match(tiles, groupDigits(String(stats.total_blocks)), 'the counters moved with it');
    t.ok(await w.page.isVisible(`#live a[href="/tx/${hash}"]`), 'and its transaction is in the latest transactions');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
    await screenshot(w.page, 'home-live-after-new-block');
    await w.page.close();
  });

  await t.test('search suggestions, keyboard and Enter', async (t) => {
    const w = await watchedPage(context);
    await gotoSettled(w.page, f.base + '/blocks');
    await w.page.keyboard.press('/');
    t.equal(await w.page.evaluate(() => document.activeElement?.id), 'q', '"/" focuses the search box');
    await w.page.keyboard.type('Devnet Tok', { delay: 30 });
    await w.page.waitForSelector('#q-suggest li a', { timeout: 10_000 });
    const suggestions = await w.page.$$eval('#q-suggest li a', (as) => as.map((a) => a.textContent ?? ''));
    t.ok(suggestions.some((x) => /Devnet Token/.test(x)), `suggestions name the token: ${suggestions.join(' | ')}`);
    await screenshot(w.page, 'search-suggestions');
    await w.page.keyboard.press('ArrowDown');
    await Promise.all([w.page.waitForURL(/\/token\/0x[0-9a-fA-F]{40}$/), w.page.keyboard.press('Enter')]);
    t.equal(w.page.url().split('/').pop()!.toLowerCase(), s.contracts.DevnetToken.toLowerCase(), 'Enter on the suggestion opens the token page');

    // The start of an address (issue #33: "0x5FbDB2" found nothing): suggested as you type, and listed by the search page.
    const token = s.contracts.DevnetToken;
    await gotoSettled(w.page, f.base + '/blocks');
    await w.page.fill('#q', token.slice(0, 8));
    await w.page.waitForSelector(`#q-suggest li a[href="/address/${token}"]`, { timeout: 10_000 });
    t.pass(`typing ${token.slice(0, 8)} suggests ${token}`);
    await screenshot(w.page, 'search-address-prefix');
    await gotoSettled(w.page, `${f.base}/search?q=${token.slice(0, 8)}`);
    t.ok(await w.page.isVisible(`.results a[href="/address/${token}"]`), 'the search page lists the address starting with it');

    await gotoSettled(w.page, f.base + '/blocks');
    await w.page.fill('#q', s.forwardTx.hash);
    await Promise.all([w.page.waitForURL(`**/tx/${s.forwardTx.hash}`), w.page.press('#q', 'Enter')]);
    t.pass('Enter on a transaction hash opens the transaction page');
    t.same(w.errors, [], 'no console error');
    await w.page.close();
  });

  await t.test('with JavaScript off the home and block pages show their data', async (t) => {
    const off = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1366, height: 900 } });
    const w = await watchedPage(off);
    await w.page.goto(f.base + '/', { waitUntil: 'load' });
    const stats = (await f.get('/api/v2/stats')).body;
    t.match(await w.page.innerText('body'), groupDigits(String(stats.total_transactions)), 'home: the counters');
    t.ok(await w.page.isVisible('#live .feed li'), 'home: latest blocks and transactions');
    t.notOk(await w.page.isVisible('button.copy'), 'copy buttons stay hidden without JavaScript');
    await w.page.goto(`${f.base}/block/${s.forwardTx.blockNumber}`, { waitUntil: 'load' });
    t.match(await w.page.innerText('body'), s.forwardTx.hash.slice(0, 10), 'block: its transaction');
    await w.page.goto(`${f.base}/search?q=${s.forwardTx.hash}`, { waitUntil: 'load' });
    t.match(w.page.url(), `/tx/${s.forwardTx.hash}`, 'search without JavaScript: the form redirects to the exact hit');
    await screenshot(w.page, 'home-no-javascript');
    await off.close();
  });
});
