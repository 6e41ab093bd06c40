// Contract verification through the API v2 on the devnet, over HTTP as Blockscout's frontend posts
// it (multipart, the standard JSON input as files[0]): the devnet's token verifies as a full match
// with its constructor arguments recovered; the result arrives on the websocket and in
// /smart-contracts/{address}; from then on everyone's responses name the contract and decode its
// calls and logs with its ABI (also a call no standard interface knows); the verified list and
// counters count it; wagmi's CLI generates its ABI from this API. A wrong source, an unknown compiler version (offline), an account without
// code and bad requests fail with clear messages and change nothing. The compile runs off the
// API's event loop: cached answers keep coming while it runs.
import t from 'tap';
import { apiWithDerived } from './helpers/api-derived.js';
import { devnetStandardInput } from './helpers/devnet.js';
import { phoenix, join } from './helpers/ws-raw.js';
import { jobStatus } from '../src/storage/postgres/verified.js';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpDir } from './helpers/tmp.js';
import { compileContracts } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { encodeAbiParameters } from 'viem';
import { verificationResults } from './helpers/proxies.js';

t.test('verification via standard JSON input', async (t) => {
  const f = await apiWithDerived(t, { serve: true, verify: {} });
  const base = `http://127.0.0.1:${f.server!.port}`;
  const s = f.devnet.scenario;
  const token = s.contracts.DevnetToken.toLowerCase();
  const nft = s.contracts.DevnetNFT.toLowerCase();
  const input = await devnetStandardInput();
  const config = (await f.get('/api/v2/smart-contracts/verification/config')).body;
  const version: string = config.solidity_compiler_versions[0];
  t.match(version, /^v0\.8\.\d+\+commit\.[0-9a-f]{8}$/, 'the config lists the compiler installed from npm');
  t.same(config.verification_options, ['standard-input', 'flattened-code', 'multi-part']);

  const post = async (address: string, fields: Record<string, string>, file?: unknown, kind = 'standard-input') => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    if (file !== undefined) form.append('files[0]', new Blob([typeof file === 'string' ? file : JSON.stringify(file)], { type: 'application/json' }), 'input.json');
    const res = await fetch(`${base}/api/v2/smart-contracts/${address}/verification/via/${kind}`, { method: 'POST', body: form });
    return { status: res.status, body: await res.json() };
  };
  const { results, finished } = verificationResults(f.server!.app.ctx.verification!.service);

  await t.test('the token verifies as a full match; the websocket says so', async (t) => {
    const socket = phoenix(f.server!.port);
    socket.connect();
    t.teardown(() => socket.disconnect());
    const channel = socket.channel(`addresses:${s.contracts.DevnetToken}`, {});
    t.equal((await join(channel)).status, 'ok');
    const pushed = new Promise<unknown>((resolve) => channel.on('verification_result', resolve));

    const before = await f.get(`/api/v2/smart-contracts/${token}`);
    t.equal(before.body.is_verified, false, 'not verified before');
    const from = results.length;
    // While it compiles, a cached endpoint keeps answering: the compile is off the event loop.
    const answered: number[] = [];
    let compiling = true;
    const prober = (async () => {
      while (compiling) {
        const t0 = performance.now();
        await fetch(`${base}/api/v2/stats`);
        answered.push(performance.now() - t0);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const compileFrom = performance.now();
    const r = await post(token, { compiler_version: version, contract_name: 'DevnetToken', license_type: 'mit' }, input);
    t.same(r, { status: 200, body: { message: 'Smart-contract verification started' } });
    const done = await finished(token, from);
    const compileMs = performance.now() - compileFrom;
    compiling = false;
    await prober;
    t.ok(done.ok, `verified (${done.message ?? 'ok'})`);
    t.ok(answered.length >= 5, `the API answered ${answered.length} requests while the compile ran`);
    // A compile on the event loop would hold one request for about all of it; a busy machine (two
    // test files at a time) can delay one past a second without that.
    const slowest = Math.max(...answered);
    t.ok(slowest < Math.max(1000, compileMs / 2), `none waited for the compile (slowest ${Math.round(slowest)} ms of a ${Math.round(compileMs)}-ms compile)`);
    t.same(await pushed, { status: 'success' }, 'verification_result on addresses:<hash>');
    t.equal((await jobStatus(f.stores.pg, done.guid))?.status, 'pass');

    const sc = (await f.get(`/api/v2/smart-contracts/${token}`)).body;
    t.match(sc, {
      is_verified: true,
      is_fully_verified: true,
      is_partially_verified: false,
      name: 'DevnetToken',
      file_path: 'DevnetToken.sol',
      compiler_version: version,
      optimization_enabled: true,
      optimization_runs: 200,
      evm_version: 'cancun',
      language: 'solidity',
    });
    t.match(sc.source_code, /contract DevnetToken/, 'the source');
    t.ok(sc.additional_sources.some((x: { file_path: string }) => x.file_path === '@openzeppelin/contracts/token/ERC20/ERC20.sol'), 'and the files it imports');
    t.notOk(sc.additional_sources.some((x: { file_path: string }) => x.file_path === 'DevnetNFT.sol'), 'only those: not the other files of the input');
    t.equal(sc.license_type, 'mit', 'the license chosen');
    t.same(
      sc.decoded_constructor_args.map((a: [unknown, { name: string }]) => a[0]),
      ['Devnet Token', 'DVT'],
      'the constructor arguments, recovered from the creation input',
    );
    t.match(sc.verified_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const abi = (await compileContracts()).DevnetToken.abi;
    t.same(
      sc.abi.map((e: { type: string; name?: string }) => `${e.type}:${e.name ?? ''}`).sort(),
      abi.map((e) => `${e.type}:${'name' in e ? e.name : ''}`).sort(),
      "the ABI is the compiler's",
    );

    const again = await post(token, { compiler_version: version, contract_name: 'DevnetToken' }, input);
    t.same(again, { status: 200, body: { message: 'Already verified' } }, 'a second verification is refused as Blockscout refuses it');
  });

  await t.test("wagmi's CLI generates the contract's ABI from this API (blockExplorer plugin)", async (t) => {
    const dir = tmpDir(t, 'explorer-wagmi-');
    const plugins = createRequire(import.meta.url).resolve('@wagmi/cli/plugins');
    fs.writeFileSync(
      path.join(dir, 'wagmi.config.mjs'),
      `import { blockExplorer } from ${JSON.stringify(plugins)};\n` +
        `export default { out: 'generated.ts', contracts: [], plugins: [blockExplorer({ baseUrl: ${JSON.stringify(`${base}/api`)}, apiKey: 'any', cacheDuration: 0, ` +
        `contracts: [{ name: 'DevnetToken', address: ${JSON.stringify(s.contracts.DevnetToken)} }] })] };\n`,
    );
    const cli = createRequire(import.meta.url).resolve('@wagmi/cli/package.json').replace(/package\.json$/, 'dist/esm/cli.js');
    // HOME: the CLI keeps a fetch cache there. Not spawnSync: the API answering it runs in this process.
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [cli, 'generate', '--config', 'wagmi.config.mjs'], { cwd: dir, env: { ...process.env, HOME: dir } });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      child.stdout.resume();
      child.on('close', (code) => resolve({ code, stderr }));
    });
    t.equal(run.code, 0, `wagmi generate exits 0 ${run.stderr.slice(-500)}`);
    const generated = fs.readFileSync(path.join(dir, 'generated.ts'), 'utf8');
    const literal = /export const devnetTokenAbi = (\[[\s\S]*?\n\])/.exec(generated)?.[1];
    t.ok(literal, 'generated.ts holds devnetTokenAbi');
    const got = new Function(`return ${literal}`)() as { type: string; name?: string }[];
    const solc = (await compileContracts()).DevnetToken.abi;
    t.same(got, solc, 'the same ABI solc produced, item for item');
  });

  await t.test("everyone's responses use the verified contract", async (t) => {
    const addr = (await f.get(`/api/v2/addresses/${token}`)).body;
    t.equal(addr.is_verified, true);
    t.equal(addr.name, 'DevnetToken', 'the address is called by its contract name');
    const mint = s.txs.find((x) => x.label === 'erc20 mint alice 1000')!;
    const tx = (await f.get(`/api/v2/transactions/${mint.hash}`)).body;
    t.equal(tx.method, 'mint', 'a call no standard interface knows is named by the verified ABI');
    t.equal(tx.decoded_input?.method_call, 'mint(address to, uint256 amount)');
    t.equal(tx.to.is_verified, true);
    const csv = await (await fetch(`${base}/api/v2/addresses/${token}/transactions/csv?from_period=null&to_period=null`)).text();
    const line = csv.split('\r\n').find((l) => l.startsWith(mint.hash)) ?? csv.split('\n').find((l) => l.startsWith(mint.hash));
    t.match(line, /,mint\r?$/, "the CSV export names it by the verified ABI too (its Method column, last)");
    const logs = (await f.get(`/api/v2/transactions/${mint.hash}/logs`)).body;
    t.equal(logs.items[0].decoded?.method_call, 'Transfer(address indexed from, address indexed to, uint256 value)', 'its logs decoded');
    const reads = (await f.get(`/api/v2/smart-contracts/${token}/methods-read`)).body;
    t.ok(
      reads.some((m: { name: string; outputs: { value?: unknown }[] }) => m.name === 'owner' && typeof m.outputs[0].value === 'string'),
      "read methods come from the verified ABI (owner() is no token standard's), with their values",
    );
    const list = (await f.get('/api/v2/smart-contracts')).body;
    t.equal(list.items.length, 1, 'the verified list holds it');
    t.match(list.items[0], { compiler_version: version, language: 'solidity', has_constructor_args: true, optimization_enabled: true });
    t.equal(list.items[0].address.hash.toLowerCase(), token);
    t.same((await f.get('/api/v2/smart-contracts?q=devnettok')).body.items.length, 1, 'found by a piece of its name');
    // A NUL cannot be a PostgreSQL text parameter, and no name holds one (this answered 500).
    const nul = await f.get('/api/v2/smart-contracts?q=devnet%00tok');
    t.same([nul.status, nul.body.items], [200, []], 'a query with a NUL finds nothing');
    t.same((await f.get('/api/v2/smart-contracts?filter=vyper')).body.items, [], 'not among Vyper contracts');
    const counters = (await f.get('/api/v2/smart-contracts/counters')).body;
    t.equal(counters.verified_smart_contracts, '1');
    t.equal(counters.new_verified_smart_contracts_24h, '1');
    const service = (await f.get('/api/v1/counters')).body.counters.find((x: { id: string }) => x.id === 'totalVerifiedContracts');
    t.equal(service?.value, '1', "the stats service's counter counts it too");
  });

  await t.test('failures say why and change nothing', async (t) => {
    // A source that is not the deployed one (a changed base URI constant would do; here a comment
    // changes the metadata hash and an added function the code).
    const wrong = structuredClone(input);
    wrong.sources['DevnetNFT.sol'].content = wrong.sources['DevnetNFT.sol'].content.replace(/\}\s*$/, '  function extra() external pure returns (uint256) { return 7; }\n}\n');
    let from = results.length;
    t.equal((await post(nft, { compiler_version: version, contract_name: 'DevnetNFT' }, wrong)).status, 200, 'accepted for checking');
    let r = await finished(nft, from);
    t.equal(r.ok, false, 'a wrong source fails');
    t.match(r.message, /match|bytecode/i, `with the reason: ${r.message}`);
    t.equal((await jobStatus(f.stores.pg, r.guid))?.status, 'fail');
    t.equal((await f.get(`/api/v2/smart-contracts/${nft}`)).body.is_verified, false, 'and the contract stays unverified');

    from = results.length;
    t.equal((await post(nft, { compiler_version: 'v0.8.19+commit.7dd6d404', contract_name: 'DevnetNFT' }, input)).status, 200);
    r = await finished(nft, from);
    t.equal(r.ok, false, 'a version this offline instance does not have fails');
    t.match(r.message, /v0\.8\.19\+commit\.7dd6d404/, `naming the version: ${r.message}`);
    t.match(r.message, /soljson-v0\.8\.19\+commit\.7dd6d404\.js/, 'and how to add it');

    const eoa = s.accounts[1].toLowerCase();
    t.same(await post(eoa, { compiler_version: version, contract_name: 'DevnetToken' }, input), { status: 400, body: { message: 'Address is not a smart-contract' } });
    t.equal((await post('0x1234', { compiler_version: version, contract_name: 'X' }, input)).status, 422, 'a malformed address');
    t.match(await post(nft, { compiler_version: 'latest', contract_name: 'DevnetNFT' }, input), { status: 422, body: { message: /compiler_version/ } });
    t.match(await post(nft, { compiler_version: version }, input), { status: 422, body: { message: /contract_name/ } });
    t.match(await post(nft, { compiler_version: version, contract_name: 'NoSuchContract' }, input), { status: 422, body: { message: /no source of the input declares a contract NoSuchContract/ } }, 'a name no source declares, at once');
    t.match(await post(nft, { compiler_version: version, contract_name: 'DevnetNFT' }), { status: 422, body: { message: /files\[0\]/ } });
    t.match(await post(nft, { compiler_version: version, contract_name: 'DevnetNFT' }, '{not json'), { status: 422, body: { message: /not valid JSON/ } });
    const vyper = await fetch(`${base}/api/v2/smart-contracts/${nft}/verification/via/vyper-code`, { method: 'POST', body: new FormData() });
    t.match({ status: vyper.status, body: await vyper.json() }, { status: 422, body: { message: /not supported here/ } }, 'a form not accepted here says so');
    t.equal((await f.get('/api/v2/smart-contracts/counters')).body.verified_smart_contracts, '1', 'nothing else was verified');
  });

  await t.test("Etherscan's verifysourcecode and checkverifystatus, as forge and hardhat-verify send them", async (t) => {
    const multi = s.contracts.DevnetMulti.toLowerCase();
    const rpc = async (fields: Record<string, string>, method: 'GET' | 'POST' = 'POST') => {
      const body = new URLSearchParams(fields);
      const res = method === 'POST' ? await fetch(`${base}/api`, { method, body }) : await fetch(`${base}/api?${body}`);
      return res.json();
    };
    t.same(await rpc({ module: 'contract', action: 'getabi', address: multi }, 'GET'), { status: '0', message: 'Contract source code not verified', result: null }, "forge's pre-check: not verified");
    t.same(await rpc({ module: 'contract', action: 'getsourcecode', address: multi }, 'GET'), { status: '1', message: 'OK', result: [{ Address: multi }] }, "hardhat's pre-check: no SourceCode");
    const form = {
      module: 'contract',
      action: 'verifysourcecode',
      apikey: 'whatever',
      codeformat: 'solidity-standard-json-input',
      contractaddress: s.contracts.DevnetMulti,
      contractname: 'DevnetMulti.sol:DevnetMulti',
      compilerversion: version,
      sourceCode: JSON.stringify(input),
      constructorArguements: '',
    };
    const submitted = await rpc(form);
    t.match(submitted, { status: '1', message: 'OK', result: new RegExp(`^${multi.slice(2)}[0-9a-f]+$`) }, "a guid: the address's hex and the time");
    let status = '';
    const end = Date.now() + 120_000;
    while (Date.now() < end) {
      const r = await rpc({ module: 'contract', action: 'checkverifystatus', guid: submitted.result }, 'GET');
      t.equal(r.status, '1', 'status "1" whatever the state');
      status = r.result;
      if (status !== 'Pending in queue') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    t.equal(status, 'Pass - Verified');
    const abi = await rpc({ module: 'contract', action: 'getabi', address: multi }, 'GET');
    t.equal(abi.status, '1');
    t.ok(JSON.parse(abi.result).some((e: { name?: string }) => e.name === 'safeTransferFrom'), 'getabi answers the ABI as a JSON string');
    const src = (await rpc({ module: 'contract', action: 'getsourcecode', address: multi }, 'GET')).result[0];
    t.match(src, { ContractName: 'DevnetMulti', CompilerVersion: version, OptimizationUsed: 'true', OptimizationRuns: 200, EVMVersion: 'cancun', FileName: 'DevnetMulti.sol', IsProxy: 'false' });
    t.match(src.SourceCode, /contract DevnetMulti/, 'getsourcecode has the source hardhat looks for');
    t.same(await rpc(form), { status: '0', message: 'Smart-contract already verified.', result: 'Smart-contract already verified.' }, 'the literal forge and hardhat match');
    t.same(await rpc({ module: 'contract', action: 'checkverifystatus', guid: 'ab'.repeat(24) }, 'GET'), { status: '1', message: 'OK', result: 'Unknown UID' });
    const { codeformat: _format, ...noFormat } = form;
    t.same(await rpc(noFormat), { status: '0', message: 'Missing codeformat field', result: null });
    const { sourceCode: _omit, ...noSource } = form;
    t.same(await rpc(noSource), { status: '0', message: 'Missing sourceCode or contractaddress fields', result: null });
    t.match(await rpc({ ...form, contractaddress: '0x12' }), { status: '0', message: 'Invalid address hash' });
    t.match(await rpc({ ...form, contractaddress: s.contracts.Reverter, contractname: '' }), { status: '0', message: 'contractname is required.' });
    t.same(await rpc({ module: 'contract', action: 'getabi' }, 'GET'), { status: '0', message: 'Query parameter address is required', result: null });
    t.same(await rpc({ module: 'contract', action: 'getabi', address: 'nope' }, 'GET'), { status: '0', message: 'Invalid address hash', result: null });
  });

  await t.test('flattened code with a linked library, an immutable and constructor arguments; a single file as a partial match; multi-part files', async (t) => {
    const SRC = [
      '// SPDX-License-Identifier: MIT',
      'pragma solidity ^0.8.20;',
      'library Doubler { function twice(uint256 x) external pure returns (uint256) { return 2 * x; } }',
      'contract Counter {',
      '  uint256 public immutable start;',
      '  uint256 public count;',
      '  constructor(uint256 s) { start = s; count = s; }',
      '  function bump() external { count = Doubler.twice(count) + 1; }',
      '}',
      '',
    ].join('\n');
    // Compiled as a developer would, optimizer off, for paris; the library deployed and linked.
    const solc = createRequire(import.meta.url)('solc') as { compile(s: string): string };
    const out = JSON.parse(
      solc.compile(JSON.stringify({ language: 'Solidity', sources: { 'Counter.sol': { content: SRC } }, settings: { evmVersion: 'paris', outputSelection: { '*': { '*': ['evm.bytecode.object'] } } } })),
    );
    const deploy = async (code: string) => {
      const hash = await rpc<string>(f.devnet.url, 'eth_sendTransaction', [{ from: s.accounts[0], data: `0x${code}`, gas: '0x400000' }]);
      await minedIn(f.devnet.url, hash);
      return (await rpc<{ contractAddress: string }>(f.devnet.url, 'eth_getTransactionReceipt', [hash])).contractAddress.toLowerCase();
    };
    const lib = await deploy(out.contracts['Counter.sol'].Doubler.evm.bytecode.object);
    const linked = (out.contracts['Counter.sol'].Counter.evm.bytecode.object as string).replace(/__\$[0-9a-f]{34}\$__/g, lib.slice(2));
    const counter = await deploy(linked + encodeAbiParameters([{ type: 'uint256' }], [5n]).slice(2));
    await f.catchUp();

    const fields = { compiler_version: version, contract_name: 'Counter', source_code: SRC, is_optimization_enabled: 'false', evm_version: 'paris', libraries: JSON.stringify({ Doubler: lib }) };
    // Arguments given by hand must be the creation's.
    let from = results.length;
    t.equal((await post(counter, { ...fields, autodetect_constructor_args: 'false', constructor_args: encodeAbiParameters([{ type: 'uint256' }], [6n]) }, undefined, 'flattened-code')).status, 200);
    let done = await finished(counter, from);
    t.equal(done.ok, false, 'wrong constructor arguments fail');
    t.match(done.message, /constructor arguments given .* are not those of the creation transaction/, `saying so: ${done.message}`);
    from = results.length;
    const flat = await post(counter, { ...fields, autodetect_constructor_args: 'false', constructor_args: encodeAbiParameters([{ type: 'uint256' }], [5n]) }, undefined, 'flattened-code');
    t.same(flat, { status: 200, body: { message: 'Smart-contract verification started' } });
    done = await finished(counter, from);
    t.ok(done.ok, `the flattened file verifies (${done.message ?? 'ok'})`);
    const sc = (await f.get(`/api/v2/smart-contracts/${counter}`)).body;
    t.match(sc, { is_fully_verified: true, name: 'Counter', optimization_enabled: false, evm_version: 'paris' });
    t.same(sc.decoded_constructor_args.map((a: [unknown]) => a[0]), ['5'], 'the constructor argument');
    t.same(sc.external_libraries.map((l: { address_hash: string }) => l.address_hash.toLowerCase()), [lib], 'the linked library, read from the deployed code');
    t.equal((await f.get(`/api/v2/smart-contracts/${counter}/methods-read`)).body.find((m: { name: string }) => m.name === 'start')?.outputs[0].value, '5', 'the immutable read back');

    // The library alone, as a single file named after it: the metadata hash differs (the unit was Counter.sol).
    from = results.length;
    const single = await fetch(`${base}/api`, {
      method: 'POST',
      body: new URLSearchParams({ module: 'contract', action: 'verifysourcecode', codeformat: 'solidity-single-file', contractaddress: lib, contractname: 'Doubler', compilerversion: version, sourceCode: SRC, optimizationUsed: '0', evmversion: 'paris' }),
    }).then((r) => r.json());
    t.equal(single.status, '1', `a single file is accepted (${single.result})`);
    done = await finished(lib, from);
    t.ok(done.ok, `and verifies (${done.message ?? 'ok'})`);
    t.match((await f.get(`/api/v2/smart-contracts/${lib}`)).body, { is_verified: true, is_partially_verified: true, is_fully_verified: false, name: 'Doubler' }, 'as a partial match');

    // Several files named by their paths, with the devnet's settings: a full match.
    const forwarder = s.contracts.Forwarder.toLowerCase();
    const form = new FormData();
    for (const [k, v] of Object.entries({ compiler_version: version, contract_name: 'Forwarder', is_optimization_enabled: 'true', optimization_runs: '200', evm_version: 'cancun' })) form.append(k, v);
    Object.entries(input.sources).forEach(([p, src], i) => form.append(`files[${i}]`, new Blob([src.content]), p));
    from = results.length;
    const multi = await fetch(`${base}/api/v2/smart-contracts/${forwarder}/verification/via/multi-part`, { method: 'POST', body: form });
    t.equal(multi.status, 200);
    done = await finished(forwarder, from);
    t.ok(done.ok, `multi-part files verify (${done.message ?? 'ok'})`);
    t.match((await f.get(`/api/v2/smart-contracts/${forwarder}`)).body, { is_fully_verified: true, name: 'Forwarder', file_path: 'Forwarder.sol' });
    // The scenario deployed the same build twice: the second is the first's bytecode twin.
    const hop = (await f.get(`/api/v2/smart-contracts/${s.contracts.ForwarderHop.toLowerCase()}`)).body;
    t.match(hop, { is_verified: false, verified_twin_address_hash: s.contracts.Forwarder, name: 'Forwarder', file_path: 'Forwarder.sol' }, 'a bytecode twin shows the verified source, marked as such');
    t.match(hop.source_code, /contract Forwarder/);
    t.equal((await f.get(`/api/v2/smart-contracts/${s.contracts.DevnetMulti.toLowerCase()}`)).body.verified_twin_address_hash ?? null, null, 'a verified contract is nobody else’s twin');
    t.match(await post(forwarder, { compiler_version: version, contract_name: 'X', optimization_runs: '-1' }, undefined, 'multi-part'), { status: 422 }, 'no files, or bad settings, refused');
  });

  await t.test('a second compiler version: a contract built with solc 0.8.26 (installed from npm as solc-0.8.26)', async (t) => {
    const older: string = config.solidity_compiler_versions.find((v: string) => v.startsWith('v0.8.26+'));
    t.ok(older, 'the config lists it');
    const SRC = '// SPDX-License-Identifier: MIT\npragma solidity 0.8.26;\ncontract Store { uint256 public value; function set(uint256 v) external { value = v; } }\n';
    const solc26 = createRequire(import.meta.url)('solc-0.8.26') as { compile(s: string): string };
    const out = JSON.parse(solc26.compile(JSON.stringify({ language: 'Solidity', sources: { 'Store.sol': { content: SRC } }, settings: { optimizer: { enabled: true, runs: 1000 }, outputSelection: { '*': { '*': ['evm.bytecode.object'] } } } })));
    const hash = await rpc<string>(f.devnet.url, 'eth_sendTransaction', [{ from: s.accounts[0], data: `0x${out.contracts['Store.sol'].Store.evm.bytecode.object}`, gas: '0x200000' }]);
    await minedIn(f.devnet.url, hash);
    const store = (await rpc<{ contractAddress: string }>(f.devnet.url, 'eth_getTransactionReceipt', [hash])).contractAddress.toLowerCase();
    await f.catchUp();
    const from = results.length;
    t.equal((await post(store, { compiler_version: version, contract_name: 'Store', source_code: SRC, is_optimization_enabled: 'true', optimization_runs: '1000' }, undefined, 'flattened-code')).status, 200);
    let done = await finished(store, from);
    t.equal(done.ok, false, 'the newer compiler does not reproduce it');
    t.match(done.message, /do not compile: .*requires different compiler version/, `solc's own reason: ${done.message}`);
    const again = results.length;
    t.equal((await post(store, { compiler_version: older, contract_name: 'Store', source_code: SRC, is_optimization_enabled: 'true', optimization_runs: '1000' }, undefined, 'flattened-code')).status, 200);
    done = await finished(store, again);
    t.ok(done.ok, `solc 0.8.26 does (${done.message ?? 'ok'})`);
    t.match((await f.get(`/api/v2/smart-contracts/${store}`)).body, { is_fully_verified: true, compiler_version: older, optimization_runs: 1000 });
  });

  await t.test('via-IR: an OpenZeppelin-based contract compiled through the IR pipeline', async (t) => {
    const SRC = [
      '// SPDX-License-Identifier: MIT',
      'pragma solidity ^0.8.20;',
      'import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";',
      'contract Vault is Ownable {',
      '  uint256 public total;',
      '  constructor(address o) Ownable(o) {}',
      '  function add(uint256 v) external onlyOwner { total += v; }',
      '}',
      '',
    ].join('\n');
    const req = createRequire(import.meta.url);
    const sources: Record<string, { content: string }> = { 'Vault.sol': { content: SRC } };
    for (const dep of ['@openzeppelin/contracts/access/Ownable.sol', '@openzeppelin/contracts/utils/Context.sol']) sources[dep] = { content: fs.readFileSync(req.resolve(dep), 'utf8') };
    const viaIr = { language: 'Solidity', sources, settings: { viaIR: true, optimizer: { enabled: true, runs: 50 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['evm.bytecode.object'] } } } };
    const out = JSON.parse((req('solc') as { compile(s: string): string }).compile(JSON.stringify(viaIr)));
    const args = encodeAbiParameters([{ type: 'address' }], [s.accounts[0] as `0x${string}`]).slice(2);
    const hash = await rpc<string>(f.devnet.url, 'eth_sendTransaction', [{ from: s.accounts[0], data: `0x${out.contracts['Vault.sol'].Vault.evm.bytecode.object}${args}`, gas: '0x400000' }]);
    await minedIn(f.devnet.url, hash);
    const vault = (await rpc<{ contractAddress: string }>(f.devnet.url, 'eth_getTransactionReceipt', [hash])).contractAddress.toLowerCase();
    await f.catchUp();
    // Without viaIR the same sources give other code: the setting is what makes it match.
    let from = results.length;
    const legacy = { ...viaIr, settings: { ...viaIr.settings, viaIR: false } };
    t.equal((await post(vault, { compiler_version: version, contract_name: 'Vault' }, legacy)).status, 200);
    let done = await finished(vault, from);
    t.equal(done.ok, false, `the legacy pipeline does not reproduce it (${done.message})`);
    from = results.length;
    t.equal((await post(vault, { compiler_version: version, contract_name: 'Vault' }, viaIr)).status, 200);
    done = await finished(vault, from);
    t.ok(done.ok, `via-IR verifies (${done.message ?? 'ok'})`);
    const sc = (await f.get(`/api/v2/smart-contracts/${vault}`)).body;
    t.match(sc, { is_fully_verified: true, name: 'Vault', optimization_runs: 50, compiler_settings: { viaIR: true } });
    t.same(sc.decoded_constructor_args.map((a: [unknown]) => String(a[0]).toLowerCase()), [s.accounts[0].toLowerCase()], 'its constructor argument');
  });

  await t.test('verifying the one source that declares a name, or path:Name', async (t) => {
    const from = results.length;
    const r = await post(nft, { compiler_version: version, contract_name: 'DevnetNFT.sol:DevnetNFT' }, input);
    t.equal(r.status, 200);
    const done = await finished(nft, from);
    t.ok(done.ok, `the NFT verifies with path:Name (${done.message ?? 'ok'})`);
    t.equal((await f.get(`/api/v2/smart-contracts/${nft}`)).body.name, 'DevnetNFT');
    t.equal((await f.get('/api/v2/smart-contracts')).body.items[0].address.hash.toLowerCase(), nft, 'newest verified first');
  });
});
