// ERC-4337 user operations end to end on anvil, with the real EntryPoint v0.6, v0.7 and v0.8 and
// SimpleAccount(Factory) from @account-abstraction/contracts (test/helpers/user-operations.ts): per
// version an operation deploying its account (initCode), a plain one, one paid by a paymaster and
// one whose call reverts, sent through handleOps by a bundler. The EntryPoints are deployed at
// devnet addresses, not the canonical ones, so every one is recognised by the hash its version
// defines. Indexed, then every field of /proxy/account-abstraction/operations/{hash} is checked
// against what the EntryPoint emitted (the receipts' logs decoded here with viem and the npm
// artifacts' ABI, independently of the indexer's table) and the hash against getUserOpHash; the
// lists, their filters and paging, the aggregates, search by hash, the shapes against Blockscout's
// OpenAPI; a reorg removes an operation with its block.
import t from 'tap';
import { EventEmitter } from 'node:events';
import { decodeEventLog, getAddress, pad, numberToHex, type Hex, type Log } from 'viem';
import { withAnvil } from './helpers/devnet.js';
import { rpc } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';
import { artifact, sendUserOperations, type SentOp } from './helpers/user-operations.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { getFact, setFact } from '../src/storage/postgres/indexer.js';
import { USER_OPERATIONS_FROM } from '../src/api/routes/account-abstraction.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { startServer } from '../src/api/server.js';
import { BROKEN_TEXT, browserMissing, screenshot, withBrowser } from './helpers/browser.js';

const BUNDLER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const iso = (sec: number) => new Date(sec * 1000).toISOString().replace('.000Z', '.000000Z');

interface RpcReceipt {
  transactionHash: string;
  blockNumber: string;
  blockHash: string;
  from: string;
  logs: (Log & { logIndex: string })[];
}

