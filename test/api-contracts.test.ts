// /api/v2/smart-contracts/{address}, /methods-read and /methods-write on the indexed devnet
// scenario with the derived lanes run to completion: deployed code equal to eth_getCode, the
// creation bytecode of a deployment and of a CREATE2 child equal to what created them, verified
// fields null, a 404 for a non-contract, the standard token ABIs with method ids, read methods
// carrying the current name / symbol / totalSupply / decimals from the node (and changing with
// the chain), errors reported per method, OpenAPI conformance, and fuzz.
import t, { type Test } from 'tap';
import { encodeDeployData, encodeFunctionData, parseAbi, toFunctionSelector, createWalletClient, http as viemHttp, type Hex } from 'viem';
import { withDevnet, compileContracts, devAccount } from './helpers/devnet.js';
import { embeddedStores } from './helpers/stores.js';
import { rpcCall, request } from './helpers/api.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createDerived } from '../src/derived/scheduler.js';
import { createApiApp, type ApiApp } from '../src/api/app.js';
import { createRpcClient } from '../src/rpc/client.js';
import type { PgStore } from '../src/storage/postgres/store.js';
import { createLogger, type Logger } from '../src/log.js';
import { renderValue, isReadMethod, isWriteMethod, methodId } from '../src/api/serializers/smart-contract.js';
import { ERC20_ABI, erc721Abi, erc1155Abi } from '../src/api/routes/smart-contracts.js';

const V2 = '/api/v2';

async function waitFor(cond: () => Promise<boolean>, ms = 90_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out waiting for the derived lanes');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function settled(pg: PgStore): Promise<boolean> {
  const [r] = await pg.query<{ n: number }>(
    `SELECT ((SELECT block_number FROM indexer_checkpoints LIMIT 1) IS DISTINCT FROM (SELECT block_number FROM derived_cursors WHERE lane = 'accounting'))::int
          + (SELECT count(*) FROM tokens WHERE metadata_fetched_at IS NULL OR supply_stale)::int
          + (SELECT count(*) FROM contracts WHERE code IS NULL)::int AS n`,
  );
  return Number(r!.n) === 0;
}

/** Indexer + derived lanes over the devnet scenario, settled; the API app over the stores, with the node. */
async function fixture(t: Test) {
  const devnet = await withDevnet(t);
  const stores = await embeddedStores(t);
  const head = Number(await rpcCall<string>(devnet.url, 'eth_blockNumber'));
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: devnet.url, variant: 'geth' }, batchBlocks: 8, workers: 1, pollMs: 100, pending: false });
  const derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, pollMs: 50, rangeBlocks: 10, nftTimeoutMs: 500, nftMaxAttempts: 1 });
  derived.attach(indexer);
  t.teardown(async () => {
    await derived.stop();
    await indexer.stop();
  });
  await indexer.start();
  derived.start();
  await indexer.waitFor(head, 120_000);
  await waitFor(() => settled(stores.pg));
  const rpc = createRpcClient({ url: devnet.url, timeoutMs: 5000, maxRetries: 1 });
  const app = createApiApp({ ch: stores.ch, pg: stores.pg, log: createLogger('api'), cacheMaxMb: 16, rpc });
  const detach = app.attach(indexer);
  t.teardown(detach);
  const get = async (a: ApiApp, pathAndQuery: string) => {
    const reply = await a.handle(request(pathAndQuery));
    const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    return { status: reply.status, body: text ? JSON.parse(text) : undefined };
  };
  return { devnet, stores, indexer, derived, head, app, rpc, get: (p: string) => get(app, p), getWith: get };
}

const ERC20 = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function totalSupply() view returns (uint256)',
  'function decimals() view returns (uint8)',
]);

