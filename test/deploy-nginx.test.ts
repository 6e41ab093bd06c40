// The composed stack's reverse proxy (deploy/nginx.conf) in front of a real API and web UI on an
// indexed devnet, run with Debian nginx on a free port (skipped only when nginx is not installed;
// .ci/run installs it). The two `api` replicas of compose.yml are two TCP relays to the API, which
// also record every byte nginx sends upstream. Checked: /api/v2, the health route and the UI's pages
// answer through nginx and the API replicas share the load; the /socket/v2 websocket upgrades;
// ambiguous framing (conflicting Content-Length, Content-Length with Transfer-Encoding) is refused
// by nginx and never reaches the API; the API rate-limits the address nginx saw, whatever
// X-Forwarded-For the client sends; bodies over the limit get 413 from nginx.
import t, { type Test } from 'tap';
import http from 'node:http';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { apiWithDerived } from './helpers/api-derived.js';
import { nginxBinary, startNginx } from './helpers/nginx.js';
import { rawExchange } from './helpers/raw-http.js';
import { clientFrame, rawUpgrade } from './helpers/ws-raw.js';
import { createUi } from '../src/ui/ui-server.js';
import { inProcessClient } from '../src/ui/api-client.js';
import { startServer } from '../src/api/server.js';
import { createLogger } from '../src/log.js';

const nginx = nginxBinary();

/** A TCP relay to 127.0.0.1:`to` (one "replica" of the API) that keeps what it was sent. */
async function relay(t: Test, to: number): Promise<{ port: number; received(): string; connections(): number }> {
  let received = '';
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections++;
    const upstream = net.connect(to, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (d: Buffer) => (received += d.toString('latin1')));
    client.pipe(upstream).pipe(client);
    const end = () => (client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => server.close(() => r()));
  });
  return { port: (server.address() as net.AddressInfo).port, received: () => received, connections: () => connections };
}

