// The websocket's parts without a socket: Phoenix v2 frames, Blockscout's topics, one
// connection's session (joins, leaves, heartbeats, the topic cap, bad frames), the hub's
// subscriber counts, admission of an upgrade, and the feed's payloads from events.
import t from 'tap';
import { decodeFrame, encodeBroadcast, encodeClose, encodeReply, ProtocolError } from '../src/api/socket/protocol.js';
import { INVALID_ADDRESS_HASH, UNMATCHED_TOPIC, parseTopic } from '../src/api/socket/topics.js';
import { Hub } from '../src/api/socket/hub.js';
import { CLOSE, Session, type SocketConn } from '../src/api/socket/session.js';
import { SocketAdmitter } from '../src/api/socket/admission.js';
import { Feed, elixirFloat, type FeedBlockEvent } from '../src/api/socket/feed.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import { createLogger } from '../src/log.js';
import type { ApiRequest } from '../src/api/http.js';

const A = '0x' + 'ab'.repeat(20);
const B = '0x' + 'cd'.repeat(20);
const TOKEN = '0x' + '77'.repeat(20);

class FakeConn implements SocketConn {
  sent: unknown[] = [];
  subs = new Set<string>();
  ended: { code: number; reason: string } | null = null;
  send(frame: string) {
    this.sent.push(JSON.parse(frame));
  }
  subscribe(topic: string) {
    this.subs.add(topic);
  }
  unsubscribe(topic: string) {
    this.subs.delete(topic);
  }
  end(code: number, reason: string) {
    this.ended = { code, reason };
  }
  take() {
    const s = this.sent;
    this.sent = [];
    return s;
  }
}

t.test('frames: Phoenix v2 arrays in, replies and broadcasts out', async (t) => {
  t.same(decodeFrame('["1","2","blocks:new_block","phx_join",{}]'), { joinRef: '1', ref: '2', topic: 'blocks:new_block', event: 'phx_join', payload: {} });
  t.same(decodeFrame('[null,"7","phoenix","heartbeat",{}]').joinRef, null);
  t.equal(decodeFrame('[1,2,"a:b","x",{}]').ref, '2', 'numeric refs are taken as their text');
  for (const [bad, why] of [
    ['not json', /must be JSON/],
    ['{"topic":"a"}', /array of 5/],
    ['["1","2","t","e"]', /array of 5/],
    ['["1","2","","e",{}]', /topic must be/],
    [`["1","2","${'x'.repeat(201)}","e",{}]`, /topic must be/],
    ['["1","2","t","",{}]', /event must be/],
    ['["1","2","t","e",[]]', /payload must be a JSON object/],
    ['["1","2","t","e",null]', /payload must be a JSON object/],
    ['[{},"2","t","e",{}]', /join_ref must be/],
    [`["1","${'9'.repeat(65)}","t","e",{}]`, /ref must be/],
  ] as const) {
    t.throws(() => decodeFrame(bad), { constructor: ProtocolError, message: why }, bad.slice(0, 40));
  }
  t.same(JSON.parse(encodeReply('1', '2', 'blocks:new_block', 'ok')), ['1', '2', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }]);
  t.same(JSON.parse(encodeReply(null, '3', 'x:y', 'error', { reason: 'r' })), [null, '3', 'x:y', 'phx_reply', { status: 'error', response: { reason: 'r' } }]);
  t.same(JSON.parse(encodeClose('5', 't:1')), ['5', '5', 't:1', 'phx_close', {}]);
  t.same(JSON.parse(encodeBroadcast('t:"q"', 'ev', '{"a":1}')), [null, null, 't:"q"', 'ev', { a: 1 }], 'topic and event are escaped');
});

