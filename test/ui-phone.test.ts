// The web UI on a 390 px phone (issue #33, section 1), in Chromium on the devnet scenario, light
// and dark: every list shows each row's fields without sideways scrolling (rows stacked as
// labelled cards), tabs that do not fit wrap instead of being cut, a full address never leaves a
// character or two alone on a line, and the home page's first screen has one search box. On a
// desktop the same lists stay tables, and a row's copy button (no inline icon, no repeated hash)
// copies the full address. A shortened amount's exact value is a tap (phone), a focus or a hover
// (desktop) away, with JavaScript off too, and its copy button copies the exact digits.
import t from 'tap';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { uiOnDevnet } from './helpers/ui.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { devAccount } from './helpers/devnet.js';
import type { Page } from 'playwright-core';
import { browserMissing, screenshot, withBrowser, gotoSettled } from './helpers/browser.js';

const PHONE = { width: 390, height: 844 };
/** An account that sends more transactions than /tabs-counters counts (it stops at 51: "more than 50"). */
const BUSY = devAccount(7).address;
const BUSY_TXS = 55;
const DESKTOP = { width: 1366, height: 900 };
/** A transfer whose value the lists shorten ("1.23457"): its exact value, in wei and as shown exactly. */
const LONG_VALUE = 1_234_567_891_000_000_000n;
const LONG_EXACT = '1.234567891';
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

