// The transaction pages in Debian's chromium on the devnet scenario: the list (/txs: validated,
// pending, failed) and a transaction's page with every tab, desktop and phone, light and dark,
// showing the API's values (status and revert reason, block, from/to, value, fee, method, the rows
// of each tab, exact state-change balances), paged as the API pages, with no console error, no
// failed request, no broken text and nothing wider than the screen; also with JavaScript off, and a
// pending transaction's page turning into the mined one without a reload.
import t from 'tap';
import type { Page } from 'playwright-core';
import { uiOnDevnet } from './helpers/ui.js';
import { walk } from './helpers/api-derived.js';
import { BROKEN_TEXT, VIEWPORTS, eachLook, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { formatUnits, groupDigits } from '../src/ui/format.js';
import { replacePendingPool } from '../src/storage/postgres/indexer.js';
import { toPendingTx } from '../src/indexer/pending.js';
import { devAccount } from './helpers/devnet.js';

const V2 = '/api/v2';

/** The transaction's detail list: label → shown text, and label → address links in it. */
async function details(page: Page): Promise<{ text: Record<string, string>; links: Record<string, string[]> }> {
  return page.evaluate(() => {
    const text: Record<string, string> = {};
    const links: Record<string, string[]> = {};
    const dl = document.querySelector('#tx section.card dl.details');
    for (const row of Array.from(dl?.children ?? [])) {
      const label = row.querySelector('dt')?.textContent ?? '';
      const dd = row.querySelector('dd') as HTMLElement | null;
      text[label] = dd?.innerText ?? '';
      links[label] = Array.from(dd?.querySelectorAll('a[href^="/address/"]') ?? []).map((a) => a.getAttribute('href')!.slice('/address/'.length));
    }
    return { text, links };
  });
}

/** Rows of the tab's table (or logs of the logs tab). */
async function tabRows(page: Page): Promise<string[][]> {
  return page.evaluate(() => {
    const card = document.querySelector('#tx nav.tabs + section.card');
    if (!card) return [];
    const logs = card.querySelectorAll('.tx-log');
    if (logs.length) return Array.from(logs).map((l) => [(l as HTMLElement).innerText]);
    return Array.from(card.querySelectorAll(':scope > .table-wrap > table > tbody > tr')).map((tr) =>
      Array.from(tr.children).map((td) => (td as HTMLElement).innerText.trim()),
    );
  });
}

/** Transaction hashes linked from the list's table, in order. */
async function listedHashes(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('main table tbody tr td:first-child a[href^="/tx/"]')).map((a) => a.getAttribute('href')!.slice('/tx/'.length)),
  );
}

/** Follows the pager's Next links from `path` to the end; what each page lists. */
async function walkPages(page: Page, base: string, path: string, read: (p: Page) => Promise<string[]>): Promise<string[][]> {
  const pages: string[][] = [];
  let url: string | null = base + path;
  while (url) {
    const res = await page.goto(url, { waitUntil: 'domcontentloaded' });
    if (res?.status() !== 200) throw new Error(`${url} answered ${res?.status()}`);
    pages.push(await read(page));
    const next = await page.$('nav.pager a[rel="next"]');
    url = next ? new URL((await next.getAttribute('href'))!, base).toString() : null;
    if (pages.length > 100) throw new Error('more than 100 pages: a paging loop');
  }
  return pages;
}

