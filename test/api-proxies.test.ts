// Proxies on the devnet (test/helpers/proxies.ts: an ERC1967Proxy, a TransparentUpgradeableProxy, a
// BeaconProxy with its UpgradeableBeacon, an EIP-1167 minimal proxy and proxies that keep their
// implementation in the EIP-1822 and zos slots, all of Box). Each is
// named with its kind and implementation in the address and smart-contract answers; a plain
// contract is none. Once the implementation is verified, calls to every proxy and the logs they
// emit decode with its ABI, the implementation is named, the minimal proxy counts as verified,
// methods-read-proxy reads the proxy's own state with the implementation's ABI; a beacon upgrade
// shows with the next block; a verified proxy keeps decoding through its implementation and
// getsourcecode says it is a proxy.
import t from 'tap';
import { getAddress, encodeFunctionData, parseAbi, type Hex } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { deployProxies, proxiesInput, storeCall, verificationResults } from './helpers/proxies.js';

t.test('proxies: detected, named, decoded through their implementation', async (t) => {
  const f = await apiWithDerived(t, { serve: true, verify: {} });
  const base = `http://127.0.0.1:${f.server!.port}`;
  const owner = f.devnet.scenario.accounts[0] as string;
  const input = proxiesInput();
  const { box, box2, erc1967, transparent, beacon, beaconProxy, eip1822, zos, minimal, send } = await deployProxies(f.devnet.url, owner, input);
  const call = await send({ to: erc1967, data: storeCall(42n) });
  await send({ to: minimal, data: storeCall(7n) });
  await f.catchUp();

  const proxies: [string, string, string][] = [
    ['ERC1967Proxy', erc1967, 'eip1967'],
    ['TransparentUpgradeableProxy', transparent, 'eip1967'],
    ['BeaconProxy', beaconProxy, 'eip1967_beacon'],
    ['EIP-1822 slot', eip1822, 'eip1822'],
    ['zos slot', zos, 'eip1967_oz'],
    ['EIP-1167 minimal proxy', minimal, 'eip1167'],
  ];
  const implementations = [{ address_hash: getAddress(box), name: null }];

  await t.test('every kind is detected, with its implementation', async (t) => {
    for (const [label, a, kind] of proxies) {
      const address = (await f.get(`/api/v2/addresses/${a}`)).body;
      t.match(address, { proxy_type: kind, implementations, is_verified: false }, `${label}: the address answer`);
      const sc = (await f.get(`/api/v2/smart-contracts/${a}`)).body;
      t.match(sc, { proxy_type: kind, implementations }, `${label}: the smart-contract answer`);
    }
    for (const plain of [box, beacon]) {
      t.match((await f.get(`/api/v2/addresses/${plain}`)).body, { proxy_type: null, implementations: [] }, 'a contract that is no proxy is none');
    }
    t.match((await f.get(`/api/v2/addresses/${owner}`)).body, { proxy_type: null, implementations: [] }, 'nor is an account');
    const tx = (await f.get(`/api/v2/transactions/${call.hash}`)).body;
    // store(uint256) is in the catalogue of npm packages' ABIs: named by it, and said so, until the implementation is verified.
    t.match(tx, { method: 'store', method_naming: { source: 'catalogue' }, to: { proxy_type: 'eip1967', implementations } }, 'before verification a call to the proxy is named by the catalogue only');
    t.same((await f.get(`/api/v2/smart-contracts/${erc1967}/methods-read-proxy`)).body, [], 'no verified implementation: no methods as proxy');
  });

  // Verification of the implementation (and later of a proxy) through the API v2.
  const config = (await f.get('/api/v2/smart-contracts/verification/config')).body;
  const version: string = config.solidity_compiler_versions[0];
  const { results, finished } = verificationResults(f.server!.app.ctx.verification!.service);
  const verify = async (address: string, name: string) => {
    const from = results.length;
    const form = new FormData();
    form.append('compiler_version', version);
    form.append('contract_name', name);
    form.append('files[0]', new Blob([JSON.stringify(input)], { type: 'application/json' }), 'input.json');
    const res = await fetch(`${base}/api/v2/smart-contracts/${address}/verification/via/standard-input`, { method: 'POST', body: form });
    t.equal(res.status, 200, `verification of ${name} started`);
    return finished(address, from);
  };

  await t.test('with the implementation verified, proxies decode and read through it', async (t) => {
    const done = await verify(box, 'Box.sol:Box');
    t.ok(done.ok, `Box verifies (${done.message ?? 'ok'})`);
    const named = [{ address_hash: getAddress(box), name: 'Box' }];
    for (const [label, a, kind] of proxies) {
      t.match((await f.get(`/api/v2/addresses/${a}`)).body, { proxy_type: kind, implementations: named }, `${label}: the implementation is named`);
    }
    t.equal((await f.get(`/api/v2/addresses/${minimal}`)).body.is_verified, true, 'a minimal proxy of a verified contract counts as verified');
    t.equal((await f.get(`/api/v2/addresses/${erc1967}`)).body.is_verified, false, 'another proxy does not: its own code is not verified');

    const tx = (await f.get(`/api/v2/transactions/${call.hash}`)).body;
    t.equal(tx.method, 'store', "a call to the proxy is named by the implementation's ABI");
    t.equal(tx.decoded_input?.method_call, 'store(uint256 v)');
    t.equal(tx.method_naming?.source, 'verified_abi', "by the implementation's verified ABI now");
    t.equal(tx.decoded_input?.parameters?.[0]?.value, '42');
    const logs = (await f.get(`/api/v2/transactions/${call.hash}/logs`)).body.items;
    t.equal(logs[0].address.hash.toLowerCase(), erc1967, 'the proxy emitted the log');
    t.equal(logs[0].decoded?.method_call, 'ValueChanged(uint256 newValue)', 'and it decodes with the implementation');
    const listed = (await f.get(`/api/v2/addresses/${erc1967}/transactions`)).body.items;
    t.equal(listed.find((x: { hash: string }) => x.hash === call.hash)?.method, 'store', 'in lists too');

    const reads = (await f.get(`/api/v2/smart-contracts/${erc1967}/methods-read-proxy`)).body;
    t.match(reads, [{ name: 'value', method_id: '3fa4f245', outputs: [{ type: 'uint256', value: '42' }] }], "read as proxy: the implementation's method with the proxy's value");
    t.match((await f.get(`/api/v2/smart-contracts/${minimal}/methods-read-proxy`)).body, [{ name: 'value', outputs: [{ value: '7' }] }], 'the minimal proxy has its own state');
    t.match((await f.get(`/api/v2/smart-contracts/${box}/methods-read`)).body, [{ name: 'value', outputs: [{ value: '0' }] }], 'the implementation itself was never written');
    const writes = (await f.get(`/api/v2/smart-contracts/${erc1967}/methods-write-proxy`)).body;
    t.match(writes, [{ name: 'store', method_id: '6057361d' }], 'write as proxy: the implementation\'s write methods');
    t.same((await f.get(`/api/v2/smart-contracts/${box}/methods-read-proxy`)).body, [], 'a contract that is no proxy has none');
    t.equal((await f.get(`/api/v2/smart-contracts/0x${'12'.repeat(20)}/methods-read-proxy`)).status, 404, 'not a contract: 404');
  });

  await t.test('a beacon upgrade shows with the next block', async (t) => {
    await send({ to: beacon, data: encodeFunctionData({ abi: parseAbi(['function upgradeTo(address)']), functionName: 'upgradeTo', args: [box2 as Hex] }) });
    await f.catchUp();
    t.match((await f.get(`/api/v2/addresses/${beaconProxy}`)).body, { proxy_type: 'eip1967_beacon', implementations: [{ address_hash: getAddress(box2), name: null }] }, "the beacon's new implementation");
    t.match((await f.get(`/api/v2/smart-contracts/${beaconProxy}`)).body, { implementations: [{ address_hash: getAddress(box2) }] });
  });

  await t.test('a verified proxy still decodes through its implementation; getsourcecode says it is a proxy', async (t) => {
    const done = await verify(erc1967, '@openzeppelin/contracts/proxy/ERC1967/ERC1967Proxy.sol:ERC1967Proxy');
    t.ok(done.ok, `the ERC1967Proxy verifies (${done.message ?? 'ok'})`);
    const address = (await f.get(`/api/v2/addresses/${erc1967}`)).body;
    t.match(address, { is_verified: true, name: 'ERC1967Proxy', proxy_type: 'eip1967', implementations: [{ name: 'Box' }] });
    const tx = (await f.get(`/api/v2/transactions/${call.hash}`)).body;
    t.equal(tx.method, 'store', "a selector the proxy's own ABI lacks is the implementation's");
    const src = (await (await fetch(`${base}/api?module=contract&action=getsourcecode&address=${erc1967}`)).json()).result[0];
    t.match(src, { ContractName: 'ERC1967Proxy', IsProxy: 'true', ImplementationAddress: box, ImplementationAddresses: [box] });
    const plain = (await (await fetch(`${base}/api?module=contract&action=getsourcecode&address=${box}`)).json()).result[0];
    t.match(plain, { ContractName: 'Box', IsProxy: 'false' });
    t.notOk('ImplementationAddress' in plain);
  });

  await t.test('without an answer from the node the kind stays unknown, never guessed', async (t) => {
    const ctx = f.server!.app.ctx;
    const saved = (ctx as unknown as { rpc: unknown }).rpc;
    (ctx as unknown as { rpc: unknown }).rpc = { batch: async () => [], request: async () => { throw new Error('down'); } };
    t.teardown(() => void ((ctx as unknown as { rpc: unknown }).rpc = saved));
    ctx.onChainChange('reorg');
    const res = await f.get(`/api/v2/addresses/${transparent}`);
    t.equal(res.status, 200);
    t.match(res.body, { proxy_type: null, implementations: [] });
  });
});
