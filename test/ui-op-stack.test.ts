// The web UI's transaction page on an OP Stack chain, in a real browser (phone and desktop, light
// and dark): a deposit shows its source hash, minted coin, system flag and deposit nonce; a user
// transaction its L1 data fee, L1 gas price and gas used, scalars and operator fee, the total fee
// above them. The chain is anvil's OP mode (the deposit as anvil makes it); anvil's receipts carry
// no L1 fee, so the replay server in front of it adds the fields Hardhat's EDR (chainType op)
// reports to the user transaction's receipt: this test checks what the page shows of what the API
// answers (test/op-stack-l1-fees.test.ts checks those answers against EDR itself). The
// /deposits and /withdrawals pages list what /optimism/deposits and /withdrawals answer (a
// withdrawal through the real L2ToL1MessagePasser placed at its predeploy address).
import t from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { indexNode } from './helpers/indexed-node.js';
import { BROKEN_TEXT, browserMissing, eachLook, screenshot, withBrowser, gotoSettled } from './helpers/browser.js';
import { createUi, type Ui } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { startServer } from '../src/api/server.js';
import type { Front } from '../src/api/front.js';
import { createLogger } from '../src/log.js';
import { formatUnits } from '../src/ui/format.js';
import { createRequire } from 'node:module';
import { encodeFunctionData } from 'viem';

const require = createRequire(import.meta.url);
const PASSER = '0x4200000000000000000000000000000000000016';
const passer = require('@eth-optimism/contracts-bedrock/forge-artifacts/L2ToL1MessagePasser.sol/L2ToL1MessagePasser.json') as { abi: unknown[]; deployedBytecode: { object: string } };

const FROM = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc';
const USER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
/** As EDR's receipts give them (test/op-stack-l1-fees.test.ts's scalars). */
const L1 = { l1GasPrice: '0x2540be400', l1GasUsed: '0x640', l1Fee: '0xc1e8f41b40', l1BaseFeeScalar: '0x558', l1BlobBaseFee: '0x2540be400', l1BlobBaseFeeScalar: '0xc5fc5', operatorFeeScalar: '0x1388', operatorFeeConstant: '0x7' };
const PROXIED = ['eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getTransactionByHash', 'debug_traceBlockByNumber', 'eth_getCode', 'eth_getBalance', 'eth_call', 'rpc_modules', 'trace_block', 'trace_replayBlockTransactions'];

