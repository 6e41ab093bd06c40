// The one GET of a submitted URL (src/net/capped-get.ts): private hosts refused unless allowed,
// redirects not followed, the size cap (declared or streamed) and the time limit of the whole exchange.
import t from 'tap';
import http from 'node:http';
import { cappedGet, FetchRefused } from '../../../src/net/capped-get.js';

t.test('capped GET', async (t) => {
  const server = http.createServer((req, res) => {
    if (req.url === '/ok') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(100, 1));
    if (req.url === '/redirect') return res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    if (req.url === '/declared-big') return res.writeHead(200, { 'content-length': String(10_000) }).end(Buffer.alloc(10_000));
    if (req.url === '/streamed-big') {
      res.writeHead(200);
      for (let i = 0; i < 20; i++) res.write(Buffer.alloc(1000));
      return res.end();
    }
    if (req.url === '/drip') {
      res.writeHead(200);
      const iv = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(iv));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const o = { maxBytes: 5000, timeoutMs: 500, allowPrivate: true };

  const ok = await cappedGet(`${base}/ok`, o);
  t.equal(ok.body.length, 100);
  t.equal(ok.contentType, 'image/png');
  await t.rejects(cappedGet(`${base}/ok`, { ...o, allowPrivate: false }), /private address/, 'a private host is refused');
  await t.rejects(cappedGet('http://localhost:1/x', { ...o, allowPrivate: false }), /private address/, 'a name resolving to one too');
  await t.rejects(cappedGet(`${base}/redirect`, o), /redirects/, 'redirects are not followed');
  await t.rejects(cappedGet(`${base}/declared-big`, o), { tooLarge: true, message: /larger than 5000 bytes/ }, 'a declared size over the cap');
  await t.rejects(cappedGet(`${base}/streamed-big`, o), { tooLarge: true, message: /larger than 5000 bytes/ }, 'a streamed size over the cap');
  await t.rejects(cappedGet(`${base}/drip`, o), /within 500 ms/, 'a dripping server is cut off');
  await t.rejects(cappedGet('ftp://example.org/x', o), new FetchRefused('only http and https URLs are fetched'));
  await t.rejects(cappedGet('http://user:pw@example.org/x', o), /credentials/);
  await t.rejects(cappedGet(`${base}/missing`, o), /HTTP 404/);
});
