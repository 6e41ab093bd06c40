// Proxies in the web UI, in Debian's chromium on the devnet (test/helpers/proxies.ts): the address
// page of an ERC1967Proxy says what it is and links its implementation (named once verified); its
// contract tab has "Read as proxy" with the implementation's methods and the proxy's own values and
// "Write as proxy" whose form, sent through a fake EIP-1193 wallet forwarding to anvil, really
// stores on the proxy; before the implementation is verified the tab says why nothing is listed.
// A contract that is no proxy has none of it. Works with JavaScript off; axe-clean; 1366 and 360 px
// wide, light and dark, nothing wider than the screen.
import t from 'tap';
import type { Page } from 'playwright-core';
import { getAddress } from 'viem';
import { uiOnDevnet } from './helpers/ui.js';
import { deployProxies, proxiesInput, storeCall, verifyThroughApi } from './helpers/proxies.js';
import { minedIn } from './helpers/rpc.js';
import { forwardToNode, nodeWallet } from './helpers/ui-account.js';
import { BROKEN_TEXT, VIEWPORTS, axeViolations, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

t.test('proxies in the web UI', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t, { verify: true });
  const browser = await withBrowser(t);
  const node = f.devnet.url;
  const [owner, alice] = f.devnet.scenario.accounts as string[];
  const input = proxiesInput();
  const p = await deployProxies(node, owner!, input);
  await p.send({ to: p.erc1967, data: storeCall(42n) });
  await f.catchUp();
  const api = `http://127.0.0.1:${f.server!.port}`;
  const proxyPage = `${f.base}/address/${getAddress(p.erc1967)}`;

  await t.test('before the implementation is verified', async (t) => {
    const w = await watchedPage(await browser.newContext({ viewport: VIEWPORTS.desktop, javaScriptEnabled: false }));
    await w.page.goto(proxyPage, { waitUntil: 'load' });
    const row = await w.page.innerText('dl.details');
    t.match(row, new RegExp(`Implementation\\s+EIP-1967 proxy of ${getAddress(p.box)}`), 'the overview names the kind and the implementation');
    t.equal(await w.page.getAttribute(`a[href="/address/${getAddress(p.box)}?tab=contract"]`, 'href'), `/address/${getAddress(p.box)}?tab=contract`, "linked to the implementation's contract tab");
    await w.page.goto(`${proxyPage}?tab=contract`, { waitUntil: 'load' });
    t.match(await w.page.innerText('section[aria-labelledby="proxy-read-h"]'), /No implementation of this proxy is verified/, 'the tab says why no method is listed');
    t.equal(await w.page.locator('section[aria-labelledby="proxy-write-h"]').count(), 0, 'no write-as-proxy section without methods');
    t.same(w.errors, [], 'no console errors');
  });

  await verifyThroughApi(api, p.box, 'Box.sol:Box', input, (await f.get('/api/v2/smart-contracts/verification/config')).body.solidity_compiler_versions[0]);

  await t.test('read and write as proxy once the implementation is verified', async (t) => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop, colorScheme: 'light', bypassCSP: true });
    const sent: string[] = [];
    await nodeWallet(ctx, async (method, params) => {
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return { result: [alice] };
      const r = await forwardToNode(node, method, params);
      if (method === 'eth_sendTransaction' && r.result) sent.push(r.result as string);
      return r;
    });
    const w = await watchedPage(ctx);
    const page = w.page;
    await gotoSettled(page, proxyPage);
    t.match(await page.innerText('dl.details'), new RegExp(`EIP-1967 proxy of Box \\(${getAddress(p.box)}\\)`), 'the implementation is named by its contract name');
    await gotoSettled(page, `${proxyPage}?tab=contract`);
    t.match(await page.innerText('section[aria-labelledby="contract-h"]'), /Proxy\s+EIP-1967 proxy of Box/, "the contract card says it is a proxy");
    const read = page.locator('section[aria-labelledby="proxy-read-h"]');
    const value = read.locator('li.method-item', { has: page.locator('strong', { hasText: /^value$/ }) });
    t.match(await value.innerText(), /42/, "read as proxy: the implementation's value() with the proxy's own value");
    const store = page.locator('section[aria-labelledby="proxy-write-h"] li.method-item', { has: page.locator('strong', { hasText: /^store$/ }) });
    t.equal(await store.count(), 1, "write as proxy: the implementation's store()");
    await store.locator('input[name=arg0]').fill('99');
    await store.locator('button[type=submit]').click();
    await store.locator('[role=status] a').waitFor();
    t.equal(sent.length, 1, 'one transaction sent');
    await minedIn(node, sent[0]!);
    const receipt = (await (await fetch(node, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionReceipt', params: [sent[0]] }) })).json()) as { result: { status: string; to: string } };
    t.match(receipt.result, { status: '0x1', to: p.erc1967 }, 'mined, to the proxy');
    await f.catchUp();
    const reads = (await f.get(`/api/v2/smart-contracts/${p.erc1967}/methods-read-proxy`)).body;
    t.equal(reads[0].outputs[0].value, '99', "the proxy's value is what was written through its form");
    const ids = await page.evaluate(() => Array.from(document.querySelectorAll("[id]"), (e) => e.id));
    t.equal(new Set(ids).size, ids.length, 'every id on the page is unique (two read and two write sections)');
    t.same(await axeViolations(page), [], 'axe-clean');
    t.notMatch(await page.innerText('main'), BROKEN_TEXT);
    await screenshot(page, 'proxy-contract-desktop-light');
    t.same(w.errors, [], 'no console errors');
  });

  await t.test('phone and dark; a contract that is no proxy', async (t) => {
    const w = await watchedPage(await browser.newContext({ viewport: VIEWPORTS.phone, colorScheme: 'dark' }));
    await gotoSettled(w.page, `${proxyPage}?tab=contract`);
    t.equal(await overflow(w.page), 0, 'nothing wider than the phone');
    await screenshot(w.page, 'proxy-contract-phone-dark');
    await gotoSettled(w.page, proxyPage);
    t.equal(await overflow(w.page), 0);
    await screenshot(w.page, 'proxy-address-phone-dark');
    await gotoSettled(w.page, `${f.base}/address/${getAddress(p.box)}?tab=contract`);
    t.equal(await w.page.locator('section[aria-labelledby="proxy-read-h"]').count(), 0, 'no proxy sections on the implementation');
    t.notMatch(await w.page.innerText('dl.details'), /\bProxy\b/);
    t.same(w.errors, [], 'no console errors');
  });
});
