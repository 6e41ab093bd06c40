// The stats page, top accounts, verified contracts and the CSV export page in Debian's chromium on
// the devnet scenario: desktop and phone, light and dark, every value equal to the API's (counters,
// each line's latest point at each resolution, ranks and exact balances page by page, contract
// counters), the charts turned interactive by their island, no console error, no failed request,
// no broken text, nothing wider than the screen; a CSV downloaded through the page's form is the
// API's file byte for byte. The UI and the API share one origin here, as behind the shipped proxy.
import t from 'tap';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { render } from 'preact-render-to-string';
import { toHex } from 'viem';
import { uiOnDevnet } from './helpers/ui.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { devAccount } from './helpers/devnet.js';
import { BROKEN_TEXT, VIEWPORTS, browserMissing, eachLook, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { startServer } from '../src/api/server.js';
import { createLogger } from '../src/log.js';
import { formatUnits, groupDigits, readableDecimal } from '../src/ui/format.js';
import { decimalText, shiftDecimal } from '../src/ui/pages/stats.js';
import { shareOf } from '../src/ui/pages/accounts.js';
import { VerifiedTable } from '../src/ui/pages/verified-contracts.js';

const V2 = '/api/v2';

t.test('pure parts', async (t) => {
  t.equal(shiftDecimal('0.000021', 9), '21000', 'coin to gwei, exactly');
  t.equal(shiftDecimal('1.5', 9), '1500000000');
  t.equal(shiftDecimal('0.0000000001234', 9), '0.1234');
  t.equal(shiftDecimal('12', 0), '12');
  t.equal(decimalText('1234567.000123'), '1,234,567.000123', 'grouped, the fraction as given');
  t.equal(shareOf('25', '100'), '25.0000%');
  t.equal(shareOf('1', '3'), '33.3333%', 'cut, never rounded up');
  t.equal(shareOf('2', '3'), '66.6666%');
  // The list is empty until verification exists; its table is checked on an item of the API's schema.
  const html = render(
    VerifiedTable({
      coin: 'ETH',
      items: [
        {
          address: { hash: '0x5FbDB2315678afecb367f032d93F642f64180aa3', name: 'DevnetToken', is_contract: true },
          language: 'solidity',
          compiler_version: 'v0.8.24+commit.e11b9ed9',
          optimization_enabled: true,
          coin_balance: '1500000000000000000',
          transactions_count: 1234,
          verified_at: '2024-05-01T12:00:00.000000Z',
          license_type: 'mit',
        },
      ],
    }),
  );
  for (const s of ['DevnetToken', 'solidity', 'v0.8.24+commit.e11b9ed9', 'Yes', '1.5', '1,234', 'mit', 'datetime="2024-05-01T12:00:00.000000Z"']) t.match(html, s, `verified table shows ${s}`);
});

t.test('stats, top accounts, verified contracts and CSV pages in a browser', { skip: browserMissing() ?? false }, async (t) => {
  // Transfers a day and two days after the scenario: the daily lines then have three points.
  const f = await uiOnDevnet(t, {
    before: async (devnet) => {
      for (const day of [1, 2]) {
        await rpc(devnet.url, 'evm_increaseTime', [86_400]);
        await minedIn(devnet.url, await rpc<string>(devnet.url, 'eth_sendTransaction', [{ from: devAccount(9).address, to: devAccount(8).address, value: toHex(BigInt(day)) }]));
      }
    },
  });
  const s = f.devnet.scenario;
  // One origin for the UI and the API (as deploy/nginx.conf serves them): the CSV form posts to /api.
  const front = await startServer({
    handle: (req) => (req.path === '/api' || req.path.startsWith('/api/') ? f.server!.handle(req) : f.ui.handle(req)),
    host: '127.0.0.1',
    port: 0,
    log: createLogger('front'),
  });
  t.teardown(() => front.close());
  const base = `http://127.0.0.1:${front.port}`;
  const browser = await withBrowser(t);
  const api = async (path: string) => {
    const r = await f.get(path);
    if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
    return r.body as any;
  };
  const sender = s.accounts[0].toLowerCase();

  type Check = (page: import('playwright-core').Page, text: string) => Promise<void>;
  /** The latest point of every line at a resolution, as the stats page must show it. */
  const latestOf = async (resolution: string, query = '') => {
    const lines = await api('/api/v1/lines');
    const out = new Map<string, string>();
    for (const sec of lines.sections) {
      for (const c of sec.charts) {
        const r = await api(`/api/v1/lines/${c.id}?resolution=${resolution}${query}`);
        if (r.chart.length) out.set(c.id, decimalText(r.chart[r.chart.length - 1].value));
      }
    }
    return out;
  };
  const checkStats = (resolution: string, query: string): Check => async (page) => {
    const counters = (await api('/api/v1/counters')).counters as { id: string; value: string; units?: string }[];
    t.ok(counters.length >= 6, `${counters.length} counters`);
    for (const c of counters) {
      // The digits that matter (an 18-decimal fee sum used to wrap over three lines), the exact value a tap away (hidden until then).
      const [shown, title] = await page.$eval(`[data-counter="${c.id}"]`, (e) => [(e as HTMLElement).innerText.trim(), e.querySelector('.short > .exact')?.textContent ?? null]);
      const units = c.units ? ` ${c.units}` : '';
      t.equal(shown, `${readableDecimal(c.value, 5)}${units}`, `counter ${c.id}`);
      t.equal(title ?? shown, `${decimalText(c.value)}${units}`, `counter ${c.id}: the exact value, shown or a tap away`);
    }
    const stats = await api(`${V2}/stats`);
    const text = await page.innerText('body');
    t.match(text, `Total gas used\n${groupDigits(stats.total_gas_used)}`, 'total gas used as /api/v2/stats says');
    t.match(text, `Transactions today (UTC)\n${groupDigits(String(stats.transactions_today))}`, 'transactions today');
    // The period the page chose: its presets end on the newest block's day.
    const shown = /Per \w+, (\S+) to (\S+) \(UTC\)/.exec(await page.innerText('.stats-span'));
    const range = shown ? `&from=${shown[1]}&to=${shown[2]}` : '';
    if (query === 'all') t.match(await page.innerText('.stats-span'), 'all stored history', 'the whole history');
    else t.ok(shown, `a period is named (${shown?.[1]} to ${shown?.[2]})`);
    const latest = await latestOf(resolution, range);
    const lines = (await api('/api/v1/lines')).sections.flatMap((x: any) => x.charts.map((c: any) => c.id));
    t.same((await page.$$eval('[data-line]', (es) => es.map((e) => e.getAttribute('data-line')))).sort(), [...lines].sort(), 'a chart per line the API lists');
    t.ok(latest.size >= 5, `${latest.size} lines have points`);
    for (const [id, v] of latest) t.equal(await page.$eval(`[data-latest="${id}"]`, (e) => e.textContent), v, `${resolution}: ${id} latest point`);
    // A line of two points or more is drawn; the island redrew each with uPlot from the same numbers.
    const lengths = new Map<string, number>();
    for (const id of lines) lengths.set(id, (await api(`/api/v1/lines/${id}?resolution=${resolution}${range}`)).chart.length);
    const charted = await page.$$eval('[data-line]', (as) => as.filter((a) => a.querySelector('figure.chart')).map((a) => a.getAttribute('data-line')));
    t.same(charted.sort(), lines.filter((id: string) => lengths.get(id)! >= 2).sort(), `${resolution}: a chart for each line of two points or more`);
    if (resolution === 'DAY') t.ok(charted.length >= 6, `${charted.length} daily charts`);
    const drawn = await page.$$eval('figure.chart', (fs) => fs.map((f) => !!f.querySelector('.uplot') && !f.querySelector('svg[role=img]')));
    t.ok(drawn.every(Boolean), `${drawn.length} charts are interactive`);
  };

  const checkAccounts: Check = async (page) => {
    const top = await api(`${V2}/addresses?items_count=5`);
    t.equal(top.total_supply, null, 'the API knows no supply');
    const rows = await page.$$eval('table tbody tr', (trs) => trs.map((tr) => Array.from(tr.children).map((c) => (c as HTMLElement).innerText.trim())));
    const hashes = await page.$$eval('table tbody tr td:nth-child(2) a[title]', (as) => as.map((a) => a.getAttribute('title')));
    t.same(hashes, top.items.map((a: any) => a.hash), 'the API’s addresses in its order');
    t.same(
      rows,
      top.items.map((a: any, i: number) => [String(i + 1), rows[i][1], `${formatUnits(a.coin_balance, 18)} ETH`, groupDigits(String(a.transactions_count))]),
      'rank, exact balance with the symbol, transactions (no share column without a supply)',
    );
    t.match(await page.innerText('body'), 'The share of the supply is not shown', 'says why there is no share');
    // The next page: ranks go on, rows are the API's second page.
    await page.click('nav.pager a[rel=next]');
    await page.waitForLoadState('networkidle');
    const second = await api(`${V2}/addresses?${new URLSearchParams(Object.entries({ ...top.next_page_params }).map(([k, v]) => [k, String(v)]))}`);
    const ranks = await page.$$eval('table tbody tr td:first-child', (tds) => tds.map((td) => (td as HTMLElement).innerText.trim()));
    const next = await page.$$eval('table tbody tr td:nth-child(2) a[title]', (as) => as.map((a) => a.getAttribute('title')));
    t.same(next, second.items.map((a: any) => a.hash), 'page 2: the API’s next page');
    t.same(ranks, second.items.map((_: unknown, i: number) => String(6 + i)), 'page 2: ranks 6 on');
  };

  const checkContracts: Check = async (page, text) => {
    const c = await api(`${V2}/smart-contracts/counters`);
    for (const [label, v] of [['Contracts', c.smart_contracts], ['New contracts (24h)', c.new_smart_contracts_24h], ['Verified contracts', c.verified_smart_contracts], ['Newly verified (24h)', c.new_verified_smart_contracts_24h]])
      t.match(text, `${label}\n${groupDigits(v)}`, `tile ${label}`);
    t.ok(Number(c.smart_contracts) >= 5, `${c.smart_contracts} contracts created on the devnet`);
    t.same((await api(`${V2}/smart-contracts`)).items, [], 'the API lists no verified contract');
    t.match(text, 'No contract is verified on this explorer yet', 'says the list is empty and why');
    t.match(text, `The indexed chain created ${groupDigits(c.smart_contracts)} contracts`, 'with the contracts count');
  };

  const checkCsvHelp: Check = async (_page, text) => {
    for (const k of ['transactions', 'token-transfers', 'internal-transactions', 'logs']) t.match(text, `/api/v2/addresses/{hash}/${k}/csv`, `documents ${k}`);
    for (const p of ['from_period, to_period', 'from_block, to_block', 'filter_type, filter_value', 'TokensTransferred', 'UnixTimestamp']) t.match(text, p, `explains ${p}`);
  };

  const checkCsvForms: Check = async (page) => {
    const actions = await page.$$eval('section.csv-export form', (fs) => fs.map((f) => f.getAttribute('action')));
    t.same(
      actions,
      ['transactions', 'token-transfers', 'internal-transactions', 'logs'].flatMap((k) => [`/api/v2/addresses/${sender}/${k}/csv`, `/api/v2/addresses/${sender}/${k}/csv`]),
      'by date and by block, for the four lists',
    );
  };

  const pages: { name: string; path: string; check?: Check }[] = [
    { name: 'stats', path: '/stats', check: checkStats('DAY', '') },
    { name: 'stats-week', path: '/stats?resolution=WEEK&period=all', check: checkStats('WEEK', 'all') },
    { name: 'stats-month', path: '/stats?resolution=MONTH&period=365', check: checkStats('MONTH', '') },
    { name: 'accounts', path: '/accounts?items_count=5', check: checkAccounts },
    { name: 'verified-contracts', path: '/verified-contracts', check: checkContracts },
    { name: 'csv', path: '/csv', check: checkCsvHelp },
    { name: 'csv-address', path: `/csv?address=${sender}`, check: checkCsvForms },
  ];

  await eachLook(
    browser,
    async (context, { vp, scheme }) => {
      const w = await watchedPage(context); // one tab for the whole walk (Watched.clear)
      for (const p of pages) {
        w.clear();
        const res = await gotoSettled(w.page, base + p.path);
        const text = await w.page.innerText('body');
        const label = `${p.name} ${vp} ${scheme}`;
        t.equal(res?.status(), 200, `${label}: 200`);
        t.notMatch(text, BROKEN_TEXT, `${label}: no broken text`);
        const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        t.ok(overflow <= 1, `${label}: nothing wider than the screen (${overflow} px)`);
        await screenshot(w.page, `${p.name}-${vp}-${scheme}`);
        // The first screen alone too: a long phone page is unreadable shrunk to one image.
        if (vp === 'phone') await screenshot(w.page, `${p.name}-${vp}-${scheme}-top`, { fullPage: false });
        if (vp === 'desktop' && scheme === 'light') await p.check?.(w.page, text);
        t.same(w.errors, [], `${label}: no console error`);
        t.same(w.failed, [], `${label}: no failed request`);
      }
      await w.page.close();
    },
  );

  await t.test('the period form and bad input', async (t) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const w = await watchedPage(context);
    const today = new Date().toISOString().slice(0, 10);
    await gotoSettled(w.page, `${base}/stats?resolution=WEEK`);
    await w.page.fill('form.stats-period input[name=from]', today);
    await w.page.fill('form.stats-period input[name=to]', today);
    await Promise.all([w.page.waitForURL(/\/stats\?/), w.page.click('form.stats-period button')]);
    await w.page.waitForLoadState('networkidle');
    t.same(Object.fromEntries(new URL(w.page.url()).searchParams), { resolution: 'WEEK', from: today, to: today }, 'the form keeps the resolution');
    const latest = await latestOf('WEEK', `&from=${today}&to=${today}`);
    for (const [id, v] of latest) t.equal(await w.page.$eval(`[data-latest="${id}"]`, (e) => e.textContent), v, `custom period: ${id}`);
    t.match(await w.page.innerText('.stats-span'), `Per week, ${today} to ${today} (UTC).`, 'says which period');
    const bad = await w.page.goto(`${base}/stats?from=2024-02-30`);
    t.equal(bad?.status(), 400, 'an impossible date: 400');
    t.match(await w.page.innerText('main'), 'from: Invalid format', "with the API's reason");
    const badRes = await w.page.goto(`${base}/stats?resolution=HOUR`);
    t.equal(badRes?.status(), 400, 'an unknown resolution: 400');
    const badAddr = await w.page.goto(`${base}/csv?address=0x12`);
    t.equal(badAddr?.status(), 400, 'an invalid address to export: 400');
    await context.close();
  });

  await t.test('the CSV pages have no serious accessibility violation (axe)', async (t) => {
    const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    for (const [vp, scheme] of [['desktop', 'light'], ['phone', 'dark']] as const) {
      // axe is injected as a script: the page's CSP (scripts from 'self' only) is bypassed for it.
      const context = await browser.newContext({ viewport: VIEWPORTS[vp], colorScheme: scheme, bypassCSP: true });
      const page = await context.newPage();
      for (const p of ['/csv', `/csv?address=${sender}`]) {
        await gotoSettled(page, base + p);
        await page.addScriptTag({ content: AXE });
        const violations = (await page.evaluate(async () => {
          const r = await (window as unknown as { axe: { run(o: unknown): Promise<{ violations: unknown[] }> } }).axe.run({ resultTypes: ['violations'] });
          return r.violations;
        })) as { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
        const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        t.same(bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`), [], `${p} ${vp} ${scheme}`);
      }
      await context.close();
    }
  });

  await t.test('a CSV downloaded through the form is the API’s file', async (t) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, acceptDownloads: true });
    const page = await context.newPage();
    await gotoSettled(page, `${base}/csv?address=${sender}`);
    const byDate = page.locator('section.csv-export').first().locator('form').first();
    const from = await byDate.locator('input[name=from_period]').inputValue();
    const to = await byDate.locator('input[name=to_period]').inputValue();
    await byDate.locator('select[name=filter_value]').selectOption('from');
    const [download] = await Promise.all([page.waitForEvent('download'), byDate.locator('button').click()]);
    const file = fs.readFileSync((await download.path())!, 'utf8');
    const direct = await fetch(`${base}/api/v2/addresses/${sender}/transactions/csv?from_period=${from}&to_period=${to}&filter_type=address&filter_value=from`);
    t.equal(file, await direct.text(), `transactions ${from}..${to}, outgoing: the API's bytes`);
    t.match(download.suggestedFilename(), /^transactions_0x[0-9a-fA-F]{40}_.+\.csv$/, `saved as ${download.suggestedFilename()}`);
    const lines = file.split('\r\n').filter(Boolean);
    t.ok(lines.length > 10, `${lines.length - 1} rows`);
    t.ok(lines.slice(1).every((l) => l.split(',')[6] === 'OUT'), 'only outgoing rows');
    // By block: the transactions of blocks from the scenario's first block on.
    const byBlock = page.locator('section.csv-export').first().locator('form').nth(1);
    await byBlock.locator('input[name=from_block]').fill(String(s.fromBlock));
    const [dl2] = await Promise.all([page.waitForEvent('download'), byBlock.locator('button').click()]);
    const file2 = fs.readFileSync((await dl2.path())!, 'utf8');
    const direct2 = await fetch(`${base}/api/v2/addresses/${sender}/transactions/csv?from_block=${s.fromBlock}&to_block=&filter_type=address&filter_value=null`);
    t.equal(file2, await direct2.text(), 'transactions by block: the API’s bytes');
    t.ok(file2.split('\r\n').filter(Boolean).length > 2, 'with rows');
    await context.close();
  });
});
