// The contract tab's method forms in Debian's chromium on the devnet, with a fake EIP-1193 wallet
// (window.ethereum) that forwards to anvil, whose dev accounts are unlocked, so what the form sends
// is really mined: the verified token's transfer(to, amount) written through its form moves the
// tokens and links the transaction; bad inputs are refused in words before the wallet is asked; a
// call the contract would refuse is tried first and its reason said (custom error or reason string);
// the Forwarder's payable relay sends the value typed in ETH; a rejection in the wallet and a
// wallet on another chain are said (with a switch button); a read method with arguments is
// answered through the wallet's eth_call. Without JavaScript or a wallet the forms are disabled
// with a note. axe-clean, 1366 and 360 px wide, light and dark.
import t from 'tap';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { encodeFunctionData, getAddress, parseAbi } from 'viem';
import { uiOnDevnet } from './helpers/ui.js';
import { devnetStandardInput } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { forwardToNode, nodeWallet } from './helpers/ui-account.js';
import { BROKEN_TEXT, VIEWPORTS, axeViolations, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
/**
 * A screenshot of one part of the page (the tab is long: a full page shrinks the forms out of
 * sight), cut from the full page so the sticky header does not cover a part taller than the screen.
 */
async function partShot(part: Locator, name: string) {
  const page = part.page();
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = (await part.boundingBox())!;
  await screenshot(page, name, { clip: box });
}
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);

/** What the fake wallet does with the next requests. */
type Mode = 'ok' | 'reject' | 'reject-account' | 'wrong-chain';

