// OP Stack deposits (type 0x7e) on anvil's own OP mode (`anvil --network optimism`), indexed and
// checked field by field against the node's eth_getTransactionByHash and receipt: sourceHash,
// mint, isSystemTx, depositNonce and depositReceiptVersion answered (as this explorer's
// source_hash, mint, is_system_tx, deposit_nonce, deposit_receipt_version), the fee what the chain
// charged (0), no signature fields; both read paths (the point row of /transactions/{hash} and
// ClickHouse's rows of a block's list); and the coin a deposit mints credited to its sender's
// balance as eth_getBalance says. A user transaction beside them carries none of the fields.
// The lists from the L2 side: /optimism/deposits (every 0x7e transaction of the node's blocks) and
// /optimism/withdrawals (the MessagePassed logs of the real L2ToL1MessagePasser from
// @eth-optimism/contracts-bedrock, placed at its predeploy address with anvil_setCode), with their
// counts, checked against the node's blocks and eth_getLogs; the chain family found from the
// deposits (anvil has neither the L1Block predeploy nor the optimism_ namespace); the paths of
// what is not built say so; a reorg takes a deposit away from all of them.
import t from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { indexNode } from './helpers/indexed-node.js';
import { PointWriter } from '../src/chain/point-codec.js';
import { createRequire } from 'node:module';
import { decodeAbiParameters, encodeFunctionData, type Hex } from 'viem';
import { getFact } from '../src/storage/postgres/indexer.js';
import { loadOpenApi, validate } from './helpers/openapi.js';

const require = createRequire(import.meta.url);
const PASSER = '0x4200000000000000000000000000000000000016';
const passer = require('@eth-optimism/contracts-bedrock/forge-artifacts/L2ToL1MessagePasser.sol/L2ToL1MessagePasser.json') as {
  abi: unknown[];
  deployedBytecode: { object: string };
};

const FUNDED = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
/** The depositor whose deposit mints (anvil's sixth account: an impersonated one's deposit gets a receipt under another hash on anvil 1.7). */
const MINTER = '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc';
const TO = '0x70997970c51812dc3a10c7e51e229cad500079c8';
const USER = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const ETH = 10n ** 18n;

const hex = (n: bigint) => `0x${n.toString(16)}`;
const dec = (h: string | null | undefined) => (h == null ? null : BigInt(h).toString());

