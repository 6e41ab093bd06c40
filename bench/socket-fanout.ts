// `make bench-socket`: the cost of publishing one new_block to every socket subscribed to
// blocks:new_block on /socket/v2 (default 10,000 sockets). The server (the real startServer with
// the Phoenix endpoint and hub) runs in this process; the clients, raw TCP websockets that
// upgrade, join with a Phoenix frame and count the bytes of the broadcast, run in a forked
// process (file descriptors: each side holds one per socket). Per round it prints the publish
// call, which only queues the frame (uWS writes it to every subscriber when the JavaScript
// callback returns, at the end of the loop iteration), and the time from the publish to the first
// and to the last socket having the whole frame: the fan-out's real cost, divided by the sockets
// for the cost per socket (both processes share the machine's cores). The ceiling is the same frame
// published by a bare uWebSockets.js app to the same number of sockets (no Phoenix, no hub).
// Variables: BENCH_SOCKETS (10000), BENCH_SOCKET_ROUNDS (5). Exits 1 if a socket misses a frame.
// Ends with a `json:` line of the target for `make bench`'s report (bench/report.ts).
import fs from 'node:fs';
import net from 'node:net';
import crypto from 'node:crypto';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import uWS from 'uWebSockets.js';
import { machineInfo, loadavg } from './sysinfo.js';
import { evaluate, median, type Target } from './report.js';
import { startServer } from '../src/api/server.js';
import { Hub } from '../src/api/socket/hub.js';
import { SocketAdmitter } from '../src/api/socket/admission.js';
import { createSocketEndpoint } from '../src/api/socket/endpoint.js';
import { encodeBroadcast, encodeReply } from '../src/api/socket/protocol.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import { createLogger } from '../src/log.js';

const TOPIC = 'blocks:new_block';
const JOIN = '["1","1","blocks:new_block","phx_join",{}]';
const now = () => performance.timeOrigin + performance.now();

/** Bytes of a server frame on the wire (unmasked: 2, 4 or 10 bytes of header). */
const wireBytes = (text: string) => {
  const n = Buffer.byteLength(text);
  return n + (n < 126 ? 2 : n < 65536 ? 4 : 10);
};

/** A new_block payload shaped like an /api/v2/blocks item of a mainnet block. */
function samplePayload(): string {
  const addr = (h: string) => ({
    hash: h,
    implementations: [],
    is_contract: false,
    is_scam: false,
    is_verified: false,
    metadata: null,
    name: null,
    private_tags: [],
    proxy_type: null,
    public_tags: [],
    watchlist_names: [],
    ens_domain_name: null,
    reputation: 'ok',
  });
  const block = {
    base_fee_per_gas: '4117395021',
    blob_gas_price: '1',
    blob_gas_used: '393216',
    burnt_blob_fees: '0',
    burnt_fees: '61521345713837415',
    burnt_fees_percentage: 89.35,
    difficulty: '0',
    excess_blob_gas: '0',
    gas_limit: '36000000',
    gas_target_percentage: -16.99,
    gas_used: '14942169',
    gas_used_percentage: 41.51,
    hash: '0x' + crypto.randomBytes(32).toString('hex'),
    height: 21_000_000,
    miner: addr('0x' + crypto.randomBytes(20).toString('hex')),
    nonce: '0x0000000000000000',
    parent_hash: '0x' + crypto.randomBytes(32).toString('hex'),
    priority_fee: '7331468312846310',
    rewards: [{ reward: '7331468312846310', type: 'Miner Reward' }],
    size: 91_833,
    timestamp: '2024-10-13T12:34:59.000000Z',
    total_difficulty: null,
    transaction_fees: '68852814026683725',
    transactions_count: 171,
    internal_transactions_count: null,
    type: 'block',
    uncles_hashes: [],
    withdrawals_count: 16,
    is_pending_update: false,
  };
  return JSON.stringify({ average_block_time: '12000.0', block });
}

// ---------------------------------------------------------------------------------- clients

interface ClientCmd {
  connect?: { port: number; join: boolean; count: number };
  expect?: number;
  close?: true;
}

