// The pages a visitor used to Etherscan expects (issue #33, section 4), in Debian's chromium on the
// devnet scenario (a chain younger than a day, plus one block an hour later): the gas tracker's
// levels, base fee and recent blocks equal /api/v2/stats and /api/v2/blocks; the advanced filter's
// rows, pages and CSV equal /api/v2/advanced-filters (its GET form works without JavaScript); an
// address's "funded by" and first/last transaction equal the API's lists in chain order; the home
// and stats charts draw the API's hourly points instead of "no data yet", with the chart script
// loaded only where a line is drawn. Four looks, axe, no console error, nothing wider than the screen.
import t from 'tap';
import { uiOnDevnet } from './helpers/ui.js';
import { checkLooks } from './helpers/looks.js';
import { walk } from './helpers/api-derived.js';
import { rpcCall } from './helpers/api.js';
import { BROKEN_TEXT, browserMissing, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { gwei, percent, shortHash } from '../src/ui/format.js';
import { fullness } from '../src/ui/pages/gas-tracker.js';
import { xLabel } from '../src/ui/components/chart.js';

t.test('gas tracker, advanced filter, address activity, young-chain charts', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t, {
    // One block an hour after the scenario's: the chain's transactions fall in two hours.
    before: async (devnet) => {
      const call = <T>(m: string, p: unknown[] = []) => rpcCall<T>(devnet.url, m, p);
      await call('evm_increaseTime', [3700]);
      await call('eth_sendTransaction', [{ from: devnet.scenario.accounts[3], to: devnet.scenario.accounts[4], value: '0x5' }]);
    },
  });
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const api = async (path: string) => {
    const r = await f.get(path);
    if (r.status !== 200) throw new Error(`${path} -> ${r.status}`);
    return r.body;
  };
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  t.teardown(() => context.close());
  const w = await watchedPage(context);
  const page = w.page;

  await t.test('gas tracker', async (t) => {
    const stats = await api('/api/v2/stats');
    const blocks = (await api('/api/v2/blocks?type=block')).items;
    await gotoSettled(page, `${f.base}/gas-tracker`);
    t.ok(stats.gas_prices, 'the API has gas prices on the scenario');
    for (const level of ['slow', 'average', 'fast']) {
      const l = stats.gas_prices[level];
      t.equal((await page.innerText(`.gas-${level} .gas-price`)).trim(), gwei(l.wei), `${level}: the API's price`);
      t.match(await page.innerText(`.gas-${level} .gas-parts`), new RegExp(`Priority fee\\s+${gwei(l.priority_fee_wei).replace(/\./g, '\\.')}`), `${level}: its priority fee`);
    }
    const tile = (label: string) => `xpath=//div[contains(@class,"tile")][div[contains(@class,"tile-label")][normalize-space()="${label}"]]/div[contains(@class,"tile-value")]`;
    t.equal((await page.innerText(tile('Base fee (latest block)'))).trim(), gwei(blocks[0].base_fee_per_gas), "the latest block's base fee");
    t.equal((await page.innerText(tile('Network utilisation'))).trim(), percent(stats.network_utilization_percentage, 2));
    const rows = await page.$$eval('.gas-blocks li', (lis) => lis.map((li) => ({ n: li.querySelector('a')!.textContent, text: (li as HTMLElement).innerText })));
    t.equal(rows.length, Math.min(20, blocks.length), 'the recent blocks');
    rows.forEach((r, i) => {
      t.equal(r.n, String(blocks[i].height), `row ${i}: block ${blocks[i].height}`);
      t.match(r.text, percent(fullness(blocks[i].gas_used, blocks[i].gas_limit)! * 100, 2), `row ${i}: its gas used of the limit`);
    });
    const html = await page.content();
    t.notMatch(html, /ETH price|ETH market cap/, 'no price without a price source (test/ui-prices.test.ts checks it with one)');
  });

  await t.test('advanced filter', async (t) => {
    const all = await walk(f, '/api/v2/advanced-filters');
    t.ok(all.pages > 1, `the scenario fills more than a page (${all.items.length} items)`);
    // The pages, followed by the pager's Next links, are the API's pages.
    const shown: string[] = [];
    let url: string | null = `${f.base}/advanced-filter`;
    while (url) {
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      shown.push(...(await page.$$eval('main table tbody tr td:first-child a[href^="/tx/"]', (as) => as.map((a) => a.getAttribute('href')!.slice(4)))));
      const next = await page.$('nav.pager a[rel="next"]');
      url = next ? new URL((await next.getAttribute('href'))!, f.base).toString() : null;
    }
    t.same(shown, all.items.map((i) => i.hash), 'every item of every page, in the API order');
    // The form as a GET form with JavaScript off: ERC-20 transfers only.
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    t.teardown(() => noJs.close());
    const p2 = await noJs.newPage();
    await p2.goto(`${f.base}/advanced-filter`);
    await p2.check('input[name="transaction_types"][value="ERC-20"]');
    await Promise.all([p2.waitForURL(/transaction_types=ERC-20/), p2.click('form.af-form button[type="submit"]')]);
    const erc20 = await walk(f, '/api/v2/advanced-filters?transaction_types=ERC-20');
    const rows = await p2.$$eval('main table tbody tr', (trs) => trs.map((tr) => (tr.children[1] as HTMLElement).innerText.trim()));
    t.ok(rows.length > 0 && rows.every((r) => r === 'ERC-20'), 'only ERC-20 rows');
    t.equal(rows.length, Math.min(50, erc20.items.length), "the API's first page of them");
    t.ok(await p2.isChecked('input[name="transaction_types"][value="ERC-20"]'), 'the form keeps its choice');
    const csvHref = await p2.getAttribute('.af-csv a', 'href');
    t.equal(csvHref, '/api/v2/advanced-filters/csv?transaction_types=ERC-20', 'the CSV link carries the same filters');
    const csv = await fetch(new URL(csvHref!, f.base));
    t.equal(csv.status, 200, 'the CSV downloads from the UI origin');
    const lines = (await csv.text()).trim().split('\n');
    t.equal(lines.length - 1, erc20.items.length, 'every matching row, not one page');
    // Dates: the day of the scenario's blocks keeps them all; the day before keeps none.
    const today = new Date(all.items[0].timestamp).toISOString().slice(0, 10);
    await page.goto(`${f.base}/advanced-filter?age_from=${today}&age_to=${today}&transaction_types=COIN_TRANSFER`, { waitUntil: 'domcontentloaded' });
    const coin = (await api(`/api/v2/advanced-filters?age_from=${today}T00:00:00Z&age_to=${today}T23:59:59Z&transaction_types=COIN_TRANSFER`)).items;
    t.same(await page.$$eval('main table tbody tr td:first-child a', (as) => as.map((a) => a.getAttribute('href')!.slice(4))), coin.map((i: any) => i.hash), 'a date range and a kind, as the API answers');
  });

  await t.test('address: funded by, first and last transaction', async (t) => {
    for (const who of [s.freshEoa, s.accounts[1], s.accounts[0]]) {
      const h = who.toLowerCase();
      const asc = (await api(`/api/v2/addresses/${h}/transactions?sort=block_number&order=asc`)).items;
      const desc = (await api(`/api/v2/addresses/${h}/transactions`)).items;
      const incoming = (await api(`/api/v2/addresses/${h}/transactions?filter=to&sort=block_number&order=asc`)).items;
      const funding = incoming.find((x: any) => x.to?.hash.toLowerCase() === h && BigInt(x.value) > 0n && x.status !== 'error');
      await page.goto(`${f.base}/address/${who}`, { waitUntil: 'domcontentloaded' });
      const row = async (label: string) => {
        const dd = await page.$(`xpath=//dl[contains(@class,"details")]/div[dt[normalize-space()="${label}"]]/dd`);
        return dd ? { links: await dd.$$eval('a', (as) => as.map((a) => a.getAttribute('href'))), text: await dd.innerText() } : null;
      };
      const funded = await row('Funded by');
      if (funding) {
        t.ok(funded, `${shortHash(h)}: funded by shown`);
        t.same(funded!.links.slice(0, 1), [`/address/${funding.from.hash}`], `${shortHash(h)}: the sender of its first incoming coin`);
        t.ok(funded!.links.includes(`/tx/${funding.hash}`), `${shortHash(h)}: and that transaction`);
      } else t.equal(funded, null, `${shortHash(h)}: no funding transaction (genesis), none shown`);
      t.ok((await row('First transaction'))?.links.includes(`/tx/${asc[0].hash}`), `${shortHash(h)}: first transaction`);
      t.ok((await row('Last transaction'))?.links.includes(`/tx/${desc[0].hash}`), `${shortHash(h)}: last transaction`);
    }
    t.ok(s.txs.some((x) => x.label === 'native owner -> fresh EOA 2 ETH'), 'the fresh account is funded by the scenario');
  });

  await t.test('young-chain charts', async (t) => {
    const daily = (await api('/api/v2/stats/charts/transactions')).chart_data;
    const hourly = (await api('/api/v1/lines/newTxns?resolution=HOUR')).chart;
    t.ok(daily.length < 2, 'the daily chart has at most one finished day');
    t.ok(hourly.length >= 2, `the API has hours (${hourly.length})`);
    await gotoSettled(page, `${f.base}/`);
    const home = await page.innerText('section[aria-labelledby="daily"]');
    t.notMatch(home, /No data/i, 'the home chart does not say "no data yet"');
    t.match(home, /Transactions per hour/);
    const table = await page.$$eval('section[aria-labelledby="daily"] figure table.chart-data tr', (trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent]));
    t.same(table, hourly.map((p: any) => [xLabel(p.date), p.value]), "its points are the API's hours");
    const scripts = async () => page.$$eval('script[src]', (ss) => ss.map((x) => x.getAttribute('src')!));
    t.ok((await scripts()).some((x) => /chart/.test(x)), 'the chart script loads where a line is drawn');
    await gotoSettled(page, `${f.base}/stats`);
    const art = await page.innerText('article[data-line="newTxns"]');
    t.match(art, /per hour over the last 48 hours/, 'the stats chart of transactions is per hour');
    const statsTable = await page.$$eval('article[data-line="newTxns"] figure table.chart-data tr', (trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent]));
    t.same(statsTable, hourly.map((p: any) => [xLabel(p.date), Number(p.value).toString()]), "its points are the API's hours");
    t.match(await page.innerText('article[data-line="txnsGrowth"]'), /a line needs two/, 'a cumulative line has no hours: it still says so');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
    // A page without a chart to draw does not load the script.
    await gotoSettled(page, `${f.base}/gas-tracker`);
    t.notOk((await scripts()).some((x) => /chart/.test(x)), 'no chart script on a page without a chart');
  });

  await t.test('four looks, JavaScript off, axe', async (t) => {
    const pages: [string, string][] = [
      ['gas-tracker', '/gas-tracker'],
      ['advanced-filter', '/advanced-filter'],
      ['advanced-filter-erc20', '/advanced-filter?transaction_types=ERC-20&amount_from=1'],
      ['address-funded', `/address/${s.freshEoa}`],
      ['home-hourly', '/'],
      ['stats-hourly', '/stats'],
    ];
    await checkLooks(t, browser, f.base, pages, 'expected');
    const noJs = await browser.newContext({ javaScriptEnabled: false });
    t.teardown(() => noJs.close());
    const p = await noJs.newPage();
    for (const [name, path] of pages) {
      const r = await p.goto(f.base + path);
      t.equal(r?.status(), 200, `${name} without JavaScript`);
      t.notMatch(await p.innerText('main'), BROKEN_TEXT);
    }
  });
});
