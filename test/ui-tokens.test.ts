// The token pages in Debian's chromium on the devnet scenario: the tokens list (searched and
// filtered), the ERC-20, ERC-721 and ERC-1155 token pages with every tab, NFT pages (the data: URI
// image loaded), bad input, desktop and phone, light and dark; values equal the API's, no console
// error, no failed request, no broken text, nothing wider than the screen; and the token page
// with JavaScript off. Screenshots under test-output/screenshots.
import t from 'tap';
import type { Page } from 'playwright-core';
import { uiOnDevnet } from './helpers/ui.js';
import { BROKEN_TEXT, VIEWPORTS, eachLook, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { groupDigits } from '../src/ui/format.js';

const V2 = '/api/v2';

/** "1,234.5" with `decimals` back to base units, exactly (the page's amount read back). */
function parseUnits(shown: string, decimals: number): bigint {
  const [int, frac = ''] = shown.replace(/,/g, '').split('.');
  if (frac.length > decimals) throw new Error(`${shown} has more than ${decimals} decimals`);
  return BigInt(int + frac.padEnd(decimals, '0'));
}

/** The value of a details row by its label. */
function detail(page: Page, label: string): Promise<string | null> {
  return page.evaluate((l) => {
    for (const row of Array.from(document.querySelectorAll('.details .row'))) {
      if ((row.querySelector('dt') as HTMLElement | null)?.innerText.trim() === l) return (row.querySelector('dd') as HTMLElement).innerText.trim();
    }
    return null;
  }, label);
}

/**
 * The rows of the page's first table: each cell's text, its exact value (a shortened amount or share
 * carries it in its `.exact` part, shown on a tap, focus or hover), and the full hashes its links carry (title).
 */
function rows(page: Page): Promise<{ cells: string[]; exact: string[]; titles: string[]; hrefs: string[] }[]> {
  return page.$$eval('table tbody tr', (trs) =>
    trs.map((tr) => ({
      cells: Array.from((tr as HTMLTableRowElement).cells).map((c) => c.innerText.trim()),
      exact: Array.from((tr as HTMLTableRowElement).cells).map((c) => c.querySelector('.short > .exact')?.textContent ?? c.innerText.trim()),
      titles: Array.from(tr.querySelectorAll('a[title]')).map((a) => a.getAttribute('title') ?? ''),
      hrefs: Array.from(tr.querySelectorAll('a[href]')).map((a) => a.getAttribute('href') ?? ''),
    })),
  );
}

t.test('token pages in a browser', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t);
  const browser = await withBrowser(t);
  const c = f.devnet.scenario.contracts;
  const erc20 = c.DevnetToken;
  const erc721 = c.DevnetNFT;
  const erc1155 = c.DevnetMulti;
  const dataId = String(f.devnet.scenario.nft.dataUriTokenId);
  const api = async (p: string) => {
    const r = await f.get(`${V2}${p}`);
    t.equal(r.status, 200, `API ${p}`);
    return r.body;
  };

  /** The ERC-20's holders: address, balance read back exactly, share within a cut's error, shares summing to 100%. */
  async function checkHolders(page: Page, token: string, label: string) {
    const tok = await api(`/tokens/${token}`);
    const holders = (await api(`/tokens/${token}/holders`)).items;
    const shown = await rows(page);
    t.equal(shown.length, holders.length, `${label}: one row per holder`);
    const decimals = Number(tok.decimals ?? 0);
    let sum = 0;
    for (const [i, h] of holders.entries()) {
      const r = shown[i];
      t.ok(r.titles.includes(h.address.hash), `${label}: holder ${i} is ${h.address.hash}`);
      const balance = r.exact[1].replace(/\s*DVT$/, '');
      t.equal(parseUnits(balance, decimals), BigInt(h.value), `${label}: ${h.address.hash} holds exactly ${h.value}`);
      const share = Number(r.exact[2].replace(/[%…]/g, ''));
      const expected = (Number(h.value) / Number(tok.total_supply)) * 100;
      t.ok(Math.abs(share - expected) < 0.0001 && share <= expected, `${label}: share ${r.exact[2]} of ${expected}%`);
      t.notMatch(r.cells[2], /…/, `${label}: the share shown is a figure (${r.cells[2]}), never cut with "…"`);
      t.ok(Math.abs(Number(r.cells[2].replace(/%/g, '')) - expected) < 0.006, `${label}: ${r.cells[2]} reads as ${expected}% to its digits`);
      sum += share;
    }
    t.ok(sum <= 100 && sum > 100 - 0.0001 * holders.length, `${label}: shares add up to 100% (${sum})`);
  }

  interface PageCase {
    name: string;
    path: string;
    status?: number;
    check?: (page: Page, text: string) => Promise<void>;
  }
  const cases: PageCase[] = [
    {
      name: 'tokens',
      path: '/tokens',
      check: async (page) => {
        const list = (await api('/tokens')).items;
        const shown = await rows(page);
        t.equal(shown.length, list.length, 'tokens: one row per token');
        for (const [i, tok] of list.entries()) {
          const r = shown[i];
          t.ok(r.hrefs.includes(`/token/${tok.address_hash}`), `tokens: row ${i} links ${tok.address_hash}`);
          t.equal(r.cells[1], tok.type, `tokens: ${tok.address_hash} type`);
          t.equal(r.cells[2], groupDigits(tok.holders_count), `tokens: ${tok.address_hash} holders`);
          if (tok.total_supply === null) t.equal(r.cells[3], '—', `tokens: ${tok.address_hash} has no supply to show`);
          else t.equal(parseUnits(r.cells[3].replace(/\s*\S*[A-Z]\S*$/, ''), Number(tok.decimals ?? 0)), BigInt(tok.total_supply), `tokens: ${tok.address_hash} supply exact`);
        }
      },
    },
    {
      name: 'tokens-search',
      path: '/tokens?q=token',
      check: async (page, text) => {
        const list = (await api('/tokens?q=token')).items;
        t.same(list.map((x: any) => x.name), ['Devnet Token'], 'the API finds the ERC-20 by "token"');
        t.equal((await rows(page)).length, 1, 'tokens-search: one row');
        t.match(text, 'Devnet Token');
        t.notMatch(text, 'Devnet NFT', 'tokens-search: the NFT does not match');
        t.equal(await page.inputValue('#token-q'), 'token', 'tokens-search: the search box keeps the query');
      },
    },
    {
      name: 'tokens-type',
      path: '/tokens?type=ERC-721',
      check: async (page, text) => {
        const list = (await api('/tokens?type=ERC-721')).items;
        t.same(
          (await rows(page)).map((r) => r.cells[1]),
          list.map(() => 'ERC-721'),
          'tokens-type: ERC-721 rows only',
        );
        t.match(text, 'Devnet NFT');
        t.notMatch(text, 'Devnet Token');
        t.equal(await page.getAttribute('.filters a[aria-current="true"]', 'href'), '/tokens?type=ERC-721', 'tokens-type: its pill is current');
      },
    },
    {
      name: 'erc20',
      path: `/token/${erc20}`,
      check: async (page, text) => {
        const tok = await api(`/tokens/${erc20}`);
        const counters = await api(`/tokens/${erc20}/counters`);
        t.equal(await detail(page, 'Total supply'), '1,490 DVT', 'erc20: the supply with its decimals (1490 DVT)');
        t.equal(parseUnits(((await detail(page, 'Total supply')) ?? '').replace(' DVT', ''), 18), BigInt(tok.total_supply), 'erc20: supply exact');
        t.equal(await detail(page, 'Holders'), groupDigits(counters.token_holders_count), 'erc20: holders count');
        t.equal(await detail(page, 'Transfers'), groupDigits(counters.transfers_count), 'erc20: transfers count');
        t.equal(await detail(page, 'Decimals'), '18');
        t.equal(await detail(page, 'Symbol'), 'DVT');
        const transfers = (await api(`/tokens/${erc20}/transfers`)).items;
        const shown = await rows(page);
        t.equal(shown.length, transfers.length, 'erc20: one row per transfer');
        for (const [i, tr] of transfers.entries()) {
          t.ok(shown[i].titles.includes(tr.transaction_hash), `erc20: transfer ${i} in ${tr.transaction_hash}`);
          t.equal(parseUnits(shown[i].cells.at(-1)!.replace(/\s*DVT$/, ''), 18), BigInt(tr.total.value), `erc20: transfer ${i} amount exact`);
        }
        t.notMatch(text, /Inventory/, 'erc20: no inventory tab');
      },
    },
    { name: 'erc20-holders', path: `/token/${erc20}?tab=holders`, check: (page) => checkHolders(page, erc20, 'erc20-holders') },
    {
      name: 'erc20-contract',
      path: `/token/${erc20}?tab=contract`,
      check: async (page) => {
        const a = await api(`/addresses/${erc20}`);
        t.equal(await page.getAttribute('.token-contract-link a', 'href'), `/address/${erc20}?tab=contract`, 'erc20-contract: links the contract tab');
        t.ok((await rows(page)).length === 0, 'erc20-contract: no list');
        t.ok(await page.$(`a[href="/tx/${a.creation_transaction_hash}"]`), 'erc20-contract: the creation transaction');
      },
    },
    {
      name: 'erc721',
      path: `/token/${erc721}`,
      check: async (page) => {
        const counters = await api(`/tokens/${erc721}/counters`);
        t.equal(await detail(page, 'Transfers'), groupDigits(counters.transfers_count), 'erc721: transfers count');
        t.equal(await detail(page, 'Holders'), groupDigits(counters.token_holders_count), 'erc721: holders count');
        t.equal(await detail(page, 'Total supply'), '—', 'erc721: the contract tells no supply: none shown');
        const transfers = (await api(`/tokens/${erc721}/transfers`)).items;
        const shown = await rows(page);
        t.same(
          shown.map((r) => r.hrefs.find((h) => h.includes('/instance/'))),
          transfers.map((tr: any) => `/token/${erc721}/instance/${tr.total.token_id}`),
          'erc721: each transfer links its token',
        );
      },
    },
    {
      name: 'erc721-holders',
      path: `/token/${erc721}?tab=holders`,
      check: async (page) => {
        const holders = (await api(`/tokens/${erc721}/holders`)).items;
        const shown = await rows(page);
        t.same(
          shown.map((r) => [r.titles.find((x) => x.startsWith('0x')), r.cells[1], r.cells[2]]),
          holders.map((h: any) => [h.address.hash, `${h.value} DNFT`, '—']),
          'erc721-holders: holders, counts of tokens, no share without a supply',
        );
      },
    },
    {
      name: 'erc721-inventory',
      path: `/token/${erc721}?tab=inventory`,
      check: async (page) => {
        const items = (await api(`/tokens/${erc721}/instances`)).items;
        const cards = await page.$$eval('.nft-grid > li', (lis) =>
          lis.map((li) => ({
            href: li.querySelector('a.token-id')?.getAttribute('href'),
            img: (li.querySelector('img') as HTMLImageElement | null)?.naturalWidth ?? null,
            src: li.querySelector('img')?.getAttribute('src') ?? null,
          })),
        );
        t.same(
          cards.map((x) => x.href),
          items.map((i: any) => `/token/${erc721}/instance/${i.id}`),
          'erc721-inventory: one card per token, linked',
        );
        for (const [i, it] of items.entries()) {
          if (it.image_url) {
            t.equal(cards[i].src, it.image_url, `erc721-inventory: #${it.id} shows its image`);
            t.ok((cards[i].img ?? 0) > 0, `erc721-inventory: #${it.id}'s image loaded`);
          } else t.equal(cards[i].src, null, `erc721-inventory: #${it.id} has a placeholder`);
        }
        t.ok(items.some((i: any) => i.image_url?.startsWith('data:image/')), 'the scenario has a data: image');
      },
    },
    {
      name: 'erc1155',
      path: `/token/${erc1155}`,
      check: async (page) => {
        const counters = await api(`/tokens/${erc1155}/counters`);
        t.equal(await detail(page, 'Transfers'), groupDigits(counters.transfers_count), 'erc1155: transfers count');
        const transfers = (await api(`/tokens/${erc1155}/transfers`)).items;
        const shown = await rows(page);
        t.same(
          shown.map((r) => [r.hrefs.find((h) => h.includes('/instance/')), r.cells.at(-1)]),
          transfers.map((tr: any) => [`/token/${erc1155}/instance/${tr.total.token_id}`, groupDigits(tr.total.value)]),
          'erc1155: id and amount of each transfer',
        );
      },
    },
    {
      name: 'erc1155-holders',
      path: `/token/${erc1155}?tab=holders`,
      check: async (page) => {
        const holders = (await api(`/tokens/${erc1155}/holders`)).items;
        const shown = await rows(page);
        t.equal(shown.length, holders.length, 'erc1155-holders: one row per holder and id');
        const sums = new Map<string, number>();
        for (const [i, h] of holders.entries()) {
          const supply = (await api(`/tokens/${erc1155}/instances/${h.token_id}`)).value;
          const r = shown[i];
          t.same([r.titles.find((x) => x.startsWith('0x')), r.cells[1], r.cells[2]], [h.address.hash, `#${h.token_id}`, h.value], `erc1155-holders: row ${i}`);
          const share = Number(r.exact[3].replace(/[%…]/g, ''));
          const expected = (Number(h.value) / Number(supply)) * 100;
          t.ok(Math.abs(share - expected) < 0.0001 && share <= expected, `erc1155-holders: ${r.exact[3]} of id ${h.token_id}'s supply ${supply}`);
          sums.set(h.token_id, (sums.get(h.token_id) ?? 0) + share);
        }
        for (const [id, s] of sums) t.ok(s <= 100 && s > 99.999, `erc1155-holders: shares of id ${id} add up to 100% (${s})`);
      },
    },
    {
      name: 'erc1155-inventory',
      path: `/token/${erc1155}?tab=inventory`,
      check: async (page) => {
        const items = (await api(`/tokens/${erc1155}/instances`)).items;
        t.equal((await page.$$('.nft-grid > li')).length, items.length, 'erc1155-inventory: one card per id');
        t.equal((await page.$$('.nft-grid .noimg')).length, items.filter((i: any) => !i.image_url).length, 'erc1155-inventory: placeholders where no image is known');
      },
    },
    {
      name: 'nft-data-image',
      path: `/token/${erc721}/instance/${dataId}`,
      check: async (page, text) => {
        const inst = await api(`/tokens/${erc721}/instances/${dataId}`);
        const img = await page.$eval('.nft-media img', (i) => ({ w: (i as HTMLImageElement).naturalWidth, src: i.getAttribute('src'), alt: i.getAttribute('alt'), loading: i.getAttribute('loading') }));
        t.equal(img.src, inst.image_url, 'nft: the data: URI image');
        t.ok(img.w > 0, 'nft: the image loaded');
        t.equal(img.alt, 'Devnet NFT #1', 'nft: alt text');
        t.equal(await page.innerText('h1'), inst.metadata.name, 'nft: its name');
        t.match(text, inst.metadata.description, 'nft: its description');
        t.equal(await detail(page, 'Owner').then((s) => s?.replace(/\s/g, '')), inst.owner.hash, 'nft: its owner');
        const attrs = await rows(page);
        t.same(attrs[0].cells, ['origin', 'devnet scenario'], 'nft: attributes');
        const json = JSON.parse(await page.innerText('pre.data'));
        t.same(json, inst.metadata, 'nft: the metadata JSON');
        const transfers = (await api(`/tokens/${erc721}/instances/${dataId}/transfers`)).items;
        const count = await api(`/tokens/${erc721}/instances/${dataId}/transfers-count`);
        t.equal(await detail(page, 'Transfers'), String(count.transfers_count), 'nft: transfers count');
        const tx = await page.$$eval('#transfers ~ .table-wrap tbody tr a[href^="/tx/"]', (as) => as.map((a) => a.getAttribute('href')));
        t.same(tx, transfers.map((x: any) => `/tx/${x.transaction_hash}`), 'nft: its transfers');
      },
    },
    {
      name: 'nft-no-image',
      path: `/token/${erc721}/instance/2`,
      check: async (page) => {
        // #2's metadata URI is on devnet.invalid: the API knows no image, the page shows a placeholder.
        t.equal(await page.$('.nft-media img'), null, 'nft-no-image: no <img>');
        t.ok(await page.$('.nft-media .noimg'), 'nft-no-image: a placeholder');
        t.equal(await page.innerText('h1'), 'Devnet NFT #2');
      },
    },
    {
      name: 'nft-burned',
      path: `/token/${erc721}/instance/3`,
      check: async (page) => {
        t.equal(await detail(page, 'Owner'), 'Nobody (burned)', 'nft-burned: no owner');
      },
    },
    {
      name: 'erc1155-id',
      path: `/token/${erc1155}/instance/1`,
      check: async (page) => {
        const inst = await api(`/tokens/${erc1155}/instances/1`);
        t.equal(await detail(page, 'Supply of this ID'), groupDigits(inst.value), 'erc1155-id: the id supply');
      },
    },
    { name: 'bad-token', path: '/token/0xnothex', status: 400 },
    { name: 'unknown-token', path: `/token/0x${'12'.repeat(20)}`, status: 404 },
    { name: 'bad-token-id', path: `/token/${erc721}/instance/abc`, status: 400 },
    { name: 'erc20-instance', path: `/token/${erc20}/instance/1`, status: 404 },
    { name: 'bad-type', path: '/tokens?type=ERC-7', status: 400 },
  ];

  await eachLook(
    browser,
    async (context, { vp, scheme }) => {
      const w = await watchedPage(context); // one tab for the whole walk (Watched.clear)
      for (const p of cases) {
        w.clear();
        const res = await gotoSettled(w.page, f.base + p.path);
        const label = `${p.name} ${vp} ${scheme}`;
        const text = await w.page.innerText('body');
        const status = p.status ?? 200;
        t.equal(res?.status(), status, `${label}: ${status}`);
        t.notMatch(text, BROKEN_TEXT, `${label}: no broken text`);
        // An error page's document is itself reported by the browser as a failed resource: that one is expected.
        const own = (s: string) => status !== 200 && s.includes(`status of ${status}`);
        t.same(w.errors.filter((e) => !own(e)), [], `${label}: no console error`);
        t.same(
          w.failed.filter((u) => !(status !== 200 && u.startsWith(f.base + p.path.split('?')[0]))),
          [],
          `${label}: no failed request`,
        );
        const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        t.ok(overflow <= 1, `${label}: nothing wider than the screen (${overflow} px)`);
        if (vp === 'desktop' && scheme === 'light') await p.check?.(w.page, text);
        await screenshot(w.page, `tokens-${p.name}-${vp}-${scheme}`);
      }
      await w.page.close();
    },
  );

  t.test('paging: Next links carry the API next_page_params, and walk every list once', async (t) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const w = await watchedPage(context);
    /** Every row's `key` from `start`, following the Next links to the end. */
    async function walk(start: string, key: (r: { titles: string[]; hrefs: string[] }) => string | undefined): Promise<{ keys: (string | undefined)[]; pages: number }> {
      const keys: (string | undefined)[] = [];
      let url: string | null = start;
      let pages = 0;
      while (url && pages < 50) {
        const res = await gotoSettled(w.page, f.base + url);
        t.equal(res?.status(), 200, `${url}: 200`);
        keys.push(...(await rows(w.page)).map(key));
        pages++;
        // $ does not wait: page.getAttribute waited its whole 30 s timeout for the link on each last page.
        url = (await (await w.page.$('.pager a[rel="next"]'))?.getAttribute('href')) ?? null;
        if (url && pages === 1) {
          // The first page's Next link is the API's next_page_params, unchanged.
          const q = new URL(start, 'http://x').searchParams;
          const apiPath = start.startsWith('/tokens') ? '/tokens' : `/tokens/${erc20}/${q.get('tab') ?? 'transfers'}`;
          q.delete('tab');
          const next = (await api(`${apiPath}?${q}`)).next_page_params;
          const got = new URL(url, 'http://x').searchParams;
          for (const [k, v] of Object.entries(next)) t.equal(got.get(k), v === null ? 'null' : String(v), `${start}: next link has ${k}`);
        }
      }
      return { keys, pages };
    }
    const tokens = (await api('/tokens')).items.map((x: any) => `/token/${x.address_hash}`);
    const listed = await walk('/tokens?items_count=1', (r) => r.hrefs.find((h) => h.startsWith('/token/')));
    t.ok(listed.pages > 1, `the tokens list took ${listed.pages} pages`);
    t.same(listed.keys, tokens, 'the tokens list, page by page, is the whole list in order');

    const transfers = (await api(`/tokens/${erc20}/transfers`)).items.map((x: any) => x.transaction_hash);
    const walked = await walk(`/token/${erc20}?items_count=3`, (r) => r.titles.find((x) => x.length === 66));
    t.ok(walked.pages > 1, `the transfers took ${walked.pages} pages`);
    t.same(walked.keys, transfers, 'the transfers, page by page');

    const holders = (await api(`/tokens/${erc20}/holders`)).items.map((x: any) => x.address.hash);
    const held = await walk(`/token/${erc20}?tab=holders&items_count=2`, (r) => r.titles.find((x) => x.length === 42));
    t.ok(held.pages > 1, `the holders took ${held.pages} pages`);
    t.same(held.keys, holders, 'the holders, page by page, stay on the holders tab');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
    await context.close();
  });

  t.test('without JavaScript', async (t) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, javaScriptEnabled: false });
    const w = await watchedPage(context);
    await gotoSettled(w.page, `${f.base}/token/${erc20}`);
    const counters = await api(`/tokens/${erc20}/counters`);
    t.equal(await detail(w.page, 'Total supply'), '1,490 DVT', 'the supply');
    t.equal(await detail(w.page, 'Transfers'), groupDigits(counters.transfers_count), 'the transfers count');
    t.equal((await rows(w.page)).length, (await api(`/tokens/${erc20}/transfers`)).items.length, 'the transfers');
    // Tabs are links.
    await Promise.all([w.page.waitForURL(/tab=holders/), w.page.click('.tabs a[href$="?tab=holders"]')]);
    t.equal((await rows(w.page)).length, (await api(`/tokens/${erc20}/holders`)).items.length, 'the holders tab');
    // The token search is a GET form, the type filter links.
    await gotoSettled(w.page, `${f.base}/tokens`);
    await w.page.fill('#token-q', 'NFT');
    await Promise.all([w.page.waitForURL(/\/tokens\?q=NFT/), w.page.press('#token-q', 'Enter')]);
    t.same((await rows(w.page)).map((r) => r.cells[1]), ['ERC-721'], 'the search form finds the NFT');
    await Promise.all([w.page.waitForURL(/type=ERC-20/), w.page.click('.filters a[href="/tokens?q=NFT&type=ERC-20"]')]);
    t.match(w.page.url(), /q=NFT&type=ERC-20$/, 'the filter keeps the search');
    t.match(await w.page.innerText('.empty'), 'No token', 'nothing is both');
    await screenshot(w.page, 'tokens-nojs-phone');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
    await context.close();
  });
});
