// Contract verification in the web UI, in Debian's chromium on the devnet: the token's contract
// tab offers "Verify and publish"; the verify form (compilers from the API's config, newest first)
// keeps what was typed when the API refuses it; a wrong contract name starts, then fails, and the
// form says why (websocket); a standard JSON input chosen as a file with JavaScript off verifies the
// token, a waiting tab with JavaScript reloads itself on the websocket's result and JavaScript-off
// shows it after a reload: the full-match badge, compiler facts, constructor arguments, every
// source file (main first), the ABI, read methods from the verified ABI, write methods. Anonymous
// cross-site posts are refused. axe-clean, 1366 and 360 px wide with nothing wider than the screen.
import t from 'tap';
import type { Page } from 'playwright-core';
import { uiOnDevnet } from './helpers/ui.js';
import { devnetStandardInput } from './helpers/devnet.js';
import { BROKEN_TEXT, VIEWPORTS, axeViolations, browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

t.test('verifying a contract in the web UI', { skip: browserMissing() ?? false }, async (t) => {
  const f = await uiOnDevnet(t, { verify: true });
  const browser = await withBrowser(t);
  const token = f.devnet.scenario.contracts.DevnetToken;
  const h = token.toLowerCase();
  const tab = `${f.base}/address/${token}?tab=contract`;
  const verifyUrl = `${f.base}/address/${h}/verify`;
  const input = JSON.stringify(await devnetStandardInput(), null, 2);
  const config = (await f.get('/api/v2/smart-contracts/verification/config')).body;
  const version: string = config.solidity_compiler_versions[0];

  const js = await browser.newContext({ viewport: VIEWPORTS.desktop, bypassCSP: true });
  await js.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.base });
  const w = await watchedPage(js);
  const page = w.page;

  await t.test('an unverified contract links to the verify form', async (t) => {
    await gotoSettled(page, tab);
    t.match(await page.innerText('main'), 'Not verified', 'says it is not verified');
    t.same(await axeViolations(page), [], 'the unverified tab is axe-clean');
    await Promise.all([page.waitForURL(verifyUrl), page.click('a:text("Verify and publish")')]);
    const versions = await page.$$eval('#compiler_version option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    t.same(versions, config.solidity_compiler_versions, "the compiler versions are the API's, newest first");
    t.equal(await page.inputValue('#compiler_version'), version, 'the newest is chosen');
    t.same(await page.$$eval('#license_type option', (os) => os.map((o) => (o as HTMLOptionElement).value)), Object.keys(config.license_types), 'the licenses');
    t.same(await axeViolations(page), [], 'the verify form is axe-clean');
    await screenshot(page, 'contract-verify-form');
    const phone = await watchedPage(await browser.newContext({ viewport: VIEWPORTS.phone }));
    await gotoSettled(phone.page, verifyUrl);
    t.ok((await overflow(phone.page)) <= 1, 'the form fits a 360 px screen');
    await screenshot(phone.page, 'contract-verify-form-phone');
    await phone.page.context().close();
  });

  await t.test('refusals are shown in the form with the values kept', async (t) => {
    await gotoSettled(page, verifyUrl);
    await page.fill('#contract_name', 'DevnetToken');
    await page.selectOption('#license_type', 'mit');
    const broken = input.slice(0, -10);
    await page.$eval('#input', (el, v) => ((el as HTMLTextAreaElement).value = v), broken);
    // With JavaScript the form is sent in the background (the island has joined the websocket first).
    await page.click('form[data-verify-form] button[type=submit]');
    await page.waitForSelector('#verify-error:not([hidden])');
    t.equal(new URL(page.url()).pathname, `/address/${h}/verify`, 'still the form');
    t.equal(await page.innerText('#verify-error'), 'the standard JSON input is not valid JSON', "with the API's message");
    t.equal(await page.inputValue('#contract_name'), 'DevnetToken', 'the name kept');
    t.equal(await page.inputValue('#license_type'), 'mit', 'the license kept');
    t.equal(await page.inputValue('#input'), broken, 'the input kept');
    // The browser logs the refusal's 422; nothing else may be logged.
    t.same(w.errors.filter((e) => !/status of 422/.test(e)), []);
    w.errors.length = 0;

    // Anyone may verify, but only from this UI's own pages.
    const forged = await fetch(verifyUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: new URLSearchParams({ compiler_version: version, contract_name: 'DevnetToken', input }),
      redirect: 'manual',
    });
    t.equal(forged.status, 403, 'an anonymous cross-site post is refused');
    t.equal((await f.get(`/api/v2/smart-contracts/${h}`)).body.is_verified, false, 'and verified nothing');
  });

  await t.test('a wrong contract name fails, and the form says why', async (t) => {
    await gotoSettled(page, verifyUrl);
    await page.fill('#contract_name', 'NoSuchContract');
    // The island reads the chosen file into the text area.
    await page.setInputFiles('#input_file', { name: 'input.json', mimeType: 'application/json', buffer: Buffer.from(input) });
    await page.waitForFunction((n) => (document.querySelector('#input') as HTMLTextAreaElement).value.length === n, input.length);
    await page.click('form[data-verify-form] button[type=submit]');
    await page.waitForSelector('#verify-error:not([hidden])', { timeout: 120_000 });
    // Refused by the API at once (no source declares it), so the form shows the API's 422 message.
    t.match(await page.innerText('#verify-error'), /no source of the input declares a contract NoSuchContract/, "the verifier's reason in the form");
    t.same(w.errors.filter((e) => !/status of 422/.test(e)), [], 'no console error but the refusal');
    w.errors.length = 0;
    t.equal(await page.inputValue('#contract_name'), 'NoSuchContract', 'the name kept');
    t.equal((await page.inputValue('#input')).length, input.length, 'the input kept');
    t.equal(await page.isEnabled('form[data-verify-form] button[type=submit]'), true, 'and the form can be sent again');
    t.equal((await f.get(`/api/v2/smart-contracts/${h}`)).body.is_verified, false);
  });

  await t.test('a file chosen with JavaScript off verifies; the waiting tab reloads itself', async (t) => {
    const off = await watchedPage(await browser.newContext({ viewport: VIEWPORTS.desktop, javaScriptEnabled: false }));
    await gotoSettled(off.page, verifyUrl);
    await off.page.fill('#contract_name', 'DevnetToken');
    await Promise.all([off.page.waitForLoadState('networkidle'), off.page.click('form[data-verify-form] button[type=submit]')]);
    t.equal(await off.page.innerText('#verify-error'), 'Paste the standard JSON input or choose its .json file.', 'nothing to verify: said in the form');
    t.equal(await off.page.inputValue('#contract_name'), 'DevnetToken', 'the name kept');
    await off.page.setInputFiles('#input_file', { name: 'input.json', mimeType: 'application/json', buffer: Buffer.from(input) });
    await Promise.all([off.page.waitForURL(/verification=started/), off.page.click('form[data-verify-form] button[type=submit]')]);
    t.match(await off.page.innerText('[data-verify-wait]'), /Verification started: the result appears here when the compile finishes/);
    // With JavaScript the same tab waits on the websocket and reloads itself.
    await page.goto(off.page.url(), { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.status.ok', { timeout: 120_000 });
    t.equal(await page.innerText('.status.ok'), 'Verified (full match)', 'the tab reloaded itself with the result');
    t.notMatch(page.url(), /verification=/, 'at the plain tab');
    // Without JavaScript a reload shows it.
    await off.page.reload({ waitUntil: 'networkidle' });
    t.equal(await off.page.innerText('.status.ok'), 'Verified (full match)', 'a reload shows it without JavaScript');
    t.same(off.errors.filter((e) => !/status of 400/.test(e)), [], 'no console error but the refusal');
    await off.page.context().close();
  });

  await t.test('the verified contract tab', async (t) => {
    const sc = (await f.get(`/api/v2/smart-contracts/${h}`)).body;
    await gotoSettled(page, tab);
    const main = await page.innerText('main');
    t.notMatch(main, BROKEN_TEXT, 'no broken text');
    const rows = await page.$$eval('section[aria-labelledby="contract-h"] dl.details > .row', (rs) =>
      Object.fromEntries(rs.map((r) => [r.querySelector('dt')!.textContent!.trim(), (r.querySelector('dd') as HTMLElement).innerText.trim()])),
    );
    t.match(rows, { 'Contract name': 'DevnetToken', Compiler: version, 'EVM version': 'cancun', Optimization: 'Yes, 200 runs', Language: 'Solidity' }, 'the compiler facts');
    t.match(rows.Verified, /ago$/, 'when, relative');
    t.match(rows['Constructor arguments'], /string name_\s+Devnet Token[\s\S]*string symbol_\s+DVT/, 'the constructor arguments, decoded');
    t.equal(await page.$eval('.raw-args pre', (p) => p.textContent), sc.constructor_args, 'and ABI-encoded (folded)');

    const files = await page.$$eval('.src-file', (ds) => ds.map((d) => ({ path: d.querySelector('summary .mono')!.textContent, open: (d as HTMLDetailsElement).open, code: d.querySelector('.src-text')!.textContent, lines: d.querySelector('.src-lines')!.textContent })));
    t.same(files.map((x) => x.path), [sc.file_path, ...sc.additional_sources.map((x: { file_path: string }) => x.file_path)], 'every source file, the main one first');
    t.equal(files[0].path, 'DevnetToken.sol');
    t.ok(files.some((x) => x.path === '@openzeppelin/contracts/token/ERC20/ERC20.sol'), "and OpenZeppelin's");
    t.same(files.map((x) => x.open), files.map((_, i) => i === 0), 'the main file open, the others folded');
    t.equal(files[0].code, sc.source_code, 'the source as verified');
    const erc20 = files.find((x) => x.path === '@openzeppelin/contracts/token/ERC20/ERC20.sol')!;
    const count = erc20.code!.replace(/\n$/, '').split('\n').length;
    t.equal(erc20.lines!.split('\n').length, count, `one line number per line (${count})`);
    t.equal(erc20.lines!.split('\n').at(-1), String(count));
    const [gutter, code] = await page.$$eval('.src-file[open] .src-code pre', (ps) => ps.map((p) => p.getBoundingClientRect().height));
    t.ok(Math.abs(gutter - code) < 2, `the line numbers line up with the lines (${gutter} and ${code} px high)`);

    await page.click('.src-file[open] button.copy');
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), sc.source_code, 'the copy button copies the file');
    t.same(JSON.parse((await page.textContent('#abi-json'))!), sc.abi, 'the ABI, as JSON');
    t.equal(await page.$eval('#abi-json', (p) => (p.closest('details') as HTMLDetailsElement).open), false, 'folded');

    const reads = (await f.get(`/api/v2/smart-contracts/${h}/methods-read`)).body as { name: string; outputs: { value: unknown }[] }[];
    const shown = await page.$$eval('section[aria-labelledby="read-h"] .method-item', (ls) => ls.map((l) => ({ name: l.querySelector('strong')!.textContent, values: Array.from(l.querySelectorAll('.output-value')).map((v) => v.textContent) })));
    t.same(shown.map((m) => m.name), reads.map((m) => m.name), 'the read methods of the verified ABI');
    const owner = shown.find((m) => m.name === 'owner');
    t.same(owner?.values, [String(reads.find((m) => m.name === 'owner')!.outputs[0].value)], 'owner() with its current value');
    const writes = (await f.get(`/api/v2/smart-contracts/${h}/methods-write`)).body as { name?: string; type: string }[];
    const writeNames = await page.$$eval('section[aria-labelledby="write-h"] .method-item strong', (ss) => ss.map((s) => s.textContent));
    t.same(writeNames, writes.map((m) => (m.type === 'function' ? m.name : m.type)), 'the write methods');
    t.ok(writeNames.includes('mint'), 'mint among them');
    t.equal(await page.$$eval('pre.data', (ps) => ps.length), 2, 'the bytecodes are still there');

    t.same(await axeViolations(page), [], 'the verified tab is axe-clean');
    await screenshot(page, 'contract-verified');
    t.same(w.errors, [], 'no console error');

    const phone = await watchedPage(await browser.newContext({ viewport: VIEWPORTS.phone }));
    await gotoSettled(phone.page, tab);
    t.ok((await overflow(phone.page)) <= 1, `nothing wider than a 360 px screen (${await overflow(phone.page)} px)`);
    t.ok(await phone.page.$eval('.src-file[open] .src-code', (e) => e.scrollWidth > e.clientWidth), 'long source lines scroll inside their box');
    await screenshot(phone.page, 'contract-verified-phone');
    await phone.page.context().close();
  });
});
