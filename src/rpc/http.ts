// The HTTP transport under viem's getHttpRpcClient (its `fetchFn` option): node:http(s) with
// keep-alive agents instead of the global fetch. A JSON-RPC response of several megabytes then
// costs one copy into a kept body buffer and one utf-8 decoding (Buffer#toString), instead of a
// WHATWG stream read chunk by chunk, a streaming TextDecoder and a string concatenated from the
// pieces, which cost the ingest workers several times JSON.parse's own time per response.
//
// What the global fetch would do is kept: the same request (method, headers, body; fetch's
// default accept, accept-encoding and user-agent), gzip/deflate/br bodies decoded, a leading
// utf-8 BOM dropped (TextDecoder does), the abort signal honoured, the body size limit applied
// to the decoded bytes (viem's ResponseBodyTooLargeError, which the client reports as before).
// A redirect, a content encoding we do not decode, or a port fetch refuses is handed to the
// global fetch as is.

import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';
import { ResponseBodyTooLargeError } from 'viem';

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
};

/** What viem reads from a response (see viem/utils/rpc/http.ts). */
export interface MinimalResponse {
  ok: boolean;
  status: number;
  statusText: string;
  headers: Headers;
  body: null;
  url: string;
  text(): Promise<string>;
}

type FetchInit = {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: string | Uint8Array | null;
  signal?: AbortSignal | null;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Ports fetch refuses to connect to (the Fetch standard's "bad ports"): left to fetch. */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

function tooLarge(maxSize: number, size: number): Error {
  return new ResponseBodyTooLargeError({ maxSize, size });
}

/** Decodes a body by its content-encoding list; null when an encoding is not one fetch decodes. */
function decodeBody(body: Buffer, encoding: string, maxBytes: number): Buffer | null {
  const codings = encoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'identity');
  let out = body;
  const opts = { maxOutputLength: maxBytes + 1 };
  for (let i = codings.length - 1; i >= 0; i--) {
    const c = codings[i];
    try {
      if (c === 'gzip' || c === 'x-gzip') out = zlib.gunzipSync(out, { ...opts, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      else if (c === 'deflate') {
        try {
          out = zlib.inflateSync(out, { ...opts, finishFlush: zlib.constants.Z_SYNC_FLUSH });
        } catch (e) {
          if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw e;
          out = zlib.inflateRawSync(out, { ...opts, finishFlush: zlib.constants.Z_SYNC_FLUSH });
        }
      } else if (c === 'br') out = zlib.brotliDecompressSync(out, opts);
      else return null;
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(maxBytes, maxBytes + 1);
      throw e;
    }
  }
  return out;
}

/** utf-8 text of `b` (its first `len` bytes) as fetch's Response#text() gives it (a leading BOM is dropped). */
function utf8Text(b: Buffer, len = b.length): string {
  const bom = len >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf;
  return b.toString('utf8', bom ? 3 : 0, len);
}

// One body buffer per thread, reused: a multi-chunk body is copied into it and decoded to text
// at once (synchronously, so no two bodies share it). A fresh Buffer.concat per response
// touched new pages every time (page faults and the kernel zeroing them: about 2% of an ingest
// worker's CPU in a profile). Bodies above SCRATCH_MAX are joined as before.
const SCRATCH_MAX = 64 * 1024 * 1024;
let scratch: Buffer | undefined;

/** The text of an uncompressed body received as `chunks` (`size` bytes in all). */
function chunksText(chunks: readonly Buffer[], size: number): string {
  if (chunks.length === 1) return utf8Text(chunks[0]!);
  if (size > SCRATCH_MAX) return utf8Text(Buffer.concat(chunks, size));
  if (!scratch || scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(size, 2 * (scratch?.length ?? 0), 1 << 20)));
  let p = 0;
  for (const c of chunks) p += c.copy(scratch, p);
  return utf8Text(scratch, size);
}

function viaGlobalFetch(url: string, init: FetchInit): Promise<MinimalResponse> {
  return fetch(url, init as RequestInit).then(async (res) => {
    const text = await res.text();
    return {
      ok: res.ok,
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
      body: null,
      url: res.url,
      text: () => Promise.resolve(text),
    };
  });
}

/**
 * A fetch for viem's HTTP RPC client (pass `maxResponseBodySize: false` to viem: the limit is
 * applied here). Responses come back fully read, with `body: null` and `text()`.
 */
export function createNodeFetch(opts: { maxResponseBytes: number }): (url: string, init: FetchInit) => Promise<MinimalResponse> {
  const maxBytes = opts.maxResponseBytes;
  return (url, init) =>
    new Promise<MinimalResponse>((resolve, reject) => {
      const signal = init.signal ?? null;
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      let u: URL;
      try {
        u = new URL(url);
      } catch (e) {
        reject(e);
        return;
      }
      const mod = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : null;
      if (!mod || (u.port !== '' && BAD_PORTS.has(Number(u.port)))) {
        // Not http(s), or a port fetch refuses: whatever fetch makes of it.
        viaGlobalFetch(url, init).then(resolve, reject);
        return;
      }
      const headers: Record<string, string> = {
        accept: '*/*',
        'accept-language': '*',
        'sec-fetch-mode': 'cors',
        'user-agent': 'node',
        'accept-encoding': u.protocol === 'https:' ? 'br, gzip, deflate' : 'gzip, deflate',
      };
      const h = init.headers;
      if (h instanceof Headers) h.forEach((v, k) => (headers[k] = v));
      else if (h) for (const k of Object.keys(h)) headers[k.toLowerCase()] = h[k]!;
      const body = init.body == null ? null : typeof init.body === 'string' ? Buffer.from(init.body, 'utf8') : Buffer.from(init.body);
      if (body) headers['content-length'] = String(body.length);
      let settled = false;
      const fail = (e: unknown) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      };
      const done = (r: MinimalResponse) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const req = mod.request(u, { method: init.method ?? 'GET', headers, agent: agents[u.protocol as 'http:' | 'https:'] });
      function onAbort() {
        const reason = abortReason(signal!);
        req.destroy();
        fail(reason);
      }
      signal?.addEventListener('abort', onAbort);
      req.on('error', fail);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (REDIRECTS.has(status) && res.headers.location) {
          // Redirects: exactly what fetch does with them.
          res.resume();
          viaGlobalFetch(url, init).then(done, fail);
          return;
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          res.destroy();
          fail(tooLarge(maxBytes, declared));
          return;
        }
        const encoding = res.headers['content-encoding'];
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          // Compressed bodies are checked once decoded.
          if (!encoding && size > maxBytes) {
            res.destroy();
            fail(tooLarge(maxBytes, size));
            return;
          }
          chunks.push(c);
        });
        res.on('error', fail);
        res.on('close', () => {
          // The connection went away before the body was complete.
          if (!res.complete) fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        });
        res.on('end', () => {
          if (settled) return;
          let text: string;
          if (encoding) {
            let decoded: Buffer | null;
            try {
              decoded = decodeBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), encoding, maxBytes);
            } catch (e) {
              fail(e);
              return;
            }
            if (decoded === null) {
              viaGlobalFetch(url, init).then(done, fail);
              return;
            }
            if (decoded.length > maxBytes) {
              fail(tooLarge(maxBytes, decoded.length));
              return;
            }
            text = utf8Text(decoded);
          } else text = chunksText(chunks, size);
          const responseHeaders = new Headers();
          try {
            const rh = res.rawHeaders;
            for (let i = 0; i + 1 < rh.length; i += 2) responseHeaders.append(rh[i]!, rh[i + 1]!);
          } catch (e) {
            fail(e);
            return;
          }
          done({
            ok: status >= 200 && status < 300,
            status,
            statusText: res.statusMessage ?? '',
            headers: responseHeaders,
            body: null,
            url,
            text: () => Promise.resolve(text),
          });
        });
      });
      req.end(body ?? undefined);
    });
}
