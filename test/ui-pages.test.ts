// The web UI as a person uses it, in Debian's chromium: every page built so far on the devnet
// scenario, desktop and phone, light and dark, showing the API's values, with no console error, no
// failed request and no broken text; screenshots under test-output/screenshots.
import t from 'tap';
import { uiOnDevnet } from './helpers/ui.js';
import { BROKEN_TEXT, eachLook, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { groupDigits } from '../src/ui/format.js';

const V2 = '/api/v2';

t.test('explorer pages in a browser', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t);
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;

  const pages: { name: string; path: string; check?: (text: string) => Promise<void> | void }[] = [
    {
      name: 'home',
      path: '/',
      check: async (text) => {
        const stats = (await f.get(`${V2}/stats`)).body;
        t.match(text, groupDigits(String(stats.total_blocks)), 'home: total blocks as the API says');
        t.match(text, groupDigits(String(stats.total_transactions)), 'home: total transactions as the API says');
        const newest = (await f.get(`${V2}/main-page/blocks`)).body[0];
        const n = newest.transactions_count;
        t.match(text, `${groupDigits(String(n))} ${n === 1 ? 'transaction' : 'transactions'} · miner`, `home: the newest block's ${n} transaction(s), in words`);
        t.notMatch(text, /\b1 transactions\b|\btxs\b/, 'home: no "1 transactions", no "txs"');
        t.match(text, `Gas price\n${stats.gas_prices.average.price} gwei`, 'home: the gas tracker\'s average price');
        t.notMatch(text, /object Object/, 'home: no object printed as text');
      },
    },
    { name: 'blocks', path: '/blocks' },
    {
      name: 'block',
      path: `/block/${s.forwardTx.blockNumber}`,
      check: async (text) => {
        const b = (await f.get(`${V2}/blocks/${s.forwardTx.blockNumber}`)).body;
        t.match(text, b.hash, 'block: its hash');
        t.match(text, groupDigits(b.gas_used), 'block: gas used');
      },
    },
    {
      // The tab the block page links (it answered 400 before /blocks/{id}/withdrawals existed).
      name: 'block-withdrawals',
      path: `/block/${s.forwardTx.blockNumber}?tab=withdrawals`,
      check: (text) => {
        t.match(text, 'This block has no withdrawals.', 'block withdrawals tab: the devnet block has none, and says so');
      },
    },
    { name: 'search-results', path: '/search?q=Devnet' },
    { name: 'not-found', path: '/nothing/here' },
  ];

  await eachLook(
    browser,
    async (context, { vp, scheme }) => {
      const w = await watchedPage(context); // one tab for the whole walk (Watched.clear)
      for (const p of pages) {
        w.clear();
        const res = await gotoSettled(w.page, f.base + p.path);
        const text = await w.page.innerText('body');
        const label = `${p.name} ${vp} ${scheme}`;
        if (p.name === 'not-found') t.equal(res?.status(), 404, `${label}: 404`);
        else t.equal(res?.status(), 200, `${label}: 200`);
        t.notMatch(text, BROKEN_TEXT, `${label}: no broken text`);
        // A 404 document is itself reported by the browser as a failed resource: that one is expected.
        t.same(
          w.errors.filter((e) => !(p.name === 'not-found' && /status of 404/.test(e))),
          [],
          `${label}: no console error`,
        );
        t.same(
          w.failed.filter((u) => !(p.name === 'not-found' && u.includes('/nothing/here'))),
          [],
          `${label}: no failed request`,
        );
        const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        t.ok(overflow <= 1, `${label}: nothing wider than the screen (${overflow} px)`);
        // Every link of the header's menu is on the screen, none hidden beyond a scroll.
        const cut = await w.page.$$eval('header .nav a', (as) => as.filter((a) => a.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((a) => (a as HTMLElement).innerText));
        t.same(cut, [], `${label}: the whole menu is on the screen`);
        if (vp === 'desktop' && scheme === 'light') await p.check?.(text);
        await screenshot(w.page, `${p.name}-${vp}-${scheme}`);
      }
      await w.page.close();
    },
  );
});