/** A GET through nginx from the loopback address `from` (a client of its own), with `headers`. */
function get(port: number, path: string, from: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, localAddress: from, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const req = (lines: string[], body = '') => lines.join('\r\n') + '\r\n\r\n' + body;

t.test('the composed stack through deploy/nginx.conf', { skip: nginx ? false : 'nginx is not installed (apt-get install -y nginx)' }, async (t) => {
  // One request a second per client (a burst of two), counting the client nginx names.
  // Verification on (the npm solc build, no downloads): the API takes verification bodies up to 10 MiB.
  const api = await apiWithDerived(t, { serve: true, verify: {}, gateway: { rateLimits: { anonymous: 1, key: 50 }, trustedProxies: ['127.0.0.1'] } });
  await api.catchUp();
  const ui = createUi({
    api: inProcessClient(api.server!.app.handle, api.server!.handle),
    coin: 'ETH',
    chainId: api.devnet.scenario.chainId,
    socket: '/',
    log: createLogger('ui'),
    trustedProxies: ['127.0.0.1'],
  });
  const detach = ui.attach(api.indexer, api.derived);
  const uiServer = await startServer({ front: ui.front, host: '127.0.0.1', port: 0, log: createLogger('ui') });
  t.teardown(async () => {
    detach();
    await uiServer.close();
  });
  const replicas = [await relay(t, api.server!.port), await relay(t, api.server!.port)];
  const { port, dir } = await startNginx(t, nginx!, { api: replicas.map((r) => r.port), ui: uiServer.port });
  const upstreamBytes = () => replicas.map((r) => r.received()).join('');

  t.test('the API, its health and the UI answer through nginx', async (t) => {
    const blocks = await get(port, '/api/v2/blocks', '127.0.0.11');
    t.equal(blocks.status, 200, '/api/v2/blocks');
    t.ok(JSON.parse(blocks.body).items.length > 0, 'with the indexed blocks');
    t.equal(blocks.headers['uwebsockets'], undefined, "no header names the API's HTTP library");
    const health = await get(port, '/api/health/liveness', '127.0.0.12');
    t.equal(health.status, 200, '/api/health/liveness (the health checks of compose.yml and the image)');
    const etherscan = await get(port, '/api?module=block&action=eth_block_number', '127.0.0.13');
    t.equal(etherscan.status, 200, 'the Etherscan-style /api');
    const home = await get(port, '/', '127.0.0.14');
    t.equal(home.status, 200, 'the UI\'s home page');
    t.match(home.headers['content-type'], /text\/html/);
    const block = await get(port, '/block/1', '127.0.0.14');
    t.equal(block.status, 200, 'a block page');
    const favicon = await get(port, '/favicon.svg', '127.0.0.15');
    t.equal(favicon.status, 200, "/favicon.svg (the ui service's health check)");
    const signIn = await get(port, '/account/sign-in', '127.0.0.15');
    t.match(signIn.headers['content-type'], /text\/html/, '/account/* pages are the UI\'s');
    const accountApi = await get(port, '/account/api/v1/user/info', '127.0.0.16');
    t.match(accountApi.headers['content-type'], /json/, `/account/api/* is the API's (${accountApi.status})`);
    t.match(upstreamBytes(), /GET \/account\/api\/v1\/user\/info /, 'it went to an API replica');
    // Six different requests (the same one would be answered from nginx's cache after the first).
    for (let i = 0; i < 6; i++) t.equal((await get(port, `/api/v2/blocks?items_count=${10 + i}`, `127.0.1.${i + 1}`)).status, 200);
    t.ok(replicas.every((r) => r.connections() > 0), `both API replicas took requests (${replicas.map((r) => r.connections()).join(' and ')} connections)`);
  });

  t.test('the live-updates websocket upgrades through nginx', async (t) => {
    const ws = await rawUpgrade(port);
    t.teardown(() => ws.sock.destroy());
    t.equal(ws.status, 101, '101 Switching Protocols');
    const frames: Buffer[] = [ws.rest];
    ws.sock.on('data', (d: Buffer) => frames.push(d));
    ws.sock.resume();
    ws.sock.write(clientFrame('[null,"1","phoenix","heartbeat",{}]'));
    for (let i = 0; i < 100 && !Buffer.concat(frames).includes('phx_reply'); i++) await new Promise((r) => setTimeout(r, 20));
    t.match(Buffer.concat(frames).toString('latin1'), /"phx_reply",\{"status":"ok"/, 'the Phoenix heartbeat is answered');
    ws.sock.write(clientFrame('["2","2","blocks:new_block","phx_join",{}]'));
    for (let i = 0; i < 100 && !Buffer.concat(frames).toString('latin1').includes('"2","2","blocks:new_block","phx_reply"'); i++) await new Promise((r) => setTimeout(r, 20));
    t.match(Buffer.concat(frames).toString('latin1'), /"blocks:new_block","phx_reply",\{"status":"ok"/, 'a channel joins');
  });

  t.test('ambiguous framing is refused by nginx and never reaches the API', async (t) => {
    const smuggled = 'GET /api/v2/smuggled-marker HTTP/1.1\r\nHost: x\r\n\r\n';
    const conflicting = await rawExchange(port, req(['POST /api/v2/conflict-marker HTTP/1.1', 'Host: x', 'Content-Length: 3', 'Content-Length: 30'], 'abc') + smuggled);
    t.equal(conflicting.responses[0]?.status, 400, 'conflicting Content-Length: 400');
    t.equal(conflicting.responses.length, 1, 'one answer: the bytes behind it are not read as a request');
    t.ok(conflicting.closed, 'and the connection is closed');
    const both = await rawExchange(port, req(['POST /api/v2/both-marker HTTP/1.1', 'Host: x', 'Content-Length: 5', 'Transfer-Encoding: chunked'], '3\r\nabc\r\n0\r\n\r\n') + smuggled);
    t.equal(both.responses[0]?.status, 400, 'Content-Length with Transfer-Encoding: 400');
    t.equal(both.responses.length, 1);
    const gzip = await rawExchange(port, req(['POST /api/v2/gzip-marker HTTP/1.1', 'Host: x', 'Transfer-Encoding: gzip'], 'abc'));
    t.equal(gzip.responses[0]?.status, 501, 'a transfer coding other than chunked: 501');
    t.notMatch(upstreamBytes(), /marker/, 'none of them reached an API replica');
  });

  t.test('the API counts the client nginx saw, whatever X-Forwarded-For it sends', async (t) => {
    // Requests from one client, each naming another address: one bucket (a burst of two, then one
    // a second), so beyond the burst only what refilled while they ran may pass.
    const forged = [];
    const began = performance.now();
    // Each a different URL: a cached answer would be served by nginx without reaching the API's limits.
    for (const [i, xff] of ['198.51.100.1', '198.51.100.2', '198.51.100.3, 198.51.100.4', '203.0.113.9', '198.51.100.5', '198.51.100.6'].entries()) {
      forged.push((await get(port, `/api/v2/blocks?items_count=${20 + i}`, '127.0.0.21', { 'x-forwarded-for': xff, 'x-real-ip': xff })).status);
    }
    const refilled = Math.floor((performance.now() - began) / 1000);
    t.same(forged.slice(0, 2), [200, 200], 'the burst passes');
    t.ok(forged.every((s) => s === 200 || s === 429), 'each answer is 200 or 429');
    t.ok(forged.filter((s) => s === 200).length <= 2 + refilled, `then 429 for the same client under any forged address (${forged.join(', ')}; ${refilled} refilled meanwhile)`);
    t.ok(forged.includes(429), 'refused at least once');
    t.match(upstreamBytes(), /x-forwarded-for: 127\.0\.0\.21\r\n/i, 'nginx names the address it saw');
    t.notMatch(upstreamBytes(), /198\.51\.100|203\.0\.113/, "and the client's forged addresses never reach the API");
    // Another client has a bucket of its own.
    t.equal((await get(port, '/api/v2/stats', '127.0.0.22')).status, 200, 'another client is not limited by the first one');
  });

  t.test("nginx keeps public answers as their Cache-Control says, and never a credential's", async (t) => {
    const count = (path: string) => upstreamBytes().split(`GET ${path} `).length - 1;
    const first = await get(port, '/api/v2/blocks/1', '127.0.0.31');
    t.equal(first.status, 200);
    t.equal(first.headers['x-cache-status'], 'MISS', 'the first request goes to the API');
    const second = await get(port, '/api/v2/blocks/1', '127.0.0.32');
    t.equal(second.headers['x-cache-status'], 'HIT', 'the second is served by nginx');
    t.equal(second.body, first.body, 'the same bytes');
    t.equal(count('/api/v2/blocks/1'), 1, 'the API answered it once');
    const keyed = await get(port, '/api/v2/blocks/2', '127.0.0.33', { authorization: 'Bearer not-a-session' });
    t.equal(keyed.headers['x-cache-status'], 'BYPASS', 'a request with a credential is never answered from the cache');
    const after = await get(port, '/api/v2/blocks/2', '127.0.0.34');
    t.equal(after.headers['x-cache-status'], 'MISS', 'nor is its answer stored for others');
    t.equal((await get(port, '/api/v2/blocks/2?apikey=x', '127.0.0.35')).headers['x-cache-status'], 'BYPASS', 'an apikey in the query likewise');
  });

  t.test('bodies over the limit get 413 from nginx', async (t) => {
    const VERIFY = 'POST /api/v2/smart-contracts/0x0000000000000000000000000000000000000001/verification/via/standard-input HTTP/1.1';
    const big = await rawExchange(port, req([VERIFY, 'Host: x', `Content-Length: ${11 * 1024 * 1024}`], 'abc'), { responses: 1 });
    t.equal(big.responses[0]?.status, 413, '11 MiB announced (over client_max_body_size 10m, VERIFY_MAX_INPUT_MB): 413');
    t.type(JSON.parse(big.responses[0]?.body ?? 'null')?.message, 'string', 'with a JSON {message}');
    const account = await rawExchange(port, req(['POST /account/api/v1/user/tags/address HTTP/1.1', 'Host: x', `Content-Length: ${2 * 1024 * 1024}`], 'abc'), { responses: 1 });
    t.equal(account.responses[0]?.status, 413, 'the Account API: over 1 MiB is 413');
    t.notMatch(upstreamBytes(), /verification\/via|user\/tags/, 'neither reached the API');
    // A verification-sized body (9 MiB of JSON) passes nginx and the API reads it.
    const body = JSON.stringify({ compiler_version: 'v0.8.26+commit.8a97fa7a', contract_name: 'A', files: { 'a.sol': 'x'.repeat(9 * 1024 * 1024) } });
    const sized = await rawExchange(port, req([VERIFY, 'Host: x', 'Content-Type: application/json', `Content-Length: ${body.length}`], body), { responses: 1, waitMs: 20_000 });
    t.ok(sized.responses[0] && sized.responses[0].status !== 413 && sized.responses[0].status < 500, `9 MiB passes nginx and the API answers it (${sized.responses[0]?.status} ${sized.responses[0]?.body.slice(0, 200)})`);
    t.match(upstreamBytes(), /verification\/via\/standard-input/, `it reached the API ${fs.readFileSync(path.join(dir, 'error.log'), 'utf8').slice(-1000)}`);
  });
});