t.test('lists, tabs, addresses and search on a phone', { skip: browserMissing() ?? false }, async (t) => {
  let long = '';
  const f = await uiOnDevnet(t, {
    before: async (devnet) => {
      let last = '';
      for (let i = 0; i < BUSY_TXS; i++) last = await rpc<string>(devnet.url, 'eth_sendTransaction', [{ from: BUSY, to: devAccount(8).address, value: '0x1' }]);
      await minedIn(devnet.url, last);
      long = await rpc<string>(devnet.url, 'eth_sendTransaction', [{ from: devAccount(9).address, to: devAccount(6).address, value: `0x${LONG_VALUE.toString(16)}` }]);
      await minedIn(devnet.url, long);
    },
  });
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const token = s.contracts.DevnetToken;
  const me = s.accounts[1];
  // Every list page type: transactions, blocks, tokens, token transfers and holders, an
  // address's tabs, a transaction's internal transactions and logs, accounts, verified contracts.
  const lists = [
    '/txs',
    '/blocks',
    '/tokens',
    `/token/${token}`,
    `/token/${token}?tab=holders`,
    `/address/${me}`,
    `/address/${me}?tab=token_transfers`,
    `/address/${me}?tab=tokens`,
    `/address/${me}?tab=internal_txns`,
    `/address/${me}?tab=coin_balance_history`,
    `/address/${s.contracts.DevnetToken}?tab=logs`,
    `/block/${s.forwardTx.blockNumber}?tab=txs`,
    `/tx/${s.forwardTx.hash}?tab=internal`,
    `/tx/${s.forwardTx.hash}?tab=logs`,
    '/accounts',
    '/verified-contracts',
  ];
  for (const scheme of ['light', 'dark'] as const) {
    await t.test(`phone, ${scheme}`, async (t) => {
      const context = await browser.newContext({ viewport: PHONE, colorScheme: scheme });
      t.teardown(() => context.close());
      const page = await context.newPage();
      let cards = 0;
      for (const p of lists) {
        await gotoSettled(page, f.base + p);
        const r = await page.evaluate(() => {
          const vw = document.documentElement.clientWidth;
          const cells = Array.from(document.querySelectorAll<HTMLTableCellElement>('.table-wrap tbody td'));
          const shown = cells.filter((c) => getComputedStyle(c).display !== 'none');
          return {
            pageScroll: document.documentElement.scrollWidth - vw,
            wideTables: Array.from(document.querySelectorAll('.table-wrap')).filter((w) => w.scrollWidth > w.clientWidth + 1).length,
            cells: shown.length,
            unlabelled: shown.filter((c) => !c.dataset.label).map((c) => c.textContent?.slice(0, 30)),
            outside: shown.filter((c) => c.getBoundingClientRect().right > vw + 0.5 || c.getBoundingClientRect().left < -0.5).map((c) => `${c.dataset.label}: ${c.textContent?.slice(0, 30)}`),
            labelsShown: shown.slice(0, 3).map((c) => getComputedStyle(c, '::before').content),
            rowDisplay: document.querySelector('.table-wrap tbody tr') ? getComputedStyle(document.querySelector('.table-wrap tbody tr')!).display : null,
            tabsCut: Array.from(document.querySelectorAll<HTMLElement>('.tabs a')).filter((a) => a.getBoundingClientRect().right > vw + 0.5).map((a) => a.textContent),
          };
        });
        t.equal(r.pageScroll, 0, `${p}: the page does not scroll sideways`);
        t.equal(r.wideTables, 0, `${p}: no table scrolls sideways`);
        t.same(r.unlabelled, [], `${p}: every shown cell carries its column's label`);
        t.same(r.outside, [], `${p}: every cell is within the screen`);
        t.same(r.tabsCut, [], `${p}: no tab is cut off at the screen's edge`);
        if (r.cells) {
          cards++;
          t.equal(r.rowDisplay, 'grid', `${p}: rows are stacked cards`);
          t.ok(r.labelsShown.every((c) => c !== 'none' && c !== '""' && c !== 'normal'), `${p}: the label shows above each value (${r.labelsShown.join(', ')})`);
        }
        await screenshot(page, `phone-${scheme}-${p}`);
      }
      t.ok(cards >= 12, `lists with rows looked at: ${cards}`);

      // A full address wraps in even pieces: no line holds fewer than 8 of its characters.
      for (const [p, sel] of [
        [`/address/${me}`, '.addr-hash .mono'],
        [`/token/${token}`, '.details .addr a'],
        [`/tx/${s.forwardTx.hash}`, '.details .addr a'],
      ] as const) {
        await gotoSettled(page, f.base + p);
        const lines = await page.$eval(sel, (el) => {
          const perLine = new Map<number, number>();
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            for (let i = 0; i < (n.textContent ?? '').length; i++) {
              const range = document.createRange();
              range.setStart(n, i);
              range.setEnd(n, i + 1);
              const top = Math.round(range.getBoundingClientRect().top);
              perLine.set(top, (perLine.get(top) ?? 0) + 1);
            }
          }
          return [...perLine.values()];
        });
        t.ok(lines.length >= 1 && lines.reduce((a, b) => a + b, 0) === 42, `${p}: ${sel} is the whole address (${lines.join(' + ')} characters a line)`);
        t.ok(Math.min(...lines) >= 8, `${p}: no line of the address holds a lone character or two (${lines.join(' + ')})`);
      }

      // The home page's first screen: one search box.
      await gotoSettled(page, f.base + '/');
      const boxes = await page.evaluate(() =>
        Array.from(document.querySelectorAll<HTMLInputElement>('input[type=search]')).filter((i) => {
          const b = i.getBoundingClientRect();
          return b.width > 0 && b.top < window.innerHeight;
        }).length,
      );
      t.equal(boxes, 1, 'one search box on the home page');
      await page.keyboard.press('/');
      t.equal(await page.evaluate(() => document.activeElement?.id), 'q', '"/" focuses it');
      await screenshot(page, `phone-${scheme}-home`);
    });
  }

  await t.test('desktop: the lists stay tables', async (t) => {
    const context = await browser.newContext({ viewport: DESKTOP, permissions: ['clipboard-read', 'clipboard-write'] });
    t.teardown(() => context.close());
    const page = await context.newPage();
    for (const p of ['/txs', `/address/${me}`]) {
      await gotoSettled(page, f.base + p);
      const r = await page.evaluate(() => ({
        row: getComputedStyle(document.querySelector('.table-wrap tbody tr')!).display,
        head: getComputedStyle(document.querySelector('.table-wrap thead')!).display,
        label: getComputedStyle(document.querySelector('.table-wrap tbody td')!, '::before').content,
      }));
      t.same(r, { row: 'table-row', head: 'table-header-group', label: 'none' }, `${p}: a table with its heading, no per-cell labels`);
      await screenshot(page, `desktop-light-${p}`);
    }
    // A tab's badge says the exact count where the address's counters know it, not "50+".
    const counters = (await f.get(`/api/v2/addresses/${BUSY}/counters`)).body;
    const capped = (await f.get(`/api/v2/addresses/${BUSY}/tabs-counters`)).body;
    t.ok(Number(counters.transactions_count) >= BUSY_TXS && capped.transactions_count <= 51, `the API: ${counters.transactions_count} transactions, tabs-counters ${capped.transactions_count}`);
    await gotoSettled(page, `${f.base}/address/${BUSY}`);
    t.equal(await page.innerText('.tabs a[aria-current="page"] .count'), counters.transactions_count, 'the Transactions tab shows the exact count');

    // A row's copy button holds no copy of the hash (the stylesheet draws its icon, the link beside it
    // has the value): a click still copies the full address.
    await gotoSettled(page, f.base + '/txs');
    const from = page.locator('.table-wrap tbody tr td[data-label="From"] .addr').first();
    const href = await from.locator('a').getAttribute('href');
    t.equal(await from.locator('button.copy svg').count(), 0, 'no inline icon in the copy button');
    await from.locator('button.copy').click();
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), href!.split('/').pop(), 'the copy button copies the full address');
    await gotoSettled(page, f.base + '/');
    t.equal(await page.locator('input[type=search]').count(), 1, 'the home page has one search box on a desktop too');
  });
  await t.test("a shortened amount's exact value: a tap, a focus or a hover away, and in its copy button", async (t) => {
    const tx = (await f.get(`/api/v2/transactions/${long}`)).body;
    t.equal(tx.value, LONG_VALUE.toString(), 'the API has the long value');
    const row = (page: Page) => page.locator(`.table-wrap tbody tr:has(a[href="/tx/${long}"]) td[data-label^="Value"] .short`);
    for (const [vp, size] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ viewport: size, colorScheme: scheme, hasTouch: vp === 'phone', permissions: ['clipboard-read', 'clipboard-write'], bypassCSP: true });
        t.teardown(() => context.close());
        const page = await context.newPage();
        await gotoSettled(page, `${f.base}/txs`);
        const amount = row(page);
        t.equal(await amount.count(), 1, `${vp} ${scheme}: the value is shortened`);
        t.equal((await amount.innerText()).trim(), '1.23457', `${vp} ${scheme}: to the digits that matter, no "…"`);
        t.equal(await amount.getAttribute('title'), null, `${vp} ${scheme}: no title (a phone cannot show one)`);
        const exact = amount.locator('.exact');
        t.notOk(await exact.isVisible(), `${vp} ${scheme}: the exact value is not shown at first`);
        if (vp === 'phone') await amount.tap();
        else await amount.hover();
        t.ok(await exact.isVisible(), `${vp} ${scheme}: a ${vp === 'phone' ? 'tap' : 'hover'} shows the exact value`);
        t.equal((await exact.innerText()).trim(), LONG_EXACT, `${vp} ${scheme}: the exact value, in full`);
        const box = (await exact.boundingBox())!;
        t.ok(box.x >= 0 && box.x + box.width <= size.width, `${vp} ${scheme}: within the screen (${Math.round(box.x)}..${Math.round(box.x + box.width)} of ${size.width})`);
        await screenshot(page, `amount-exact-${vp}-${scheme}`, { fullPage: false });
        const copy = exact.locator('button.copy');
        t.equal(await copy.count(), 1, `${vp} ${scheme}: with a copy button`);
        if (vp === 'phone') await copy.tap();
        else await copy.click();
        t.equal(await page.evaluate(() => navigator.clipboard.readText()), LONG_EXACT, `${vp} ${scheme}: the copy button copies the exact digits`);
        t.equal(await copy.getAttribute('data-copy'), LONG_EXACT, `${vp} ${scheme}: its data is the exact value`);
        // Keyboard: focus moves to the amount (a tab stop), the exact value shows, and axe finds nothing with it open.
        // Left as a person leaves it: on a phone a tap elsewhere (the page's heading, which is no
        // link), a mouse moved away on a desktop. A CI run found the phone's hover, set by the
        // taps, still on after a mouse move to 0,0.
        if (vp === 'phone') await page.locator('h1').first().tap();
        else await page.mouse.move(0, 0);
        await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        // The browser updates :hover on its next frame after the move, not at once.
        const hidden = await exact.waitFor({ state: 'hidden', timeout: 2000 }).then(() => true, () => false);
        t.ok(hidden, `${vp} ${scheme}: hidden again once left`);
        await amount.focus();
        t.equal(await page.evaluate(() => document.activeElement?.classList.contains('short')), true, `${vp} ${scheme}: the amount takes keyboard focus`);
        t.ok(await exact.isVisible(), `${vp} ${scheme}: focused, it shows the exact value`);
        await page.addScriptTag({ content: AXE });
        const bad = (await page.evaluate(async () => {
          const r = await (window as unknown as { axe: { run(o: unknown): Promise<{ violations: { id: string; impact: string }[] }> } }).axe.run({ resultTypes: ['violations'] });
          return r.violations.filter((v) => v.impact !== 'minor').map((v) => `${v.id} (${v.impact})`);
        })) as string[];
        t.same(bad, [], `${vp} ${scheme}: axe, with the exact value open: no moderate, serious or critical finding`);
        await screenshot(page, `amount-focused-${vp}-${scheme}`, { fullPage: false });
      }
    }
    // Without JavaScript: still one focus (a tap) away, no copy button (it needs a script).
    const context = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false, hasTouch: true });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${f.base}/txs`);
    const amount = row(page);
    await amount.tap();
    t.ok(await amount.locator('.exact').isVisible(), 'JavaScript off: a tap shows the exact value');
    t.equal((await amount.locator('.exact').innerText()).trim(), LONG_EXACT, 'JavaScript off: in full');
    t.equal(await amount.locator('button.copy').count(), 0, 'JavaScript off: no copy button');
    await screenshot(page, 'amount-exact-phone-nojs', { fullPage: false });
    // An amount shown exactly has nothing to reveal; the HTML the shortened ones add, per figure and per page.
    for (const p of [`/address/${me}`, `/token/${token}`, `/token/${token}?tab=holders`, '/txs']) {
      const r = await fetch(f.base + p);
      t.equal(r.status, 200, `${p}: answered`);
      const html = await r.text();
      const shortened = html.match(/<span class="(?:[^"]* )?short" tabindex="0">/g)?.length ?? 0;
      // The same figures as they were (the exact value in a title attribute): this page's growth.
      const before = html.replace(
        /<span class="(?:([^"]*) )?short" tabindex="0">([^<]*)<span class="exact">([^<]*)<\/span>(<span class="unit"> ([^<]*)<\/span>)?/g,
        (_m, cls: string | undefined, shown: string, exact: string, unit: string | undefined, sym: string | undefined) =>
          `<span${cls ? ` class="${cls}"` : ''} title="${exact}${sym ? ` ${sym}` : ''}">${shown}${unit ?? ''}`,
      );
      const grew = Buffer.byteLength(html) - Buffer.byteLength(before);
      t.comment(`${p}: ${Buffer.byteLength(html)} bytes of HTML, ${shortened} shortened figures, ${grew} bytes more than with the exact value in a title`);
      t.ok(grew <= shortened * 45, `${p}: at most 45 bytes more per shortened figure (${grew} for ${shortened})`);
    }
  });
});
