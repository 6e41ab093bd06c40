// The one outbound request (src/net/outbound.ts) against real loopback servers: a name resolved
// once and connected to as checked (a resolver that answers public, then loopback, never gets the
// loopback server a request), every address checked, redirects followed up to the cap and each
// target checked again, the size cap, the whole-exchange time cap against a dripping server, TLS
// naming the host, and errors that never show an address or a DNS code (the detail has them).
import t, { type Test } from 'tap';
import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { outbound, OutboundError, type Resolve } from '../../../src/net/outbound.js';
import { projectRoot } from '../../../src/paths.js';

const TLS = path.join(projectRoot(), 'test', 'fixtures', 'tls');
const PUBLIC = '93.184.216.34';

/** A loopback server; `hits` lists the paths it was asked for. */
async function server(t: Test, handler: http.RequestListener) {
  const hits: string[] = [];
  const srv = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(
    () =>
      new Promise<void>((r) => {
        srv.closeAllConnections();
        srv.close(() => r());
      }),
  );
  const port = (srv.address() as AddressInfo).port;
  return { port, base: `http://127.0.0.1:${port}`, hits };
}

/** A resolver answering from a table, counting its calls. */
function resolver(answers: (host: string, call: number) => string[]) {
  const calls: string[] = [];
  const resolve: Resolve = async (host) => {
    calls.push(host);
    return answers(host, calls.length).map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolve, calls };
}

const caught = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected an OutboundError');
    },
    (e: unknown) => {
      if (!(e instanceof OutboundError)) throw e;
      return e;
    },
  );

t.test('a name that rebinds from public to loopback never reaches the loopback server', async (t) => {
  const s = await server(t, (_req, res) => res.end('{"secret":"internal"}'));
  // The first answer is public (what a check sees), every later one is loopback (what a second
  // resolution at connect time would see).
  const r = resolver((_h, call) => [call === 1 ? PUBLIC : '127.0.0.1']);
  const got = await outbound(`http://rebind.test:${s.port}/latest/meta-data`, { maxBytes: 1000, timeoutMs: 2000, allowHttp: true, resolve: r.resolve }).catch(
    (e: unknown) => e,
  );
  t.same(s.hits, [], 'the loopback server got no request');
  t.same(r.calls, ['rebind.test'], 'the name was resolved once');
  t.notMatch(got instanceof OutboundError ? '' : String((got as { body?: Buffer }).body), /internal/, 'nothing of it came back');
  t.same((await r.resolve('rebind.test')).map((a) => a.address), ['127.0.0.1'], 'and a second resolution would have answered loopback');
});

t.test('every address is checked: one public and one private is refused', async (t) => {
  const s = await server(t, (_req, res) => res.end('ok'));
  const r = resolver(() => [PUBLIC, '127.0.0.1']);
  const e = await caught(outbound(`http://mixed.test:${s.port}/`, { maxBytes: 1000, timeoutMs: 2000, allowHttp: true, resolve: r.resolve }));
  t.equal(e.kind, 'refused');
  t.equal(e.retryable, false);
  t.notMatch(e.message, /127\.0\.0\.1|mixed\.test/, 'the message names neither the address nor the host');
  t.match(e.detail, /mixed\.test resolves to private address 127\.0\.0\.1/, 'the detail (for the log) does');
  t.same(s.hits, []);

  const literal = await caught(outbound(`${s.base}/`, { maxBytes: 1000, timeoutMs: 2000, allowHttp: true }));
  t.equal(literal.kind, 'refused', 'a private IP literal');
  const local = await caught(outbound(`http://localhost:${s.port}/`, { maxBytes: 1000, timeoutMs: 2000, allowHttp: true }));
  t.equal(local.kind, 'refused', 'a name the system resolves to loopback');
  t.notMatch(local.message, /127\.0\.0\.1|::1|localhost/);
  t.same(s.hits, [], 'none reached the server');

  const unknown = await caught(outbound('http://no-such-host.invalid/', { maxBytes: 1000, timeoutMs: 5000, allowHttp: true }));
  t.equal(unknown.kind, 'unreachable', 'a name that does not resolve');
  t.equal(unknown.retryable, true);
  t.notMatch(unknown.message, /ENOTFOUND|EAI_AGAIN|no-such-host/, 'the message has no DNS code or host');
  t.match(unknown.detail, /no-such-host\.invalid/, 'the detail has them');

  t.equal((await outbound(`http://mixed.test:${s.port}/`, { maxBytes: 1000, timeoutMs: 2000, allowHttp: true, allowPrivate: true, resolve: resolver(() => ['127.0.0.1']).resolve })).status, 200, 'allowPrivate lifts the guard');
});

