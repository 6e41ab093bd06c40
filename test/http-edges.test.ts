// HTTP edge cases over raw sockets (RFC 9112): two Content-Length headers get 400 and a closed
// connection, and what follows them in the same bytes is never handled; a Transfer-Encoding
// other than chunked gets 501; status lines carry their reason phrases. Then the same cases and
// what uWebSockets.js cannot do itself (docs/http.md: HTTP/1.0, requests without Host, pipelining,
// its `uWebSockets` header) through the shipped reverse proxy, deploy/nginx.conf, run with Debian
// nginx on free ports (skipped when nginx is not installed).
import t, { type Test } from 'tap';
import { startServer } from '../src/api/server.js';
import { createGateway } from '../src/api/gateway.js';
import { RateLimiter } from '../src/ratelimit/rate-limiter.js';
import { STATUS_TEXT } from '../src/api/http.js';
import { createLogger } from '../src/log.js';
import type { ApiReply, ApiRequest } from '../src/api/http.js';
import { rawExchange } from './helpers/raw-http.js';
import { nginxBinary, startNginx } from './helpers/nginx.js';
import { Hub } from '../src/api/socket/hub.js';
import { SocketAdmitter } from '../src/api/socket/admission.js';
import { createSocketEndpoint } from '../src/api/socket/endpoint.js';
import { clientFrame, rawUpgrade } from './helpers/ws-raw.js';

const VALID = 'ek_' + 'v'.repeat(43);

/** What the API saw of each request that reached a handler. */
interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyLength: number;
}

/** The real server and gateway in front of stand-in APIs that echo what they received. */
async function echoServer(t: Test) {
  const seen: Seen[] = [];
  const echo = async (req: ApiRequest): Promise<ApiReply> => {
    seen.push({ method: req.method, path: req.path, headers: req.headers, bodyLength: req.body?.length ?? 0 });
    const status = /^\/api\/v2\/status\/(\d{3})$/.exec(req.path);
    return { status: status ? Number(status[1]) : 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ path: req.path, body: req.body?.length ?? 0 }) };
  };
  const gateway = createGateway({
    api: { handle: echo },
    account: { handle: echo, identify: async (req) => (req.headers['authorization'] === `Bearer ${VALID}` ? { userId: '1', keyId: 'k' } : null) },
    limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }),
  });
  const socket = createSocketEndpoint({
    hub: new Hub(),
    admitter: new SocketAdmitter({ limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), maxSocketsPerClient: 0 }),
  });
  const server = await startServer({ front: gateway, handle: gateway, host: '127.0.0.1', port: 0, log: createLogger('http-edges'), socket });
  t.teardown(() => server.close());
  return { port: server.port, seen };
}

const req = (lines: string[], body = '') => lines.join('\r\n') + '\r\n\r\n' + body;
const SMUGGLED = 'GET /api/v2/smuggled HTTP/1.1\r\nHost: x\r\n\r\n';
const ACCOUNT = '/account/api/v1/user/tags/address';