t.test('contract methods through the browser wallet', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t, { verify: true });
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const node = f.devnet.url;
  const token = s.contracts.DevnetToken;
  const h = token.toLowerCase();
  const tab = `${f.base}/address/${token}?tab=contract`;
  const [, alice, , carol] = s.accounts;

  // Verified first: the write methods come from the verified ABI. The Forwarder has payable methods.
  const config = (await f.get('/api/v2/smart-contracts/verification/config')).body;
  const input = JSON.stringify(await devnetStandardInput());
  for (const [name, address] of [['DevnetToken', token], ['Forwarder', s.contracts.Forwarder]]) {
    const form = new FormData();
    form.append('compiler_version', config.solidity_compiler_versions[0]);
    form.append('contract_name', name);
    form.append('files[0]', new Blob([input], { type: 'application/json' }), 'input.json');
    const posted = await fetch(`http://127.0.0.1:${f.server!.port}/api/v2/smart-contracts/${address}/verification/via/standard-input`, { method: 'POST', body: form });
    t.equal(posted.status, 200, `${name}: verification started`);
    for (const end = Date.now() + 120_000; !(await f.get(`/api/v2/smart-contracts/${address}`)).body.is_verified; ) {
      if (Date.now() > end) throw new Error(`${name} was not verified in 2 minutes`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const balance = async (who: string) => {
    const out = await rpc<string>(node, 'eth_call', [{ to: token, data: encodeFunctionData({ abi: ERC20, functionName: 'balanceOf', args: [who as `0x${string}`] }) }, 'latest']);
    return BigInt(out);
  };

  // The fake wallet: alice's account, anvil's answers, and the mode's refusals.
  const wallet = { mode: 'ok' as Mode, requests: [] as string[], sent: [] as string[] };
  async function walletContext(opts: Parameters<typeof browser.newContext>[0]): Promise<BrowserContext> {
    const ctx = await browser.newContext({ bypassCSP: true, ...opts });
    await nodeWallet(ctx, async (method, params) => {
      wallet.requests.push(method);
      const rejected = { error: { code: 4001, message: 'User rejected the request.' } };
      if (method === 'eth_requestAccounts' && wallet.mode === 'reject-account') return rejected;
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return { result: [alice] };
      if (method === 'eth_chainId' && wallet.mode === 'wrong-chain') return { result: '0x1' };
      if (method === 'wallet_switchEthereumChain') {
        wallet.mode = 'ok';
        return { result: null };
      }
      if (method === 'eth_sendTransaction' && wallet.mode === 'reject') return rejected;
      const r = await forwardToNode(node, method, params);
      if (method === 'eth_sendTransaction' && r.result) wallet.sent.push(r.result as string);
      return r;
    });
    return ctx;
  }
  const writeItem = (page: Page, name: string): Locator =>
    page.locator('section[aria-labelledby="write-h"] li.method-item', { has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) });
  const readItem = (page: Page, name: string): Locator =>
    page.locator('section[aria-labelledby="read-h"] li.method-item', { has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) });
  const uniqueIds = (page: Page) => page.evaluate(() => {
    const ids = Array.from(document.querySelectorAll('[id]'), (e) => e.id);
    return ids.filter((id, i) => ids.indexOf(id) !== i);
  });

  await t.test('without JavaScript, or without a wallet, the forms are disabled with a note', async (t) => {
    const off = await watchedPage(await browser.newContext({ viewport: VIEWPORTS.desktop, javaScriptEnabled: false }));
    await gotoSettled(off.page, tab);
    const fieldsets = await off.page.$$eval('form[data-method-form] fieldset', (fs) => fs.map((x) => (x as HTMLFieldSetElement).disabled));
    t.ok(fieldsets.length >= 6, `${fieldsets.length} method forms`);
    t.ok(fieldsets.every(Boolean), 'all disabled');
    t.match(await off.page.innerText('section[aria-labelledby="write-h"] .wallet-note'), /Writing needs a browser wallet \(such as MetaMask\) and JavaScript/, 'the note says why');
    t.match(await off.page.innerText('section[aria-labelledby="read-h"] .wallet-note'), /needs a wallet .* and JavaScript/);
    const transfer = writeItem(off.page, 'transfer');
    t.same(await transfer.locator('label').allInnerTexts(), ['to address', 'value uint256'], 'one labelled input per parameter, with its type');
    t.same(await off.page.$$eval('section[aria-labelledby="write-h"] .method-item strong', (ss) => ss.map((x) => x.textContent)).then((n) => n.includes('mint')), true, 'mint among the write methods');
    t.same(await uniqueIds(off.page), [], 'every id once');
    t.notMatch(await off.page.innerText('main'), BROKEN_TEXT);
    await partShot(off.page.locator('section[aria-labelledby="write-h"]'), 'contract-write-nojs');
    t.same(off.errors, [], 'no console error');
    await off.page.context().close();

    const bare = await watchedPage(await browser.newContext({ viewport: VIEWPORTS.desktop }));
    await gotoSettled(bare.page, tab);
    t.equal(await bare.page.innerText('section[aria-labelledby="write-h"] .wallet-note'), 'No browser wallet was found: writing needs one (such as MetaMask).', 'no wallet: said');
    t.ok(await bare.page.$$eval('form[data-method-form] fieldset', (fs) => fs.every((x) => (x as HTMLFieldSetElement).disabled)), 'and the forms stay disabled');
    t.same(bare.errors, [], 'no console error');
    await bare.page.context().close();
  });

  const w = await watchedPage(await walletContext({ viewport: VIEWPORTS.desktop, colorScheme: 'light' }));
  const page = w.page;

  await t.test('bad inputs are refused before the wallet is asked', async (t) => {
    await gotoSettled(page, tab);
    const transfer = writeItem(page, 'transfer');
    t.equal(await transfer.locator('fieldset').isEnabled(), true, 'the form is enabled with a wallet');
    t.match(await page.innerText('section[aria-labelledby="write-h"] .wallet-note'), /sent as a transaction from your browser wallet/);
    const alert = transfer.locator('[role=alert]');
    // Carol's address with one letter's case changed: its EIP-55 checksum no longer holds.
    const typo = `0x${carol.slice(2).replace(/[a-fA-F]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))}`;
    t.not(getAddress(typo.toLowerCase()), typo, 'the typo breaks the checksum');
    const cases: [string, string, RegExp][] = [
      ['0x1234', '1', /^to \(address\): not an address \(0x followed by 40 hexadecimal digits\)\.$/],
      [typo, '1', /to \(address\): the address's checksum .* is wrong/],
      [carol, '-1', /value \(uint256\): must be from 0 to 1157/],
      [carol, '1.5', /value \(uint256\): write a whole number/],
      ['', '1', /to \(address\): a value is needed/],
    ];
    for (const [to, amount, message] of cases) {
      await transfer.locator('input[name=arg0]').fill(to);
      await transfer.locator('input[name=arg1]').fill(amount);
      await transfer.locator('button[type=submit]').click();
      await t.resolves(alert.filter({ hasText: message }).waitFor(), `"${to}", "${amount}": ${message}`);
    }
    t.same(wallet.requests, [], 'the wallet was never asked');
    await partShot(transfer, 'contract-write-bad-input');
  });

  await t.test('transfer(to, amount) written through the form is mined', async (t) => {
    const transfer = writeItem(page, 'transfer');
    const amount = 1_234_567n;
    const [aliceBefore, carolBefore] = [await balance(alice), await balance(carol)];
    await transfer.locator('input[name=arg0]').fill(carol);
    await transfer.locator('input[name=arg1]').fill(String(amount));
    await transfer.locator('button[type=submit]').click();
    const link = transfer.locator('[role=status] a');
    await link.waitFor();
    t.equal(await transfer.locator('[role=alert]').innerText(), '', 'no error');
    t.equal(wallet.sent.length, 1, 'one transaction sent');
    const hash = wallet.sent[0];
    t.equal(await link.getAttribute('href'), `/tx/${hash}`, 'the hash links to its page');
    t.equal(await link.innerText(), hash);
    t.same(wallet.requests.slice(0, 4), ['eth_requestAccounts', 'eth_chainId', 'eth_call', 'eth_sendTransaction'], 'account, chain, a trial call, then the transaction');
    await minedIn(node, hash);
    const receipt = await rpc<{ status: string; from: string; to: string }>(node, 'eth_getTransactionReceipt', [hash]);
    t.equal(receipt.status, '0x1', 'mined, status 1');
    t.equal(receipt.from, alice.toLowerCase(), "from the wallet's account");
    t.equal(receipt.to, h, 'to the contract');
    t.equal(await balance(carol), carolBefore + amount, "the recipient's balance grew by the amount");
    t.equal(await balance(alice), aliceBefore - amount, "the sender's shrank by it");
    t.same(await axeViolations(page), [], 'axe-clean with a result shown');
    await partShot(transfer, 'contract-write-sent');
  });

  await t.test('a rejection in the wallet is said', async (t) => {
    const transfer = writeItem(page, 'transfer');
    wallet.mode = 'reject';
    const sent = wallet.sent.length;
    await transfer.locator('button[type=submit]').click();
    await transfer.locator('[role=alert]', { hasText: /rejected/ }).waitFor();
    t.equal(await transfer.locator('[role=alert]').innerText(), 'You rejected the transaction in your wallet: nothing was sent.');
    t.equal(await transfer.locator('[role=status]').innerText(), '', 'the earlier result is gone');
    t.equal(wallet.sent.length, sent, 'nothing sent');
    t.equal(await transfer.locator('button[type=submit]').isEnabled(), true, 'the form can be sent again');
    wallet.mode = 'reject-account';
    await transfer.locator('button[type=submit]').click();
    await transfer.locator('[role=alert]', { hasText: /account/ }).waitFor();
    t.equal(await transfer.locator('[role=alert]').innerText(), "You did not let this site use your wallet's account: nothing was sent.", 'a refused account too');
    t.equal(wallet.sent.length, sent, 'nothing sent');
    wallet.mode = 'ok';
  });

  await t.test('a revert is said in words', async (t) => {
    // Alice is not the owner: mint reverts (OwnableUnauthorizedAccount) when the wallet estimates it.
    const mint = writeItem(page, 'mint');
    await mint.locator('input[name=arg0]').fill(alice);
    await mint.locator('input[name=arg1]').fill('1');
    const sent = wallet.sent.length;
    await mint.locator('button[type=submit]').click();
    await mint.locator('[role=alert]:not(:empty)').waitFor();
    t.equal(
      await mint.locator('[role=alert]').innerText(),
      `The contract refused the call, so nothing was sent: OwnableUnauthorizedAccount(account: ${alice}).`,
      "tried first, and the ABI's custom error named with its argument",
    );
    t.equal(wallet.sent.length, sent, 'nothing mined');
  });

  await t.test('a wallet on another chain is reported, with a switch', async (t) => {
    const transfer = writeItem(page, 'transfer');
    wallet.mode = 'wrong-chain';
    const sent = wallet.sent.length;
    await transfer.locator('button[type=submit]').click();
    const alert = transfer.locator('[role=alert]');
    await alert.filter({ hasText: /on chain 1,/ }).waitFor();
    t.match(await alert.innerText(), `Your wallet is on chain 1, but this explorer shows chain ${s.chainId}: nothing was sent.`);
    t.equal(wallet.sent.length, sent, 'nothing sent');
    t.same(await axeViolations(page), [], 'axe-clean with the switch shown');
    await partShot(transfer, 'contract-write-wrong-chain');
    await alert.locator('button', { hasText: `Switch the wallet to chain ${s.chainId}` }).click();
    await transfer.locator('[role=status]', { hasText: /now on chain/ }).waitFor();
    t.ok(wallet.requests.includes('wallet_switchEthereumChain'), 'wallet_switchEthereumChain asked');
    await transfer.locator('button[type=submit]').click();
    await transfer.locator('[role=status] a').waitFor();
    t.equal(wallet.sent.length, sent + 1, 'sent once on the right chain');
  });

  await t.test('a payable method sends the value given in ETH', async (t) => {
    await gotoSettled(page, `${f.base}/address/${s.contracts.Forwarder}?tab=contract`);
    const relay = writeItem(page, 'relay');
    t.same(await relay.locator('label').allInnerTexts(), ['target address', 'Value to send (ETH)'], 'a value field for a payable method');
    t.equal(await writeItem(page, 'forward').locator('[data-value]').count(), 1);
    t.equal(await page.locator('section[aria-labelledby="read-h"] [data-value]').count(), 0, 'none for read methods');
    const before = BigInt(await rpc<string>(node, 'eth_getBalance', [carol, 'latest']));
    await relay.locator('input[name=arg0]').fill(carol);
    await relay.locator('input[name=value]').fill('1.2.3');
    await relay.locator('button[type=submit]').click();
    await relay.locator('[role=alert]', { hasText: /Value to send/ }).waitFor();
    t.pass('a malformed amount is refused');
    // The token accepts no ether: relay's require fails, and its reason string is said.
    await relay.locator('input[name=arg0]').fill(token);
    await relay.locator('input[name=value]').fill('0.25');
    const sent = wallet.sent.length;
    await relay.locator('button[type=submit]').click();
    await relay.locator('[role=alert]', { hasText: /refused/ }).waitFor();
    t.equal(await relay.locator('[role=alert]').innerText(), 'The contract refused the call, so nothing was sent: Forwarder: value transfer failed.', "the revert's reason string");
    t.equal(wallet.sent.length, sent, 'nothing sent');
    await relay.locator('input[name=arg0]').fill(carol);
    await relay.locator('button[type=submit]').click();
    await relay.locator('[role=status] a').waitFor();
    const hash = wallet.sent.at(-1)!;
    await minedIn(node, hash);
    t.equal((await rpc<{ status: string }>(node, 'eth_getTransactionReceipt', [hash])).status, '0x1', 'mined, status 1');
    t.equal((await rpc<{ value: string }>(node, 'eth_getTransactionByHash', [hash])).value, '0x' + (25n * 10n ** 16n).toString(16), 'with 0.25 ETH');
    t.equal(BigInt(await rpc<string>(node, 'eth_getBalance', [carol, 'latest'])) - before, 25n * 10n ** 16n, 'relayed to the target');
    await partShot(relay, 'contract-write-payable');
    t.same(await axeViolations(page), [], 'axe-clean');
    await gotoSettled(page, tab);
  });

  await t.test('a read method with arguments is answered through the wallet', async (t) => {
    const item = readItem(page, 'balanceOf');
    await item.locator('input[name=arg0]').fill(carol);
    await item.locator('button[type=submit]').click();
    await item.locator('[role=status] .output-value').waitFor();
    t.equal(await item.locator('[role=status] .output-value').innerText(), String(await balance(carol)), "carol's balance, as the node has it");
    const allowance = readItem(page, 'allowance');
    await allowance.locator('input[name=arg0]').fill('nope');
    await allowance.locator('button[type=submit]').click();
    await allowance.locator('[role=alert]', { hasText: /not an address/ }).waitFor();
    t.pass('a bad argument is refused');
    t.same(w.errors, [], 'no console error');
  });

  for (const scheme of ['light', 'dark'] as const) {
    for (const [vp, size] of Object.entries(VIEWPORTS)) {
      await t.test(`${vp} ${scheme}`, async (t) => {
        const c = await watchedPage(await walletContext({ viewport: size, colorScheme: scheme }));
        await gotoSettled(c.page, tab);
        // An error and a result shown, as a visitor would see them.
        const transfer = writeItem(c.page, 'transfer');
        await transfer.locator('input[name=arg0]').fill('0xnot-an-address');
        await transfer.locator('input[name=arg1]').fill('5');
        await transfer.locator('button[type=submit]').click();
        await transfer.locator('[role=alert]:not(:empty)').waitFor();
        const read = readItem(c.page, 'balanceOf');
        await read.locator('input[name=arg0]').fill(carol);
        await read.locator('button[type=submit]').click();
        await read.locator('[role=status] .output-value').waitFor();
        t.ok((await overflow(c.page)) <= 1, `nothing wider than the screen (${await overflow(c.page)} px)`);
        t.same(await axeViolations(c.page), [], 'axe-clean');
        t.same(await uniqueIds(c.page), [], 'every id once');
        await c.page.evaluate(() => window.scrollTo(0, 0));
        await screenshot(c.page, `contract-write-${vp}-${scheme}`);
        await partShot(c.page.locator('section[aria-labelledby="read-h"]'), `contract-write-${vp}-${scheme}-read`);
        await partShot(c.page.locator('section[aria-labelledby="write-h"]'), `contract-write-${vp}-${scheme}-write`);
        t.same(c.errors, [], 'no console error');
        await c.page.context().close();
      });
    }
  }
});
