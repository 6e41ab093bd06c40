// NFT metadata: tokenURI/uri over a replay RPC server, the documents served on loopback:
// data: URIs, http(s) (redirects, 404, 5xx/429, oversize, timeout, closed port, non-JSON),
// ipfs:// through the gateway, ERC-1155 {id}, and the SSRF guard (every address checked,
// redirects re-checked, DNS rebinding).
import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import dns from 'node:dns';
import { encodeAbiParameters } from 'viem';
import { createRpcClient } from '../../../src/rpc/client.js';
import { RpcError } from '../../../src/rpc/errors.js';
import { freePort } from '../../../src/net/local.js';
import {
  fetchNftMetadata,
  ipfsToGateway,
  parseDataUri,
  resolveImage,
  substituteId,
  type FetchNftMetadataOptions,
} from '../../../src/derived/nft-metadata.js';
import { startReplayRpc, type ReplayServer } from '../../helpers/replay-rpc.js';

const NFT = '0x' + '72'.repeat(20);
const MULTI = '0x' + '11'.repeat(20);
const TOKEN_URI = '0xc87b56dd';
const URI_1155 = '0x0e89341c';
const abiString = (s: string) => encodeAbiParameters([{ type: 'string' }], [s]);
const b64json = (o: unknown) => `data:application/json;base64,${Buffer.from(JSON.stringify(o)).toString('base64')}`;

type Teardown = { teardown: (fn: () => unknown) => void };