t.test('smart contracts on the devnet scenario', async (t) => {
  const api = await fixture(t);
  const s = api.devnet.scenario;
  const url = api.devnet.url;
  const doc = loadOpenApi();
  const artifacts = await compileContracts();
  const deployTx = (label: string) => s.txs.find((x) => x.label === label)!;

  await t.test('detail: code, creation bytecode, status; verified fields null', async (t) => {
    const contracts = Object.entries(s.contracts);
    for (const [name, address] of contracts) {
      const r = await api.get(`${V2}/smart-contracts/${address}`);
      t.equal(r.status, 200, `${name}: 200`);
      const code = await rpcCall<string>(url, 'eth_getCode', [address, 'latest']);
      t.equal(r.body.deployed_bytecode, code.toLowerCase(), `${name}: deployed code = eth_getCode`);
      t.equal(r.body.creation_status, 'success', `${name}: created`);
      t.equal(r.body.is_verified, false);
      t.equal(r.body.abi, null);
      t.equal(r.body.name, null);
      t.equal(r.body.source_code, null);
      t.equal(r.body.compiler_version, null);
      t.equal(r.body.certified, false);
      t.ok(typeof r.body.creation_bytecode === 'string' && r.body.creation_bytecode.startsWith('0x'), `${name}: creation bytecode`);
      if (doc) t.same(validate(doc, responseSchema(doc, '/v2/smart-contracts/{address_hash_param}'), r.body), [], `${name}: conforms to SmartContract`);
    }
    // A deployment: its creation bytecode is the creating transaction's data (init code + arguments).
    for (const [label, name] of [
      ['deploy DevnetToken', 'DevnetToken'],
      ['deploy DevnetNFT', 'DevnetNFT'],
    ] as const) {
      const tx = await rpcCall<{ input: string }>(url, 'eth_getTransactionByHash', [deployTx(label).hash]);
      const r = await api.get(`${V2}/smart-contracts/${s.contracts[name]}`);
      t.equal(r.body.creation_bytecode, tx.input, `${name}: creation bytecode = the deploying transaction's input`);
    }
    // A CREATE2 child: the init code the factory ran (Child's creation code + abi.encode(tag)).
    const want = encodeDeployData({ abi: artifacts.Child.abi, bytecode: artifacts.Child.bytecode as Hex, args: [s.create2.tag] });
    const c2 = await api.get(`${V2}/smart-contracts/${s.contracts.ChildCreate2}`);
    t.equal(c2.body.creation_bytecode, want.toLowerCase(), 'CREATE2 child: the factory frame init code');
    // SELFDESTRUCT in a later transaction (EIP-6780): the code stays, so the contract is not destroyed.
    const sd = await api.get(`${V2}/smart-contracts/${s.selfDestruct.contract}`);
    t.equal(sd.body.creation_status, 'success', 'send-only selfdestruct: still a contract');
    t.not(sd.body.deployed_bytecode, null);
  });

  await t.test('a non-contract is a 404 {"message":"Not found"}; a malformed hash a 422', async (t) => {
    for (const a of [s.accounts[0]!, s.freshEoa, s.internalRecipient, `0x${'12'.repeat(20)}`, `0x${'0'.repeat(40)}`]) {
      for (const sub of ['', '/methods-read', '/methods-write']) {
        const r = await api.get(`${V2}/smart-contracts/${a}${sub}`);
        t.equal(r.status, 404, `${a}${sub}: 404`);
        t.same(r.body, { message: 'Not found' });
      }
    }
    const r = await api.get(`${V2}/smart-contracts/0x1234`);
    t.equal(r.status, 422);
    t.equal(r.body.errors[0].source.pointer, '/address_hash_param');
  });

  await t.test("methods-read: a token's current name, symbol, totalSupply and decimals", async (t) => {
    const token = s.contracts.DevnetToken;
    const r = await api.get(`${V2}/smart-contracts/${token}/methods-read`);
    t.equal(r.status, 200);
    t.ok(Array.isArray(r.body), 'a bare array');
    const by = new Map<string, any>(r.body.map((m: any) => [m.name, m]));
    for (const fn of ['name', 'symbol', 'totalSupply', 'decimals'] as const) {
      const raw = await rpcCall<Hex>(url, 'eth_call', [{ to: token, data: encodeFunctionData({ abi: ERC20, functionName: fn }) }, 'latest']);
      const m = by.get(fn);
      t.ok(m, `${fn} listed`);
      t.equal(m.method_id, toFunctionSelector(`function ${fn}()`).slice(2), `${fn}: method_id`);
      t.equal(m.type, 'function');
      t.equal(m.stateMutability, 'view');
      t.same(m.inputs, []);
      t.equal(m.outputs.length, 1);
      const want = fn === 'name' || fn === 'symbol' ? Buffer.from(raw.slice(130), 'hex').toString('utf8').replace(/\0+$/, '') : BigInt(raw).toString();
      t.equal(m.outputs[0].value, want, `${fn} = ${want} (the node's eth_call)`);
      t.equal(m.error, undefined, `${fn}: no error`);
    }
    t.equal(by.get('name').outputs[0].value, 'Devnet Token');
    t.equal(by.get('symbol').outputs[0].value, 'DVT');
    const balanceOf = by.get('balanceOf');
    t.equal(balanceOf.method_id, '70a08231');
    t.equal(balanceOf.outputs[0].value, undefined, 'a method with inputs carries no value');
    t.notOk(r.body.some((m: any) => m.stateMutability === 'nonpayable'), 'no write method');

    // The value follows the chain: mint, index the block, read again.
    const before = BigInt(by.get('totalSupply').outputs[0].value);
    const wallet = createWalletClient({ account: devAccount(0), transport: viemHttp(url) });
    const hash = await wallet.sendTransaction({
      chain: null,
      to: token,
      data: encodeFunctionData({ abi: artifacts.DevnetToken.abi, functionName: 'mint', args: [s.accounts[3], 7n] }),
    });
    let receipt: { blockNumber: string } | null = null;
    for (let i = 0; i < 300 && !receipt; i++) {
      receipt = await rpcCall<{ blockNumber: string } | null>(url, 'eth_getTransactionReceipt', [hash]);
      if (!receipt) await new Promise((r) => setTimeout(r, 100));
    }
    await api.indexer.waitFor(Number(receipt!.blockNumber), 60_000);
    const after = await api.get(`${V2}/smart-contracts/${token}/methods-read`);
    t.equal(after.body.find((m: any) => m.name === 'totalSupply').outputs[0].value, (before + 7n).toString(), 'totalSupply after a mint (cache dropped with the block)');
  });

  await t.test('methods-read of the ERC-721 and ERC-1155; a contract without an ABI', async (t) => {
    const nft = await api.get(`${V2}/smart-contracts/${s.contracts.DevnetNFT}/methods-read`);
    const byNft = new Map<string, any>(nft.body.map((m: any) => [m.name, m]));
    t.equal(byNft.get('name').outputs[0].value, 'Devnet NFT');
    t.equal(byNft.get('symbol').outputs[0].value, 'DNFT');
    t.ok(byNft.get('ownerOf') && byNft.get('tokenURI'), 'ERC-721 reads');
    for (const m of nft.body) if (m.error) t.fail(`${m.name}: ${m.error}`);
    const multi = await api.get(`${V2}/smart-contracts/${s.contracts.DevnetMulti}/methods-read`);
    t.ok(multi.body.some((m: any) => m.name === 'uri' && m.method_id === '0e89341c'), 'ERC-1155 uri');
    t.ok(multi.body.some((m: any) => m.name === 'balanceOfBatch'), 'ERC-1155 balanceOfBatch');
    const plain = await api.get(`${V2}/smart-contracts/${s.contracts.Reverter}/methods-read`);
    t.same(plain.body, [], 'no ABI known: no methods (until verified or custom ABIs exist)');
    const w = await api.get(`${V2}/smart-contracts/${s.contracts.Reverter}/methods-write`);
    t.same(w.body, []);
    const custom = await api.get(`${V2}/smart-contracts/${s.contracts.DevnetToken}/methods-read?is_custom_abi=true`);
    t.same(custom.body, [], 'no custom ABI without a signed-in viewer');
  });

  await t.test('methods-write: the token ABI write functions with method ids', async (t) => {
    const r = await api.get(`${V2}/smart-contracts/${s.contracts.DevnetToken}/methods-write`);
    t.same(r.body.map((m: any) => [m.name, m.method_id]), [
      ['transfer', 'a9059cbb'],
      ['approve', '095ea7b3'],
      ['transferFrom', '23b872dd'],
    ]);
    for (const m of r.body) t.equal(m.outputs[0].value, undefined, 'no values on write methods');
    const nft = await api.get(`${V2}/smart-contracts/${s.contracts.DevnetNFT}/methods-write`);
    t.same(nft.body.filter((m: any) => m.name === 'safeTransferFrom').map((m: any) => m.method_id), ['42842e0e', 'b88d4fde'], 'overloads: one id each');
  });

  await t.test('errors per method; no node: errors, not a failure', async (t) => {
    // A node that refuses: the values come with an error string.
    const dead = createRpcClient({ url: 'http://127.0.0.1:9', timeoutMs: 1000, maxRetries: 0 });
    const app = createApiApp({ ch: api.stores.ch, pg: api.stores.pg, log: createLogger('api'), cacheMaxMb: 0, rpc: dead });
    const r = await api.getWith(app, `${V2}/smart-contracts/${s.contracts.DevnetToken}/methods-read`);
    t.equal(r.status, 200);
    const name = r.body.find((m: any) => m.name === 'name');
    t.type(name.error, 'string', `error: ${name.error}`);
    t.equal(name.outputs[0].value, undefined);
    const none = createApiApp({ ch: api.stores.ch, pg: api.stores.pg, log: createLogger('api'), cacheMaxMb: 0 });
    const r2 = await api.getWith(none, `${V2}/smart-contracts/${s.contracts.DevnetToken}/methods-read`);
    t.equal(r2.status, 200);
    t.match(r2.body.find((m: any) => m.name === 'name').error, /no JSON-RPC node/);
    const d = await api.getWith(none, `${V2}/smart-contracts/${s.contracts.DevnetToken}`);
    t.equal(d.status, 200, 'the detail without a node');
    t.equal(d.body.deployed_bytecode, (await rpcCall<string>(url, 'eth_getCode', [s.contracts.DevnetToken, 'latest'])).toLowerCase(), 'code from the code lane');
  });

  await t.test('fuzz: no 500', async (t) => {
    const errors: string[] = [];
    const log: Logger = { debug() {}, info() {}, warn() {}, error: (m, f) => errors.push(`${m} ${JSON.stringify(f)}`), child: () => log };
    const app = createApiApp({ ch: api.stores.ch, pg: api.stores.pg, log, cacheMaxMb: 0, rpc: api.rpc });
    const segs = [s.contracts.DevnetToken, s.contracts.Factory, s.accounts[0]!, '0x', '0x' + 'g'.repeat(40), '1', '%00', '💥', 'a'.repeat(5000), s.txs[0]!.hash];
    const values = ['', 'true', 'false', 'TRUE', '1', s.accounts[1]!, '0x12', '\u0000', '💥', 'null'];
    const names = ['is_custom_abi', 'from', 'x', 'apikey'];
    let seed = 3;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
    for (let i = 0; i < 300; i++) {
      const sub = ['', '/methods-read', '/methods-write'][rnd(3)];
      const u = new URLSearchParams();
      for (let k = rnd(3); k > 0; k--) u.append(names[rnd(names.length)]!, values[rnd(values.length)]!);
      const path = `${V2}/smart-contracts/${encodeURIComponent(segs[rnd(segs.length)]!)}${sub}?${u.toString()}`;
      const reply = await app.handle(request(path));
      if (reply.status >= 500) t.fail(`${reply.status}: ${path.slice(0, 200)}`);
    }
    t.same(errors, [], 'nothing logged as a server error');
  });
});