t.test("topics: Blockscout's V2 channels", async (t) => {
  t.match(parseTopic('blocks:new_block'), { ok: true, kind: 'new_block', canonical: 'blocks:new_block' });
  t.match(parseTopic('transactions:new_transaction'), { ok: true, kind: 'new_transaction' });
  t.match(parseTopic('transactions:new_pending_transaction'), { ok: true, kind: 'new_pending_transaction' });
  t.match(parseTopic('addresses:new_address'), { ok: true, kind: 'new_address' });
  t.match(parseTopic(`addresses:${A.toUpperCase().replace('0X', '0x')}`), { ok: true, kind: 'address', canonical: `addresses:${A}`, address: A });
  t.match(parseTopic(`tokens:${TOKEN}`), { ok: true, kind: 'token', address: TOKEN });
  t.match(parseTopic(`blocks:${A}`), { ok: true, kind: 'miner', address: A });
  for (const quiet of ['blocks:indexing', 'blocks:indexing_internal_transactions', 'transactions:stats', 'exchange_rate:new_rate', `transactions:0x${'1'.repeat(64)}`, `rewards:${A}`]) {
    t.match(parseTopic(quiet), { ok: true, kind: 'quiet' }, quiet);
  }
  t.same(parseTopic('addresses:0x12'), { ok: false, reason: INVALID_ADDRESS_HASH });
  t.same(parseTopic('tokens:nothex'), { ok: false, reason: INVALID_ADDRESS_HASH });
  t.same(parseTopic('nope:x'), { ok: false, reason: UNMATCHED_TOPIC });
  t.same(parseTopic('phoenix'), { ok: false, reason: UNMATCHED_TOPIC });
});

t.test('session: join, duplicate join, leave, heartbeat, unknown pushes, topic cap, bad frames', async (t) => {
  const hub = new Hub();
  const conn = new FakeConn();
  const s = new Session(conn, hub, 3);
  s.onText('[null,"1","phoenix","heartbeat",{}]');
  t.same(conn.take(), [[null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]], 'heartbeat answered');

  s.onText('["2","2","blocks:new_block","phx_join",{}]');
  t.same(conn.take(), [['2', '2', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }]]);
  t.ok(conn.subs.has('blocks:new_block') && hub.has('blocks:new_block'), 'subscribed natively and counted');

  s.onText('["3","3","blocks:new_block","phx_join",{}]');
  t.same(conn.take(), [
    ['2', '2', 'blocks:new_block', 'phx_close', {}],
    ['3', '3', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }],
  ], 'a second join closes the first channel, as Phoenix does');
  t.same(hub.stats(), { topics: 1, subscriptions: 1 }, 'still one subscription');

  s.onText('["4","4","addresses:0x12","phx_join",{}]');
  t.same(conn.take(), [['4', '4', 'addresses:0x12', 'phx_reply', { status: 'error', response: { reason: INVALID_ADDRESS_HASH } }]]);
  s.onText('["5","5","what:ever","phx_join",{}]');
  t.same(conn.take(), [['5', '5', 'what:ever', 'phx_reply', { status: 'error', response: { reason: UNMATCHED_TOPIC } }]]);

  const mixed = `addresses:${'0x' + 'AB'.repeat(20)}`;
  s.onText(`["6","6","${mixed}","phx_join",{}]`);
  s.onText(`["7","7","tokens:${TOKEN}","phx_join",{}]`);
  conn.take();
  t.ok(hub.subscribed('address').has(A), 'a mixed-case address topic counts under the lower-case address');
  s.onText(`["8","8","addresses:${B}","phx_join",{}]`);
  t.same(conn.take(), [['8', '8', `addresses:${B}`, 'phx_reply', { status: 'error', response: { reason: 'too many topics: at most 3 per connection' } }]]);
  t.equal(s.topics, 3);

  s.onText(`["6","9","${mixed}","get_balance",{}]`);
  t.same(conn.take(), [['6', '9', mixed, 'phx_reply', { status: 'error', response: { reason: 'unknown event: get_balance' } }]], 'pushes on a joined topic: an error reply, the channel stays');
  s.onText('["1","10","not:joined","anything",{}]');
  t.same(conn.take(), [['1', '10', 'not:joined', 'phx_reply', { status: 'error', response: { reason: UNMATCHED_TOPIC } }]]);

  s.onText(`["6","11","${mixed}","phx_leave",{}]`);
  t.same(conn.take(), [
    ['6', '11', mixed, 'phx_reply', { status: 'ok', response: {} }],
    ['6', '6', mixed, 'phx_close', {}],
  ]);
  t.notOk(hub.subscribed('address').has(A), 'left: no longer counted');
  t.notOk(conn.subs.has(mixed));
  s.onText('["x","12","never:joined","phx_leave",{}]');
  t.same(conn.take(), [['x', '12', 'never:joined', 'phx_reply', { status: 'ok', response: {} }]], 'leaving a topic never joined is ok');

  s.onClose();
  t.same(hub.stats(), { topics: 0, subscriptions: 0 }, 'a closed socket leaves no subscription behind');

  const c2 = new FakeConn();
  const s2 = new Session(c2, hub, 3);
  s2.onText('{"not":"phoenix"}');
  t.equal(c2.ended?.code, CLOSE.invalidPayload);
  t.match(c2.ended?.reason, /array of 5/);
  s2.onText('[null,"1","phoenix","heartbeat",{}]');
  t.same(c2.sent, [], 'nothing is answered after the close');
  const c3 = new FakeConn();
  new Session(c3, hub, 3).onBinary();
  t.equal(c3.ended?.code, CLOSE.unsupported);
});