/** Loopback HTTP server with the routes the tests need; `hits` counts requests per path. */
async function docServer(t: Teardown) {
  const hits: string[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    hits.push(path);
    const json = (code: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(code, { 'content-type': 'application/json', ...headers });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    let m: RegExpExecArray | null;
    if (path === '/meta/ok.json') return json(200, { name: 'ok', image: 'ipfs://QmImage/1.png' });
    if (path === '/meta/relimg.json') return json(200, { name: 'rel', image: 'img/1.png' });
    if (path === '/meta/bom.json') return json(200, '\uFEFF{"name":"bom"}', { 'content-type': 'text/plain' });
    if ((m = /^\/nft\/(\d+)$/.exec(path))) return json(200, { name: `http #${m[1]}`, image: `http://img.example/${m[1]}.png` });
    if ((m = /^\/multi\/([0-9a-f]{64})\.json$/.exec(path))) return json(200, { name: `multi ${m[1]}`, image: 'https://img.example/{id}.png' });
    // The gateway sends one document elsewhere on its host: outside the gateway's trusted prefix.
    if (path === '/ipfs/QmRedirectOut') return res.writeHead(302, { location: '/meta/ok.json' }).end();
    if ((m = /^\/ipfs\/(.+)$/.exec(path))) return json(200, { name: `ipfs ${m[1]}`, image: 'ipfs://ipfs/QmImg' });
    if ((m = /^\/r\/(\d+)$/.exec(path))) {
      const n = Number(m[1]);
      res.writeHead(302, { location: n <= 1 ? '/meta/ok.json' : `/r/${n - 1}` });
      return res.end();
    }
    if (path === '/404') return json(404, { error: 'not found' });
    if (path === '/410') return json(410, 'gone');
    if (path === '/500') return json(500, 'oops');
    if (path === '/503') return json(503, 'later');
    if (path === '/429') return json(429, 'slow down', { 'retry-after': '1' });
    if (path === '/notjson') return json(200, '<html>hello</html>', { 'content-type': 'text/html' });
    if (path === '/array') return json(200, [1, 2, 3]);
    if (path === '/big') return json(200, { name: 'big', pad: 'x'.repeat(4096) });
    if (path === '/big-chunked') {
      // No content-length: the cap applies while reading.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"name":"big","pad":"');
      for (let i = 0; i < 8; i++) res.write('y'.repeat(1024));
      return res.end('"}');
    }
    if (path === '/slow') return; // never answers; closed at teardown
    if (path === '/slow-body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"name":');
      return; // the rest never comes
    }
    json(404, 'no route');
  };
  const srv = createServer(handler);
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as AddressInfo).port;
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        srv.closeAllConnections();
        srv.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${port}`, port, hits };
}

/** Replay RPC whose tokenURI(id)/uri(id) answer from `uris` (a missing id reverts). */
async function nftRpc(t: Teardown, uris: Map<string, string>, multiUri?: string): Promise<ReplayServer> {
  const s = await startReplayRpc();
  t.teardown(() => s.close());
  s.handle('eth_call', (params) => {
    const { to, data } = params[0] as { to: string; data: string };
    const id = BigInt('0x' + data.slice(10)).toString();
    if (to === NFT && data.startsWith(TOKEN_URI) && uris.has(id)) {
      const u = uris.get(id)!;
      return { result: u.startsWith('raw:') ? u.slice(4) : abiString(u) };
    }
    if (to === MULTI && data.startsWith(URI_1155) && multiUri !== undefined) return { result: abiString(multiUri) };
    return { error: { code: 3, message: 'execution reverted: ERC721NonexistentToken', data: '0x7e273289' } };
  });
  return s;
}

const rpcClient = (s: ReplayServer) => createRpcClient({ url: s.url, maxRetries: 0, timeoutMs: 2000 });

t.test('URI helpers', async (t) => {
  t.equal(substituteId('https://x/{id}.json', 314n), `https://x/${'13a'.padStart(64, '0')}.json`);
  t.equal(substituteId('https://x/{id}/{id}', 0n), `https://x/${'0'.repeat(64)}/${'0'.repeat(64)}`);
  t.equal(substituteId('https://x/1.json', 5n), 'https://x/1.json');
  t.equal(substituteId('x/{id}', 2n ** 256n - 1n), `x/${'f'.repeat(64)}`);
  const gw = 'https://ipfs.io/ipfs/';
  t.equal(ipfsToGateway('ipfs://QmCid/1.json', gw), 'https://ipfs.io/ipfs/QmCid/1.json');
  t.equal(ipfsToGateway('ipfs://ipfs/QmCid', gw), 'https://ipfs.io/ipfs/QmCid');
  t.equal(ipfsToGateway('ipfs:/ipfs/QmCid/a b.json', gw), 'https://ipfs.io/ipfs/QmCid/a b.json');
  t.equal(ipfsToGateway('IPFS://QmCid', 'http://gw.local/ipfs'), 'http://gw.local/ipfs/QmCid', 'gateway without trailing slash');
  t.equal(ipfsToGateway('ipfs://', gw), null);
  t.equal(ipfsToGateway('https://x/ipfs/Qm', gw), null);
  t.match(parseDataUri('data:application/json,%7B%22name%22%3A%22pct%22%7D'), { ok: true, doc: { name: 'pct' } });
  t.match(parseDataUri('data:application/json;utf8,{"name":"100% raw"}'), { ok: true, doc: { name: '100% raw' } });
  t.match(parseDataUri(b64json({ name: 'b64' })), { ok: true, doc: { name: 'b64' } });
  t.match(parseDataUri('data:application/json;base64,!!!'), { ok: false, retryable: false });
  t.match(parseDataUri('data:application/json;base64,' + Buffer.from('[1]').toString('base64')), { ok: false, error: /not a JSON object/ });
  t.match(parseDataUri('data:text/plain,hello'), { ok: false, error: /not JSON/ });
  t.match(parseDataUri('data:nocomma'), { ok: false });
  const gwImg = (img: unknown, base: string | null = null) => resolveImage({ image: img }, gw, base);
  t.equal(gwImg('ipfs://QmImg/1.png'), 'https://ipfs.io/ipfs/QmImg/1.png');
  t.equal(gwImg('https://cdn.example/a.png'), 'https://cdn.example/a.png');
  t.equal(gwImg('data:image/png;base64,AAAA'), 'data:image/png;base64,AAAA');
  t.equal(gwImg('img/1.png', 'https://meta.example/nft/1.json'), 'https://meta.example/nft/img/1.png');
  t.equal(gwImg('img/1.png'), null, 'relative without a base');
  t.equal(gwImg('javascript:alert(1)'), null);
  t.equal(gwImg('ar://abc'), null);
  t.equal(gwImg(42), null);
  t.equal(gwImg('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG'), 'https://ipfs.io/ipfs/QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG');
  t.match(resolveImage({ image_data: '<svg xmlns="http://www.w3.org/2000/svg"/>' }, gw, null), /^data:image\/svg\+xml;base64,/);
  t.equal(resolveImage({ image: 'https://x/{id}.png' }, gw, null, 1n), `https://x/${'1'.padStart(64, '0')}.png`);
});

