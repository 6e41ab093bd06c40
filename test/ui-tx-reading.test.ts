// A transaction read for the visitor, in Debian's chromium on the devnet (issue #33, section 3):
// the one-line summary at the top is the API's /summary filled in (a swap on a real Uniswap v2 pair
// built from @uniswap/v2-core's own artifacts, an ERC-20 transfer, a coin transfer; none where the
// API has none), the call tree's frames are the API's raw trace (depth, type, from, to, gas used,
// failed frames marked; names from its internal transactions, methods by the API's selector names), the "To" token shows its token
// name, in the four looks and with JavaScript off, passing axe with no console error. Inner calls
// show their decoded arguments (the swap's pair calling the token's transfer: `to` and the amount
// sent), and an input that is not exactly its named call shows raw, folded, never a wrong decoding
// (/api/v2/utils/decode-calldata names them; its answers and errors are checked here too).
import t from 'tap';
import { encodeAbiParameters, encodeFunctionData, parseAbi, toFunctionSelector, type Hex } from 'viem';
import type { Page } from 'playwright-core';
import { uiOnDevnet } from './helpers/ui.js';
import { checkLooks } from './helpers/looks.js';
import { ROUTER, e18, uniswapV2 } from './helpers/uniswap-v2.js';
import { browserMissing, screenshot, watchedPage, withBrowser, gotoSettled } from './helpers/browser.js';
import { groupDigits, shortHash } from '../src/ui/format.js';
import { sentenceAmount } from '../src/ui/components/tx-summary.js';


/**
 * A contract whose every call makes a call that fails (Reverter.fail() at the first word of the
 * calldata, its failure ignored) and then a STATICCALL that succeeds (Forwarder.hops() at the
 * second word): a successful transaction with a failed inner frame. Hand-assembled runtime code.
 */
function proberInitCode(): Hex {
  const sel = (s: string) => toFunctionSelector(s).slice(2);
  const code =
    // mstore(0, fail.selector << 224)
    `63${sel('fail()')}60e01b600052` +
    // call(gas, calldataload(0), 0, 0, 4, 0, 0); pop
    '600060006004600060006000355af150' +
    `63${sel('hops()')}60e01b600052` +
    // staticcall(gas, calldataload(32), 0, 4, 0, 0); pop
    '6000600060046000602035' + '5afa50' +
    '00';
  const len = (code.length / 2).toString(16).padStart(2, '0');
  return `0x60${len}600c60003960${len}6000f3${code}` as Hex;
}

/**
 * A relay: calls the address in the first word of its calldata with the rest of it (a contract
 * calling another with any input, for an inner frame of our choosing). Hand-assembled runtime code.
 */
function relayInitCode(): Hex {
  // len = calldatasize - 32; calldatacopy(0, 32, len); call(gas, calldataload(0), 0, 0, len, 0, 0); stop
  const code = '602036038060206000376000600082600060006000355af1505000';
  const len = (code.length / 2).toString(16).padStart(2, '0');
  return `0x60${len}600c60003960${len}6000f3${code}` as Hex;
}

type Summary = { summary_template: string; summary_template_variables: Record<string, { type: string; value: any }> };

