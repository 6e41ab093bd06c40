// OP Stack deposits (type 0x7e) on anvil's own OP mode (`anvil --network optimism`), indexed and
// checked field by field against the node's eth_getTransactionByHash and receipt: sourceHash,
// mint, isSystemTx, depositNonce and depositReceiptVersion answered (as this explorer's
// source_hash, mint, is_system_tx, deposit_nonce, deposit_receipt_version), the fee what the chain
// charged (0), no signature fields; both read paths (the point row of /transactions/{hash} and
// ClickHouse's rows of a block's list); and the coin a deposit mints credited to its sender's
// balance as eth_getBalance says. A user transaction beside them carries none of the fields.
import t from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { indexNode } from './helpers/indexed-node.js';
import { PointWriter } from '../src/chain/point-codec.js';

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
});