t.test('redirects: followed up to the cap, each target checked again', async (t) => {
  const s = await server(t, (req, res) => {
    const u = req.url ?? '';
    let m: RegExpExecArray | null;
    if (u === '/trusted/ok') return res.end('ok');
    if ((m = /^\/trusted\/r\/(\d+)$/.exec(u))) return res.writeHead(302, { location: Number(m[1]) <= 1 ? '/trusted/ok' : `/trusted/r/${Number(m[1]) - 1}` }).end();
    if (u === '/trusted/to-private') return res.writeHead(302, { location: `http://127.0.0.1:${s.port}/secret` }).end();
    if (u === '/trusted/to-name') return res.writeHead(301, { location: `http://internal.test:${s.port}/secret` }).end();
    if (u === '/trusted/post') return res.writeHead(303, { location: '/trusted/echo' }).end();
    if (u === '/trusted/echo') return res.end(req.method);
    res.writeHead(404).end();
  });
  // Only paths under /trusted/ may be private here (as URLs under an operator's gateway are).
  const o = {
    maxBytes: 1000,
    timeoutMs: 3000,
    allowHttp: true,
    maxRedirects: 3,
    allowPrivate: (u: URL) => u.pathname.startsWith('/trusted/'),
    resolve: resolver(() => ['10.0.0.7']).resolve,
  };
  const ok = await outbound(`${s.base}/trusted/r/3`, o);
  t.equal(ok.body.toString(), 'ok', '3 redirects are followed');
  t.equal(ok.url, `${s.base}/trusted/ok`, 'the answering URL');
  const over = await caught(outbound(`${s.base}/trusted/r/4`, o));
  t.match(over, { kind: 'redirect', status: 302, message: /more than 3 redirects/ });
  const none = await caught(outbound(`${s.base}/trusted/r/1`, { ...o, maxRedirects: 0 }));
  t.match(none, { kind: 'redirect', status: 302, message: /not followed/ }, 'maxRedirects 0 follows none');

  const toPrivate = await caught(outbound(`${s.base}/trusted/to-private`, o));
  t.equal(toPrivate.kind, 'refused', 'a redirect to a private address is refused');
  const toName = await caught(outbound(`${s.base}/trusted/to-name`, o));
  t.equal(toName.kind, 'refused', 'and to a name that resolves to one');
  t.notMatch(toName.message, /10\.0\.0\.7|internal\.test/);
  t.notOk(s.hits.includes('/secret'), 'neither target was asked');

  const posted = await outbound(`${s.base}/trusted/post`, { ...o, method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  t.equal(posted.body.toString(), 'GET', '303 after a POST continues with a GET');
});

t.test('the size cap and the whole-exchange time cap', async (t) => {
  const s = await server(t, (req, res) => {
    if (req.url === '/declared-big') return res.writeHead(200, { 'content-length': '10000' }).end(Buffer.alloc(10_000));
    if (req.url === '/streamed-big') {
      res.writeHead(200);
      for (let i = 0; i < 20; i++) res.write(Buffer.alloc(1000));
      return res.end();
    }
    if (req.url === '/drip') {
      // A byte every 50 ms, for ever: no socket ever idles long enough for an idle timeout.
      res.writeHead(200);
      const iv = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(iv));
      return;
    }
    if (req.url === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.writeHead(201, { 'x-host': req.headers.host ?? '' }).end(`${req.method} ${req.headers['x-test']} ${Buffer.concat(chunks)}`));
      return;
    }
    res.writeHead(404).end('missing');
  });
  const o = { maxBytes: 5000, timeoutMs: 600, allowHttp: true, allowPrivate: true };
  t.match(await caught(outbound(`${s.base}/declared-big`, o)), { kind: 'too-large', message: 'larger than 5000 bytes', retryable: false }, 'a declared size over the cap');
  t.match(await caught(outbound(`${s.base}/streamed-big`, o)), { kind: 'too-large' }, 'a streamed size over the cap');
  const t0 = Date.now();
  t.match(await caught(outbound(`${s.base}/drip`, o)), { kind: 'timeout', message: 'no complete answer within 600 ms', retryable: true }, 'a dripping server is cut off');
  t.ok(Date.now() - t0 < 10_000, 'at the deadline, not never');

  const echo = await outbound(`${s.base}/echo`, { ...o, method: 'post', headers: { 'X-Test': 'yes' }, body: 'hello' });
  t.match(echo, { status: 201, url: `${s.base}/echo` });
  t.equal(echo.body.toString(), 'POST yes hello', 'method, headers and body are sent');
  t.equal((await outbound(`${s.base}/missing`, o)).status, 404, 'an HTTP error status is an answer');
  const headOnly = await outbound(`${s.base}/drip`, { ...o, readBody: false });
  t.same([headOnly.status, headOnly.body.length], [200, 0], 'readBody false ends at the headers');

  t.match(await caught(outbound('ftp://example.org/x', o)), { kind: 'invalid', message: 'the URL must use http or https' });
  t.match(await caught(outbound('http://example.org/x', { ...o, allowHttp: false })), { kind: 'invalid', message: 'the URL must use https' });
  t.match(await caught(outbound('http://user:pw@example.org/x', o)), { kind: 'invalid', message: /credentials/ });
  t.match(await caught(outbound('not a url', o)), { kind: 'invalid' });
});

t.test('TLS names the host the URL named, on the address checked', async (t) => {
  let seen: { servername: string | false | null; host: string | undefined } | null = null;
  const srv = https.createServer({ key: fs.readFileSync(path.join(TLS, 'key.pem')), cert: fs.readFileSync(path.join(TLS, 'cert.pem')) }, (req, res) => {
    seen = { servername: (req.socket as import('node:tls').TLSSocket).servername, host: req.headers.host };
    res.end('tls');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => srv.close(() => r())));
  const port = (srv.address() as AddressInfo).port;
  // The certificate is for "localhost": it verifies only when SNI and the check use the name.
  const r = resolver(() => ['127.0.0.1']);
  const o = { maxBytes: 1000, timeoutMs: 3000, allowPrivate: true, resolve: r.resolve };
  const got = await outbound(`https://localhost:${port}/`, { ...o, ca: fs.readFileSync(path.join(TLS, 'cert.pem')) });
  t.equal(got.body.toString(), 'tls');
  t.same(seen, { servername: 'localhost', host: `localhost:${port}` }, 'SNI and Host are the URL host');
  const untrusted = await caught(outbound(`https://localhost:${port}/`, o));
  t.equal(untrusted.kind, 'unreachable', 'without the CA the certificate is not trusted');
  t.notMatch(untrusted.message, /127\.0\.0\.1|certificate|localhost/);
});
