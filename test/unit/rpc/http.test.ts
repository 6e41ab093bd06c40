// The node:http fetch under viem (src/rpc/http.ts): bodies arriving in many chunks (multi-byte
// characters split across chunks, a leading BOM) decode exactly as fetch's text() would, also
// when the reused body buffer still holds a longer earlier body and when several responses are
// read at once; compressed bodies and the size limit as before.
import t from 'tap';
import http from 'node:http';
import zlib from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { createNodeFetch } from '../../../src/rpc/http.js';

const BODIES: Record<string, string> = {
  '/long': JSON.stringify({ result: 'é'.repeat(300_000) + '日本🦄'.repeat(50_000) }),
  '/longer': JSON.stringify({ result: 'ü'.repeat(1_500_000) }), // ~3 MB: the kept buffer grows past /long
  '/medium': JSON.stringify({ result: 'ß€'.repeat(10_000) }), // ~50 KB, still several chunks
  '/bom-chunked': '\ufeff' + JSON.stringify({ result: 'ä'.repeat(20_000) }),
  '/short': JSON.stringify({ result: 'ok ü' }),
  '/bom': '\ufeff' + JSON.stringify({ result: 'bom' }),
  '/gzip': JSON.stringify({ result: 'z'.repeat(100_000) + 'ß' }),
};

t.test('chunked bodies decode exactly, with the body buffer reused', async (t) => {
  const server = http.createServer((req, res) => {
    const text = BODIES[req.url!]!;
    if (req.url === '/gzip') {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync(text));
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    res.writeHead(200, { 'content-type': 'application/json' });
    // Odd-sized pieces, so multi-byte characters are split between chunks.
    let p = 0;
    const step = () => {
      while (p < bytes.length) {
        const piece = bytes.subarray(p, p + 7919);
        p += piece.length;
        if (!res.write(piece)) return void res.once('drain', step);
      }
      res.end();
    };
    step();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const f = createNodeFetch({ maxResponseBytes: 20_000_000 });
  const get = async (path: string) => (await f(base + path, { method: 'POST', body: '{}' })).text();

  t.equal(await get('/long'), BODIES['/long'], 'a long multi-chunk body');
  t.equal(await get('/longer'), BODIES['/longer'], 'a longer one (the body buffer grows)');
  t.equal(await get('/medium'), BODIES['/medium'], 'a smaller multi-chunk body after it: only its own bytes');
  t.equal(await get('/bom-chunked'), BODIES['/bom-chunked']!.slice(1), 'a multi-chunk body with a BOM');
  t.equal(await get('/short'), BODIES['/short'], 'a short body after a long one');
  t.equal(await get('/bom'), BODIES['/bom']!.slice(1), 'a leading BOM is dropped');
  t.equal(await get('/gzip'), BODIES['/gzip'], 'a gzip body');
  const paths = ['/long', '/short', '/medium', '/longer', '/bom', '/gzip', '/bom-chunked', '/medium'];
  const texts = await Promise.all(paths.map(get));
  t.same(texts, paths.map((p) => (p.startsWith('/bom') ? BODIES[p]!.slice(1) : BODIES[p])), 'several at once');
  const small = createNodeFetch({ maxResponseBytes: 1000 });
  t.equal(await get('/medium'), BODIES['/medium'], 'the same body again');
  await t.rejects(small(base + '/long', { method: 'POST', body: '{}' }), 'a body over the limit is refused');
});