t.test('hub: one frame per spelling, counts per subscriber', async (t) => {
  const frames: [string, string][] = [];
  const hub = new Hub((topic, frame) => frames.push([topic, frame]));
  const lower = { kind: 'address' as const, canonical: `addresses:${A}`, address: A };
  const mixed = `addresses:0x${'AB'.repeat(20)}`;
  hub.add(lower, `addresses:${A}`);
  hub.add(lower, `addresses:${A}`);
  hub.add(lower, mixed);
  t.equal(hub.broadcast(`addresses:${A}`, 'balance', '{"balance":"1"}'), 2);
  t.same(frames.map(([topic, f]) => [topic, JSON.parse(f)[2]]), [
    [`addresses:${A}`, `addresses:${A}`],
    [mixed, mixed],
  ], "each spelling gets frames with its own topic (Phoenix's client matches topics exactly)");
  hub.remove(lower, `addresses:${A}`);
  t.ok(hub.has(`addresses:${A}`));
  hub.remove(lower, `addresses:${A}`);
  hub.remove(lower, mixed);
  t.notOk(hub.has(`addresses:${A}`));
  t.equal(hub.subscribed('address').size, 0);
  t.equal(hub.broadcast(`addresses:${A}`, 'balance', '{}'), 0, 'nobody subscribed: nothing sent');
  hub.remove(lower, mixed);
  t.same(hub.stats(), { topics: 0, subscriptions: 0 }, 'removing too often does not go negative');
});

const req = (query: string, headers: Record<string, string> = {}, ip = '10.0.0.1'): ApiRequest => ({
  method: 'GET',
  path: '/socket/v2/websocket',
  query: new URLSearchParams(query),
  headers,
  ip,
});