t.test('framing and status lines on the API server itself', async (t) => {
  const { port, seen } = await echoServer(t);

  const dup = await rawExchange(port, req(['POST /api/v2/a HTTP/1.1', 'Host: x', 'Content-Length: 3', 'Content-Length: 10'], 'abc') + SMUGGLED);
  t.equal(dup.responses.length, 1, 'one answer for two Content-Length headers and a request behind them');
  t.equal(dup.responses[0]?.status, 400);
  t.match(JSON.parse(dup.responses[0]?.body ?? '{}').message, /Content-Length/);
  t.ok(dup.closed, 'and the connection is closed');
  const same = await rawExchange(port, req(['POST /api/v2/a HTTP/1.1', 'Host: x', 'Content-Length: 3', 'Content-Length: 3'], 'abc'));
  t.equal(same.responses[0]?.status, 400, 'a repeated equal Content-Length too');
  t.ok(same.closed);

  const gzip = await rawExchange(port, req(['POST /api/v2/a HTTP/1.1', 'Host: x', 'Transfer-Encoding: gzip'], 'abc'));
  t.equal(gzip.responses[0]?.status, 501, 'Transfer-Encoding: gzip is not implemented');
  t.ok(gzip.closed, 'closed');
  const gzipChunked = await rawExchange(port, req([`POST ${ACCOUNT} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${VALID}`, 'Transfer-Encoding: gzip, chunked'], '3\r\nabc\r\n0\r\n\r\n') + SMUGGLED);
  t.equal(gzipChunked.responses.length, 1, '"gzip, chunked" and a request behind it: one answer');
  t.equal(gzipChunked.responses[0]?.status, 501);
  t.ok(gzipChunked.closed);
  const twice = await rawExchange(port, req([`POST ${ACCOUNT} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${VALID}`, 'Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'], '3\r\nabc\r\n0\r\n\r\n'));
  t.equal(twice.responses[0]?.status, 400, 'chunked twice is a bad request');
  t.same(seen, [], 'none of these reached a handler');

  const chunked = await rawExchange(port, req([`POST ${ACCOUNT} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${VALID}`, 'Transfer-Encoding: chunked'], '3\r\nabc\r\n0\r\n\r\n'), { responses: 1 });
  t.equal(chunked.responses[0]?.status, 200, 'a chunked body is read');
  t.equal(seen.at(-1)?.bodyLength, 3);

  // Every status the code answers with carries its reason phrase (RFC 9110 §15).
  for (const status of [200, 201, 202, 204, 400, 401, 403, 404, 405, 408, 409, 410, 413, 422, 429, 500, 501, 503]) {
    const r = await rawExchange(port, req([`GET /api/v2/status/${status} HTTP/1.1`, 'Host: x']), { responses: 1 });
    t.equal(`${r.responses[0]?.status} ${r.responses[0]?.reason}`, `${status} ${STATUS_TEXT[status]}`, `status line of ${status}`);
    t.notMatch(r.responses[0]?.reason ?? '', /unknown/i);
  }
  const invalid = await rawExchange(port, req(['GET /api/v2/stats HTTP/1.1', 'Host: x', 'Authorization: Bearer ek_' + 'x'.repeat(43)]), { responses: 1 });
  t.equal(invalid.text.split('\r\n')[0], 'HTTP/1.1 401 Unauthorized', 'an invalid key: "401 Unauthorized"');
});

const nginx = nginxBinary();