t.test('fetchNftMetadata over replay RPC and a loopback server', async (t) => {
  const d = await docServer(t);
  const closedPort = await freePort();
  const uris = new Map<string, string>([
    ['1', b64json({ name: 'data #1', image: 'data:image/svg+xml;base64,PHN2Zy8+' })],
    ['2', 'data:application/json,' + encodeURIComponent(JSON.stringify({ name: 'pct #2', image: 'ipfs://QmPct' }))],
    ['3', `${d.base}/meta/ok.json`],
    ['4', `${d.base}/404`],
    ['5', `${d.base}/500`],
    ['6', `${d.base}/429`],
    ['7', `http://127.0.0.1:${closedPort}/meta.json`],
    ['8', `${d.base}/big`],
    ['9', `${d.base}/big-chunked`],
    ['10', `${d.base}/slow`],
    ['11', `${d.base}/slow-body`],
    ['12', `${d.base}/notjson`],
    ['13', `${d.base}/array`],
    ['14', `${d.base}/r/3`],
    ['15', `${d.base}/r/4`],
    ['16', 'ipfs://QmMeta/16.json'],
    ['17', 'ipfs://ipfs/QmMeta2'],
    ['18', 'ar://arweave-tx-id'],
    ['19', 'raw:0x'],
    ['20', ''],
    ['21', `  ${d.base}/meta/relimg.json  `],
    ['22', `${d.base}/503`],
    ['23', `${d.base}/410`],
    ['24', `${d.base}/meta/bom.json`],
    ['25', 'ftp://example.com/x.json'],
    ['26', 'not a uri at all'],
  ]);
  const s = await nftRpc(t, uris);
  const c = rpcClient(s);
  const opts: FetchNftMetadataOptions = { ipfsGateway: `${d.base}/ipfs/`, allowPrivate: true, timeoutMs: 2000, maxBytes: 2048 };
  const get = (id: string, o: Partial<FetchNftMetadataOptions> = {}) => fetchNftMetadata(c, { address: NFT, type: 'ERC-721' }, id, { ...opts, ...o });

  t.match(await get('1'), { tokenUri: uris.get('1'), metadata: { name: 'data #1' }, image: 'data:image/svg+xml;base64,PHN2Zy8+', error: null, retryable: false });
  t.match(await get('2'), { metadata: { name: 'pct #2' }, image: `${d.base}/ipfs/QmPct`, error: null });
  t.match(await get('3'), { tokenUri: `${d.base}/meta/ok.json`, metadata: { name: 'ok' }, image: `${d.base}/ipfs/QmImage/1.png`, error: null });

  t.match(await get('4'), { tokenUri: `${d.base}/404`, metadata: null, error: 'HTTP 404', retryable: false });
  t.match(await get('23'), { error: 'HTTP 410', retryable: false });
  t.match(await get('5'), { error: 'HTTP 500', retryable: true });
  t.match(await get('22'), { error: 'HTTP 503', retryable: true });
  t.match(await get('6'), { error: 'HTTP 429', retryable: true });
  t.match(await get('7'), { error: 'the target is unreachable', detail: /ECONNREFUSED/, retryable: true }, 'closed port');
  t.match(await get('8'), { error: /larger than 2048 bytes/, retryable: false }, 'content-length over the cap');
  t.match(await get('9'), { error: /larger than 2048 bytes/, retryable: false }, 'chunked body over the cap');
  t.match(await get('8', { maxBytes: 1 << 20 }), { metadata: { name: 'big' }, error: null }, 'default-sized cap');

  const t0 = Date.now();
  t.match(await get('10', { timeoutMs: 300 }), { error: /no complete answer within 300 ms/, retryable: true }, 'no answer');
  t.match(await get('11', { timeoutMs: 300 }), { error: /no complete answer within 300 ms/, retryable: true }, 'body stalls');
  t.ok(Date.now() - t0 < 3000, 'timeouts are prompt');

  t.match(await get('12'), { error: /not JSON/, retryable: false });
  t.match(await get('13'), { error: /not a JSON object/, retryable: false });
  t.match(await get('14'), { metadata: { name: 'ok' }, error: null }, '3 redirects are followed');
  t.match(await get('15'), { error: /more than 3 redirects/, retryable: false });
  t.match(await get('16'), { tokenUri: 'ipfs://QmMeta/16.json', metadata: { name: 'ipfs QmMeta/16.json' }, image: `${d.base}/ipfs/QmImg` });
  t.match(await get('17'), { metadata: { name: 'ipfs QmMeta2' } });
  t.match(await get('18'), { tokenUri: 'ar://arweave-tx-id', error: /unsupported URI scheme/, retryable: false });
  t.match(await get('25'), { error: /unsupported URI scheme/, retryable: false });
  t.match(await get('26'), { error: /unsupported URI scheme/, retryable: false });
  t.match(await get('19'), { tokenUri: null, error: /tokenURI returned no data/, retryable: false });
  t.match(await get('20'), { tokenUri: null, error: /no usable URI/, retryable: false });
  t.match(await get('21'), { tokenUri: `${d.base}/meta/relimg.json`, image: `${d.base}/meta/img/1.png` }, 'trimmed URI; relative image');
  t.match(await get('24'), { metadata: { name: 'bom' }, error: null }, 'BOM, text/plain content type');
  t.match(await get('999'), { tokenUri: null, error: /tokenURI call failed: execution reverted/, retryable: false }, 'revert');
  t.match(await get('-1'), { error: /invalid token id/, retryable: false });
  t.match(await get('abc'), { error: /invalid token id/, retryable: false });
  t.ok(d.hits.includes('/ipfs/QmMeta/16.json') && d.hits.includes('/ipfs/QmMeta2'), 'gateway paths');
});