t.test('user operations of EntryPoint v0.6, v0.7 and v0.8: indexed, answered, searched, rewound', { timeout: 600_000 }, async (t) => {
  const anvil = await withAnvil(t);
  const scenario = await sendUserOperations(anvil.url, BUNDLER);
  const stores = await embeddedStores(t);
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: anvil.url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false });
  await indexer.start();
  t.teardown(() => indexer.stop());
  const head = Number(await rpc<string>(anvil.url, 'eth_blockNumber'));
  await indexer.waitFor(head, 120_000);

  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 0 });
  app.attach(new EventEmitter());
  const get = async (p: string) => {
    const r = await app.handle(request(p));
    return { status: r.status, body: JSON.parse(typeof r.body === 'string' ? r.body : r.body.toString('utf8')) };
  };
  const doc = loadOpenApi();
  const conforms = (template: string, body: unknown, what: string) => {
    if (doc) t.same(validate(doc, responseSchema(doc, template), body), [], `${what} passes its schema`);
  };
  const AA = '/api/v2/proxy/account-abstraction';

  t.equal(scenario.ops.length, 12, 'four operations per version sent');
  const byVersion = new Map(scenario.versions.map((v) => [v.version, v]));

  // Every operation against the EntryPoint's own events in the receipt.
  for (const sent of scenario.ops) {
    const v = byVersion.get(sent.version)!;
    const abi = artifact(sent.version, 'EntryPoint').abi;
    const receipt = await rpc<RpcReceipt>(anvil.url, 'eth_getTransactionReceipt', [sent.transactionHash]);
    const block = await rpc<{ timestamp: string }>(anvil.url, 'eth_getBlockByHash', [receipt.blockHash, false]);
    const events = receipt.logs
      .filter((l) => l.address.toLowerCase() === v.entryPoint)
      .map((l) => ({ log: l, ev: decodeEventLog({ abi, topics: l.topics as [Hex], data: l.data }) as unknown as { eventName: string; args: Record<string, unknown> } }));
    const mine = events.filter((e) => (e.ev.args?.userOpHash as string | undefined)?.toLowerCase() === sent.hash);
    const opEvent = mine.find((e) => e.ev.eventName === 'UserOperationEvent')!;
    t.ok(opEvent, `${sent.version} ${sent.kind}: the EntryPoint emitted its UserOperationEvent under getUserOpHash's hash`);
    const revert = mine.find((e) => e.ev.eventName === 'UserOperationRevertReason');
    const deployed = mine.find((e) => e.ev.eventName === 'AccountDeployed');
    const deposits = events.filter((e) => e.ev.eventName === 'Deposited').map((e) => (e.ev.args.account as string).toLowerCase());
    const a = opEvent.ev.args as { success: boolean; actualGasCost: bigint; actualGasUsed: bigint; nonce: bigint; sender: string; paymaster: string };

    const res = await get(`${AA}/operations/${sent.hash}`);
    t.equal(res.status, 200, `${sent.version} ${sent.kind}: answered`);
    const op = res.body;
    conforms('/v2/proxy/account-abstraction/operations/{operation_hash_param}', op, `${sent.version} ${sent.kind}`);
    const o = sent.op as Record<string, Hex | bigint>;
    const packed = sent.version !== 'v0.6';
    const hi = (w: Hex) => (BigInt(w) >> 128n).toString();
    const lo = (w: Hex) => (BigInt(w) & ((1n << 128n) - 1n)).toString();
    const paymaster = sent.kind === 'paymaster' ? v.paymaster : null;
    const pmGas = packed && paymaster ? 150_000n : 0n;
    const expectedGas = packed
      ? BigInt(lo(o.accountGasLimits as Hex)) + BigInt(hi(o.accountGasLimits as Hex)) + (o.preVerificationGas as bigint) + pmGas
      : (o.callGasLimit as bigint) + (o.verificationGasLimit as bigint) * (paymaster ? 3n : 1n) + (o.preVerificationGas as bigint);
    const isDeposit = (x: string) => deposits.includes(x);
    t.same(
      {
        hash: op.hash,
        sender: op.sender.hash,
        nonce: op.nonce,
        call_data: op.call_data,
        call_gas_limit: op.call_gas_limit,
        verification_gas_limit: op.verification_gas_limit,
        pre_verification_gas: op.pre_verification_gas,
        max_fee_per_gas: op.max_fee_per_gas,
        max_priority_fee_per_gas: op.max_priority_fee_per_gas,
        signature: op.signature,
        aggregator: op.aggregator,
        aggregator_signature: op.aggregator_signature,
        entry_point: op.entry_point.hash,
        entry_point_version: op.entry_point_version,
        transaction_hash: op.transaction_hash,
        block_number: op.block_number,
        block_hash: op.block_hash,
        bundler: op.bundler.hash,
        bundle_index: op.bundle_index,
        index: op.index,
        factory: op.factory?.hash ?? null,
        paymaster: op.paymaster?.hash ?? null,
        status: op.status,
        revert_reason: op.revert_reason,
        gas: op.gas,
        gas_price: op.gas_price,
        gas_used: op.gas_used,
        fee: op.fee,
        sponsor_type: op.sponsor_type,
        consensus: op.consensus,
        timestamp: op.timestamp,
      },
      {
        hash: sent.hash,
        sender: getAddress(a.sender),
        nonce: pad(numberToHex(a.nonce), { size: 32 }),
        call_data: o.callData,
        call_gas_limit: packed ? lo(o.accountGasLimits as Hex) : String(o.callGasLimit),
        verification_gas_limit: packed ? hi(o.accountGasLimits as Hex) : String(o.verificationGasLimit),
        pre_verification_gas: String(o.preVerificationGas),
        max_fee_per_gas: packed ? lo(o.gasFees as Hex) : String(o.maxFeePerGas),
        max_priority_fee_per_gas: packed ? hi(o.gasFees as Hex) : String(o.maxPriorityFeePerGas),
        signature: o.signature,
        aggregator: null,
        aggregator_signature: null,
        entry_point: getAddress(v.entryPoint),
        entry_point_version: sent.version,
        transaction_hash: sent.transactionHash,
        block_number: String(Number(receipt.blockNumber)),
        block_hash: receipt.blockHash,
        bundler: getAddress(receipt.from),
        bundle_index: 0,
        index: sent.index,
        factory: deployed ? getAddress(deployed.ev.args.factory as string) : null,
        paymaster: BigInt(a.paymaster) === 0n ? null : getAddress(a.paymaster),
        status: a.success,
        revert_reason: revert ? (revert.ev.args.revertReason as string) : null,
        gas: expectedGas.toString(),
        gas_price: (a.actualGasCost / a.actualGasUsed).toString(),
        gas_used: a.actualGasUsed.toString(),
        fee: a.actualGasCost.toString(),
        sponsor_type: paymaster ? (isDeposit(paymaster) ? 'paymaster_hybrid' : 'paymaster_sponsor') : isDeposit(v.account) ? 'wallet_deposit' : 'wallet_balance',
        consensus: true,
        timestamp: iso(Number(block.timestamp)),
      },
      `${sent.version} ${sent.kind}: every field as the EntryPoint emitted it and as it was sent`,
    );
    // What each kind is about, stated outright (the comparison above takes the events' word).
    t.equal(op.factory?.hash ?? null, sent.kind === 'deploy' ? getAddress(v.factory) : null, `${sent.version} ${sent.kind}: factory only on the deploying operation`);
    t.equal(op.paymaster?.hash ?? null, sent.kind === 'paymaster' ? getAddress(v.paymaster) : null, `${sent.version} ${sent.kind}: paymaster only on the sponsored one`);
    t.equal(op.status, sent.kind !== 'revert', `${sent.version} ${sent.kind}: status`);
    if (sent.kind === 'revert') t.ok(op.revert_reason && op.revert_reason.length > 10, 'the revert reason is the call\'s revert data');
    t.same(op.raw, packed
      ? { sender: getAddress(v.account), nonce: String(o.nonce), init_code: o.initCode, call_data: o.callData, account_gas_limits: o.accountGasLimits, pre_verification_gas: String(o.preVerificationGas), gas_fees: o.gasFees, paymaster_and_data: o.paymasterAndData, signature: o.signature }
      : { sender: getAddress(v.account), nonce: String(o.nonce), init_code: o.initCode, call_data: o.callData, call_gas_limit: String(o.callGasLimit), verification_gas_limit: String(o.verificationGasLimit), pre_verification_gas: String(o.preVerificationGas), max_fee_per_gas: String(o.maxFeePerGas), max_priority_fee_per_gas: String(o.maxPriorityFeePerGas), paymaster_and_data: o.paymasterAndData, signature: o.signature },
      `${sent.version} ${sent.kind}: raw as sent`);
    t.equal(op.execute_target?.hash, getAddress(sent.kind === 'revert' ? scenario.reverter : `0x${'0'.repeat(36)}dead`), 'execute target');
    t.equal(op.execute_call_data, sent.kind === 'revert' ? '0x12345678' : '0x', 'execute call data');
    t.equal(op.decoded_call_data?.method_id ?? null, op.call_data.slice(0, 10), 'the call data decoded (SimpleAccount.execute, named by the catalogue)');
    // The user's own logs: the operation's logs less the EntryPoint's and the paymaster's at either end.
    t.ok(op.user_logs_count >= 0 && op.user_logs_start_index >= 0, 'user log bounds');

    const summary = await get(`${AA}/operations/${sent.hash}/summary`);
    t.equal(summary.status, 200);
    conforms('/v2/proxy/account-abstraction/operations/{operation_hash_param}/summary', summary.body, 'the summary');
  }

  // A contract that is not an EntryPoint but emits its events for handleOps calldata: not read.
  t.equal((await get(`${AA}/operations?transaction_hash=${scenario.lookAlikeTx}`)).body.items.length, 0, 'a look-alike whose hash is not the version\'s: no user operation');
  t.equal((await get(`${AA}/operations?entry_point=${scenario.lookAlike}`)).body.items.length, 0, 'and none at its address');

  // Lists and their filters.
  const all = (await get(`${AA}/operations`)).body;
  conforms('/v2/proxy/account-abstraction/operations', all, 'the operations list');
  t.equal(all.items.length, 12, 'twelve operations listed');
  t.same(all.items.map((i: { hash: string }) => i.hash), [...scenario.ops].sort((x, y) => cmpDesc(x, y, scenario.ops, all)).map((x) => x.hash), 'newest first by (block, hash)');
  const paged: string[] = [];
  let url = `${AA}/operations?page_size=5`;
  for (;;) {
    const p = (await get(url)).body;
    paged.push(...p.items.map((i: { hash: string }) => i.hash));
    if (!p.next_page_params) break;
    t.equal(p.next_page_params.page_size, 5);
    url = `${AA}/operations?page_size=5&page_token=${encodeURIComponent(p.next_page_params.page_token)}`;
  }
  t.same(paged, all.items.map((i: { hash: string }) => i.hash), 'pages of 5 walk the same list');
  for (const v of scenario.versions) {
    const bySender = (await get(`${AA}/operations?sender=${v.account}`)).body.items;
    t.same(bySender.map((i: { hash: string }) => i.hash).sort(), scenario.ops.filter((o) => o.sender === v.account).map((o) => o.hash).sort(), `${v.version}: by sender`);
    t.equal((await get(`${AA}/operations?entry_point=${v.entryPoint}`)).body.items.length, 4, `${v.version}: by entry point`);
    t.equal((await get(`${AA}/operations?paymaster=${v.paymaster}`)).body.items.length, 1, `${v.version}: by paymaster`);
    t.equal((await get(`${AA}/operations?factory=${v.factory}`)).body.items.length, 1, `${v.version}: by factory`);
    t.equal((await get(`${AA}/operations?transaction_hash=${v.transactions[1]}`)).body.items.length, 3, `${v.version}: by transaction`);
    const acct = await get(`${AA}/accounts/${v.account}`);
    const deploy = scenario.ops.find((o) => o.version === v.version && o.kind === 'deploy')!;
    t.same(
      { ...acct.body, address: acct.body.address.hash, factory: acct.body.factory.hash, creation_timestamp: typeof acct.body.creation_timestamp },
      { address: getAddress(v.account), factory: getAddress(v.factory), creation_op_hash: deploy.hash, creation_transaction_hash: deploy.transactionHash, creation_timestamp: 'string', total_ops: 4 },
      `${v.version}: the account, deployed by its first operation`,
    );
    conforms('/v2/proxy/account-abstraction/accounts/{address_hash_param}', acct.body, 'an account');
    const pm = await get(`${AA}/paymasters/${v.paymaster}`);
    t.same({ ...pm.body, address: pm.body.address.hash }, { address: getAddress(v.paymaster), total_ops: 1 }, `${v.version}: its paymaster`);
    conforms('/v2/proxy/account-abstraction/paymasters/{address_hash_param}', pm.body, 'a paymaster');
    const f = await get(`${AA}/factories/${v.factory}`);
    t.same({ ...f.body, address: f.body.address.hash }, { address: getAddress(v.factory), total_accounts: 1 }, `${v.version}: its factory`);
    conforms('/v2/proxy/account-abstraction/factories/{address_hash_param}', f.body, 'a factory');
  }
  t.equal((await get(`${AA}/operations?bundler=${BUNDLER}`)).body.items.length, 12, 'by bundler');
  t.equal((await get(`${AA}/operations?block_number=${(await get(`${AA}/operations/${scenario.ops[0]!.hash}`)).body.block_number}`)).body.items.length, 1, 'by block number');
  const b = await get(`${AA}/bundlers/${BUNDLER}`);
  t.same({ ...b.body, address: b.body.address.hash }, { address: getAddress(BUNDLER), total_bundles: 6, total_ops: 12 }, 'the bundler');
  conforms('/v2/proxy/account-abstraction/bundlers/{address_hash_param}', b.body, 'a bundler');
  for (const [path, n] of [['accounts', 3], ['bundlers', 1], ['paymasters', 3], ['factories', 3], ['bundles', 6]] as const) {
    const r = await get(`${AA}/${path}`);
    t.equal(r.body.items.length, n, `${path}: ${n}`);
    conforms(`/v2/proxy/account-abstraction/${path}`, r.body, path);
    if (n > 1) {
      const first = await get(`${AA}/${path}?page_size=1`);
      t.ok(first.body.next_page_params, `${path}: a next page`);
      const second = await get(`${AA}/${path}?page_size=1&page_token=${encodeURIComponent(first.body.next_page_params.page_token)}`);
      t.same(second.body.items[0], r.body.items[1], `${path}: the second page starts with the second item`);
    }
  }
  const bundles = (await get(`${AA}/bundles`)).body.items;
  t.same(bundles.map((x: { transaction_hash: string }) => x.transaction_hash).sort(), scenario.versions.flatMap((v) => v.transactions).sort(), 'bundles: the handleOps transactions');
  t.same(bundles.map((x: { total_ops: number }) => x.total_ops).sort(), [1, 1, 1, 3, 3, 3], 'bundles: their operation counts');
  // Filtered by bundler and by entry point (the filters are columns the select also aggregates).
  t.equal((await get(`${AA}/bundles?bundler=${BUNDLER}`)).body.items.length, 6, 'bundles of the bundler');
  t.equal((await get(`${AA}/bundles?bundler=0x${'12'.repeat(20)}`)).body.items.length, 0, 'bundles of another address: none');
  const ep = scenario.versions[0]!.entryPoint;
  const ofEp = (await get(`${AA}/bundles?entry_point=${ep}`)).body.items;
  t.same(ofEp.map((x: { transaction_hash: string }) => x.transaction_hash).sort(), [...scenario.versions[0]!.transactions].sort(), 'bundles of one entry point');
  const status = await get(`${AA}/status`);
  t.equal(status.body.finished_past_indexing, true);
  conforms('/v2/proxy/account-abstraction/status', status.body, 'the status');
  // A store a release before user operations indexed (migration 0022 records where decoding began): its past is not indexed.
  const began = await getFact<{ block: number }>(stores.pg, USER_OPERATIONS_FROM);
  t.same(began, { block: 0 }, 'on a new store operations are decoded from block 0');
  await setFact(stores.pg, USER_OPERATIONS_FROM, { block: 7 });
  const upgraded = (await get(`${AA}/status`)).body;
  t.same([upgraded.finished_past_indexing, upgraded.v06.past_db_logs_indexing_finished], [false, false], 'upgraded from blocks indexed without them: the past is not indexed');
  await setFact(stores.pg, USER_OPERATIONS_FROM, began);

  // Errors: unknown hash, bad hash, bad page token, unknown bundler.
  t.equal((await get(`${AA}/operations/0x${'1'.repeat(64)}`)).status, 404, 'an unknown operation is a 404');
  t.equal((await get(`${AA}/operations/0x1234`)).status, 422, 'a malformed hash is a 422');
  t.equal((await get(`${AA}/operations?page_token=nonsense`)).status, 400, 'a malformed page token is a 400');
  t.equal((await get(`${AA}/bundlers/0x${'2'.repeat(40)}`)).status, 404, 'an address that never bundled is a 404');
  t.equal((await get(`${AA}/operations?sender=nope`)).status, 422, 'a malformed address filter is a 422');

  // Search by a user operation's hash.
  const target = scenario.ops[5]!;
  const search = await get(`/api/v2/search?q=${target.hash}`);
  t.same(search.body.items.filter((i: { type: string }) => i.type === 'user_operation').map((i: { user_operation_hash: string }) => i.user_operation_hash), [target.hash], 'search finds the user operation');
  const quick = await get(`/api/v2/search/quick?q=${target.hash}`);
  t.ok(quick.body.some((i: { type: string; user_operation_hash?: string }) => i.type === 'user_operation' && i.user_operation_hash === target.hash), 'quick search too');
  t.same((await get(`/api/v2/search/check-redirect?q=${target.hash}`)).body, { redirect: true, type: 'user_operation', parameter: target.hash }, 'and redirects to it');

  // The web UI (server-rendered, read through the public API): the list, an operation's page, the
  // account's and the bundler's "User operations" tab; then looked at in a browser.
  {
    const ui = createUi({ api: inProcessClient(app.handle), coin: 'ETH', log: createLogger('ui'), cacheBytes: 0 });
    const page = async (p: string) => {
      const r = await ui.handle(request(p));
      t.equal(r.status, 200, `${p}: 200`);
      const text = (typeof r.body === 'string' ? r.body : r.body.toString('utf8')).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
      t.notMatch(text, BROKEN_TEXT, `${p}: nothing broken shown`);
      return text;
    };
    // Hashes and addresses are shown in chunks (they wrap on a phone): compared without the spaces.
    const flat = (x: string) => x.replace(/\s+/g, '');
    const list = await page('/ops');
    for (const o of scenario.ops) t.ok(flat(list).includes(o.hash.slice(0, 10)), `/ops lists ${o.hash.slice(0, 10)}`);
    const paid = scenario.ops.find((o) => o.version === 'v0.7' && o.kind === 'paymaster')!;
    const v07 = byVersion.get('v0.7')!;
    const opText = await page(`/op/${paid.hash}`);
    t.ok(flat(opText).includes(paid.hash), 'the operation page names its hash');
    t.ok(flat(opText).includes(getAddress(v07.paymaster)), 'its paymaster');
    t.ok(flat(opText).includes(getAddress(v07.account)), 'its sender');
    t.ok(flat(opText).includes(paid.transactionHash), 'its transaction');
    t.match(opText, /v0\.7/, 'its EntryPoint version');
    t.match(opText, /Paid by the paymaster/, 'who paid');
    const reverted = scenario.ops.find((o) => o.version === 'v0.6' && o.kind === 'revert')!;
    t.match(await page(`/op/${reverted.hash}`), /Failed .*Revert reason 0x/, 'a reverted operation: failed, with its revert data');
    const deployedOp = scenario.ops.find((o) => o.version === 'v0.8' && o.kind === 'deploy')!;
    t.ok(flat(await page(`/op/${deployedOp.hash}`)).includes(getAddress(byVersion.get('v0.8')!.factory)), 'the deploying operation names its factory');
    const accountTab = await page(`/address/${v07.account}?tab=user_ops`);
    t.match(accountTab, /User operations/, "the account's tab");
    for (const o of scenario.ops.filter((x) => x.sender === v07.account)) t.ok(flat(accountTab).includes(o.hash.slice(0, 10)), `the account's tab lists ${o.hash.slice(0, 10)}`);
    t.notOk(flat(accountTab).includes(scenario.ops.find((x) => x.version === 'v0.6')!.hash.slice(0, 10)), "but not another account's");
    const bundlerTab = await page(`/address/${BUNDLER}?tab=user_ops`);
    for (const o of scenario.ops) t.ok(flat(bundlerTab).includes(o.hash.slice(0, 10)), `the bundler's tab lists ${o.hash.slice(0, 10)}`);
    // The tab's link, not the words (the footer links the list of every operation on each page).
    const html = async (p: string) => {
      const r = await ui.handle(request(p));
      return typeof r.body === 'string' ? r.body : r.body.toString('utf8');
    };
    t.match(await html(`/address/${BUNDLER}`), /tab=user_ops/, "the bundler's page shows the tab");
    t.notMatch(await html(`/address/${scenario.reverter}`), /tab=user_ops/, 'an address with none shows no tab');
    const searched = await ui.handle(request(`/search?q=${paid.hash}`));
    t.same({ status: searched.status, location: searched.headers?.location }, { status: 302, location: `/op/${paid.hash}` }, "the header search goes to the operation's page");
    t.equal((await ui.handle(request(`/op/0x${'3'.repeat(64)}`))).status, 404, 'an unknown operation: 404 page');
    t.equal((await ui.handle(request('/op/nothex'))).status, 400, 'a malformed hash: 400 page');
    if (!browserMissing()) {
      const server = await startServer({ front: ui.front, host: '127.0.0.1', port: 0, log: createLogger('ui') });
      t.teardown(() => server.close());
      const browser = await withBrowser(t);
      for (const [vp, size] of [['phone', { width: 390, height: 844 }], ['desktop', { width: 1366, height: 900 }]] as const) {
        for (const scheme of ['light', 'dark'] as const) {
          const context = await browser.newContext({ viewport: size, colorScheme: scheme });
          const p = await context.newPage();
          for (const [path, name] of [['/ops', 'ops'], [`/op/${paid.hash}`, 'op'], [`/op/${reverted.hash}`, 'op-reverted'], [`/address/${v07.account}?tab=user_ops`, 'account-ops'], [`/address/${BUNDLER}?tab=user_ops`, 'bundler-ops']] as const) {
            await p.goto(`http://127.0.0.1:${server.port}${path}`);
            t.notMatch(await p.textContent('main'), BROKEN_TEXT, `${name} ${vp} ${scheme}: nothing broken shown`);
            const overflow = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
            t.ok(overflow <= 0, `${name} ${vp} ${scheme}: no sideways scrolling of the page (${overflow} px)`);
            t.comment(`screenshot: ${await screenshot(p, `aa-${name}-${vp}-${scheme}`)}`);
          }
          await context.close();
        }
      }
    }
  }

  // A reorg: one more operation, then the chain goes back before it; the operation goes with its block.
  const snap = await rpc<string>(anvil.url, 'evm_snapshot');
  const [extra] = await byVersion.get('v0.8')!.bundle(['plain']);
  await indexer.waitFor(Number(await rpc<string>(anvil.url, 'eth_blockNumber')), 60_000);
  t.equal((await get(`${AA}/operations/${extra!.hash}`)).status, 200, 'the new operation is indexed');
  await rpc(anvil.url, 'evm_revert', [snap]);
  for (let i = 0; i < 3; i++) await rpc(anvil.url, 'evm_mine');
  const newHead = Number(await rpc<string>(anvil.url, 'eth_blockNumber'));
  await indexer.waitFor(newHead, 60_000);
  const deadline = Date.now() + 30_000;
  while ((await get(`${AA}/operations/${extra!.hash}`)).status !== 404 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  t.equal((await get(`${AA}/operations/${extra!.hash}`)).status, 404, 'the orphaned operation is gone');
  t.equal((await get(`${AA}/operations`)).body.items.length, 12, 'the others stay');
});

/** The list's order: block number, then hash, both descending (Blockscout's). */
function cmpDesc(x: SentOp, y: SentOp, _all: readonly SentOp[], list: { items: { hash: string; block_number: string }[] }): number {
  const bx = BigInt(list.items.find((i) => i.hash === x.hash)!.block_number);
  const by = BigInt(list.items.find((i) => i.hash === y.hash)!.block_number);
  if (bx !== by) return bx > by ? -1 : 1;
  return x.hash > y.hash ? -1 : 1;
}
