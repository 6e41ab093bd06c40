// Transaction types this explorer does not model (issue #32 section 3): Arbitrum's 0x64-0x6a and
// Celo's 0x7b, with the fields their nodes add and without the ones they leave out (an Arbitrum
// internal transaction has no signature and no fee fields of its own), fed to the indexer through
// the replay server (test/helpers/replay-rpc.ts) in front of an anvil chain whose blocks are
// rewritten as such a node answers them. Every block is indexed (never refused, never stalling the
// indexer), and each transaction is answered with its type number and the standard fields as the
// node gave them; the chain stays an Ethereum-family chain (no OP Stack fields, /optimism/* 404).
import t from 'tap';
import { withAnvil } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { startReplayRpc } from './helpers/replay-rpc.js';
import { indexNode } from './helpers/indexed-node.js';
import { getFact } from '../src/storage/postgres/indexer.js';

const SENDERS = [
  '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc',
  '0x90f79bf6eb2c4f870365e785982e1f101e93b906',
];
const TO = '0x00000000000000000000000000000000000000c0';
const PROXIED = ['eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getBlockReceipts', 'eth_getTransactionReceipt', 'debug_traceBlockByNumber', 'eth_getCode', 'eth_getBalance', 'eth_call', 'rpc_modules', 'trace_block', 'trace_replayBlockTransactions'];

/** How another chain's node shows each rewritten transaction: its type, fields it adds, fields it leaves out. */
const REWRITES: { type: number; add: Record<string, unknown>; drop: string[]; receipt?: Record<string, unknown> }[] = [
  // Arbitrum's unsigned transaction (0x65) and retryable ticket (0x69): no signature.
  { type: 0x65, add: { requestId: `0x${'11'.repeat(32)}` }, drop: ['v', 'r', 's', 'yParity'], receipt: { gasUsedForL1: '0x10', l1BlockNumber: '0x1234' } },
  { type: 0x69, add: { ticketId: `0x${'22'.repeat(32)}`, maxRefund: '0x5', submissionFeeRefund: '0x6', refundTo: TO }, drop: ['v', 'r', 's', 'yParity', 'accessList'], receipt: { gasUsedForL1: '0x0', l1BlockNumber: '0x1234' } },
  // Arbitrum's internal transaction (0x6a): no signature, no 1559 fields.
  { type: 0x6a, add: {}, drop: ['v', 'r', 's', 'yParity', 'maxFeePerGas', 'maxPriorityFeePerGas', 'accessList', 'chainId'] },
  // Celo's CIP-64 transaction (0x7b): a fee currency.
  { type: 0x7b, add: { feeCurrency: '0x765de816845861e75a25fca122bb6898b8b1282a', maxFeeInFeeCurrency: null }, drop: [] },
];

