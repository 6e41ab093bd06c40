// The address page (/address/:hash) in a browser on the devnet scenario: every tab of a plain
// account, a token contract and an NFT contract (and the Forwarder's internal transactions, logs and
// ABI-less contract), desktop and phone, light and dark, with the API's values (exact balance,
// counters, holdings, each list row by row); the tabs Blockscout shows per address; paging a busy
// address and filtered lists in the browser gives the API's own walk; unknown and invalid addresses;
// JavaScript off.
import t from 'tap';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';
import { keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { uiOnDevnet } from './helpers/ui.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { devAccount } from './helpers/devnet.js';
import { BROKEN_TEXT, VIEWPORTS, browserMissing, eachLook, screenshot, watchedPage, withBrowser } from './helpers/browser.js';
import { formatUnits, groupDigits, readableUnits } from '../src/ui/format.js';

const V2 = '/api/v2';
const UNKNOWN = `0x${'0'.repeat(32)}deadbeef`;
/** An address paid on two days, so its balance by day is a line (the scenario's blocks are all of one day). */
const TWO_DAYS = privateKeyToAccount(keccak256(toHex('ui-address test: two days of balance'))).address;

/** The overview's rows: label → text. */
function overview(page: Page): Promise<Record<string, string>> {
  return page.$eval('dl.details', (dl) =>
    Object.fromEntries(Array.from(dl.querySelectorAll(':scope > .row')).map((r) => [r.querySelector('dt')!.textContent!.trim(), (r.querySelector('dd') as HTMLElement).innerText.trim()])),
  );
}

/** The tab links: id (from ?tab=, 'txs' for the first) → label text. */
function tabLinks(page: Page): Promise<{ id: string; text: string; href: string; current: boolean }[]> {
  return page.$$eval('nav.tabs a', (as) =>
    as.map((a) => {
      const href = a.getAttribute('href')!;
      return { id: new URL(href, 'http://x').searchParams.get('tab') ?? 'txs', text: (a as HTMLElement).innerText.replace(/\s+/g, ' ').trim(), href, current: a.getAttribute('aria-current') === 'page' };
    }),
  );
}

/** The first cell's link target of each table row (the transaction hash in the lists that have one). */
function firstCellTitles(page: Page): Promise<string[]> {
  return page.$$eval('section.card > .table-wrap > table > tbody > tr', (trs) => trs.map((tr) => tr.querySelector('td:first-child a[title]')?.getAttribute('title') ?? ''));
}

function cells(page: Page, col: number): Promise<string[]> {
  return page.$$eval('section.card > .table-wrap > table > tbody > tr', (trs, c) => trs.map((tr) => (tr.children[c] as HTMLElement).innerText.trim()), col);
}

const countText = (n: number) => (n > 50 ? '50+' : String(n));

t.test('the address page in a browser', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t, {
    before: async (devnet) => {
      const pay = async (wei: bigint) => minedIn(devnet.url, await rpc<string>(devnet.url, 'eth_sendTransaction', [{ from: devAccount(9).address, to: TWO_DAYS, value: toHex(wei) }]));
      await pay(10n ** 18n);
      // The next blocks are a day later (ahead of the wall clock: their times read "in the future").
      await rpc(devnet.url, 'evm_increaseTime', [86_400]);
      await pay(5n * 10n ** 17n);
    },
  });
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const api = async (path: string) => {
    const r = await f.get(path);
    if (r.status !== 200) throw new Error(`${path} answered ${r.status}`);
    return r.body as any;
  };
  /** The API's own walk of a list: every page's items, following next_page_params. */
  const apiWalk = async (path: string, first: Record<string, string>) => {
    const items: any[] = [];
    let next: Record<string, unknown> | null = {};
    for (let i = 0; next && i < 200; i++) {
      const q = new URLSearchParams(first);
      for (const [k, v] of Object.entries(next)) q.set(k, v === null ? 'null' : String(v));
      const page = await api(`${path}?${q}`);
      items.push(...page.items);
      next = page.next_page_params;
    }
    return items;
  };

  const subjects = {
    account: s.accounts[1],
    token: s.contracts.DevnetToken,
    nft: s.contracts.DevnetNFT,
    multi: s.contracts.DevnetMulti,
    forwarder: s.contracts.Forwarder,
  };

  // Which tabs each subject shows, as Blockscout's frontend decides (from the API's tab counters).
  for (const [name, hash] of Object.entries(subjects)) {
    const a = await api(`${V2}/addresses/${hash}`);
    const c = await api(`${V2}/addresses/${hash}/tabs-counters`);
    const expected = ['txs', 'token_transfers', 'tokens', 'internal_txns', 'coin_balance_history'];
    if (c.withdrawals_count) expected.splice(1, 0, 'withdrawals');
    if (c.validations_count) expected.push('blocks_validated');
    if (c.logs_count) expected.push('logs');
    if (a.is_contract) expected.push('contract');
    (subjects as any)[name] = { hash: a.hash, expected, address: a, tabsCounters: c };
  }
  const subs = subjects as unknown as Record<keyof typeof subjects, { hash: string; expected: string[]; address: any; tabsCounters: any }>;

  /** Checks one page's values against the API (desktop light only: the values do not depend on the look). */
  async function checkValues(t: Test, page: Page, hash: string, tab: string, query: URLSearchParams) {
    const h = hash.toLowerCase();
    const label = `${hash.slice(0, 10)} ${tab}`;
    const a = await api(`${V2}/addresses/${h}`);
    const counters = await api(`${V2}/addresses/${h}/counters`);
    const holdings = await api(`${V2}/addresses/${h}/token-balances`);
    const o = await overview(page);
    t.equal(o['Balance'], a.coin_balance === null ? '—' : `${formatUnits(a.coin_balance, 18)} ETH`, `${label}: the balance, exact`);
    t.equal(o['Transactions'], groupDigits(counters.transactions_count), `${label}: transactions counter`);
    t.equal(o['Token transfers'], groupDigits(counters.token_transfers_count), `${label}: token transfers counter`);
    t.equal(o['Gas used'], groupDigits(counters.gas_usage_count), `${label}: gas used counter`);
    t.equal(o['Blocks validated'], groupDigits(counters.validations_count), `${label}: validations counter`);
    if (holdings.length) {
      t.match(o['Tokens'], `${holdings.length} token balance`, `${label}: the number of token balances`);
      for (const b of holdings.slice(0, 5)) t.match(o['Tokens'], readableUnits(b.value, b.token.decimals ?? 0, 6), `${label}: holding ${b.token.symbol ?? b.token.address_hash} ${b.value}`);
    } else t.equal(o['Tokens'], 'None', `${label}: no token balances`);
    if (a.creator_address_hash) {
      const creator = await page.$eval('dl.details', (dl) => Array.from(dl.querySelectorAll('a[title]')).map((x) => x.getAttribute('title')));
      t.ok(creator.includes(a.creator_address_hash), `${label}: the creator`);
      t.ok(creator.includes(a.creation_transaction_hash), `${label}: the creation transaction`);
    }
    t.equal(o['Last balance update'], a.block_number_balance_updated_at === null ? '—' : groupDigits(String(a.block_number_balance_updated_at)), `${label}: last balance update block`);
    t.match(await page.innerText('.addr-hash'), a.hash, `${label}: the checksummed hash`);
    if (a.token) t.match(await page.innerText('.addr-tags'), a.token.name ?? a.token.type, `${label}: the token`);

    const tabs = await tabLinks(page);
    const c = await api(`${V2}/addresses/${h}/tabs-counters`);
    const byId: Record<string, number> = {
      txs: c.transactions_count,
      token_transfers: c.token_transfers_count,
      tokens: c.token_balances_count,
      internal_txns: c.internal_transactions_count,
      logs: c.logs_count,
      withdrawals: c.withdrawals_count,
      blocks_validated: c.validations_count,
    };
    // The counters and the full list of holdings know these exactly (shown past 50); the others are tabs-counters' own, "50+" past 50.
    const exact: Record<string, number> = { txs: Number(counters.transactions_count), token_transfers: Number(counters.token_transfers_count), tokens: holdings.length };
    for (const x of tabs) {
      if (exact[x.id] !== undefined) t.match(x.text, new RegExp(`${groupDigits(String(exact[x.id]))}$`), `${label}: tab ${x.id} counts exactly ${exact[x.id]}`);
      else if (byId[x.id] !== undefined) t.match(x.text, new RegExp(`${countText(byId[x.id])}$`), `${label}: tab ${x.id} counts ${byId[x.id]}`);
    }

    const q = new URLSearchParams(query);
    q.delete('tab');
    const qs = q.toString() ? `?${q}` : '';
    switch (tab) {
      case 'txs': {
        const list = await api(`${V2}/addresses/${h}/transactions${qs}`);
        t.same(await firstCellTitles(page), list.items.map((x: any) => x.hash), `${label}: the transactions, row by row`);
        break;
      }
      case 'token_transfers': {
        const list = await api(`${V2}/addresses/${h}/token-transfers${qs}`);
        t.same(await firstCellTitles(page), list.items.map((x: any) => x.transaction_hash), `${label}: the token transfers, row by row`);
        const amounts = await cells(page, 6);
        list.items.forEach((x: any, i: number) => {
          if (x.total?.value != null) t.match(amounts[i], readableUnits(x.total.value, x.token?.decimals ?? x.total.decimals ?? 0, 6), `${label}: transfer ${i} amount`);
          if (x.total?.token_id != null) t.match(amounts[i], `#${x.total.token_id}`, `${label}: transfer ${i} token id`);
        });
        break;
      }
      case 'tokens': {
        const list = await api(`${V2}/addresses/${h}/tokens${qs}`);
        const tokens = await page.$$eval('section.card > .table-wrap > table > tbody > tr > td:first-child a', (as) => as.map((x) => x.getAttribute('title')));
        t.same(tokens, list.items.map((x: any) => x.token.address_hash), `${label}: the tokens, row by row`);
        const balances = await cells(page, 3);
        t.same(
          balances,
          list.items.map((x: any) => `${formatUnits(x.value, x.token.decimals ?? 0)}${x.token.symbol ? ` ${x.token.symbol}` : ''}`),
          `${label}: the balances, exact with decimals`,
        );
        break;
      }
      case 'internal_txns': {
        const list = await api(`${V2}/addresses/${h}/internal-transactions${qs}`);
        t.same(await firstCellTitles(page), list.items.map((x: any) => x.transaction_hash), `${label}: the internal transactions, row by row`);
        t.same(await cells(page, 7), list.items.map((x: any) => formatUnits(x.value, 18)), `${label}: their values, exact`);
        break;
      }
      case 'coin_balance_history': {
        const list = await api(`${V2}/addresses/${h}/coin-balance-history${qs}`);
        t.same(await cells(page, 0), list.items.map((x: any) => groupDigits(String(x.block_number))), `${label}: the balance changes' blocks`);
        t.same(await cells(page, 4), list.items.map((x: any) => formatUnits(x.value, 18)), `${label}: the balances, exact`);
        const days = await api(`${V2}/addresses/${h}/coin-balance-history-by-day`);
        if (days.items.length > 1) {
          t.ok(await page.$('figure.chart .uplot'), `${label}: the chart island drew the daily balance`);
          const series = JSON.parse((await page.getAttribute('figure.chart', 'data-series'))!);
          t.same(series.x, days.items.map((d: any) => d.date), `${label}: the chart's days`);
        } else t.notOk(await page.$('figure.chart'), `${label}: no chart of a single day`);
        if (days.items.length) {
          const last = days.items[days.items.length - 1];
          t.equal(await page.innerText('.day-balance'), `At the end of ${last.date}: ${formatUnits(last.value, 18)} ETH`, `${label}: the last day's balance, exact`);
        }
        break;
      }
      case 'logs': {
        const list = await api(`${V2}/addresses/${h}/logs${qs}`);
        const logs = await page.$$eval('ol.logs > li', (lis) => lis.map((li) => ({ tx: li.querySelector('a[title]')?.getAttribute('title'), text: (li as HTMLElement).innerText })));
        t.same(logs.map((l) => l.tx), list.items.map((x: any) => x.transaction_hash), `${label}: the logs, row by row`);
        list.items.forEach((x: any, i: number) => {
          for (const topic of x.topics.filter(Boolean)) t.match(logs[i].text, topic, `${label}: log ${i} topic`);
        });
        break;
      }
      case 'contract': {
        const sc = await api(`${V2}/smart-contracts/${h}`);
        const pres = await page.$$eval('pre.data', (ps) => ps.map((p) => p.textContent));
        t.same(pres, [sc.deployed_bytecode, sc.creation_bytecode].filter(Boolean), `${label}: deployed and creation bytecode`);
        t.match(await page.innerText('main'), 'Not verified', `${label}: says it is not verified`);
        const methods = await api(`${V2}/smart-contracts/${h}/methods-read`);
        const shown = await page.$$eval('.method-item', (lis) => lis.map((li) => ({ name: li.querySelector('strong')?.textContent, values: Array.from(li.querySelectorAll('.output-value')).map((v) => v.textContent) })));
        t.same(shown.map((m) => m.name), methods.map((m: any) => m.name), `${label}: every read method`);
        methods.forEach((m: any, i: number) => {
          if (m.inputs.length === 0 && !m.error) t.same(shown[i].values, m.outputs.map((o: any) => String(o.value)), `${label}: ${m.name}() = ${m.outputs.map((o: any) => o.value)}`);
        });
        break;
      }
    }
  }

  const pages: { name: string; path: string; status: number; hash?: string; tab?: string }[] = [];
  // Every tab of the account and of the two token contracts; the Forwarder's internal transactions, logs and contract (no ABI).
  const tabsOf: Partial<Record<keyof typeof subjects, string[]>> = { account: subs.account.expected, token: subs.token.expected, nft: subs.nft.expected, forwarder: ['internal_txns', 'logs', 'contract'] };
  for (const [name, list] of Object.entries(tabsOf)) {
    const sub = subs[name as keyof typeof subjects];
    for (const tab of list) pages.push({ name: `address-${name}-${tab}`, path: `/address/${sub.hash}${tab === 'txs' ? '' : `?tab=${tab}`}`, status: 200, hash: sub.hash, tab });
  }
  const alice = subs.account.hash;
  // An ERC-721 holder: its tokens tab lists a count of NFTs (no decimals).
  const nftHolder = (await api(`${V2}/tokens/${subs.nft.hash}/holders`)).items[0].address.hash as string;
  pages.push(
    { name: 'address-nft-holder-tokens', path: `/address/${nftHolder}?tab=tokens`, status: 200, hash: nftHolder, tab: 'tokens' },
    { name: 'address-account-txs-outgoing', path: `/address/${alice}?filter=from`, status: 200, hash: alice, tab: 'txs' },
    { name: 'address-account-transfers-erc1155', path: `/address/${alice}?tab=token_transfers&type=ERC-1155`, status: 200, hash: alice, tab: 'token_transfers' },
    { name: 'address-account-transfers-token', path: `/address/${alice}?tab=token_transfers&token=${subs.token.hash}`, status: 200, hash: alice, tab: 'token_transfers' },
    { name: 'address-account-tokens-erc20', path: `/address/${alice}?tab=tokens&type=ERC-20`, status: 200, hash: alice, tab: 'tokens' },
    { name: 'address-internal-recipient', path: `/address/${s.internalRecipient}?tab=internal_txns`, status: 200, hash: s.internalRecipient, tab: 'internal_txns' },
    { name: 'address-two-days-coin_balance_history', path: `/address/${TWO_DAYS}?tab=coin_balance_history`, status: 200, hash: TWO_DAYS, tab: 'coin_balance_history' },
    { name: 'address-unknown', path: `/address/${UNKNOWN}`, status: 200, hash: UNKNOWN, tab: 'txs' },
    { name: 'address-invalid', path: '/address/0x123', status: 400 },
    { name: 'address-invalid-tab', path: `/address/${alice}?tab=sideways`, status: 400 },
    { name: 'address-invalid-filter', path: `/address/${alice}?filter=sideways`, status: 400 },
    { name: 'address-invalid-type', path: `/address/${alice}?tab=token_transfers&type=ERC-9`, status: 400 },
  );

  // Every subject shows the tabs Blockscout shows, and only those.
  {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    for (const [name, sub] of Object.entries(subs)) {
      const w = await watchedPage(context);
      await w.page.goto(`${f.base}/address/${sub.hash}`, { waitUntil: 'load' });
      t.same((await tabLinks(w.page)).map((x) => x.id), sub.expected, `${name}: the tabs ${sub.expected.join(', ')}`);
      await w.page.close();
    }
    await context.close();
  }

  await eachLook(
    browser,
    async (context, { vp, scheme }) => {
      const w = await watchedPage(context); // one tab for the whole walk (Watched.clear)
      for (const p of pages) {
        w.clear();
        const res = await w.page.goto(f.base + p.path, { waitUntil: 'load' });
        const text = await w.page.innerText('body');
        const label = `${p.name} ${vp} ${scheme}`;
        t.equal(res?.status(), p.status, `${label}: ${p.status}`);
        t.notMatch(text, BROKEN_TEXT, `${label}: no broken text`);
        // An error page's document is itself reported by the browser as a failed resource: that one is expected.
        const own = (e: string) => p.status !== 200 && /status of 400/.test(e);
        t.same(w.errors.filter((e) => !own(e)), [], `${label}: no console error`);
        t.same(w.failed.filter((u) => !(p.status !== 200 && u.startsWith(f.base + p.path.split('?')[0]))), [], `${label}: no failed request`);
        const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        t.ok(overflow <= 1, `${label}: nothing wider than the screen (${overflow} px)`);
        if (p.status === 200) {
          const current = (await tabLinks(w.page)).find((x) => x.current);
          t.equal(current?.id, p.tab, `${label}: the ${p.tab} tab is the current one`);
        }
        if (vp === 'desktop' && scheme === 'light') {
          if (p.hash && p.tab) await checkValues(t, w.page, p.hash, p.tab, new URL(p.path, 'http://x').searchParams);
          if (p.name === 'address-unknown') {
            t.match(text, 'No transactions', 'unknown address: an empty stub');
            t.match(text, 'Nothing is indexed for this address yet', 'unknown address: says so');
            t.equal((await overview(w.page))['Balance'], '—', 'unknown address: no balance yet');
          }
          if (p.name === 'address-invalid') t.match(text, /"0x123" is not an address: an address is 0x followed by 40 hexadecimal digits/, 'invalid address: says why');
          if (p.name === 'address-invalid-tab') t.match(text, /has no tab "sideways"/, 'invalid tab: says why');
          if (p.name === 'address-invalid-filter') t.match(text, /"sideways" is not a direction: filter is "from" .* or "to"/, 'invalid filter: says why');
          if (p.name === 'address-invalid-type') t.match(text, /type: Invalid format/, 'invalid token type: the API says why');
        }
        await screenshot(w.page, `${p.name}-${vp}-${scheme}`);
      }
      await w.page.close();
    },
  );

  await t.test('walking a busy address page by page shows each transaction once, in order', async (t) => {
    const busy = s.accounts[0];
    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    const w = await watchedPage(context);
    const walk = async (start: string, mustKeep: Record<string, string>) => {
      const seen: string[] = [];
      await w.page.goto(f.base + start, { waitUntil: 'load' });
      for (let i = 0; i < 100; i++) {
        seen.push(...(await firstCellTitles(w.page)));
        const next = await w.page.$('nav.pager a[rel=next]');
        if (!next) break;
        const href = (await next.getAttribute('href'))!;
        const q = new URL(href, f.base).searchParams;
        for (const [k, v] of Object.entries(mustKeep)) t.equal(q.get(k), v, `the next page's link keeps ${k}=${v}`);
        await Promise.all([w.page.waitForURL(new URL(href, f.base).toString()), next.click()]);
      }
      return seen;
    };

    const txs = await walk(`/address/${busy}?items_count=5`, { items_count: '5' });
    const expected = (await apiWalk(`${V2}/addresses/${busy}/transactions`, { items_count: '5' })).map((x) => x.hash);
    const counters = await api(`${V2}/addresses/${busy}/counters`);
    t.ok(expected.length > 10, `the busy address has several pages (${expected.length} transactions)`);
    t.equal(expected.length, Number(counters.transactions_count), 'the API walk covers the transactions counter');
    t.same(txs, expected, 'the browser walk shows the API walk, in order');
    t.equal(new Set(txs).size, txs.length, 'no transaction twice');

    const out = await walk(`/address/${busy}?filter=from&items_count=4`, { filter: 'from', items_count: '4' });
    const outExpected = (await apiWalk(`${V2}/addresses/${busy}/transactions`, { filter: 'from', items_count: '4' })).map((x) => x.hash);
    t.same(out, outExpected, 'the outgoing filter survives paging');

    const transfers = await walk(`/address/${alice}?tab=token_transfers&type=ERC-1155&items_count=2`, { tab: 'token_transfers', type: 'ERC-1155', items_count: '2' });
    const trExpected = await apiWalk(`${V2}/addresses/${alice}/token-transfers`, { type: 'ERC-1155', items_count: '2' });
    t.ok(trExpected.length > 2, `several pages of ERC-1155 transfers (${trExpected.length})`);
    t.ok(trExpected.every((x) => x.token.type === 'ERC-1155'), 'the API kept the type filter');
    t.same(transfers, trExpected.map((x) => x.transaction_hash), 'the type filter survives paging: the API walk, in order');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
    await screenshot(w.page, 'address-walk-last-page-phone');
    await context.close();
  });

  await t.test('with JavaScript off the address page still shows its data', async (t) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, javaScriptEnabled: false });
    const w = await watchedPage(context);
    await w.page.goto(`${f.base}/address/${alice}`, { waitUntil: 'load' });
    const a = await api(`${V2}/addresses/${alice}`);
    t.equal((await overview(w.page))['Balance'], `${formatUnits(a.coin_balance, 18)} ETH`, 'the exact balance');
    const txs = await api(`${V2}/addresses/${alice}/transactions`);
    t.same(await firstCellTitles(w.page), txs.items.map((x: any) => x.hash), 'the transactions');
    // Tabs and filters are links: following them needs no script.
    await Promise.all([w.page.waitForURL(/tab=tokens/), w.page.click('nav.tabs a[href*="tab=tokens"]')]);
    const tokens = await api(`${V2}/addresses/${alice}/tokens`);
    t.equal((await cells(w.page, 3)).length, tokens.items.length, 'the tokens tab through its link');
    await Promise.all([w.page.waitForURL(/type=ERC-20/), w.page.click('nav.filters a[href*="type=ERC-20"]')]);
    t.same(await cells(w.page, 1), tokens.items.filter((x: any) => x.token.type === 'ERC-20').map(() => 'ERC-20'), 'a type filter through its pill link');
    await w.page.goto(`${f.base}/address/${TWO_DAYS}?tab=coin_balance_history`, { waitUntil: 'load' });
    t.ok(await w.page.$('figure.chart svg'), 'the server-drawn chart stands in for the island');
    t.notOk(await w.page.$('figure.chart .uplot'), 'and no island ran');
    t.notOk(await w.page.$('button.copy:not([hidden])'), 'copy buttons stay hidden (they need a script)');
    await screenshot(w.page, 'address-account-nojs');
    t.same(w.failed, [], 'no failed request');
    await context.close();
  });
});
