// The websocket on a real uWS server, driven with the npm `phoenix` client (Blockscout's
// frontend's) and raw sockets: upgrades refused with a status and a reason, the exact frames of
// joins, leaves and heartbeats, heartbeats keeping a socket past the idle timeout that closes a
// silent one, 100 clients joined at once all receiving a broadcast, sockets per client, and a
// client that never reads dropped without the server's memory growing.
import t, { type Test } from 'tap';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../src/api/server.js';
import { Hub } from '../src/api/socket/hub.js';
import { SocketAdmitter } from '../src/api/socket/admission.js';
import { createSocketEndpoint, type SocketLimits } from '../src/api/socket/endpoint.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import { createLogger } from '../src/log.js';
import type { ApiRequest } from '../src/api/http.js';
import { clientFrame, closedWithin, join, phoenix, rawUpgrade } from './helpers/ws-raw.js';

const log = createLogger('socket-test');

async function server(t: Test, o: { maxSocketsPerClient?: number; limits?: Partial<SocketLimits> } = {}): Promise<{ server: RunningServer; hub: Hub }> {
  const hub = new Hub();
  const account = {
    identify: async (r: Pick<ApiRequest, 'headers' | 'query'>) => (r.query.get('apikey') === 'good-key' ? { userId: 'u', keyId: 'k' } : null),
  };
  const admitter = new SocketAdmitter({ limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), account, maxSocketsPerClient: o.maxSocketsPerClient ?? 0 });
  const s = await startServer({
    handle: async (r) => ({ status: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: r.path }) }),
    host: '127.0.0.1',
    port: 0,
    log,
    socket: createSocketEndpoint({ hub, admitter, limits: o.limits }),
  });
  t.teardown(() => s.close());
  return { server: s, hub };
}

const until = async (fn: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** A `ws` client that records the frames it receives (parsed). */
async function wsClient(port: number, query = 'vsn=2.0.0'): Promise<{ ws: WebSocket; frames: unknown[][]; next(n: number): Promise<unknown[][]> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/socket/v2/websocket?${query}`);
  const frames: unknown[][] = [];
  ws.on('message', (d) => frames.push(JSON.parse(String(d))));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let read = 0;
  return {
    ws,
    frames,
    async next(n: number) {
      await until(() => frames.length >= read + n);
      const out = frames.slice(read, read + n);
      read += n;
      return out;
    },
  };
}

t.test('upgrades: refused with a status and a reason, or switched', async (t) => {
  const { server: s } = await server(t, { maxSocketsPerClient: 2 });
  const noVsn = await rawUpgrade(s.port, '/socket/v2/websocket');
  t.equal(noVsn.status, 400);
  t.match(noVsn.rest.toString(), /vsn=2\.0\.0/);
  noVsn.sock.destroy();
  const badKey = await rawUpgrade(s.port, '/socket/v2/websocket?vsn=2.0.0&apikey=nope');
  t.equal(badKey.status, 401, 'an unknown API key: 401');
  t.same(JSON.parse(badKey.rest.toString()), { message: 'Invalid API key' });
  badKey.sock.destroy();

  const a = await rawUpgrade(s.port);
  const b = await rawUpgrade(s.port, '/socket/v2/websocket?vsn=2.0.0', { 'Sec-WebSocket-Protocol': 'phoenix, base64url.bearer.phx.abc' });
  t.equal(a.status, 101);
  t.equal(b.status, 101);
  t.equal(b.headers['sec-websocket-protocol'], 'phoenix', 'the phoenix subprotocol is chosen when offered');
  const c = await rawUpgrade(s.port);
  t.equal(c.status, 429, 'a third socket from this IP: 429');
  t.match(c.rest.toString(), /Too many websocket connections/);
  c.sock.destroy();
  const keyed = await rawUpgrade(s.port, '/socket/v2/websocket?vsn=2.0.0&apikey=good-key');
  t.equal(keyed.status, 101, 'a valid API key counts against the key, not the IP');
  a.sock.destroy();
  await until(() => s.sockets().open === 2);
  const d = await rawUpgrade(s.port);
  t.equal(d.status, 101, 'a closed socket frees its slot');
  for (const x of [b, keyed, d]) x.sock.destroy();

  const plain = await fetch(`http://127.0.0.1:${s.port}/socket/v2/websocket?vsn=2.0.0`);
  t.equal(plain.status, 404, 'a plain GET on the path goes to the HTTP handler');
});