t.test('admission: serializer version, API keys, rate limit, sockets per client', async (t) => {
  const account = {
    identify: async (r: Pick<ApiRequest, 'headers' | 'query'>) =>
      r.query.get('apikey') === 'good' || r.headers['x-api-key'] === 'good' ? { userId: 'u1', keyId: 'k1' } : null,
  };
  const admitter = new SocketAdmitter({ limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), account, maxSocketsPerClient: 2 });
  for (const q of ['', 'vsn=1.0.0', 'vsn=2.1.0', 'vsn=abc']) {
    const a = await admitter.admit(req(q));
    t.equal('reply' in a && a.reply.status, 400, `vsn "${q}" refused`);
    t.match('reply' in a && String(a.reply.body), /vsn=2\.0\.0/);
  }
  const bad = await admitter.admit(req('vsn=2.0.0&apikey=nope'));
  t.equal('reply' in bad && bad.reply.status, 401, 'an unknown key: 401');
  t.same('reply' in bad && JSON.parse(String(bad.reply.body)), { message: 'Invalid API key' });

  const a1 = await admitter.admit(req('vsn=2.0.0'));
  const a2 = await admitter.admit(req('vsn=2.0.0'));
  const a3 = await admitter.admit(req('vsn=2.0.0'));
  t.ok('admitted' in a1 && 'admitted' in a2, 'two sockets from one IP');
  t.equal('reply' in a3 && a3.reply.status, 429, 'the third from the same IP: 429');
  t.ok('admitted' in (await admitter.admit(req('vsn=2.0.0', {}, '10.0.0.2'))), 'another IP is counted apart');
  const k1 = await admitter.admit(req('vsn=2.0.0&apikey=good'));
  const k2 = await admitter.admit(req('vsn=2.0.0', { 'x-api-key': 'good' }));
  t.ok('admitted' in k1 && 'admitted' in k2, 'a valid key counts against the key, not the IP');
  t.equal('admitted' in k1 && k1.admitted.client, 'key:k1');
  if ('admitted' in a1) {
    a1.admitted.release();
    a1.admitted.release();
  }
  t.equal(admitter.openCount('ip:10.0.0.1'), 1, 'release is counted once');
  t.ok('admitted' in (await admitter.admit(req('vsn=2.0.0'))), 'a released slot is free again');

  const limited = new SocketAdmitter({ limiter: new RateLimiter({ anonymousPerSecond: 1, keyPerSecond: 0 }), maxSocketsPerClient: 0 });
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const a = await limited.admit(req('vsn=2.0.0', {}, '10.9.9.9'));
    statuses.push('reply' in a ? a.reply.status : 101);
  }
  t.ok(statuses.includes(429), `upgrades count against the IP's rate limit (${statuses.join(',')})`);
});

t.test('feed: new_block from the API list, counts, merged events, nothing without subscribers', async (t) => {
  const frames: unknown[][] = [];
  const hub = new Hub((_topic, frame) => frames.push(JSON.parse(frame)));
  const requests: string[] = [];
  const items = [
    { height: 12, hash: '0xb12', miner: { hash: A.toUpperCase().replace('0X', '0x') }, transactions_count: 2 },
    { height: 11, hash: '0xb11', miner: { hash: B }, transactions_count: 0 },
  ];
  const handle = async (r: ApiRequest) => {
    requests.push(r.path + (String(r.query) ? `?${r.query}` : ''));
    const body = r.path === '/api/v2/blocks' ? { items, next_page_params: null } : { items: [], next_page_params: null };
    return { status: 200, headers: {}, body: JSON.stringify(body) };
  };
  // recentBlocks: 3 blocks over 24 s.
  const ch = { query: async () => [{ c: '3', lo: 100, hi: 124, used: '0', lim: '0' }] } as any;
  const pg = { query: async () => [] } as any;
  const feed = new Feed({ hub, handle, ch, pg, log: createLogger('test'), pendingPollMs: 0 });
  const summary = (txs: number): FeedBlockEvent['summary'] => ({ txs, touchedAddresses: [A], tokenContracts: [], valueTransfers: [] });
  const ev = (n: number, txs: number): FeedBlockEvent => ({ from: n, to: n, blocks: [{ number: n, hash: `0xb${n}` }], summary: summary(txs) });

  feed.onBlock(ev(11, 0));
  await feed.idle();
  t.same(requests, [], 'no subscriber: no read at all');
  t.same(frames, []);

  const nb = { kind: 'new_block' as const, canonical: 'blocks:new_block' };
  hub.add(nb, 'blocks:new_block');
  hub.add({ kind: 'new_transaction', canonical: 'transactions:new_transaction' }, 'transactions:new_transaction');
  hub.add({ kind: 'miner', canonical: `blocks:${A}`, address: A }, `blocks:${A}`);
  feed.onBlock(ev(11, 0));
  feed.onBlock(ev(12, 2)); // merged with the one before: processed together
  await feed.idle();
  t.same(frames, [
    [null, null, 'blocks:new_block', 'new_block', { average_block_time: '12000.0', block: items[1] }],
    [null, null, 'blocks:new_block', 'new_block', { average_block_time: '12000.0', block: items[0] }],
    [null, null, `blocks:${A}`, 'new_block', { average_block_time: '12000.0', block: items[0] }],
    [null, null, 'transactions:new_transaction', 'transaction', { transaction: 2 }],
  ], 'oldest first, the list items as they are, the miner topic, one transaction count for the merged events');
  t.same(requests, ['/api/v2/blocks'], 'one list read for both events');

  frames.length = 0;
  feed.onBlock({ from: 13, to: 13, blocks: [{ number: 13, hash: '0xorphan' }], summary: summary(0) });
  await feed.idle();
  t.same(frames, [], 'a block no longer among the newest (orphaned) is not announced');

  t.equal(elixirFloat(12000), '12000.0');
  t.equal(elixirFloat(12345.5), '12345.5');
});