t.test('transaction pages in a browser', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t);
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const byLabel = (re: RegExp) => {
    const tx = s.txs.find((x) => re.test(x.label));
    if (!tx) throw new Error(`no scenario transaction ${re}`);
    return tx;
  };
  const failed = s.failedTx;
  const forward = s.forwardTx;
  const batch1155 = byLabel(/safeBatchTransferFrom/);
  const nft721 = byLabel(/erc721 transferFrom #2/);
  const erc20 = byLabel(/erc20 transfer alice -> bob/);
  const creation = byLabel(/deploy DevnetToken/);

  // A transaction waiting in the pool (the fixture's indexer does not follow the pool: stored as
  // the pool follower stores it).
  const pending = {
    hash: `0x${'5e'.repeat(32)}`,
    from: s.accounts[1].toLowerCase(),
    to: s.accounts[2].toLowerCase(),
    nonce: 4242,
    value: '1234500000000000000',
    gas: '21000',
    gasPrice: null,
    maxFeePerGas: '3000000000',
    maxPriorityFeePerGas: '1000000000',
    type: 2,
    input: '0x',
  };
  await replacePendingPool(f.stores.pg, [pending]);

  const api = async (path: string) => {
    const r = await f.get(path);
    if (r.status !== 200) throw new Error(`${path} -> ${r.status}`);
    return r.body;
  };

  /** Checks of a transaction's detail list against the API's transaction. */
  const checkDetails = async (page: Page, hash: string, label: string) => {
    const tx = await api(`${V2}/transactions/${hash}`);
    const d = await details(page);
    t.match(await page.innerText('.tx-hash'), tx.hash, `${label}: the hash`);
    if (tx.status === 'ok') t.equal(d.text.Status, 'Success', `${label}: status Success`);
    else if (tx.status === 'error') t.equal(d.text.Status, `Failed: ${tx.result}`, `${label}: status Failed with the result`);
    else t.equal(d.text.Status, 'Pending', `${label}: status Pending`);
    if (tx.block_number !== null) {
      t.match(d.text.Block, groupDigits(String(tx.block_number)), `${label}: block`);
      t.match(d.text.Block, `${groupDigits(String(tx.confirmations))} block confirmation`, `${label}: confirmations`);
      t.match(d.text['Position in block'], String(tx.position), `${label}: position`);
    } else t.match(d.text.Block, 'Not in a block yet', `${label}: no block`);
    t.same(d.links.From, [tx.from.hash], `${label}: from`);
    if (tx.to) t.same(d.links.To, [tx.to.hash], `${label}: to`);
    else if (tx.created_contract) t.same(d.links['Contract creation'], [tx.created_contract.hash], `${label}: the contract created`);
    t.equal(d.text.Value, `${formatUnits(tx.value, 18)} ETH`, `${label}: value`);
    const feeLabel = tx.fee.type === 'maximum' ? 'Transaction fee (at most)' : 'Transaction fee';
    t.equal(d.text[feeLabel], `${formatUnits(tx.fee.value, 18)} ETH`, `${label}: fee`);
    t.equal(d.text['Gas price'], tx.gas_price === null ? '—' : `${formatUnits(tx.gas_price, 9)} gwei`, `${label}: gas price`);
    if (tx.gas_used !== null) t.match(d.text['Gas used / limit'], `${groupDigits(tx.gas_used)} / ${groupDigits(tx.gas_limit)}`, `${label}: gas used and limit`);
    if (tx.max_fee_per_gas !== null) t.equal(d.text['Max fee per gas'], `${formatUnits(tx.max_fee_per_gas, 9)} gwei`, `${label}: max fee`);
    if (tx.max_priority_fee_per_gas !== null) t.equal(d.text['Max priority fee per gas'], `${formatUnits(tx.max_priority_fee_per_gas, 9)} gwei`, `${label}: max priority fee`);
    if (tx.base_fee_per_gas !== null) t.equal(d.text['Base fee per gas'], `${formatUnits(tx.base_fee_per_gas, 9)} gwei`, `${label}: base fee`);
    if (tx.transaction_burnt_fee !== null) t.equal(d.text['Burnt fee'], `${formatUnits(tx.transaction_burnt_fee, 18)} ETH`, `${label}: burnt fee`);
    if (tx.priority_fee !== null) t.equal(d.text['Priority fee'], `${formatUnits(tx.priority_fee, 18)} ETH`, `${label}: priority fee`);
    t.equal(d.text.Nonce, groupDigits(String(tx.nonce)), `${label}: nonce`);
    if (tx.method) t.equal(d.text.Method, tx.method, `${label}: method`);
    if (tx.raw_input !== '0x') t.equal(d.text['Raw input'], tx.raw_input, `${label}: raw input`);
    if (tx.token_transfers?.length) {
      const lines = await page.$$eval('.tx-transfers li', (ls) => ls.length);
      t.equal(lines, tx.token_transfers.length, `${label}: the transfers summary lists the API's transfers`);
    }
    return tx;
  };

  const pages: { name: string; path: string; status?: number; check?: (page: Page, text: string) => Promise<void> }[] = [
    {
      name: 'txs',
      path: '/txs',
      check: async (page) => {
        const first = await api(`${V2}/transactions`);
        t.same(await listedHashes(page), first.items.map((x: any) => x.hash), '/txs: the first page is the API\'s first page, in order');
      },
    },
    {
      name: 'txs-pending',
      path: '/txs?filter=pending',
      check: async (page) => {
        const list = await api(`${V2}/transactions?filter=pending`);
        t.same(await listedHashes(page), list.items.map((x: any) => x.hash), 'pending list as the API gives it');
        t.same(await listedHashes(page), [pending.hash], 'the pending transaction is listed');
      },
    },
    {
      name: 'txs-error',
      path: '/txs?filter=error',
      check: async (page) => {
        const list = await api(`${V2}/transactions?filter=error`);
        t.same(await listedHashes(page), list.items.map((x: any) => x.hash), 'failed list as the API gives it');
        t.ok((await listedHashes(page)).includes(failed.hash), 'the failed transaction is listed');
      },
    },
    {
      name: 'tx-failed',
      path: `/tx/${failed.hash}`,
      check: async (page) => {
        const tx = await checkDetails(page, failed.hash, 'failed tx');
        const d = await details(page);
        t.equal(d.text.Status, 'Failed: Reverted', 'the failed transaction shows Failed');
        t.match(d.text['Revert reason'], tx.revert_reason.parameters[0].value, 'with the decoded revert reason');
        t.match(d.text['Revert reason'], 'Reverter: always reverts', 'the reason the contract gave');
      },
    },
    {
      name: 'tx-creation',
      path: `/tx/${creation.hash}`,
      check: async (page) => {
        const tx = await checkDetails(page, creation.hash, 'contract creation');
        t.equal(tx.to, null);
        t.match((await details(page)).text['Contract creation'], 'Created', 'shown as a contract creation');
      },
    },
    {
      name: 'tx-erc20',
      path: `/tx/${erc20.hash}`,
      check: async (page) => {
        await checkDetails(page, erc20.hash, 'erc20 transfer');
        const named = (await api(`${V2}/transactions/${erc20.hash}`)).method_naming;
        t.equal(named?.source, 'catalogue', 'the unverified token: its call named by the built-in catalogue');
        t.match(
          await page.locator('.tx-naming').first().innerText(),
          `Named by the built-in catalogue (${named?.origin}); the contract is not verified, so this is a guess by its selector.`,
          'the page says where the name came from',
        );
        const list = await api(`${V2}/transactions/${erc20.hash}/token-transfers`);
        const rows = await tabRows(page);
        t.equal(rows.length, list.items.length, 'token transfers tab: one row per API transfer');
        for (const [i, tr] of list.items.entries()) {
          t.match(rows[i][5], formatUnits(tr.total.value, tr.token.decimals), `transfer ${i}: the exact amount`);
        }
      },
    },
    {
      name: 'tx-1155-transfers',
      path: `/tx/${batch1155.hash}?tab=token_transfers`,
      check: async (page) => {
        await checkDetails(page, batch1155.hash, 'erc1155 batch');
        const list = await api(`${V2}/transactions/${batch1155.hash}/token-transfers`);
        const rows = await tabRows(page);
        t.equal(rows.length, list.items.length, 'ERC-1155 batch: one row per id');
        for (const [i, tr] of list.items.entries()) t.match(rows[i][5], `${tr.total.value} of #${tr.total.token_id}`, `batch row ${i}: amount and id`);
      },
    },
    {
      name: 'tx-1155-state',
      path: `/tx/${batch1155.hash}?tab=state`,
      check: async (page) => {
        const list = await api(`${V2}/transactions/${batch1155.hash}/state-changes`);
        const rows = await tabRows(page);
        t.equal(rows.length, list.items.length, 'state changes: one row per API change');
        for (const [i, c] of list.items.entries()) {
          const dec = c.type === 'coin' ? 18 : Number(c.token?.decimals ?? 0);
          t.equal(rows[i][2], formatUnits(c.balance_before, dec), `state ${i}: balance before`);
          t.equal(rows[i][3], formatUnits(c.balance_after, dec), `state ${i}: balance after`);
          t.equal(rows[i][4], (BigInt(c.change) > 0n ? '+' : '') + formatUnits(c.change, dec), `state ${i}: change`);
        }
      },
    },
    {
      name: 'tx-721-state',
      path: `/tx/${nft721.hash}?tab=state`,
      check: async (page) => {
        const list = await api(`${V2}/transactions/${nft721.hash}/state-changes`);
        const rows = await tabRows(page);
        t.equal(rows.length, list.items.length, 'ERC-721 state changes: one row per API change');
        const nft = list.items.filter((c: any) => Array.isArray(c.change));
        t.ok(nft.length > 0, 'the API lists ERC-721 moves');
        for (const [i, c] of list.items.entries()) {
          if (Array.isArray(c.change)) {
            for (const m of c.change) t.match(rows[i][4], `${m.direction === 'to' ? '+' : '−'}#${m.total.token_id}`, `state ${i}: the NFT that moved`);
            t.equal(rows[i][2], formatUnits(c.balance_before, 0), `state ${i}: tokens held before`);
          } else t.equal(rows[i][3], formatUnits(c.balance_after, 18), `state ${i}: balance after`);
        }
      },
    },
    {
      name: 'tx-forward',
      path: `/tx/${forward.hash}`,
      check: async (page) => {
        await checkDetails(page, forward.hash, 'forward');
        t.match(await page.innerText('#tx nav.tabs + section.card'), 'moved no tokens', 'no token transfers: said so');
      },
    },
    {
      name: 'tx-forward-internal',
      path: `/tx/${forward.hash}?tab=internal`,
      check: async (page) => {
        const list = await api(`${V2}/transactions/${forward.hash}/internal-transactions`);
        const rows = await tabRows(page);
        t.equal(rows.length, list.items.length, 'internal transactions: one row per API item');
        for (const [i, it] of list.items.entries()) {
          t.equal(rows[i][1], it.type, `internal ${i}: type`);
          t.equal(rows[i][5], formatUnits(it.value, 18), `internal ${i}: exact value`);
        }
      },
    },
    {
      name: 'tx-forward-logs',
      path: `/tx/${forward.hash}?tab=logs`,
      check: async (page) => {
        const list = await api(`${V2}/transactions/${forward.hash}/logs`);
        const rows = await tabRows(page);
        t.equal(rows.length, list.items.length, 'logs: one entry per API log');
        for (const [i, l] of list.items.entries()) {
          for (const topic of l.topics.filter(Boolean)) t.match(rows[i][0], topic, `log ${i}: its topics`);
          t.match(rows[i][0], l.data, `log ${i}: its data`);
        }
      },
    },
    {
      name: 'tx-forward-state',
      path: `/tx/${forward.hash}?tab=state`,
      check: async (page) => {
        const list = await api(`${V2}/transactions/${forward.hash}/state-changes`);
        const rows = await tabRows(page);
        t.equal(rows.length, list.items.length, 'coin state changes: one row per API change');
        for (const [i, c] of list.items.entries()) {
          t.equal(rows[i][2], formatUnits(c.balance_before, 18), `coin ${i}: before`);
          t.equal(rows[i][3], formatUnits(c.balance_after, 18), `coin ${i}: after`);
          t.equal(rows[i][4], (BigInt(c.change) > 0n ? '+' : '') + formatUnits(c.change, 18), `coin ${i}: change`);
          if (c.is_miner) t.match(rows[i][0], 'Miner', `coin ${i}: the miner is marked`);
        }
      },
    },
    {
      name: 'tx-forward-trace',
      path: `/tx/${forward.hash}?tab=raw_trace`,
      check: async (page) => {
        const trace = await api(`${V2}/transactions/${forward.hash}/raw-trace`);
        const shown = JSON.parse(await page.innerText('#tx pre.data.tall'));
        t.same(shown, trace, 'the raw trace is the API\'s, as JSON');
      },
    },
    {
      name: 'tx-pending',
      path: `/tx/${pending.hash}`,
      check: async (page) => {
        await checkDetails(page, pending.hash, 'pending tx');
        t.match(await page.innerText('#tx'), 'waiting in the pending pool', 'says it is pending');
        t.equal(await page.$('#tx nav.tabs'), null, 'no tabs for a transaction not executed yet');
        t.equal(await page.getAttribute('#tx', 'data-live'), `/tx/${pending.hash}?part=live`, 'refreshed on new blocks (it may be mined)');
        const part = await fetch(`${f.base}/tx/${pending.hash}?part=live`);
        const html = await part.text();
        t.equal(part.status, 200, 'the live part answers');
        t.ok(html.startsWith('<div id="tx"') && !html.includes('<html'), 'the live part is the section alone');
        t.equal(part.headers.get('cache-control'), 'no-store', 'a pending transaction is never kept in a cache');
      },
    },
    {
      name: 'tx-bad-hash',
      path: '/tx/0x1234',
      status: 400,
      check: async (_page, text) => {
        t.match(text, 'Invalid transaction hash', '400: says what is wrong');
        t.match(text, '64 hexadecimal digits', '400: and what a hash is');
      },
    },
    {
      name: 'tx-unknown',
      path: `/tx/0x${'ab'.repeat(32)}`,
      status: 404,
      check: async (_page, text) => {
        t.match(text, 'Transaction not found', '404: not found');
      },
    },
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
        const expected = p.status ?? 200;
        t.equal(res?.status(), expected, `${label}: ${expected}`);
        t.notMatch(text, BROKEN_TEXT, `${label}: no broken text`);
        // An error document is itself reported by the browser as a failed resource: that one is expected.
        const own = (u: string) => expected !== 200 && u.includes(p.path);
        t.same(
          w.errors.filter((e) => !(expected !== 200 && new RegExp(`status of ${expected}`).test(e))),
          [],
          `${label}: no console error`,
        );
        t.same(w.failed.filter((u) => !own(u)), [], `${label}: no failed request`);
        const overflow = await w.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        t.ok(overflow <= 1, `${label}: nothing wider than the screen (${overflow} px)`);
        if (vp === 'desktop' && scheme === 'light') await p.check?.(w.page, text);
        await screenshot(w.page, `${p.name}-${vp}-${scheme}`);
      }
      await w.page.close();
    },
  );

  await t.test('paging follows next_page_params: each item once, as the API walks', async (t) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const w = await watchedPage(context);
    const apiWalk = await walk(f, `${V2}/transactions?items_count=7`);
    t.ok(apiWalk.pages >= 3, `the API needs several pages (${apiWalk.pages})`);
    const shown = await walkPages(w.page, f.base, '/txs?items_count=7', listedHashes);
    t.equal(shown.length, apiWalk.pages, '/txs: as many pages as the API');
    t.ok(shown.every((p) => p.length <= 7), 'at most items_count a page');
    const all = shown.flat();
    t.equal(new Set(all).size, all.length, '/txs: each transaction once');
    t.same(all, apiWalk.items.map((x) => x.hash), '/txs: every transaction of the API walk, in its order');

    const internal = await walk(f, `${V2}/transactions/${forward.hash}/internal-transactions?items_count=2`);
    const internalShown = await walkPages(w.page, f.base, `/tx/${forward.hash}?tab=internal&items_count=2`, async (p) => (await tabRows(p)).map((r) => r[0]));
    t.ok(internalShown.length >= 2, 'internal transactions take several pages');
    t.same(internalShown.flat(), internal.items.map((x) => String(x.index)), 'internal transactions: each once, in order, across pages');

    const logs = await walk(f, `${V2}/transactions/${forward.hash}/logs?items_count=1`);
    const logsShown = await walkPages(w.page, f.base, `/tx/${forward.hash}?tab=logs&items_count=1`, async (p) => (await tabRows(p)).map((r) => r[0]));
    t.equal(logsShown.length, logs.pages, 'logs: as many pages as the API');
    t.equal(logsShown.flat().length, logs.items.length, 'logs: each once across pages');
    for (const [i, l] of logs.items.entries()) t.match(logsShown.flat()[i], l.topics[0], `log ${i} on its page`);
    t.same(w.errors, [], 'no console error while paging');
    t.same(w.failed, [], 'no failed request while paging');
    await context.close();
  });

  await t.test('with JavaScript off the transaction page shows its data and its tabs work', async (t) => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, javaScriptEnabled: false });
    const w = await watchedPage(context);
    const res = await w.page.goto(`${f.base}/tx/${failed.hash}`);
    t.equal(res?.status(), 200);
    const d = await details(w.page);
    const tx = await api(`${V2}/transactions/${failed.hash}`);
    t.equal(d.text.Status, 'Failed: Reverted', 'status');
    t.match(d.text['Revert reason'], 'Reverter: always reverts', 'revert reason');
    t.equal(d.text.Value, `${formatUnits(tx.value, 18)} ETH`, 'value');
    t.equal(d.text['Transaction fee'], `${formatUnits(tx.fee.value, 18)} ETH`, 'fee');
    t.equal(await w.page.$$eval('button.copy:not([hidden])', (b) => b.length), 0, 'copy buttons stay hidden without JavaScript');
    await w.page.click('#tx nav.tabs a:has-text("Logs")');
    await w.page.waitForLoadState('domcontentloaded');
    t.match(w.page.url(), /\?tab=logs$/, 'the Logs tab is a link');
    const logs = await api(`${V2}/transactions/${failed.hash}/logs`);
    t.equal((await tabRows(w.page)).length, logs.items.length, 'its logs (as many as the API has)');
    await w.page.goto(`${f.base}/tx/${forward.hash}?tab=internal`);
    const internal = await api(`${V2}/transactions/${forward.hash}/internal-transactions`);
    t.equal((await tabRows(w.page)).length, internal.items.length, 'internal transactions without JavaScript');
    await screenshot(w.page, 'tx-nojs-phone');
    await w.page.goto(`${f.base}/txs?filter=error`);
    t.same(await listedHashes(w.page), (await api(`${V2}/transactions?filter=error`)).items.map((x: any) => x.hash), 'the failed list without JavaScript');
    t.same(w.errors, []);
    await context.close();
  });

  await t.test('a pending transaction\'s page shows it mined without a reload', async (t) => {
    // Held in the node's pool (no automine), stored as the pool follower stores it.
    await f.rpc('evm_setAutomine', [false]);
    t.teardown(() => f.rpc('evm_setAutomine', [true]));
    const hash = await f.rpc<string>('eth_sendTransaction', [{ from: devAccount(6).address, to: devAccount(7).address, value: '0x2a' }]);
    const wire = await f.rpc<any>('eth_getTransactionByHash', [hash]);
    await replacePendingPool(f.stores.pg, [toPendingTx(wire)]);
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const w = await watchedPage(context);
    await gotoSettled(w.page, `${f.base}/tx/${hash}`);
    t.equal((await details(w.page)).text.Status, 'Pending', 'shown as pending while in the pool');
    await f.rpc('evm_mine');
    await f.catchUp();
    // The follower drops a mined transaction from the pool.
    await replacePendingPool(f.stores.pg, []);
    await w.page.waitForSelector('#tx:not([data-live]) nav.tabs', { timeout: 30_000 });
    const mined = await api(`${V2}/transactions/${hash}`);
    const d = await details(w.page);
    t.equal(d.text.Status, 'Success', 'mined: its status, without a reload');
    t.match(d.text.Block, groupDigits(String(mined.block_number)), 'and its block');
    t.equal(d.text.Value, '0.000000000000000042 ETH', 'the value sent, exactly');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
    await screenshot(w.page, 'tx-pending-then-mined');
    await context.close();
  });
});
