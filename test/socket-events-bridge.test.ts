// Per-address websocket notices in an API process that does not run the indexer (split roles):
// a second API server on the same stores, following only the PostgreSQL event listener
// (src/bin/event-bridge.ts), sends a websocket client subscribed to an address the token transfer
// and the internal transaction a devnet transaction gave it, and the token's topic its transfer
// count, though the events that crossed carry no transfers (the feed reads them from the store);
// a block announced under another hash than the one stored (an orphaned branch) gets no notice,
// nor does a block a reorg orphaned before the feed read its transfers.
import t from 'tap';
import { EventEmitter } from 'node:events';
import { encodeFunctionData, parseAbi } from 'viem';
import { apiWithDerived } from './helpers/api-derived.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { join, phoenix } from './helpers/ws-raw.js';
import { startApi } from '../src/api/start-api.js';
import { createLogger } from '../src/log.js';
import { publishEvents, subscribeEvents } from '../src/bin/event-bridge.js';

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 60_000) => {
  for (const end = Date.now() + ms; !(await ok()); ) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

t.test('per-address notices in an API process fed by the bridge', async (t) => {
  const f = await apiWithDerived(t);
  const log = createLogger('events-test');
  const stopPublishing = publishEvents(f.stores.pg, [f.indexer, f.derived], log);
  t.teardown(() => stopPublishing());
  const listener = await subscribeEvents(f.stores.pg, log, { checkMs: 200 });
  t.teardown(() => listener.close());
  const heard: any[] = [];
  listener.on('block', (e) => heard.push(e));

  // The replica: its own server, app, hub and feed, told of the chain only by the listener.
  const replica = await startApi({ ch: f.stores.ch, pg: f.stores.pg, host: '127.0.0.1', port: 0, cacheMaxMb: 16, log: createLogger('replica'), events: [listener] });
  t.teardown(() => replica.close());

  const s = f.devnet.scenario;
  const from = s.accounts[0]!.toLowerCase();
  const token = s.contracts.DevnetToken.toLowerCase();
  const target = '0x00000000000000000000000000000000005eb0c8';
  const client = phoenix(replica.port);
  client.connect();
  t.teardown(() => client.disconnect());
  const got: { topic: string; event: string; payload: any }[] = [];
  const follow = async (topic: string, events: string[]) => {
    const ch = client.channel(topic);
    for (const e of events) ch.on(e, (payload) => void got.push({ topic, event: e, payload }));
    t.same(await join(ch), { status: 'ok', response: {} }, `joined ${topic}`);
  };
  await follow(`addresses:${target}`, ['transaction', 'token_transfer', 'internal_transaction']);
  await follow(`tokens:${token}`, ['token_transfer']);
  const find = (topic: string, event: string, pred: (p: any) => boolean) => got.find((g) => g.topic === topic && g.event === event && pred(g.payload));
  const waitMsg = async (topic: string, event: string, pred: (p: any) => boolean) => {
    await until(`${topic} ${event}`, () => !!find(topic, event, pred));
    return find(topic, event, pred)!.payload;
  };
  const send = async (tx: Record<string, string>) => {
    const hash = await rpc<string>(f.devnet.url, 'eth_sendTransaction', [{ from, ...tx }]);
    const block = await minedIn(f.devnet.url, hash);
    return { hash, block };
  };

  let mint: { hash: string; block: number };
  await t.test('a token transfer', async (t) => {
    const amount = 7n * 10n ** 18n;
    const data = encodeFunctionData({ abi: parseAbi(['function mint(address, uint256)']), functionName: 'mint', args: [target as `0x${string}`, amount] });
    mint = await send({ to: token, data });
    const tt = await waitMsg(`addresses:${target}`, 'token_transfer', (p) => p.token_transfers.some((x: any) => x.transaction_hash === mint.hash));
    t.equal(tt.token_transfers.length, 1, 'the one transfer of the block');
    t.match(tt.token_transfers[0], { transaction_hash: mint.hash, block_number: mint.block, to: { hash: new RegExp(target, 'i') }, token: { address_hash: new RegExp(token, 'i') }, total: { value: amount.toString() } });
    t.same(await waitMsg(`tokens:${token}`, 'token_transfer', () => true), { token_transfer: 1 }, "the token's topic counts it");
    const b = heard.find((e) => e.from <= mint.block && e.to >= mint.block);
    t.equal(b.summary.valueTransfers, null, 'the event that crossed carried no transfers');
  });

  await t.test('an internal transaction', async (t) => {
    const data = encodeFunctionData({ abi: parseAbi(['function forward(address hop, address target)']), functionName: 'forward', args: [s.contracts.ForwarderHop, target as `0x${string}`] });
    const { hash, block } = await send({ to: s.contracts.Forwarder, data, value: '0x2a' });
    const it = await waitMsg(`addresses:${target}`, 'internal_transaction', (p) => p.internal_transactions.some((x: any) => x.transaction_hash === hash));
    t.equal(it.internal_transactions.length, 1, "the address's one internal transaction of the block");
    t.match(it.internal_transactions[0], { transaction_hash: hash, block_number: block, from: { hash: new RegExp(s.contracts.ForwarderHop, 'i') }, to: { hash: new RegExp(target, 'i') }, value: '42' });
  });

  await t.test('orphaned blocks get no notice: announced under another hash than the one stored, or reorged before the read', async (t) => {
    const fake = new EventEmitter();
    const stop = publishEvents(f.stores.pg, [fake], log);
    t.teardown(() => stop());
    const stored = await rpc<{ hash: string }>(f.devnet.url, 'eth_getBlockByNumber', [`0x${mint.block.toString(16)}`, false]);
    const announce = async (hash: string) => {
      const before = heard.length;
      fake.emit('block', { from: mint.block, to: mint.block, blocks: [{ number: mint.block, hash }], summary: { txs: 0, createdContracts: [], touchedAddresses: [target] } });
      await until('the announcement', () => heard.slice(before).some((e) => e.blocks.some((b: any) => b.hash === hash)));
      // Processed (or merged with nothing else) before the next one is announced.
      await replica.socket!.feed.idle();
    };
    const count = (topic: string) => got.filter((g) => g.topic === topic && g.event === 'token_transfer' && (g.payload.token_transfers ?? [g.payload]).some((x: any) => x.transaction_hash === mint.hash || x.token_transfer)).length;
    const addressBefore = count(`addresses:${target}`);
    const tokenBefore = count(`tokens:${token}`);
    await announce(`0x${'ab'.repeat(32)}`);
    // Then the stored hash. Both were broadcast when the feed went idle; a join's reply, sent on the
    // same socket after them, arrives after every frame they gave.
    await announce(stored.hash);
    await follow('blocks:new_block', []);
    t.equal(count(`addresses:${target}`), addressBefore + 1, 'one token_transfer notice: for the stored block only');
    t.equal(count(`tokens:${token}`), tokenBefore + 1, "one count on the token's topic: for the stored block only");

    // A block event, then a reorg to below it before the feed got to it (both handed to the feed
    // in one turn, as the listener does when their notifications arrive together): nothing of
    // the block is read, so nothing is announced; without the reorg it is.
    const feed = replica.socket!.feed;
    const event = { from: mint.block, to: mint.block, blocks: [{ number: mint.block, hash: stored.hash }], summary: { txs: 0, touchedAddresses: [target], tokenContracts: [], valueTransfers: null } };
    const before = count(`addresses:${target}`);
    feed.onBlock(event);
    feed.onReorg(mint.block - 1);
    await feed.idle();
    feed.onBlock(event);
    await feed.idle();
    await follow('transactions:new_transaction', []);
    t.equal(count(`addresses:${target}`), before + 1, 'announced once: for the event no reorg followed');
  });
});
