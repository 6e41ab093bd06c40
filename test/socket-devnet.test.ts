// /socket/v2 end to end on the devnet, with the npm `phoenix` client (Blockscout's frontend's):
// the indexer and the derived lanes run in the API's process as under `explorer start`; a block
// mined on anvil arrives on blocks:new_block as the /api/v2/blocks item, with the transaction
// count; an address sent ETH and a token gets `transaction`, `balance` and `token_transfer`, the
// token `token_transfer` and `total_supply`; a reorg's new branch is announced at the heights it
// replaces; 100 clients joined at once all receive the next block.
import t from 'tap';
import { encodeFunctionData, parseAbi } from 'viem';
import { withDevnet } from './helpers/devnet.js';
import { embeddedStores } from './helpers/stores.js';
import { rpcCall } from './helpers/api.js';
import { join, phoenix } from './helpers/ws-raw.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { createDerived } from '../src/derived/scheduler.js';
import { startApi } from '../src/api/start-api.js';
import { createLogger } from '../src/log.js';

const until = async (fn: () => boolean | Promise<boolean>, what: string, ms = 60_000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`${what}: not reached in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

t.test('websocket topics follow the devnet', async (t) => {
  const devnet = await withDevnet(t);
  const from = devnet.scenario.accounts[0].toLowerCase();
  const stores = await embeddedStores(t);
  const rpc = <T>(method: string, params: unknown[] = []) => rpcCall<T>(devnet.url, method, params);
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: devnet.url, variant: 'anvil' }, batchBlocks: 8, workers: 1, pollMs: 100, pending: false, log: createLogger('indexer').child('test') });
  const derived = createDerived({ pg: stores.pg, ch: stores.ch, rpc: indexer.rpc, pollMs: 50, rangeBlocks: 16, allowPrivateMetadataHosts: true, nftTimeoutMs: 1000, nftMaxAttempts: 1, log: createLogger('derived').child('test') });
  derived.attach(indexer);
  const api = await startApi({
    ch: stores.ch,
    pg: stores.pg,
    host: '127.0.0.1',
    port: 0,
    cacheMaxMb: 16,
    log: createLogger('api'),
    events: [indexer, derived],
    socket: { maxSocketsPerClient: 200 },
  });
  t.teardown(async () => {
    await api.close();
    await derived.stop();
    await indexer.stop();
  });
  await indexer.start();
  derived.start();
  const head = Number(await rpc<string>('eth_blockNumber'));
  await indexer.waitFor(head, 120_000);
  await derived.settle(120_000);
  /** Sends a transaction; resolves with its receipt once anvil has mined it (it may answer before). */
  const send = async (tx: Record<string, string>) => {
    const hash = await rpc<string>('eth_sendTransaction', [{ from, ...tx }]);
    let receipt: { blockNumber: string; blockHash: string } | null = null;
    await until(async () => !!(receipt = await rpc<typeof receipt>('eth_getTransactionReceipt', [hash])), `receipt of ${hash}`);
    return { hash, blockNumber: Number(receipt!.blockNumber), blockHash: receipt!.blockHash };
  };
  const http = async (path: string) => (await fetch(`http://127.0.0.1:${api.port}${path}`)).json() as Promise<any>;

  const s = devnet.scenario;
  const token = s.contracts.DevnetToken.toLowerCase();
  const target = '0x00000000000000000000000000000000005eb0c7';

  const client = phoenix(api.port);
  client.connect();
  t.teardown(() => client.disconnect());
  const got: { topic: string; event: string; payload: any }[] = [];
  const listen = async (topic: string, events: string[]) => {
    const ch = client.channel(topic);
    for (const e of events) ch.on(e, (payload) => void got.push({ topic, event: e, payload }));
    t.same(await join(ch), { status: 'ok', response: {} }, `joined ${topic}`);
  };
  await listen('blocks:new_block', ['new_block']);
  await listen('transactions:new_transaction', ['transaction']);
  await listen(`addresses:${target}`, ['transaction', 'balance', 'current_coin_balance', 'coin_balance', 'token_transfer']);
  await listen(`tokens:${token}`, ['token_transfer', 'total_supply']);
  await listen('addresses:new_address', ['count']);
  const find = (topic: string, event: string, pred: (p: any) => boolean = () => true) => got.find((g) => g.topic === topic && g.event === event && pred(g.payload));
  const waitMsg = async (topic: string, event: string, pred: (p: any) => boolean = () => true) => {
    await until(() => !!find(topic, event, pred), `${topic} ${event}`);
    return find(topic, event, pred)!.payload;
  };
  const addressCount = Number((await http('/api/v2/stats')).total_addresses);

  await t.test('a mined block and an ETH transfer', async (t) => {
    const value = 123_456_789n;
    const { hash, blockNumber: n, blockHash } = await send({ to: target, value: `0x${value.toString(16)}` });
    const nb = await waitMsg('blocks:new_block', 'new_block', (p) => p.block.height === n);
    t.equal(nb.block.hash, blockHash);
    const item = (await http('/api/v2/blocks')).items.find((b: any) => b.height === n);
    t.same(nb.block, item, 'the block JSON is the /api/v2/blocks item');
    t.match(nb.average_block_time, /^\d+(\.\d+)?$/, `average_block_time is milliseconds as a string (${nb.average_block_time})`);
    t.same(await waitMsg('transactions:new_transaction', 'transaction'), { transaction: 1 });
    const txs = await waitMsg(`addresses:${target}`, 'transaction');
    t.same(txs.transactions.map((x: any) => x.hash), [hash], "the address's transaction, as /addresses/{hash}/transactions shows it");
    t.equal(txs.transactions[0].value, value.toString());
    const balance = await waitMsg(`addresses:${target}`, 'balance');
    t.same(balance, { balance: value.toString(), block_number: n, exchange_rate: null }, 'balance once the coin lane stored it');
    t.same(await waitMsg(`addresses:${target}`, 'current_coin_balance'), { coin_balance: value.toString(), exchange_rate: null, block_number: n });
    const cb = await waitMsg(`addresses:${target}`, 'coin_balance');
    t.match(cb.coin_balance, { block_number: n, value: value.toString(), delta: value.toString() }, 'the new coin-balance-history entry');
    const count = await waitMsg('addresses:new_address', 'count', (p) => p.count > addressCount);
    t.equal(count.count, addressCount + 1, 'the address count moved by the new address');
  });

  await t.test('a token transfer', async (t) => {
    const before = (await http(`/api/v2/tokens/${token}`)).total_supply as string;
    const amount = 5n * 10n ** 18n;
    const data = encodeFunctionData({ abi: parseAbi(['function mint(address, uint256)']), functionName: 'mint', args: [target as `0x${string}`, amount] });
    const { hash } = await send({ to: token, data });
    const tt = await waitMsg(`addresses:${target}`, 'token_transfer');
    t.equal(tt.token_transfers.length, 1);
    t.match(tt.token_transfers[0], { transaction_hash: hash, to: { hash: new RegExp(target, 'i') }, token: { address_hash: new RegExp(token, 'i') }, total: { value: amount.toString() } });
    t.same(await waitMsg(`tokens:${token}`, 'token_transfer'), { token_transfer: 1 }, 'the token topic counts the transfer');
    const supply = await waitMsg(`tokens:${token}`, 'total_supply', (p) => p.total_supply !== before);
    t.equal(supply.total_supply, (BigInt(before) + amount).toString(), 'total_supply after the mint');
  });

  await t.test('a reorg is seen: the new branch is announced at the heights it replaces', async (t) => {
    const snap = await rpc<string>('evm_snapshot');
    const orphan = await send({ to: target, value: '0x1' });
    const n = orphan.blockNumber;
    await waitMsg('blocks:new_block', 'new_block', (p) => p.block.hash === orphan.blockHash);
    await rpc('evm_revert', [snap]);
    await send({ to: target, value: '0x2' });
    await send({ to: target, value: '0x3' });
    const replacement = await rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    t.not(replacement.hash, orphan.blockHash, 'the node replaced the block');
    const nb = await waitMsg('blocks:new_block', 'new_block', (p) => p.block.height === n && p.block.hash === replacement.hash);
    t.equal(nb.block.hash, replacement.hash, `new_block at height ${n} with the new branch's hash`);
    await waitMsg('blocks:new_block', 'new_block', (p) => p.block.height === n + 1);
    t.equal((await http(`/api/v2/blocks/${n}`)).hash, replacement.hash, 'and the API serves the same block');
  });

  await t.test('100 clients joined at once all receive the next block', async (t) => {
    const clients = Array.from({ length: 100 }, () => phoenix(api.port));
    t.teardown(() => clients.forEach((c) => c.disconnect()));
    const heights: number[][] = clients.map(() => []);
    const replies = await Promise.all(
      clients.map((c, i) => {
        c.connect();
        const ch = c.channel('blocks:new_block');
        ch.on('new_block', (p) => void heights[i]!.push(p.block.height));
        return join(ch);
      }),
    );
    t.ok(replies.every((r) => r.status === 'ok'), 'all joined');
    const n = (await send({ to: target, value: '0x4' })).blockNumber;
    await until(() => heights.every((h) => h.includes(n)), 'every client got the block');
    t.pass(`all 100 received block ${n}`);
  });
});
