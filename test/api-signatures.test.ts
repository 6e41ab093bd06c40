// Names for calls and logs of contracts nobody verified (issue #31, section 3), on the devnet
// through the public API: the build-time catalogue (WETH9's deposit and its Deposit event), any
// verified contract of the instance (its methods named on another, unverified address), a dump
// imported with `explorer signatures import` (the built CLI, against this test's PostgreSQL), and
// the online lookup (a stub openchain server on loopback: asked in the background, its answer
// hashed again, a wrong one refused); each answer says how it was named.
import t from 'tap';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, parseAbi, toEventSelector, toFunctionSelector, type Hex } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { sendMined, rpc } from './helpers/rpc.js';
import { tmpDir } from './helpers/tmp.js';
import { projectRoot } from '../src/paths.js';
import { saveVerified } from '../src/storage/postgres/verified.js';
import { indexContractMethods } from '../src/verify/contract-methods.js';

const CLI = path.join(projectRoot(), 'build', 'src', 'bin', 'explorer.js');
// A contract that emits LOG2 with the calldata's first two words as topics and the rest as data
// (hand-assembled: no compiler needed), so any event can be made on chain.
const LOG2_RUNTIME = '366000600037602051600051604036036040a200';
const LOG2_CREATION = `0x6014600c60003960146000f3${LOG2_RUNTIME}`;

const FROB = parseAbi(['function frobnicate(uint256 x, address who)', 'event Frobbed(uint256 indexed x, address who)']);
const ZAP = parseAbi(['function zap(uint256 a, address b)']);
const QUUX = parseAbi(['function quux(uint256 n)', 'event Quuxed(address indexed who, uint256 amount)']);
const WRONG = parseAbi(['function wrongly(uint256 n)']);
const WETH = parseAbi(['function deposit()', 'event Deposit(address indexed dst, uint256 wad)']);