t.test('a deposit and a transaction with its L1 fee on the transaction page', { skip: browserMissing() ?? false }, async (t) => {
  const anvil = await withAnvil(t, { extraArgs: ['--network', 'optimism'] });
  const node = anvil.url;
  const deposit = await rpc<string>(node, 'eth_sendTransaction', [
    { from: FROM, to: TO, value: '0x0', type: '0x7e', sourceHash: `0x${'c3'.repeat(32)}`, mint: '0x1bc16d674ec80000', isSystemTx: false, gas: '0x5208' },
  ]);
  await minedIn(node, deposit);
  const user = await rpc<string>(node, 'eth_sendTransaction', [{ from: USER, to: TO, value: '0x2', data: '0x1234' }]);
  await minedIn(node, user);

  await rpc(node, 'anvil_setCode', [PASSER, passer.deployedBytecode.object]);
  const withdrawal = await rpc<string>(node, 'eth_sendTransaction', [
    { from: USER, to: PASSER, value: '0x2386f26fc10000', data: encodeFunctionData({ abi: passer.abi as any, functionName: 'initiateWithdrawal', args: ['0x00000000000000000000000000000000000000aa', 100000n, '0x'] }) },
  ]);
  await minedIn(node, withdrawal);

  const withL1 = (r: any) => (r && r.transactionHash === user ? { ...r, ...L1 } : r);
  const proxy = await startReplayRpc();
  t.teardown(() => proxy.close());
  for (const m of PROXIED) proxy.handle(m, async (p) => ({ result: await rpc(node, m, p).catch(() => null) }));
  proxy.handle('eth_getBlockReceipts', async (p) => ({ result: ((await rpc<any[]>(node, 'eth_getBlockReceipts', p)) ?? null)?.map(withL1) ?? null }));
  proxy.handle('eth_getTransactionReceipt', async (p) => ({ result: withL1(await rpc<any>(node, 'eth_getTransactionReceipt', p)) }));

  const ix = await indexNode(t, proxy.url, { variant: 'anvil' });
  await ix.catchUp();
  const api = (await ix.get(`/api/v2/transactions/${user}`)).body;
  t.equal(api.l1_fee, BigInt(L1.l1Fee).toString(), 'the API answers the L1 fee');

  let ui: Ui | undefined;
  const front: Front = {
    bodyLimit: (req) => ui?.front.bodyLimit(req) ?? 0,
    admit: (req, announces) => (ui ? ui.front.admit(req, announces) : Promise.resolve({ reply: { status: 503, headers: { 'content-type': 'text/plain' }, body: 'starting' } })),
  };
  const server = await startServer({ front, host: '127.0.0.1', port: 0, log: createLogger('ui') });
  t.teardown(() => server.close());
  const base = `http://localhost:${server.port}`;
  ui = createUi({ api: inProcessClient(ix.app.handle), coin: 'ETH', log: createLogger('ui'), publicUrl: base });
  const browser = await withBrowser(t);

  const details = (page: import('playwright-core').Page) =>
    page.evaluate(() => {
      const out: Record<string, string> = {};
      for (const row of Array.from(document.querySelectorAll('#tx section.card dl.details > .row'))) {
        out[row.querySelector('dt')?.textContent ?? ''] = (row.querySelector('dd') as HTMLElement | null)?.innerText ?? '';
      }
      return out;
    });
  await eachLook(browser, async (context, look) => {
    const page = await context.newPage();
    const r1 = await gotoSettled(page, `${base}/tx/${deposit}`);
    t.equal(r1?.status(), 200, `${look.vp} ${look.scheme}: the deposit's page`);
    const d = await details(page);
    t.equal(d['Source hash'], `0x${'c3'.repeat(32)}`, 'the source hash');
    t.match(d['Minted'], /^2\b/, 'the minted coin (2 ETH)');
    t.equal(d['System transaction'], 'No');
    t.ok(d['Deposit nonce'] !== undefined, 'the deposit nonce');
    t.match(d['Type'], /Deposit \(OP Stack\)/, 'its type by name');
    t.notOk('L1 data fee' in d, 'a deposit pays no L1 fee');
    t.notMatch(await page.innerText('main'), BROKEN_TEXT);
    await screenshot(page, `op-stack-deposit-${look.vp}-${look.scheme}`);

    const r2 = await gotoSettled(page, `${base}/tx/${user}`);
    t.equal(r2?.status(), 200, `${look.vp} ${look.scheme}: the user transaction's page`);
    const u = await details(page);
    t.match(u['L1 data fee'], formatUnits(BigInt(L1.l1Fee), 18).slice(0, 6), 'the L1 data fee');
    t.match(u['L1 gas used'], /1,600/, 'the L1 gas used');
    t.match(u['L1 gas price'], /10 gwei/, 'the L1 gas price');
    t.match(u['L1 fee scalars'], /base fee 1,368, blob base fee 810,949/, 'the scalars');
    t.ok(u['Operator fee'], 'the operator fee');
    t.notOk('Source hash' in u, 'no deposit fields on a user transaction');
    t.notMatch(await page.innerText('main'), BROKEN_TEXT);
    await screenshot(page, `op-stack-l1-fee-${look.vp}-${look.scheme}`);

    const r3 = await gotoSettled(page, `${base}/deposits`);
    t.equal(r3?.status(), 200, `${look.vp} ${look.scheme}: the deposits page`);
    const listed = await page.$$eval('main table tbody tr td:first-child a[href^="/tx/"]', (as) => as.map((a) => a.getAttribute('href')));
    t.ok(listed.includes(`/tx/${deposit}`), 'the deposit is listed');
    t.match(await page.innerText('main'), /once this explorer has read its finalized L1 block/, 'the page says when the L1 side shows');
    t.match(await page.innerText('main table'), /—/, 'no L1 side without an L1 node: dashes');
    t.notMatch(await page.innerText('main'), BROKEN_TEXT);
    await screenshot(page, `op-stack-deposits-${look.vp}-${look.scheme}`);

    const r4 = await gotoSettled(page, `${base}/withdrawals`);
    t.equal(r4?.status(), 200, `${look.vp} ${look.scheme}: the withdrawals page`);
    const wl = await page.$$eval('main table tbody tr a[href^="/tx/"]', (as) => as.map((a) => a.getAttribute('href')));
    t.same(wl, [`/tx/${withdrawal}`], 'the withdrawal is listed');
    t.match(await page.innerText('main table'), /0\.01/, 'with its value (0.01 ETH)');
    t.notMatch(await page.innerText('main'), BROKEN_TEXT);
    await screenshot(page, `op-stack-withdrawals-${look.vp}-${look.scheme}`);
  });
});