t.test('ERC-1155 uri(id) with {id}', async (t) => {
  const d = await docServer(t);
  const s = await nftRpc(t, new Map(), `${d.base}/multi/{id}.json`);
  const r = await fetchNftMetadata(rpcClient(s), { address: MULTI, type: 'ERC-1155' }, '314', {
    ipfsGateway: 'https://ipfs.io/ipfs/',
    allowPrivate: true,
  });
  const hex = '13a'.padStart(64, '0');
  t.match(r, { tokenUri: `${d.base}/multi/${hex}.json`, metadata: { name: `multi ${hex}` }, image: `https://img.example/${hex}.png`, error: null });
  t.ok(d.hits.includes(`/multi/${hex}.json`));
});

t.test('SSRF: private targets refused unless allowed', async (t) => {
  const d = await docServer(t);
  const uris = new Map<string, string>([
    ['1', `${d.base}/meta/ok.json`],
    ['2', `http://localhost:${d.port}/meta/ok.json`],
    ['3', `http://[::1]:${d.port}/meta/ok.json`],
    ['4', 'http://169.254.169.254/latest/meta-data/'],
    ['5', 'http://2130706433/'], // 127.0.0.1 as one number: the URL parser normalizes it
    ['7', 'ipfs://QmRedirectOut'], // the gateway redirects outside itself, to a private address
    ['8', 'ipfs://QmViaLocalGateway'],
    ['9', 'ipfs://../meta/ok.json'], // leaves the gateway's path: checked like any URL
    ['10', `http://mixed.test:${d.port}/meta/ok.json`],
  ]);
  const s = await nftRpc(t, uris);
  const c = rpcClient(s);
  const before = d.hits.length;
  // mixed.test resolves to a public and a private address: every address is checked.
  const resolve = async (host: string) =>
    host === 'mixed.test'
      ? [
          { address: '93.184.216.34', family: 4 },
          { address: '127.0.0.1', family: 4 },
        ]
      : dns.promises.lookup(host, { all: true });
  const opts: FetchNftMetadataOptions = { ipfsGateway: `${d.base}/ipfs/`, timeoutMs: 2000, resolve };
  const get = (id: string, o: Partial<FetchNftMetadataOptions> = {}) => fetchNftMetadata(c, { address: NFT, type: 'ERC-721' }, id, { ...opts, ...o });
  const refused = { error: 'the target is refused (not a public address)', retryable: false, metadata: null };

  t.match(await get('1'), { ...refused, detail: /127\.0\.0\.1 is a private address/ });
  t.match(await get('2'), { ...refused, detail: /localhost resolves to private address/ });
  t.match(await get('3'), { ...refused, detail: /::1 is a private address/ });
  t.match(await get('4'), { ...refused, detail: /169\.254\.169\.254/ });
  t.match(await get('5'), { ...refused, detail: /127\.0\.0\.1/ });
  t.match(await get('10'), { ...refused, detail: /mixed\.test resolves to private address 127\.0\.0\.1/ }, 'one private address among public ones');
  t.equal(d.hits.length, before, 'no request reached the loopback server');
  // The operator's own gateway is trusted even on loopback (e.g. a local IPFS node)...
  t.match(await get('8'), { metadata: { name: 'ipfs QmViaLocalGateway' }, error: null });
  // ...but not where it redirects outside itself, nor a path that leaves it.
  t.match(await get('7'), { ...refused, detail: /127\.0\.0\.1 is a private address/ }, 'a redirect to a private address is refused');
  t.match(await get('9'), { ...refused, detail: /127\.0\.0\.1/ });
  t.notOk(d.hits.includes('/meta/ok.json'), 'the paths outside the gateway were not requested');
  // allowPrivate lifts the guard.
  t.match(await get('1', { allowPrivate: true }), { metadata: { name: 'ok' }, error: null });
  t.match(await get('2', { allowPrivate: true }), { metadata: { name: 'ok' }, error: null });
});