t.test('through the shipped reverse proxy (deploy/nginx.conf)', { skip: nginx ? false : 'nginx is not installed (apt-get install -y nginx)' }, async (t) => {
  const { port: apiPort, seen } = await echoServer(t);
  // The stand-in serves every path: it is both upstreams, the API replicas and the UI.
  const { port } = await startNginx(t, nginx!, { api: [apiPort] });
  t.pass('nginx -t accepts the configuration, and nginx runs it');

  const dup = await rawExchange(port, req(['POST /api/v2/a HTTP/1.1', 'Host: x', 'Content-Length: 3', 'Content-Length: 10'], 'abc') + SMUGGLED);
  t.equal(dup.responses.length, 1, 'two Content-Length headers: one answer');
  t.equal(dup.responses[0]?.status, 400);
  t.type(JSON.parse(dup.responses[0]?.body ?? 'null')?.message, 'string', 'a JSON {message}');
  t.ok(dup.closed, 'closed');
  for (const te of ['gzip', 'gzip, chunked']) {
    const r = await rawExchange(port, req([`POST ${ACCOUNT} HTTP/1.1`, 'Host: x', `Transfer-Encoding: ${te}`], '3\r\nabc\r\n0\r\n\r\n') + SMUGGLED);
    t.equal(r.responses[0]?.status, 501, `Transfer-Encoding: ${te}: 501`);
    t.equal(r.responses.length, 1);
    t.ok(r.closed);
  }
  const both = await rawExchange(port, req([`POST ${ACCOUNT} HTTP/1.1`, 'Host: x', 'Transfer-Encoding: chunked', 'Content-Length: 3'], '3\r\nabc\r\n0\r\n\r\n'));
  t.equal(both.responses[0]?.status, 400, 'Transfer-Encoding with Content-Length: 400');
  const big = await rawExchange(port, req([`POST ${ACCOUNT} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${VALID}`, 'Content-Length: 2097152'], 'abc'), { responses: 1 });
  t.equal(big.responses[0]?.status, 413, '2 MiB announced: 413 from the proxy');
  t.same(seen, [], 'none of these reached the API');

  const chunked = await rawExchange(port, req([`POST ${ACCOUNT} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${VALID}`, 'Transfer-Encoding: chunked'], '3\r\nabc\r\n0\r\n\r\n'), { responses: 1 });
  t.equal(chunked.responses[0]?.status, 200, 'a chunked body passes');
  t.equal(seen.at(-1)?.headers['content-length'], '3', 'and reaches the API with a Content-Length');
  t.equal(seen.at(-1)?.headers['transfer-encoding'], undefined, 'not chunked');
  t.equal(seen.at(-1)?.bodyLength, 3);

  for (const [what, lines] of [
    ['HTTP/1.0 without Host', ['GET /api/v2/one HTTP/1.0']],
    ['HTTP/1.0 with Host', ['GET /api/v2/one HTTP/1.0', 'Host: x']],
  ] as const) {
    const r = await rawExchange(port, req([...lines]), { waitMs: 3000 });
    t.equal(r.responses[0]?.status, 200, `${what}: answered`);
    t.ok(r.closed && r.ms < 2000, `${what}: and closed at once (${r.ms} ms)`);
  }
  const noHost = await rawExchange(port, req(['GET /api/v2/one HTTP/1.1']));
  t.equal(noHost.responses[0]?.status, 400, 'HTTP/1.1 without Host: 400');

  const pipelined = await rawExchange(port, req(['GET /api/v2/p1 HTTP/1.1', 'Host: x']) + req(['GET /api/v2/p2 HTTP/1.1', 'Host: x']), { responses: 2 });
  t.same(pipelined.responses.map((r) => JSON.parse(r.body).path), ['/api/v2/p1', '/api/v2/p2'], 'pipelined requests are both answered, in order');

  const spoofed = await rawExchange(port, req(['GET /api/v2/ip HTTP/1.1', 'Host: x', 'X-Forwarded-For: 192.0.2.1']), { responses: 1 });
  t.equal(spoofed.responses[0]?.status, 200);
  t.equal(seen.at(-1)?.headers['x-forwarded-for'], '127.0.0.1', "X-Forwarded-For is replaced by the address nginx saw (the client's own is dropped)");

  const unauthorized = await rawExchange(port, req(['GET /api/v2/stats HTTP/1.1', 'Host: x', 'Authorization: Bearer ek_' + 'x'.repeat(43)]), { responses: 1 });
  t.equal(unauthorized.text.split('\r\n')[0], 'HTTP/1.1 401 Unauthorized', '"401 Unauthorized" through the proxy');
  for (const r of [dup, big, chunked, pipelined, spoofed, unauthorized].flatMap((x) => x.responses)) {
    if (r.rawNames.some((n) => /uwebsockets/i.test(n))) t.fail(`a response names the server library: ${r.rawNames.join(', ')}`);
    if (r.headers['server'] !== undefined && r.headers['server'] !== 'nginx') t.fail(`Server: ${r.headers['server']} (no version)`);
  }
  t.pass('no response names uWebSockets, and nginx names no version');

  // Live updates: the websocket upgrade passes the proxy, and the Phoenix socket answers.
  const ws = await rawUpgrade(port);
  t.teardown(() => ws.sock.destroy());
  t.equal(ws.status, 101, 'the /socket/v2 upgrade passes the proxy (101)');
  const frames: Buffer[] = [ws.rest];
  ws.sock.on('data', (d: Buffer) => frames.push(d));
  ws.sock.resume();
  ws.sock.write(clientFrame('[null,"1","phoenix","heartbeat",{}]'));
  for (let i = 0; i < 100 && !Buffer.concat(frames).includes('phx_reply'); i++) await new Promise((r) => setTimeout(r, 20));
  t.match(Buffer.concat(frames).toString('latin1'), /\[null,"1","phoenix","phx_reply",\{"status":"ok","response":\{\}\}\]/, 'a heartbeat through the proxy is answered');
});