t.test('ABI helpers', async (t) => {
  for (const abi of [ERC20_ABI, erc721Abi(true), erc1155Abi(true, true)]) {
    for (const e of abi) {
      t.ok(isReadMethod(e) !== isWriteMethod(e), `${e.name}: read or write`);
      t.match(methodId(e), /^[0-9a-f]{8}$/);
    }
  }
  t.equal(methodId(ERC20_ABI.find((e) => e.name === 'transfer')!), 'a9059cbb');
  t.equal(isWriteMethod({ type: 'receive', stateMutability: 'payable' }), true);
  t.equal(isWriteMethod({ type: 'event', name: 'Transfer' }), false);
  t.equal(isReadMethod({ type: 'function', name: 'x', constant: true }), true, 'legacy constant');
  t.equal(renderValue(5n, { type: 'uint256' }), '5');
  t.equal(renderValue(true, { type: 'bool' }), 'true');
  t.equal(renderValue('0x5fbdb2315678afecb367f032d93f642f64180aa3', { type: 'address' }), '0x5FbDB2315678afecb367f032d93F642f64180aa3');
  t.same(renderValue([1n, 2n], { type: 'uint256[]' }), ['1', '2']);
  t.same(renderValue({ a: 1n, b: '0xab' }, { type: 'tuple', components: [{ name: 'a', type: 'uint8' }, { name: 'b', type: 'bytes' }] }), ['1', '0xab']);
  t.same(renderValue([[1n, false]], { type: 'tuple[]', components: [{ name: '', type: 'uint8' }, { name: '', type: 'bool' }] }), [['1', 'false']]);
});