t.test('DNS rebinding: a name answering public to the check and loopback after never reaches loopback', async (t) => {
  // The system resolver itself is made to rebind (both of node's lookup entry points), so the test
  // holds for any way of fetching: a check that resolves, then a fetch that resolves again, is
  // caught here (the code before src/net/outbound.ts reached the loopback server).
  const d = await docServer(t);
  const lookups: string[] = [];
  const answer = () => (lookups.length === 1 ? '93.184.216.34' : '127.0.0.1');
  const original = { lookup: dns.lookup, promisesLookup: dns.promises.lookup };
  type Cb = (e: Error | null, a: string | { address: string; family: number }[], f?: number) => void;
  const fake = ((host: string, options: unknown, cb?: Cb) => {
    const callback = (typeof options === 'function' ? options : cb) as Cb;
    const opts = (typeof options === 'object' && options) || {};
    if (host !== 'rebind.test') return (original.lookup as (...a: unknown[]) => void)(host, options, cb);
    lookups.push(host);
    const address = answer();
    process.nextTick(() => ((opts as { all?: boolean }).all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4)));
  }) as typeof dns.lookup;
  dns.lookup = fake;
  dns.promises.lookup = (async (host: string, options?: unknown) => {
    if (host !== 'rebind.test') return original.promisesLookup(host, options as dns.LookupAllOptions);
    lookups.push(host);
    const address = answer();
    return (options as { all?: boolean } | undefined)?.all ? [{ address, family: 4 }] : { address, family: 4 };
  }) as typeof dns.promises.lookup;
  t.teardown(() => {
    dns.lookup = original.lookup;
    dns.promises.lookup = original.promisesLookup;
  });
  const s = await nftRpc(t, new Map([['1', `http://rebind.test:${d.port}/meta/ok.json`]]));
  const r = await fetchNftMetadata(rpcClient(s), { address: NFT, type: 'ERC-721' }, '1', { ipfsGateway: 'https://ipfs.io/ipfs/', timeoutMs: 2000 });
  t.same(d.hits, [], 'the loopback server got no request');
  t.equal(r.metadata, null, 'and nothing of it is published');
  t.same(lookups, ['rebind.test'], 'the name was resolved once');
});

t.test('RPC transport failure throws; nothing else does', async (t) => {
  const s = await nftRpc(t, new Map([['1', 'https://example.invalid/1']]));
  s.fault({ status: 502 });
  const err = await fetchNftMetadata(rpcClient(s), { address: NFT, type: 'ERC-721' }, '1', { ipfsGateway: 'https://ipfs.io/ipfs/' }).catch((e: unknown) => e);
  t.type(err, RpcError);
  t.equal((err as RpcError).kind, 'http');
  // A DNS failure is a network error: retryable (.invalid never resolves; no network needed).
  const r = await fetchNftMetadata(rpcClient(s), { address: NFT, type: 'ERC-721' }, '1', { ipfsGateway: 'https://ipfs.io/ipfs/', timeoutMs: 3000 });
  t.match(r, { tokenUri: 'https://example.invalid/1', error: /the target is unreachable|no complete answer/, retryable: true });
});