/** The forked client process: N raw websockets; reports when all joined and when all got a frame. */
function runClients(): void {
  let sockets: net.Socket[] = [];
  let expect = 0;
  let got = new Int32Array(0);
  let done = 0;
  let first = 0;
  const replyBytes = wireBytes(encodeReply('1', '1', TOPIC, 'ok'));
  const send = (m: unknown) => process.send!(m);

  const connectOne = (port: number, join: boolean, i: number) =>
    new Promise<void>((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1');
      s.setNoDelay(true);
      let head = Buffer.alloc(0);
      let upgraded = false;
      let ready = false;
      s.on('error', reject);
      s.on('data', (d) => {
        if (!upgraded) {
          head = Buffer.concat([head, d]);
          const end = head.indexOf('\r\n\r\n');
          if (end < 0) return;
          if (!head.subarray(0, 12).toString().includes('101')) return reject(new Error(`upgrade refused: ${head.subarray(0, end).toString()}`));
          upgraded = true;
          d = head.subarray(end + 4);
          if (!join) {
            ready = true;
            resolve();
          } else s.write(maskedFrame(JOIN));
        }
        if (!ready) {
          got[i] += d.length;
          if (got[i]! >= replyBytes) {
            got[i] = 0;
            ready = true;
            resolve();
          }
          return;
        }
        if (expect === 0) return;
        const before = got[i]!;
        got[i] = before + d.length;
        if (before === 0) first = first || now();
        if (before < expect && got[i]! >= expect && ++done === sockets.length) send({ received: done, first, last: now() });
      });
      s.write(
        `GET /socket/v2/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
      sockets[i] = s;
    });

  process.on('message', async (m: ClientCmd) => {
    try {
      if (m.connect) {
        const { port, join, count } = m.connect;
        sockets = new Array(count);
        got = new Int32Array(count);
        const t0 = now();
        // In batches: the listen backlog is finite.
        for (let i = 0; i < count; i += 256) {
          await Promise.all(Array.from({ length: Math.min(256, count - i) }, (_, k) => connectOne(port, join, i + k)));
        }
        send({ ready: count, ms: now() - t0 });
      } else if (m.expect !== undefined) {
        expect = m.expect;
        got.fill(0);
        done = 0;
        first = 0;
        send({ expecting: expect });
      } else if (m.close) {
        await Promise.all(sockets.map((s) => new Promise<void>((r) => (s.destroyed ? r() : (s.once('close', () => r()), s.destroy())))));
        sockets = [];
        send({ closed: true });
      }
    } catch (e) {
      send({ error: e instanceof Error ? e.message : String(e) });
    }
  });
  send({ started: true });
}

function maskedFrame(text: string): Buffer {
  const p = Buffer.from(text);
  // Mask 0 leaves the bytes as they are (RFC 6455 requires the mask bit, not a secret mask).
  return Buffer.concat([Buffer.from([0x81, 0x80 | p.length, 0, 0, 0, 0]), p]);
}

// ---------------------------------------------------------------------------------- main

function fdLimit(): number {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : Infinity;
  } catch {
    return Infinity;
  }
}

class Clients {
  private waiting: ((m: any) => void)[] = [];
  constructor(readonly child: ChildProcess) {
    child.on('message', (m: any) => {
      if (m.error) console.error(`clients: ${m.error}`);
      this.waiting.shift()?.(m);
    });
  }
  ask(cmd: ClientCmd | null, timeoutMs = 120_000): Promise<any> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`clients did not answer ${JSON.stringify(cmd)} in ${timeoutMs} ms`)), timeoutMs);
      this.waiting.push((m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(m.error));
        else resolve(m);
      });
      if (cmd) this.child.send(cmd);
    });
  }
}

interface Round {
  publishMs: number;
  lastMs: number;
  firstMs: number;
}

async function measure(clients: Clients, publish: () => void, frameBytes: number, rounds: number, count: number): Promise<Round[]> {
  const out: Round[] = [];
  for (let r = 0; r < rounds; r++) {
    await clients.ask({ expect: frameBytes });
    const arrived = clients.ask(null, 60_000);
    const t0 = now();
    publish();
    const t1 = now();
    const m = await arrived;
    if (m.received !== count) throw new Error(`${m.received} of ${count} sockets got the frame`);
    out.push({ publishMs: t1 - t0, firstMs: m.first - t0, lastMs: m.last - t0 });
    await new Promise((res) => setTimeout(res, 200));
  }
  return out;
}

async function main(): Promise<void> {
  const limit = fdLimit();
  let count = Number(process.env.BENCH_SOCKETS ?? 10_000);
  const rounds = Number(process.env.BENCH_SOCKET_ROUNDS ?? 5);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(rounds) || rounds < 1) throw new Error('BENCH_SOCKETS and BENCH_SOCKET_ROUNDS must be positive integers');
  if (count + 100 > limit) {
    console.log(`open files limit (ulimit -n) is ${limit}: ${count} sockets need ${count + 100} per process; measuring ${limit - 100}`);
    count = limit - 100;
  }
  const m = machineInfo();
  console.log(`machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.os}, node ${m.node}; load ${loadavg()}`);
  const payload = samplePayload();
  const frame = encodeBroadcast(TOPIC, 'new_block', payload);
  const frameBytes = wireBytes(frame);
  console.log(`${count} sockets subscribed to ${TOPIC}; one new_block frame of ${Buffer.byteLength(frame)} bytes; ${rounds} rounds`);

  const child = fork(fileURLToPath(import.meta.url), ['clients'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const clients = new Clients(child);
  await clients.ask(null);
  try {
    // The explorer's server: upgrade admission, Phoenix joins, the hub's publish.
    const hub = new Hub();
    const admitter = new SocketAdmitter({ limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), maxSocketsPerClient: 0 });
    const server = await startServer({
      handle: async () => ({ status: 404, headers: {}, body: '' }),
      host: '127.0.0.1',
      port: 0,
      log: createLogger('bench'),
      socket: createSocketEndpoint({ hub, admitter }),
    });
    const ready = await clients.ask({ connect: { port: server.port, join: true, count } }, 300_000);
    if (hub.stats().subscriptions !== count) throw new Error(`${hub.stats().subscriptions} subscriptions, expected ${count}`);
    console.log(`connected and joined in ${(ready.ms / 1000).toFixed(1)} s`);
    const ours = await measure(clients, () => hub.broadcast(TOPIC, 'new_block', payload), frameBytes, rounds, count);
    await clients.ask({ close: true });
    await server.close();

    // The ceiling: a bare uWS app publishing the same frame (sockets subscribed on open).
    const app = uWS.App();
    app.ws('/socket/v2/websocket', { maxBackpressure: 1024 * 1024, open: (ws) => void ws.subscribe(TOPIC) });
    const token = await new Promise<uWS.us_listen_socket>((res, rej) => app.listen('127.0.0.1', 0, (t) => (t ? res(t) : rej(new Error('bare: cannot listen')))));
    const port = uWS.us_socket_local_port(token as unknown as uWS.us_socket);
    await clients.ask({ connect: { port, join: false, count } }, 300_000);
    const bare = await measure(clients, () => void app.publish(TOPIC, frame, false), frameBytes, rounds, count);
    await clients.ask({ close: true });
    uWS.us_listen_socket_close(token);

    const row = (name: string, rs: Round[]) =>
      `| ${name} | ${median(rs.map((r) => r.publishMs)).toFixed(2)} | ${median(rs.map((r) => r.firstMs)).toFixed(1)} | ` +
      `${median(rs.map((r) => r.lastMs)).toFixed(1)} | ${((median(rs.map((r) => r.lastMs)) * 1000) / count).toFixed(2)} | ${rs.map((r) => r.lastMs.toFixed(0)).join(', ')} |`;
    console.log('');
    console.log('| server | publish call ms (median) | to first socket ms | to last socket ms (median) | per socket µs | to last, every round (ms) |');
    console.log('|---|---|---|---|---|---|');
    console.log(row('explorer /socket/v2 (hub.broadcast)', ours));
    console.log(row('ceiling: bare uWS app.publish', bare));
    const last = median(ours.map((r) => r.lastMs));
    const ceiling = median(bare.map((r) => r.lastMs));
    console.log('');
    console.log(`publish to the last of ${count} sockets: ${last.toFixed(1)} ms, ${(last / ceiling).toFixed(2)} x the bare uWS ceiling (${ceiling.toFixed(1)} ms)`);
    console.log(`target: the last socket within 1000 ms of the publish (well inside a 12 s block): ${last <= 1000 ? 'MET' : 'NOT MET'}`);
    // For `make bench`'s report (bench/report.ts): the figure with its target and its ceiling.
    const targets: Target[] = [{ area: 'socket', name: `publish to the last of ${count} sockets`, unit: 'ms', value: last, bound: 1000, kind: 'atMost', boundIs: 'target', note: `bare uWS ceiling ${ceiling.toFixed(1)} ms, same run` }];
    console.log('json: ' + JSON.stringify({ sockets: count, lastMs: last, ceilingLastMs: ceiling, targets: targets.map(evaluate) }));
  } finally {
    child.kill();
  }
}

if (process.argv[2] === 'clients') runClients();
else
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