t.test('frames of joins, leaves, heartbeats and broadcasts', async (t) => {
  const { server: s, hub } = await server(t);
  const c = await wsClient(s.port);
  c.ws.send('[null,"1","phoenix","heartbeat",{}]');
  t.same(await c.next(1), [[null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]]);
  c.ws.send('["2","2","blocks:new_block","phx_join",{}]');
  t.same(await c.next(1), [['2', '2', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }]]);
  hub.broadcast('blocks:new_block', 'new_block', '{"average_block_time":"1000.0","block":{"height":1}}');
  t.same(await c.next(1), [[null, null, 'blocks:new_block', 'new_block', { average_block_time: '1000.0', block: { height: 1 } }]]);
  c.ws.send('["2","3","blocks:new_block","phx_leave",{}]');
  t.same(await c.next(2), [
    ['2', '3', 'blocks:new_block', 'phx_reply', { status: 'ok', response: {} }],
    ['2', '2', 'blocks:new_block', 'phx_close', {}],
  ]);
  t.equal(hub.broadcast('blocks:new_block', 'new_block', '{}'), 0, 'left: nobody subscribed');
  const closed = new Promise<number>((r) => c.ws.once('close', (code) => void r(code)));
  c.ws.send('not json');
  t.equal(await closed, 1007, 'a frame that is not Phoenix v2 JSON closes the socket (1007)');
  await until(() => s.sockets().open === 0);

  const big = await wsClient(s.port);
  const bigClosed = new Promise<number>((r) => big.ws.once('close', (code) => void r(code)));
  big.ws.send(`["1","1","blocks:new_block","phx_join",{"pad":"${'x'.repeat(20_000)}"}]`);
  t.equal(await bigClosed, 1006, 'a frame over 16 KiB closes the connection');
});

t.test('the phoenix client: join, receive, heartbeats keep it open past the idle timeout', async (t) => {
  const { server: s, hub } = await server(t, { limits: { idleTimeoutSec: 8 } });
  const client = phoenix(s.port, { heartbeatIntervalMs: 1000 });
  client.connect();
  t.teardown(() => client.disconnect());
  const ch = client.channel('addresses:0x' + 'AB'.repeat(20));
  const got: any[] = [];
  ch.on('balance', (p) => void got.push(p));
  t.same(await join(ch), { status: 'ok', response: {} });
  t.ok(hub.subscribed('address').has('0x' + 'ab'.repeat(20)));
  hub.broadcast('addresses:0x' + 'ab'.repeat(20), 'balance', '{"balance":"5","block_number":3,"exchange_rate":null}');
  await until(() => got.length === 1);
  t.same(got[0], { balance: '5', block_number: 3, exchange_rate: null }, 'a mixed-case topic receives the broadcast under its own spelling');

  // A raw socket that sends nothing is closed by the idle timeout; the heartbeating client is not.
  const silent = await rawUpgrade(s.port);
  t.equal(silent.status, 101);
  const started = Date.now();
  const closed = await closedWithin(silent.sock, 16_000);
  t.ok(closed, `a silent socket is closed (after ${Date.now() - started} ms; idle timeout 8 s)`);
  t.equal(client.connectionState(), 'open', 'the heartbeating client is still connected');
  hub.broadcast('addresses:0x' + 'ab'.repeat(20), 'balance', '{"balance":"6","block_number":4,"exchange_rate":null}');
  await until(() => got.length === 2);
  t.equal(got[1].balance, '6', 'and still receives');
});