/** What the page should read for a summary of the API: its variables as the page words them. */
function expectedSentence(s: Summary): string {
  return s.summary_template
    .replace(/\{(\w+)\}/g, (_, k: string) => {
      const v = s.summary_template_variables[k];
      if (!v) return k === 'native' ? 'ETH' : `{${k}?}`;
      if (v.type === 'token') return v.value.symbol ?? v.value.name ?? v.value.address_hash;
      if (v.type === 'address') return v.value.name ?? shortHash(v.value.hash, 8, 6);
      if (v.type === 'currency') return sentenceAmount(String(v.value)).shown;
      return String(v.value);
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** The call tree's frames as shown: depth, type, from and to hashes, failed, gas text, method. */
async function shownFrames(page: Page) {
  return page.$$eval('.call-tree li.ct-frame', (lis) =>
    lis.map((li) => {
      const line = li.querySelector(':scope > .ct-line')!;
      const href = (sel: string) => line.querySelector(`${sel} a[href^="/address/"]`)?.getAttribute('href')?.slice('/address/'.length).toLowerCase() ?? null;
      return {
        depth: Number(li.getAttribute('data-depth')),
        type: line.querySelector('.ct-type')?.textContent ?? '',
        from: href('.ct-from'),
        to: href('.ct-to'),
        failed: li.classList.contains('ct-failed'),
        error: line.querySelector('.ct-error')?.textContent ?? null,
        gas: line.querySelector('.ct-gas')?.textContent ?? null,
        method: line.querySelector('.ct-method')?.textContent ?? null,
        toText: (line.querySelector('.ct-to') as HTMLElement | null)?.innerText ?? '',
        args: Array.from(li.querySelectorAll(':scope > .ct-args > .ct-arg')).map((a) => ({
          name: a.querySelector('.ct-arg-name')?.textContent ?? '',
          type: a.querySelector('.ct-arg-type')?.textContent ?? '',
          text: (a.lastElementChild as HTMLElement).innerText.trim(),
          href: a.querySelector('a[href^="/address/"]')?.getAttribute('href') ?? null,
        })),
        raw: li.querySelector(':scope > .ct-raw .ct-fold-body')?.textContent ?? null,
      };
    }),
  );
}

t.test('a transaction read for the visitor', { skip: browserMissing() ?? false }, async (t) => {
  const made: Record<string, Hex> = {};
  const f = await uiOnDevnet(t, {
    // Uniswap v2 with two tokens and a swap, and the prober's transaction, indexed with the scenario.
    before: async (devnet) => {
      const url = devnet.url;
      const me = devnet.scenario.accounts[0]!.toLowerCase() as Hex;
      const { send, a, b, router } = await uniswapV2(url, me);
      made.me = me;
      made.a = a;
      made.b = b;
      await send(router, encodeFunctionData({ abi: ROUTER.abi, functionName: 'addLiquidity', args: [a, b, e18(100n), e18(100n), 0n, 0n, me, 2n ** 40n] }));
      made.swap = (await send(router, encodeFunctionData({ abi: ROUTER.abi, functionName: 'swapExactTokensForTokens', args: [e18(10n), 0n, [a, b], me, 2n ** 40n] }))).hash;
      made.nothing = (await send(a, encodeFunctionData({ abi: parseAbi(['function name()']), functionName: 'name' }))).hash;
      const prober = (await send(null, proberInitCode())).address;
      const c = devnet.scenario.contracts;
      made.probe = (await send(prober, encodeAbiParameters([{ type: 'address' }, { type: 'address' }], [c.Reverter as Hex, c.Forwarder as Hex]))).hash;
      // The relay calls token a's transfer(me, 0) with four bytes more than the call has: the
      // standard table's decoding reads it anyway, but it is not exactly that call.
      const relay = (await send(null, relayInitCode())).address;
      made.loose = `${encodeFunctionData({ abi: parseAbi(['function transfer(address to, uint256 value)']), functionName: 'transfer', args: [me, 0n] })}deadbeef` as Hex;
      made.relayed = (await send(relay, `0x${a.slice(2).padStart(64, '0')}${made.loose.slice(2)}` as Hex)).hash;
    },
  });
  const browser = await withBrowser(t);
  const s = f.devnet.scenario;
  const label = (l: string) => s.txs.find((x) => x.label === l)!.hash;
  const api = async (path: string) => {
    const r = await f.get(path);
    if (r.status !== 200) throw new Error(`${path} -> ${r.status}`);
    return r.body;
  };
  const erc20Tx = label('erc20 transfer alice -> bob 100');
  const coinTx = label('native alice -> bob 0.5 ETH');

  await t.test('the summary line is the API summary', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    t.teardown(() => context.close());
    const w = await watchedPage(context);
    for (const [name, hash] of [['swap', made.swap], ['erc20 transfer', erc20Tx], ['coin transfer', coinTx]] as const) {
      const summaries: Summary[] = (await api(`/api/v2/transactions/${hash}/summary`)).data.summaries;
      t.ok(summaries.length > 0, `${name}: the API summarises it`);
      await gotoSettled(w.page, `${f.base}/tx/${hash}`);
      const shown = (await w.page.innerText('.tx-summary')).replace(/\s+/g, ' ').trim();
      t.equal(shown, summaries.map(expectedSentence).join(' '), `${name}: the sentence is the API's template with its variables filled in`);
      const tokens = summaries.flatMap((x) => Object.values(x.summary_template_variables).filter((v) => v.type === 'token').map((v) => `/token/${v.value.address_hash}`));
      const links = await w.page.$$eval('.tx-summary a[href^="/token/"]', (as) => as.map((a) => a.getAttribute('href')));
      t.same(links, tokens, `${name}: each token of the sentence links to its page`);
    }
    t.match((await w.page.innerText('.tx-summary')).trim(), /^Transfer 0\.5 ETH to /, 'the coin is named by the chain (template {native})');
    await gotoSettled(w.page, `${f.base}/tx/${made.swap}`);
    t.match(await w.page.innerText('.tx-summary'), /^Swap 10 ALP for 9\.\d{1,5} BET$/, 'the swap reads as a swap; the long amount rounded to the digits that matter (never "…"), its exact figure on hover');
    const exacts = await w.page.$$eval('.tx-summary .sum-amount', (xs) => xs.map((x) => x.querySelector('.exact')?.textContent ?? null));
    t.equal(exacts[0], null, 'a short amount has no exact figure to add');
    t.match(exacts[1], /^9\.\d{7,}$/, 'the long one has its exact figure a tap away');
    t.same((await api(`/api/v2/transactions/${made.nothing}/summary`)).data.summaries, [], 'the API has no summary of a bare name() call');
    await gotoSettled(w.page, `${f.base}/tx/${made.nothing}`);
    t.equal(await w.page.$('.tx-summary'), null, 'and the page shows none');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
  });

  await t.test('the To contract shows its token name', async (t) => {
    const tx = await api(`/api/v2/transactions/${erc20Tx}`);
    const token = await api(`/api/v2/tokens/${tx.to.hash}`);
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${f.base}/tx/${erc20Tx}`, { waitUntil: 'domcontentloaded' });
    const text = await page.innerText('.tx-to-token');
    t.match(text, `${token.name} (${token.symbol})`, "the token's name and symbol beside the To address");
    t.equal(await page.getAttribute('.tx-to-token a', 'href'), `/token/${token.address_hash}`, "linked to the token's page");
    await page.goto(`${f.base}/tx/${coinTx}`, { waitUntil: 'domcontentloaded' });
    t.equal(await page.$('.tx-to-token'), null, 'a coin transfer to a person shows no token');
  });

  await t.test('the call tree is the raw trace', async (t) => {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    t.teardown(() => context.close());
    const w = await watchedPage(context);
    for (const [name, hash] of [['nested forward', s.forwardTx.hash], ['probe with a failed inner call', made.probe], ['swap', made.swap]] as const) {
      const trace: any[] = await api(`/api/v2/transactions/${hash}/raw-trace`);
      const internal: any[] = (await api(`/api/v2/transactions/${hash}/internal-transactions`)).items;
      const tx = await api(`/api/v2/transactions/${hash}`);
      const names = new Map<string, string>();
      const decodedBy = new Map<number, string>();
      for (const [i, it] of trace.entries()) {
        if (i === 0 || it.type !== 'call' || String(it.action.input ?? '').length < 10) continue;
        const r = await api(`/api/v2/utils/decode-calldata?calldata=${it.action.input}&address_hash=${it.action.to}`);
        if (r.result) decodedBy.set(i, r.result.method_call);
      }
      for (const it of trace.slice(1)) {
        const sel = String(it.action.input ?? '').slice(0, 10);
        if (sel.length === 10 && !names.has(sel)) names.set(sel, ((await api(`/api/v2/advanced-filters/methods?q=${sel}`)) as { method_id: string; name: string }[])[0]?.name ?? '');
      }
      if (name === 'swap') t.ok([...names.values()].includes('transferFrom'), "the swap's inner transferFrom is named by the API");
      await gotoSettled(w.page, `${f.base}/tx/${hash}?tab=call_tree`);
      const frames = await shownFrames(w.page);
      t.equal(frames.length, trace.length, `${name}: one frame per trace item`);
      trace.forEach((it, i) => {
        const fr = frames[i];
        const type = it.type === 'create' ? it.action.creationMethod : it.action.callType;
        t.equal(fr.depth, it.traceAddress.length, `${name} #${i}: depth`);
        t.equal(fr.type, String(type).toUpperCase(), `${name} #${i}: type`);
        t.equal(fr.from, it.action.from, `${name} #${i}: from`);
        t.equal(fr.to, it.action.to ?? null, `${name} #${i}: to`);
        t.equal(fr.failed, !!it.error, `${name} #${i}: failed exactly when the trace says`);
        if (it.error) t.equal(fr.error, `Failed: ${it.error}`, `${name} #${i}: the error word`);
        t.equal(fr.gas, it.result?.gasUsed ? `gas ${groupDigits(BigInt(it.result.gasUsed).toString())}` : null, `${name} #${i}: gas used`);
        if (i > 0 && it.action.input?.length >= 10) {
          const sel = it.action.input.slice(0, 10);
          // Decoded (not shown raw): named by the signature it decoded with; else by the selector's name, else the selector.
          const decoded = fr.raw === null ? decodedBy.get(i) : undefined;
          t.equal(fr.method, decoded ? decoded.split('(')[0] : names.get(sel) || sel, `${name} #${i}: the method's name where the API has one, else the selector`);
          if (!decoded) t.equal(fr.raw, it.action.input, `${name} #${i}: not decoded, its input shown raw`);
        }
        const named = internal.find((x) => x.index === i);
        if (named?.to?.name) t.match(fr.toText, named.to.name, `${name} #${i}: the callee by its name`);
      });
      t.equal(frames[0].method, tx.method ?? null, `${name}: the top frame by the transaction's own method`);
      // The nesting is the list's: each frame's parent is the nearest frame one level up.
      const nested = await w.page.$$eval('.call-tree li.ct-frame', (lis) => lis.map((li) => li.parentElement!.closest('li.ct-frame')?.getAttribute('data-depth') ?? null));
      t.same(nested, trace.map((it) => (it.traceAddress.length ? String(it.traceAddress.length - 1) : null)), `${name}: frames nested under their callers`);
      t.ok(await w.page.$(`a[href="/tx/${tx.hash}?tab=raw_trace"]`), `${name}: the raw trace a link away`);
    }
    const probeTrace: any[] = await api(`/api/v2/transactions/${made.probe}/raw-trace`);
    t.ok(probeTrace.some((x) => x.error) && probeTrace.some((x) => x.action.callType === 'staticcall'), 'the probe has a failed call and a static call (the test covers both)');
    t.equal((await api(`/api/v2/transactions/${made.probe}`)).status, 'ok', 'in a transaction that succeeded');
    t.ok((await api(`/api/v2/transactions/${s.forwardTx.hash}/raw-trace`)).some((x: any) => x.traceAddress.length === 2), 'the forward nests two levels');
    t.same(w.errors, [], 'no console error');
    t.same(w.failed, [], 'no failed request');
  });

  await t.test("inner calls' decoded arguments", async (t) => {
    // The API: Blockscout's decode-calldata, its bad input refused with its 422 body.
    const transfer = encodeFunctionData({ abi: parseAbi(['function transfer(address to, uint256 value)']), functionName: 'transfer', args: [made.me, 5n] });
    const ok = await f.get(`/api/v2/utils/decode-calldata?calldata=${transfer}&address_hash=${made.a}`);
    t.equal(ok.status, 200);
    t.same(ok.body.result.parameters.map((p: any) => [p.name, p.type, String(p.value).toLowerCase()]), [['to', 'address', made.me], ['value', 'uint256', '5']], 'decode-calldata decodes a transfer');
    t.match(ok.body.result.method_call, /^transfer\(address to, uint256 value\)$/);
    t.same((await f.get('/api/v2/utils/decode-calldata?calldata=0x')).body, { result: null }, 'no selector: nothing to decode');
    t.same((await f.get('/api/v2/utils/decode-calldata?calldata=0x12345678')).body, { result: null }, 'an unknown selector: null');
    for (const q of ['calldata=0xzz', 'calldata=0x123', `calldata=${transfer}&address_hash=0x12`, '']) {
      const r = await f.get(`/api/v2/utils/decode-calldata?${q}`);
      t.equal(r.status, 422, `?${q}: 422`);
    }
    t.equal((await f.get(`/api/v2/utils/decode-calldata?calldata=${transfer}&bogus=1`)).status, 422, 'an undeclared parameter: 422');
    t.not((await api(`/api/v2/utils/decode-calldata?calldata=${made.loose}`)).result, null, 'the API decodes the relayed input with four bytes too many (loosely)');

    const transfers: any[] = (await api(`/api/v2/transactions/${made.swap}/token-transfers`)).items;
    const out = transfers.find((x) => x.token.address_hash.toLowerCase() === made.b && x.to.hash.toLowerCase() === made.me);
    const paid = transfers.find((x) => x.token.address_hash.toLowerCase() === made.a && x.from.hash.toLowerCase() === made.me);
    t.ok(out && paid, 'the swap moved token a from me and token b to me');
    const pair = paid.to.hash.toLowerCase();
    for (const [vp, viewport] of [['desktop', { width: 1366, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
      const context = await browser.newContext({ viewport });
      t.teardown(() => context.close());
      const w = await watchedPage(context);
      await gotoSettled(w.page, `${f.base}/tx/${made.swap}?tab=call_tree`);
      const frames = await shownFrames(w.page);
      const inner = frames.find((x) => x.depth === 2 && x.method === 'transfer');
      t.ok(inner, `${vp}: the pair's call of the token's transfer, two levels down`);
      t.equal(inner?.to, made.b, `${vp}: to token b`);
      t.same(inner?.args.map((a) => [a.name, a.type]), [['to', 'address'], ['value', 'uint256']], `${vp}: its arguments by name and type`);
      t.equal(inner?.args[0].href?.slice('/address/'.length).toLowerCase(), made.me, `${vp}: to, linked: the swapper`);
      t.equal(inner?.args[1].text.replace(/,/g, ''), out.total.value, `${vp}: the amount, in full: what the swapper received (${out.total.value})`);
      t.equal(inner?.raw, null, `${vp}: no raw input beside a decoded call`);
      const from = frames.find((x) => x.depth === 1 && x.method === 'transferFrom');
      t.same(
        from?.args.map((a) => [a.name, a.href?.slice('/address/'.length).toLowerCase() ?? a.text.replace(/,/g, '')]),
        [['from', made.me], ['to', pair], ['value', e18(10n).toString()]],
        `${vp}: the router's transferFrom: from the swapper to the pair, 10 tokens`,
      );
      await screenshot(w.page, `tx-reading-call-args-${vp}`);
      // The tree alone, as large as it shows: the arguments can be looked at on a phone's width.
      await screenshot(w.page.locator('.call-tree'), `tx-reading-call-args-tree-${vp}`);
      await gotoSettled(w.page, `${f.base}/tx/${made.relayed}?tab=call_tree`);
      const relayed = (await shownFrames(w.page))[1];
      t.equal(relayed?.method, 'transfer', `${vp}: the relayed call is named by its selector`);
      t.same(relayed?.args, [], `${vp}: but not exactly a transfer: no arguments shown`);
      t.equal(relayed?.raw, made.loose, `${vp}: its raw input instead`);
      // The relayed call's own raw input (the relay's top frame, named by no signature, has one too).
      const fold = '.ct-list .ct-list .ct-raw';
      t.equal(await w.page.$eval(fold, (d) => (d as HTMLDetailsElement).open), false, `${vp}: folded`);
      t.notOk(await w.page.isVisible(`${fold} .ct-fold-body`), `${vp}: its bytes hidden until asked for`);
      await w.page.click(`${fold} summary`);
      t.ok(await w.page.isVisible(`${fold} .ct-fold-body`), `${vp}: a tap unfolds it`);
      await screenshot(w.page, `tx-reading-call-raw-${vp}`);
      await screenshot(w.page.locator('.call-tree'), `tx-reading-call-raw-tree-${vp}`);
      t.same(w.errors, [], `${vp}: no console error`);
      t.same(w.failed, [], `${vp}: no failed request`);
    }
  });

  await t.test('four looks, JavaScript off, axe', async (t) => {
    const pages: [string, string][] = [
      ['summary', `/tx/${made.swap}`],
      ['call-tree', `/tx/${made.probe}?tab=call_tree`],
      ['call-tree-forward', `/tx/${s.forwardTx.hash}?tab=call_tree`],
      ['call-tree-swap', `/tx/${made.swap}?tab=call_tree`],
      ['call-tree-relayed', `/tx/${made.relayed}?tab=call_tree`],
    ];
    await checkLooks(t, browser, f.base, pages, 'tx-reading');
    const context = await browser.newContext({ javaScriptEnabled: false });
    t.teardown(() => context.close());
    const page = await context.newPage();
    await page.goto(`${f.base}/tx/${made.probe}?tab=call_tree`);
    t.ok((await page.$$('.call-tree li.ct-frame')).length >= 3, 'the tree without JavaScript');
    t.ok(await page.$('.call-tree li.ct-failed'), 'its failed frame marked');
    await page.goto(`${f.base}/tx/${made.swap}`);
    t.match(await page.innerText('.tx-summary'), /^Swap /, 'the summary without JavaScript');
  });
});