t.test('deposits are stored and answered field by field as the node gives them', async (t) => {
  const anvil = await withAnvil(t, { extraArgs: ['--network', 'optimism'] });
  const node = anvil.url;
  const deposit = async (from: string, sourceByte: string, mint: bigint, value: bigint, isSystemTx: boolean) => {
    const h = await rpc<string>(node, 'eth_sendTransaction', [
      { from, to: TO, value: hex(value), type: '0x7e', sourceHash: `0x${sourceByte.repeat(32)}`, mint: hex(mint), isSystemTx, gas: '0x5208' },
    ]);
    await minedIn(node, h);
    return h;
  };
  // A deposit minting 1 ETH and sending a quarter of it on.
  const before = BigInt(await rpc<string>(node, 'eth_getBalance', [MINTER, 'latest']));
  const minted = await deposit(MINTER, 'a1', ETH, ETH / 4n, false);
  // Asked for a system deposit: anvil makes an ordinary one (system transactions are gone since
  // Regolith), and the answer must say what the node says, not what was asked.
  const plain = await deposit(FUNDED, 'b2', 0n, 1n, true);
  const user = await rpc<string>(node, 'eth_sendTransaction', [{ from: USER, to: TO, value: '0x2' }]);
  await minedIn(node, user);

  // Withdrawals started on L2: the real message passer at its predeploy address, called by two users.
  await rpc(node, 'anvil_setCode', [PASSER, passer.deployedBytecode.object]);
  const withdraw = async (from: string, target: string, gasLimit: bigint, data: string, value: bigint) => {
    const input = encodeFunctionData({ abi: passer.abi as any, functionName: 'initiateWithdrawal', args: [target, gasLimit, data] });
    const h = await rpc<string>(node, 'eth_sendTransaction', [{ from, to: PASSER, value: hex(value), data: input }]);
    await minedIn(node, h);
    return h;
  };
  const withdrawals = [
    await withdraw(USER, '0x00000000000000000000000000000000000000aa', 100_000n, '0x', ETH / 10n),
    await withdraw(FUNDED, '0x00000000000000000000000000000000000000bb', 250_000n, '0xdeadbeef', 3n),
  ];

  const ix = await indexNode(t, node, { variant: 'anvil' });
  await ix.catchUp();

  for (const [name, hash] of [['minting deposit', minted], ['deposit minting nothing', plain]] as const) {
    const tx = await rpc<any>(node, 'eth_getTransactionByHash', [hash]);
    const receipt = await rpc<any>(node, 'eth_getTransactionReceipt', [hash]);
    t.equal(Number(tx.type), 126, `${name}: a deposit`);
    // Nodes leave isSystemTx out when it is false.
    const isSystem = tx.isSystemTx === true;
    const got = await ix.get(`/api/v2/transactions/${hash}`);
    t.equal(got.status, 200, `${name}: answered`);
    const want = {
      hash,
      type: 126,
      source_hash: tx.sourceHash,
      mint: dec(tx.mint),
      is_system_tx: isSystem,
      deposit_nonce: dec(receipt.depositNonce),
      deposit_receipt_version: dec(receipt.depositReceiptVersion),
      value: dec(tx.value),
      nonce: Number(tx.nonce),
      gas_limit: dec(tx.gas),
      gas_used: dec(receipt.gasUsed),
      gas_price: dec(receipt.effectiveGasPrice),
      fee: { type: 'actual', value: (BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)).toString() },
      status: receipt.status === '0x1' ? 'ok' : 'error',
      block_number: Number(tx.blockNumber),
      position: Number(tx.transactionIndex),
    };
    t.match(got.body, want, `${name}: every field as the node's transaction and receipt say`);
    t.equal(got.body.fee.value, '0', `${name}: a deposit pays nothing`);
    t.equal(got.body.from.hash.toLowerCase(), tx.from.toLowerCase());
    t.equal(got.body.to.hash.toLowerCase(), tx.to.toLowerCase());
    for (const k of ['v', 'r', 's', 'y_parity', 'signature']) t.notOk(k in got.body, `${name}: no ${k} invented`);
    for (const k of ['l1_fee', 'l1_gas_price', 'l1_gas_used', 'operator_fee']) t.notOk(k in got.body, `${name}: no ${k} (the node gave none)`);
    // The same transaction in its block's list: ClickHouse's row, not the point row.
    const list = await ix.get(`/api/v2/blocks/${Number(tx.blockNumber)}/transactions`);
    const item = list.body.items.find((i: any) => i.hash === hash);
    t.match(item, { source_hash: want.source_hash, mint: want.mint, is_system_tx: isSystem, deposit_nonce: want.deposit_nonce, deposit_receipt_version: want.deposit_receipt_version }, `${name}: the block's list says the same`);
  }

  // A user's transaction on the same chain: none of a deposit's fields.
  const u = await ix.get(`/api/v2/transactions/${user}`);
  t.equal(u.status, 200);
  t.equal(u.body.type, 2);
  t.notOk('source_hash' in u.body, 'a user transaction carries no deposit fields (anvil gives no L1 fee either)');
  // Its point row as written before the OP Stack section (extension 2): the blob section last,
  // and the count saying 1. Answered byte for byte the same.
  const w = new PointWriter();
  w.uvar(2);
  w.field('decN', null, 'max_fee_per_blob_gas');
  w.field('strs', [], 'blob_versioned_hashes');
  w.str('');
  const cut = w.takeHex().length / 2;
  w.uvar(1);
  w.field('decN', null, 'max_fee_per_blob_gas');
  w.field('strs', [], 'blob_versioned_hashes');
  const tail = w.takeHex();
  const changed = await ix.stores.pg.pool.query(
    "UPDATE point_transactions SET data = substring(data from 1 for length(data) - $2) || decode($3, 'hex') WHERE hash = decode($1, 'hex')",
    [user.slice(2), cut, tail],
  );
  t.equal(changed.rowCount, 1, 'the row rewritten in its old form');
  t.equal((await ix.get(`/api/v2/transactions/${user}`)).text, u.text, 'a row without the OP section is answered byte for byte as before');

  // The mint credits the sender on the chain; the explorer's balance is the node's.
  const onChain = BigInt(await rpc<string>(node, 'eth_getBalance', [MINTER, 'latest']));
  t.equal(onChain - before, ETH - ETH / 4n, 'the node credits the mint and debits the value (a deposit pays no fee)');
  const addr = await ix.get(`/api/v2/addresses/${MINTER}`);
  t.equal(addr.status, 200);
  t.equal(addr.body.coin_balance, onChain.toString(), 'the address page shows the minted balance');

  // The chain family, found from the deposits.
  t.same(await getFact(ix.stores.pg, 'chain_family'), { family: 'optimism', source: 'deposit transaction' }, 'an OP Stack chain, found by its deposits');

  // /optimism/deposits: every 0x7e transaction of the node's blocks, newest first.
  const head = Number(await rpc<string>(node, 'eth_blockNumber'));
  const want: { hash: string; gas: string; block: number }[] = [];
  for (let n = head; n >= 0; n--) {
    const b = await rpc<any>(node, 'eth_getBlockByNumber', [hex(BigInt(n)), true]);
    for (const x of [...b.transactions].reverse()) if (Number(x.type) === 126) want.push({ hash: x.hash, gas: dec(x.gas)!, block: n });
  }
  t.ok(want.length >= 2, `${want.length} deposits on the node`);
  const deps = await ix.get('/api/v2/optimism/deposits');
  t.equal(deps.status, 200);
  t.same(
    deps.body.items.map((d: any) => [d.l2_transaction_hash, d.l2_transaction_gas_limit, d.l2_block_number]),
    want.map((d) => [d.hash, d.gas, d.block]),
    'the deposits list is the node\'s deposits, newest first',
  );
  t.match(deps.body.items[0], { l1_block_number: null, l1_transaction_hash: null, l1_transaction_origin: null, l1_block_timestamp: null }, 'the L1 side is not built: null');
  t.equal((await ix.get('/api/v2/optimism/deposits/count')).body, want.length, 'deposits/count');
  const page1 = await ix.get('/api/v2/optimism/deposits?items_count=1');
  t.equal(page1.body.items.length, 1);
  t.ok(page1.body.next_page_params, 'a next page');
  const q = new URLSearchParams(Object.entries(page1.body.next_page_params).map(([k, v]) => [k, String(v)]));
  const page2 = await ix.get(`/api/v2/optimism/deposits?${q}`);
  t.equal(page2.body.items[0].l2_transaction_hash, want[1]!.hash, 'the next page goes on after it');

  // /optimism/withdrawals: the predeploy's MessagePassed logs, as eth_getLogs gives them.
  const logs = await rpc<any[]>(node, 'eth_getLogs', [{ address: PASSER, fromBlock: '0x0', toBlock: 'latest', topics: ['0x02a52367d10742d8032712c1bb8e0144ff1ec5ffda1ed7d70bb05a2744955054'] }]);
  t.equal(logs.length, withdrawals.length, 'the node has a MessagePassed log per withdrawal');
  const wd = await ix.get('/api/v2/optimism/withdrawals');
  t.equal(wd.status, 200);
  const items = wd.body.items;
  t.equal(items.length, logs.length);
  for (const log of logs) {
    const item = items.find((i: any) => i.l2_transaction_hash === log.transactionHash);
    const tx = await rpc<any>(node, 'eth_getTransactionByHash', [log.transactionHash]);
    const [value, gasLimit, data] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes32' }], log.data as Hex);
    const nonce = BigInt(log.topics[1]);
    t.match(
      item,
      {
        msg_nonce_raw: nonce.toString(),
        msg_nonce: Number(nonce & ((1n << 240n) - 1n)),
        msg_nonce_version: Number(nonce >> 240n),
        msg_sender_address_hash: `0x${log.topics[2].slice(26)}`,
        msg_target_address_hash: `0x${log.topics[3].slice(26)}`,
        msg_value: value.toString(),
        msg_gas_limit: gasLimit.toString(),
        msg_data: data,
        status: null,
        l1_transaction_hash: null,
      },
      `withdrawal ${log.transactionHash} as its log says`,
    );
    t.equal(item.from.hash.toLowerCase(), tx.from.toLowerCase(), 'from: the L2 transaction\'s sender');
  }
  t.same(items.map((i: any) => i.l2_transaction_hash), [...withdrawals].reverse(), 'newest first');
  t.equal((await ix.get('/api/v2/optimism/withdrawals/count')).body, logs.length, 'withdrawals/count');
  // Each withdrawal's transaction lists it (Blockscout's op_withdrawals); another transaction lists none.
  for (const log of logs) {
    const tx = (await ix.get(`/api/v2/transactions/${log.transactionHash}`)).body;
    const item = items.find((i: any) => i.l2_transaction_hash === log.transactionHash);
    t.same(
      tx.op_withdrawals,
      [{
        nonce: item.msg_nonce, status: null, l1_transaction_hash: null, portal_contract_address_hash: null, msg_nonce_raw: item.msg_nonce_raw,
        msg_sender_address_hash: item.msg_sender_address_hash, msg_target_address_hash: item.msg_target_address_hash,
        msg_value: item.msg_value, msg_gas_limit: item.msg_gas_limit, msg_data: item.msg_data,
      }],
      `${log.transactionHash}: op_withdrawals`,
    );
  }
  t.same((await ix.get(`/api/v2/transactions/${user}`)).body.op_withdrawals, [], 'a transaction that started none: op_withdrawals []');
  // The withdrawal transaction itself, as Blockscout's optimism view shows it.
  const doc = loadOpenApi();
  if (doc) {
    const s = doc.components.schemas;
    t.same(validate(doc, { type: 'array', items: s.OptimismWithdrawal }, items), [], 'withdrawals conform (L1 fields null: not built)');
    t.same(validate(doc, { type: 'array', items: s.OptimismDeposit }, deps.body.items), [], 'deposits conform');
    const wtx = (await ix.get(`/api/v2/transactions/${withdrawals[0]}`)).body;
    t.same(validate(doc, doc.paths['/v2/transactions/{transaction_hash_param}'].get.responses['200'].content['application/json'].schema, wtx), [], 'a withdrawal transaction conforms');
  }

  // A reorg takes a deposit away with its block: the rewind deletes its row (and its OP fields with
  // it) and its point row; the list, the count and the transaction say so.
  const snap = await rpc<string>(node, 'evm_snapshot', []);
  const doomed = await deposit(FUNDED, 'd4', 5n, 0n, false);
  await ix.catchUp();
  t.equal((await ix.get('/api/v2/optimism/deposits/count')).body, want.length + 1, 'the new deposit is counted');
  t.equal((await ix.get(`/api/v2/transactions/${doomed}`)).body.source_hash, `0x${'d4'.repeat(32)}`);
  await rpc(node, 'evm_revert', [snap]);
  for (let i = 0; i < 2; i++) await minedIn(node, await rpc<string>(node, 'eth_sendTransaction', [{ from: USER, to: TO, value: hex(BigInt(10 + i)) }]));
  await ix.catchUp();
  t.equal((await ix.get('/api/v2/optimism/deposits/count')).body, want.length, 'after the reorg it is not counted');
  t.notOk((await ix.get('/api/v2/optimism/deposits')).body.items.some((d: any) => d.l2_transaction_hash === doomed), 'nor listed');
  t.equal((await ix.get(`/api/v2/transactions/${doomed}`)).status, 404, 'nor found');

  // What is not built says so, never an empty answer.
  for (const p of ['/optimism/batches', '/optimism/output-roots', '/optimism/games', '/optimism/txn-batches']) {
    const r = await ix.get(`/api/v2${p}`);
    t.equal(r.status, 404, `${p}: 404`);
    t.match(r.body.message, /Not built/, `${p}: says it is not built`);
  }
});