t.test('calls and logs of unverified contracts are named, and say by what', async (t) => {
  // The stub lookup: openchain's format; a right name for quux and Quuxed, a name of another selector for wrongly.
  const asked: string[] = [];
  const stub = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    const u = new URL(req.url ?? '/', 'http://x');
    const fns = (u.searchParams.get('function') ?? '').split(',').filter(Boolean);
    const evs = (u.searchParams.get('event') ?? '').split(',').filter(Boolean);
    const fn: Record<string, { name: string; filtered: boolean }[]> = {};
    const ev: Record<string, { name: string; filtered: boolean }[]> = {};
    for (const s of fns) {
      if (s === toFunctionSelector(QUUX[0])) fn[s] = [{ name: 'quux(uint256)', filtered: false }];
      if (s === toFunctionSelector(WRONG[0])) fn[s] = [{ name: 'transfer(address,uint256)', filtered: false }];
    }
    for (const s of evs) if (s === toEventSelector(QUUX[1])) ev[s] = [{ name: 'Quuxed(address,uint256)', filtered: false }];
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, result: { function: fn, event: ev } }));
  });
  await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => stub.close(() => r())));
  const lookupUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/signature-database/v1/lookup`;

  const f = await apiWithDerived(t, { signatureLookup: { url: lookupUrl, format: 'openchain', allowHttp: true, allowPrivate: true } });
  const from = f.devnet.scenario.accounts[0]!;
  const to = f.devnet.scenario.accounts[3]!;
  const emitter = await (async () => {
    const hash = await sendMined(f.devnet.url, { from, data: LOG2_CREATION, gas: '0x100000' });
    return (await rpc<{ contractAddress: string }>(f.devnet.url, 'eth_getTransactionReceipt', [hash])).contractAddress.toLowerCase() as Hex;
  })();
  const call = (data: Hex, target = to) => sendMined(f.devnet.url, { from, to: target, data, gas: '0x100000' });
  const emit = (topics: Hex[], data: Hex) => call(`0x${topics.map((x) => x.slice(2)).join('')}${data.slice(2)}` as Hex, emitter);

  // A verified contract of the instance (stored as the verification service stores one, then its
  // methods added as the service adds them after each verification).
  const verifiedAt = '0x00000000000000000000000000000000000000f1';
  await saveVerified(f.stores.pg, {
    address_hash: verifiedAt, name: 'Frob', file_path: 'Frob.sol', language: 'solidity', compiler_version: 'v0.8.26+commit.8a97fa7a',
    evm_version: null, optimization: false, optimization_runs: null, via_ir: false, settings: {}, sources: {}, abi: FROB as unknown as unknown[],
    constructor_args: null, libraries: {}, match: 'full', runtime_match: 'full', creation_match: null, twin: null, license_type: 'none',
  });
  t.equal(await indexContractMethods(f.stores.pg), 1, "the verified contract's methods are added");

  const deposit = await call(encodeFunctionData({ abi: WETH, functionName: 'deposit' }));
  const frob = await call(encodeFunctionData({ abi: FROB, functionName: 'frobnicate', args: [7n, to as Hex] }));
  const zap = await call(encodeFunctionData({ abi: ZAP, functionName: 'zap', args: [9n, to as Hex] }));
  const quux = await call(encodeFunctionData({ abi: QUUX, functionName: 'quux', args: [3n] }));
  const wrongly = await call(encodeFunctionData({ abi: WRONG, functionName: 'wrongly', args: [4n] }));
  const wethLog = await emit(encodeEventTopics({ abi: WETH, eventName: 'Deposit', args: { dst: to as Hex } }) as Hex[], encodeAbiParameters([{ type: 'uint256' }], [5n]));
  const frobLog = await emit(encodeEventTopics({ abi: FROB, eventName: 'Frobbed', args: { x: 11n } }) as Hex[], encodeAbiParameters([{ type: 'address' }], [to as Hex]));
  const quuxLog = await emit(encodeEventTopics({ abi: QUUX, eventName: 'Quuxed', args: { who: to as Hex } }) as Hex[], encodeAbiParameters([{ type: 'uint256' }], [6n]));
  await f.catchUp();

  const tx = async (h: string) => (await f.get(`/api/v2/transactions/${h}`)).body;
  const log = async (h: string) => (await f.get(`/api/v2/transactions/${h}/logs`)).body.items[0];

  await t.test('the catalogue', async (t) => {
    const d = await tx(deposit);
    t.equal(d.method, 'deposit');
    t.match(d.method_naming, { source: 'catalogue', origin: /@uniswap\/v2-periphery@\S+ WETH9/, signature: 'deposit()', other_signatures: [] });
    t.same(d.decoded_input, { method_call: 'deposit()', method_id: '0xd0e30db0', parameters: [] });
    const l = await log(wethLog);
    t.equal(l.decoded?.method_call, 'Deposit(address indexed dst, uint256 wad)');
    t.equal(l.decoded_naming?.source, 'catalogue');
  });

  await t.test('another verified contract of the instance', async (t) => {
    const d = await tx(frob);
    t.equal(d.method, 'frobnicate');
    t.same(d.method_naming, { source: 'other_verified_contract', origin: verifiedAt, signature: 'frobnicate(uint256,address)', other_signatures: [] });
    t.same(d.decoded_input.parameters.map((p: { name: string; value: string }) => [p.name, p.value]), [['x', '7'], ['who', d.to.hash]]);
    const l = await log(frobLog);
    t.equal(l.decoded?.method_call, 'Frobbed(uint256 indexed x, address who)');
    t.same(l.decoded_naming, { source: 'other_verified_contract', origin: verifiedAt, signature: 'Frobbed(uint256,address)', other_signatures: [] });
    const list = (await f.get(`/api/v2/addresses/${to}/transactions`)).body.items;
    t.equal(list.find((x: { hash: string }) => x.hash === frob)?.method, 'frobnicate', 'lists name it too');
  });

  await t.test('an imported dump (explorer signatures import)', async (t) => {
    t.equal((await tx(zap)).method, toFunctionSelector(ZAP[0]), 'unnamed before the import: the raw selector');
    const dir = tmpDir(t, 'sig-import-');
    const file = path.join(dir, 'mine.csv');
    fs.writeFileSync(file, `selector,signature\n${toFunctionSelector(ZAP[0])},zap(uint256,address)\n0x12345678,zap(uint256,address)\nnonsense\n`);
    const r = spawnSync(process.execPath, [CLI, 'signatures', 'import', file, '--origin', 'my dump'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', DATABASE_URL: f.stores.pg.url, DATA_DIR: dir, LOG_FORMAT: 'json' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    t.equal(r.status, 0, r.stderr);
    t.match(r.stdout, /"msg":"signatures imported".*"read":3,"valid":1,"added":1,"unparsed":1,"mismatched":1/, 'counts what it read, kept and refused');
    const usage = spawnSync(process.execPath, [CLI, 'signatures', 'export'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dir }, encoding: 'utf8' });
    t.equal(usage.status, 2, 'an unknown sub-command is a usage error');
    await f.app.ctx.signatures.refresh(true);
    const d = await tx(zap);
    t.equal(d.method, 'zap', 'named once imported (the cached answer dropped)');
    t.same(d.method_naming, { source: 'imported', origin: 'my dump', signature: 'zap(uint256,address)', other_signatures: [] });
    t.same(d.decoded_input.parameters.map((p: { name: string; type: string }) => [p.name, p.type]), [['', 'uint256'], ['', 'address']], 'a bare signature: no parameter names');
  });

  await t.test('the online lookup', async (t) => {
    const before = await tx(quux);
    t.equal(before.method, toFunctionSelector(QUUX[0]), 'not named on the first answer: the lookup runs in the background');
    t.equal((await tx(wrongly)).method, toFunctionSelector(WRONG[0]));
    t.equal((await log(quuxLog)).decoded, null);
    await f.app.ctx.onlineSignatures!.idle();
    t.ok(asked.length >= 1, `the stub was asked (${asked.length} request(s))`);
    t.ok(asked.some((u) => u.includes(toFunctionSelector(QUUX[0]))), 'for the unknown selector');
    t.notOk(asked.some((u) => u.includes('0xd0e30db0')), 'never for one the catalogue names');
    await f.app.ctx.signatures.refresh(true);
    const d = await tx(quux);
    t.equal(d.method, 'quux');
    t.match(d.method_naming, { source: 'online', origin: /^127\.0\.0\.1:\d+$/, signature: 'quux(uint256)' });
    t.equal((await tx(wrongly)).method, toFunctionSelector(WRONG[0]), "an answer that does not hash to the selector asked is refused");
    const l = await log(quuxLog);
    t.equal(l.decoded?.method_call, 'Quuxed(address indexed, uint256)', 'an event from a bare signature: its first inputs taken as indexed');
    t.equal(l.decoded_naming?.source, 'online');
    const n = asked.length;
    await tx(wrongly);
    await f.app.ctx.onlineSignatures!.idle();
    t.equal(asked.length, n, 'a selector is asked once (the answer, found or not, is kept)');
  });
});