t.test('100 phoenix clients joined at once all receive the broadcast', async (t) => {
  const { server: s, hub } = await server(t, { maxSocketsPerClient: 200 });
  const clients = Array.from({ length: 100 }, () => phoenix(s.port));
  t.teardown(() => clients.forEach((c) => c.disconnect()));
  const received: unknown[] = [];
  const joins = clients.map((c) => {
    c.connect();
    const ch = c.channel('blocks:new_block');
    ch.on('new_block', (p) => void received.push(p));
    return join(ch);
  });
  const replies = await Promise.all(joins);
  t.ok(replies.every((r) => r.status === 'ok'), 'every join ok');
  t.same(hub.stats(), { topics: 1, subscriptions: 100 });
  t.equal(hub.broadcast('blocks:new_block', 'new_block', '{"average_block_time":"12000.0","block":{"height":7}}'), 1, 'one publish');
  await until(() => received.length === 100);
  t.ok(received.every((p: any) => p.block.height === 7), 'all 100 got the block');
});

t.test('a client that never reads is dropped without the server memory growing', { skip: fs.existsSync('/proc/self/status') ? false : 'needs /proc' }, async (t) => {
  const script = fileURLToPath(new URL('./helpers/socket-server.js', import.meta.url));
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => {
    child.stdin?.end();
    child.kill();
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const answers: any[] = [];
  const waiters: ((v: any) => void)[] = [];
  lines.on('line', (l) => {
    const v = JSON.parse(l);
    const w = waiters.shift();
    if (w) w(v);
    else answers.push(v);
  });
  const answer = () => new Promise<any>((r) => (answers.length ? r(answers.shift()) : waiters.push(r)));
  const ask = (cmd: object) => {
    child.stdin!.write(JSON.stringify(cmd) + '\n');
    return answer();
  };
  const { port } = await answer();

  // A reader that drains everything, and a client that joins and then never reads.
  const reader = await rawUpgrade(port);
  let readBytes = 0;
  reader.sock.on('data', (d) => (readBytes += d.length));
  reader.sock.resume();
  reader.sock.write(clientFrame('["1","1","blocks:new_block","phx_join",{}]'));
  const stuck = await rawUpgrade(port);
  stuck.sock.write(clientFrame('["1","1","blocks:new_block","phx_join",{}]'));
  stuck.sock.pause();
  await new Promise((r) => setTimeout(r, 200));
  t.same(await ask({ cmd: 'stats' }), { open: 2, bufferedBytes: 0, maxBufferedBytes: 0 });
  // Warm up, then the baseline.
  await ask({ cmd: 'flood', topic: 'blocks:new_block', messages: 20, bytes: 1024 });
  const baseline = memOf(child.pid!);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, memOf(child.pid!))), 5);
  const MESSAGES = 3000;
  const BYTES = 64 * 1024;
  // One frame a millisecond (about 60 MiB/s): a reading client keeps up, one that never reads cannot.
  const r = await ask({ cmd: 'flood', topic: 'blocks:new_block', messages: MESSAGES, bytes: BYTES, everyMs: 1 });
  clearInterval(sampler);
  const published = MESSAGES * BYTES;
  t.equal(r.open, 1, `the client that never reads was closed; the reader stays (${r.open} open)`);
  t.ok(r.maxBufferedBytes <= 1024 * 1024 + BYTES + 64, `the most queued for one socket: ${r.maxBufferedBytes} bytes (limit 1 MiB + one frame)`);
  const grown = peak - baseline;
  t.ok(grown < 48 * 1024 * 1024, `peak resident memory grew by ${(grown / 1048576).toFixed(1)} MiB while ${(published / 1048576).toFixed(0)} MiB were published`);
  await until(() => readBytes >= published);
  t.ok(readBytes >= published, 'the reader got everything');
  let stuckBytes = 0;
  stuck.sock.on('data', (d) => (stuckBytes += d.length));
  t.ok(await closedWithin(stuck.sock, 10_000), 'the stuck client sees its connection end once it reads');
  t.ok(stuckBytes < published / 4, `it had been sent a bounded part (${(stuckBytes / 1048576).toFixed(1)} MiB)`);
  reader.sock.destroy();
});

/** Resident memory of a process (bytes). */
function memOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}