t.test('transaction types of other chains are indexed and answered with their number and standard fields', async (t) => {
  const anvil = await withAnvil(t);
  const node = anvil.url;
  // One block with four transactions (rewritten below), then one more block left as it is.
  await rpc(node, 'evm_setAutomine', [false]);
  const hashes: string[] = [];
  for (const [i, from] of SENDERS.entries()) hashes.push(await rpc<string>(node, 'eth_sendTransaction', [{ from, to: TO, value: `0x${(i + 1).toString(16)}` }]));
  await rpc(node, 'evm_mine', []);
  await rpc(node, 'evm_setAutomine', [true]);
  await minedIn(node, hashes[0]!);
  await minedIn(node, await rpc<string>(node, 'eth_sendTransaction', [{ from: SENDERS[0], to: TO, value: '0x9' }]));

  const byHash = new Map(hashes.map((h, i) => [h, REWRITES[i]!]));
  const rewriteTx = (x: any) => {
    const w = byHash.get(x?.hash);
    if (!w) return x;
    const out = { ...x, ...w.add, type: `0x${w.type.toString(16)}` };
    for (const k of w.drop) delete out[k];
    return out;
  };
  const rewriteReceipt = (r: any) => {
    const w = r && byHash.get(r.transactionHash);
    return w ? { ...r, ...(w.receipt ?? {}), type: `0x${w.type.toString(16)}` } : r;
  };
  const proxy = await startReplayRpc();
  t.teardown(() => proxy.close());
  for (const m of PROXIED) proxy.handle(m, async (params) => ({ result: await rpc(node, m, params).catch(() => null) }));
  const block = async (m: string, params: unknown[]) => {
    const b = await rpc<any>(node, m, params);
    if (b && Array.isArray(b.transactions)) b.transactions = b.transactions.map((x: any) => (typeof x === 'object' ? rewriteTx(x) : x));
    return { result: b };
  };
  proxy.handle('eth_getBlockByNumber', (p) => block('eth_getBlockByNumber', p));
  proxy.handle('eth_getBlockByHash', (p) => block('eth_getBlockByHash', p));
  proxy.handle('eth_getTransactionByHash', async (p) => ({ result: rewriteTx(await rpc<any>(node, 'eth_getTransactionByHash', p)) }));
  proxy.handle('eth_getBlockReceipts', async (p) => ({ result: ((await rpc<any[]>(node, 'eth_getBlockReceipts', p)) ?? null)?.map(rewriteReceipt) ?? null }));
  proxy.handle('eth_getTransactionReceipt', async (p) => ({ result: rewriteReceipt(await rpc<any>(node, 'eth_getTransactionReceipt', p)) }));

  const ix = await indexNode(t, proxy.url, { variant: 'anvil' });
  const head = await ix.catchUp();
  t.equal(ix.indexer.committed, head, 'every block indexed');

  for (const h of hashes) {
    const w = byHash.get(h)!;
    const tx = rewriteTx(await rpc<any>(node, 'eth_getTransactionByHash', [h]));
    const r = rewriteReceipt(await rpc<any>(node, 'eth_getTransactionReceipt', [h]));
    const got = await ix.get(`/api/v2/transactions/${h}`);
    t.equal(got.status, 200, `type ${w.type}: answered`);
    t.match(
      got.body,
      {
        hash: h,
        type: w.type,
        status: 'ok',
        value: BigInt(tx.value).toString(),
        nonce: Number(tx.nonce),
        gas_limit: BigInt(tx.gas).toString(),
        gas_used: BigInt(r.gasUsed).toString(),
        gas_price: BigInt(tx.gasPrice).toString(),
        max_fee_per_gas: tx.maxFeePerGas === undefined ? null : BigInt(tx.maxFeePerGas).toString(),
        fee: { type: 'actual', value: (BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)).toString() },
        block_number: Number(tx.blockNumber),
        position: Number(tx.transactionIndex),
      },
      `type ${w.type}: the standard fields as the node gave them`,
    );
    t.equal(got.body.from.hash.toLowerCase(), tx.from);
    t.equal(got.body.to.hash.toLowerCase(), TO);
    t.notOk('source_hash' in got.body || 'l1_fee' in got.body, `type ${w.type}: no OP Stack fields`);
  }
  const list = await ix.get(`/api/v2/blocks/${Number((await rpc<any>(node, 'eth_getTransactionByHash', [hashes[0]])).blockNumber)}/transactions`);
  t.same(list.body.items.map((i: any) => i.type).sort(), REWRITES.map((w) => w.type).sort(), "the block's list answers every type");

  t.same(await getFact(ix.stores.pg, 'chain_family'), { family: 'ethereum', source: 'node' }, 'not an OP Stack chain');
  t.equal((await ix.get('/api/v2/optimism/deposits')).status, 404, '/optimism/deposits: 404 on another chain');
  t.equal((await ix.get('/api/v2/optimism/withdrawals/count')).status, 404, '/optimism/withdrawals/count: 404 on another chain');
  t.equal((await ix.get('/api/v2/optimism/batches')).status, 404, '/optimism/batches: 404 on another chain');
});
