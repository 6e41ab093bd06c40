// The uWS server (src/api/server.ts) around a stub handler: body cap, a handler that throws, an aborted client.
import t from 'tap';
import net from 'node:net';
import http from 'node:http';
import uWS from 'uWebSockets.js';
import { addressText, startServer } from '../../../src/api/server.js';
import { createLogger } from '../../../src/log.js';
import type { ApiReply, ApiRequest } from '../../../src/api/http.js';

/** A client that asks for `path` and goes away 20 ms later, before the answer. */
function goAwayAfterAsking(port: number, path: string): Promise<void> {
  return new Promise<void>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      setTimeout(() => {
        s.destroy();
        resolve();
      }, 20);
    });
  });
}

t.test('server around a stub handler', async (t) => {
  const seen: ApiRequest[] = [];
  const handle = async (req: ApiRequest): Promise<ApiReply> => {
    seen.push(req);
    if (req.path === '/throw') throw new Error('secret detail');
    if (req.path === '/slow') await new Promise((r) => setTimeout(r, 200));
    return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'x-a': '1' }, body: JSON.stringify({ n: req.body?.length ?? 0, q: req.query.getAll('a') }) };
  };
  const server = await startServer({ handle, host: '127.0.0.1', port: 0, maxBodyBytes: 1000, log: createLogger('test-server') });
  const call = (method: string, path: string, body?: Buffer) =>
    new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, method, path, agent: false, headers: { connection: 'close' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), headers: res.headers }));
      });
      req.on('error', reject);
      if (body) req.write(body);
      req.end();
    });
  try {
    const r = await call('GET', '/x?a=1&a=2');
    t.same([r.status, JSON.parse(r.body), r.headers['x-a']], [200, { n: 0, q: ['1', '2'] }, '1'], 'query keeps repeated keys');
    t.equal(seen[0].method, 'GET');
    t.equal(seen[0].ip, '127.0.0.1', 'client address');
    const post = await call('POST', '/x', Buffer.alloc(500, 1));
    t.same(JSON.parse(post.body), { n: 500, q: [] }, 'a body under the cap is read');
    const big = await call('POST', '/x', Buffer.alloc(5000, 1)).catch((e) => ({ status: -1, body: String(e), headers: {} }));
    t.ok(big.status === 413 || big.status === -1, `a body over the cap is refused (${big.status})`);
    const thrown = await call('GET', '/throw');
    t.equal(thrown.status, 500);
    t.notMatch(thrown.body, /secret/, 'the 500 body says nothing about the cause');
    // A client that goes away before the answer: the server must not crash writing to it.
    await goAwayAfterAsking(server.port, '/slow');
    await new Promise((r) => setTimeout(r, 300));
    t.equal((await call('GET', '/x')).status, 200, 'still serving after an aborted request');
  } finally {
    await server.close();
  }
});

t.test('stopping: requests in progress are answered first, at most drainMs', async (t) => {
  // When each request's handler began and ended: what close() waited for is told from these, not
  // from sleeps (a loaded CI machine once made the test's own 50 ms wait last longer than the
  // handler's rest, and close() looked too quick).
  const began = new Map<string, () => void>();
  const inHandler = (path: string) => new Promise<void>((r) => began.set(path, r));
  const answeredAt = new Map<string, number>();
  const handle = async (req: ApiRequest): Promise<ApiReply> => {
    began.get(req.path)?.();
    await new Promise((r) => setTimeout(r, req.path === '/long' ? 2000 : 300));
    answeredAt.set(req.path, Date.now());
    return { status: 200, headers: { 'content-type': 'text/plain' }, body: `done ${req.path}` };
  };
  const get = (port: number, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        })
        .on('error', reject);
    });
  const server = await startServer({ handle, host: '127.0.0.1', port: 0, log: createLogger('test-server') });
  const slowBegan = inHandler('/slow');
  const pending = get(server.port, '/slow');
  await slowBegan;
  await server.close();
  const closedAt = Date.now();
  t.ok(answeredAt.has('/slow') && closedAt >= answeredAt.get('/slow')!, 'close() waited for the request in progress');
  t.same(await pending, { status: 200, body: 'done /slow' }, 'which was answered whole');
  await t.rejects(get(server.port, '/after'), 'no new connection is taken');

  const cut = await startServer({ handle, host: '127.0.0.1', port: 0, drainMs: 100, log: createLogger('test-server') });
  const longBegan = inHandler('/long');
  const long = get(cut.port, '/long').catch((e) => e);
  await longBegan;
  await cut.close();
  t.notOk(answeredAt.has('/long'), 'a request longer than drainMs does not hold the stop');
  await long;
});

t.test('stopping: idle keep-alive connections are closed, not left to the client', async (t) => {
  const handle = async (): Promise<ApiReply> => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' });
  const server = await startServer({ handle, host: '127.0.0.1', port: 0, log: createLogger('test-server') });
  const socket = net.connect(server.port, '127.0.0.1');
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
  socket.on('error', () => {});
  let answer = '';
  await new Promise<void>((resolve) => {
    socket.on('data', (d) => {
      answer += d;
      if (answer.endsWith('ok')) resolve();
    });
    socket.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n');
  });
  t.match(answer, /^HTTP\/1\.1 200/, 'answered, and the connection is kept alive');
  const at = Date.now();
  await server.close();
  const when = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), 3000).unref())]);
  t.ok(when !== -1 && when - at < 1000, 'the server closed the idle connection when it stopped');
  socket.destroy();
});

t.test('a streamed reply whose client went away before it was ready is told so (return())', async (t) => {
  let returned = 0;
  let pulled = 0;
  const stream: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        pulled++;
        return { done: true, value: undefined };
      },
      return: async () => {
        returned++;
        return { done: true, value: undefined };
      },
    }),
  };
  const handle = async (): Promise<ApiReply> => {
    await new Promise((r) => setTimeout(r, 200));
    return { status: 200, headers: {}, body: '', stream };
  };
  const server = await startServer({ handle, host: '127.0.0.1', port: 0, log: createLogger('test-server') });
  t.teardown(() => server.close());
  await goAwayAfterAsking(server.port, '/export');
  for (let i = 0; i < 50 && !returned; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(returned, 1, 'its return() ran, so it can let go of what it holds (an export slot)');
  t.equal(pulled, 0, 'nothing was read of it');
});

t.test("a client's address reads as uWS's own text of it: IPv4, IPv6, IPv4-mapped", async (t) => {
  // The rate limits, trusted proxies and logs key on this text: it must stay what uWS wrote.
  for (const [listen, connect] of [['127.0.0.1', '127.0.0.1'], ['::1', '::1'], ['::', '127.0.0.1']] as const) {
    const app = uWS.App();
    const seen: string[][] = [];
    app.any('/*', (res) => {
      seen.push([addressText(res.getRemoteAddress()), Buffer.from(res.getRemoteAddressAsText()).toString()]);
      res.end('ok');
    });
    const token = await new Promise<uWS.us_listen_socket | false>((r) => app.listen(listen, 0, r));
    if (!token) {
      t.comment(`cannot listen on ${listen} here: skipped`);
      continue;
    }
    const port = uWS.us_socket_local_port(token as unknown as uWS.us_socket);
    await new Promise<void>((resolve, reject) =>
      http.get({ host: connect, port, path: '/', agent: false }, (res) => res.resume().on('end', () => resolve())).on('error', reject),
    );
    uWS.us_listen_socket_close(token);
    t.equal(seen.length, 1, `${listen}: one request`);
    t.equal(seen[0]![0], seen[0]![1], `${listen} via ${connect}: ${seen[0]![1]}`);
  }
});