t.test('feed: address and token events, balances once the lanes stored them', async (t) => {
  const frames: unknown[][] = [];
  const hub = new Hub((_topic, frame) => frames.push(JSON.parse(frame)));
  const tx = { hash: '0xt1', block_number: 20, from: { hash: A }, to: { hash: B } };
  const oldTx = { hash: '0xt0', block_number: 3, from: { hash: A }, to: { hash: B } };
  const transfer = { transaction_hash: '0xt1', block_number: 20, log_index: 0 };
  const history = [{ block_number: 20, value: '90', delta: '-10', transaction_hash: '0xt1', block_timestamp: 't' }, { block_number: 3, value: '100', delta: '100', transaction_hash: '0xt0', block_timestamp: 't' }];
  const handle = async (r: ApiRequest) => {
    const bodies: Record<string, unknown> = {
      [`/api/v2/addresses/${A}/transactions`]: { items: [tx, oldTx] },
      [`/api/v2/addresses/${A}/token-transfers`]: { items: [transfer] },
      [`/api/v2/addresses/${A}/coin-balance-history`]: { items: history },
    };
    return { status: 200, headers: {}, body: JSON.stringify(bodies[r.path] ?? { items: [] }) };
  };
  const ch = { query: async () => [] } as any;
  // liveBalances: the accounting cursor and the address's stored balance, as the lanes leave them.
  let accounted = 19;
  let stored = { balance: '100', block: 3, queued: true };
  const pg = {
    query: async (sql: string) => {
      if (sql.includes('derived_cursors')) return [{ block_number: String(accounted) }];
      if (sql.includes('coin_balance_pending')) return [{ hash: A, balance: stored.balance, block: String(stored.block), queued: stored.queued }];
      if (sql.includes('FROM tokens')) return [{ address: TOKEN, total_supply: '1000' }];
      return [];
    },
  } as any;
  const feed = new Feed({ hub, handle, ch, pg, log: createLogger('test'), pendingPollMs: 0 });
  hub.add({ kind: 'address', canonical: `addresses:${A}`, address: A }, `addresses:${A}`);
  hub.add({ kind: 'token', canonical: `tokens:${TOKEN}`, address: TOKEN }, `tokens:${TOKEN}`);
  feed.onBlock({
    from: 20,
    to: 20,
    blocks: [],
    summary: {
      txs: 1,
      touchedAddresses: [A, B, '0x' + '99'.repeat(20)],
      tokenContracts: [{ address: TOKEN }],
      valueTransfers: [{ kind: 'ERC-20', from: A, to: B, tokenAddress: TOKEN, traceIndex: null, blockNumber: 20 }],
    },
  });
  await feed.idle();
  t.same(frames, [
    [null, null, `tokens:${TOKEN}`, 'token_transfer', { token_transfer: 1 }],
    [null, null, `addresses:${A}`, 'transaction', { transactions: [tx] }],
    [null, null, `addresses:${A}`, 'token_transfer', { token_transfers: [transfer] }],
  ], "the event's own items only; B has no subscriber and gets nothing");

  frames.length = 0;
  feed.onDerived(['accounting']);
  await feed.idle();
  t.same(frames.filter((f) => f[3] !== 'total_supply'), [], 'no balance while its reading is queued');
  t.same(frames.filter((f) => f[3] === 'total_supply'), [[null, null, `tokens:${TOKEN}`, 'total_supply', { total_supply: '1000' }]]);

  frames.length = 0;
  accounted = 20;
  stored = { balance: '90', block: 20, queued: false };
  feed.onDerived(['coin']);
  await feed.idle();
  t.same(frames, [
    [null, null, `addresses:${A}`, 'balance', { balance: '90', block_number: 20, exchange_rate: null }],
    [null, null, `addresses:${A}`, 'current_coin_balance', { coin_balance: '90', exchange_rate: null, block_number: 20 }],
    [null, null, `addresses:${A}`, 'coin_balance', { coin_balance: history[0] }],
  ], 'pushed once the coin lane stored the value of that block; total supply unchanged: not repeated');

  frames.length = 0;
  feed.onDerived(['coin']);
  await feed.idle();
  t.same(frames, [], 'nothing new: nothing pushed');

  // Nobody follows A any more: what was pushed to it is forgotten, so a new subscriber gets it again.
  const topicA = { kind: 'address' as const, canonical: `addresses:${A}`, address: A };
  hub.remove(topicA, `addresses:${A}`);
  feed.onDerived(['coin']);
  await feed.idle();
  hub.add(topicA, `addresses:${A}`);
  feed.onBlock({ from: 20, to: 20, blocks: [], summary: { txs: 0, touchedAddresses: [A], tokenContracts: [], valueTransfers: [] } });
  feed.onDerived(['coin']);
  await feed.idle();
  t.same(frames.filter((f) => f[3] === 'balance'), [[null, null, `addresses:${A}`, 'balance', { balance: '90', block_number: 20, exchange_rate: null }]]);
});

t.test('feed: the pending pool, polled while subscribed', async (t) => {
  const frames: unknown[][] = [];
  const hub = new Hub((_topic, frame) => frames.push(JSON.parse(frame)));
  let pool: any[] = [{ hash: '0xp1', from: { hash: A }, to: { hash: B } }];
  let reads = 0;
  const handle = async (r: ApiRequest) => {
    reads++;
    t.equal(`${r.path}?${r.query}`, '/api/v2/transactions?filter=pending');
    return { status: 200, headers: {}, body: JSON.stringify({ items: pool, next_page_params: null }) };
  };
  const feed = new Feed({ hub, handle, ch: {} as any, pg: {} as any, log: createLogger('test'), pendingPollMs: 0 });
  await feed.pollPending();
  t.equal(reads, 0, 'nobody subscribed: the pool is not read');
  hub.add({ kind: 'new_pending_transaction', canonical: 'transactions:new_pending_transaction' }, 'transactions:new_pending_transaction');
  hub.add({ kind: 'address', canonical: `addresses:${B}`, address: B }, `addresses:${B}`);
  await feed.pollPending();
  t.same(frames, [], 'the first read only learns what is there');
  const p2 = { hash: '0xp2', from: { hash: A }, to: { hash: B.toUpperCase().replace('0X', '0x') } };
  const p3 = { hash: '0xp3', from: { hash: A }, to: null };
  pool = [p2, p3, ...pool];
  await feed.pollPending();
  t.same(frames, [
    [null, null, 'transactions:new_pending_transaction', 'pending_transaction', { pending_transaction: 2 }],
    [null, null, `addresses:${B}`, 'pending_transaction', { transactions: [p2] }],
  ], 'the new ones counted; the subscribed address gets its own');
  frames.length = 0;
  await feed.pollPending();
  t.same(frames, [], 'nothing new: nothing sent');
});
