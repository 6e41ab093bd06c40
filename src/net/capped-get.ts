// One GET of a URL someone else gave (a submitted icon's URL), through the SSRF guard: http(s)
// only, no credentials in the URL, no private hosts (checked before and again at connect time),
// no redirects followed, a size cap on the body and a time limit.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { guardedLookup, isPrivateAddress } from './private-address.js';

export interface CappedGetOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Tests only: loopback receivers. */
  allowPrivate?: boolean;
}

/** Why the fetch failed, in words for the person who gave the URL. */
export class FetchRefused extends Error {
  constructor(
    message: string,
    /** The body was larger than maxBytes. */
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

export async function cappedGet(raw: string, o: CappedGetOptions): Promise<{ body: Buffer; contentType: string | null }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefused('not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new FetchRefused('only http and https URLs are fetched');
  if (url.username || url.password) throw new FetchRefused('the URL must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // node does not call `lookup` for an IP literal: check it here.
  if (!o.allowPrivate && net.isIP(host) && isPrivateAddress(host)) throw new FetchRefused(`${host} is a private address`);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // The whole exchange, not only the socket's idle time: a server dripping bytes is cut off too.
    const timer = setTimeout(() => fail(new FetchRefused(`no complete answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    const fail = (e: FetchRefused) => {
      clearTimeout(timer);
      req.destroy();
      reject(e);
    };
    const req = mod.request(
      url,
      { method: 'GET', headers: { accept: 'image/*', 'user-agent': 'evm-explorer-icons/1' }, lookup: guardedLookup(!!o.allowPrivate), agent: false },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          res.resume();
          return fail(new FetchRefused(status >= 300 && status < 400 ? `the URL redirects (HTTP ${status}); give the final URL` : `HTTP ${status}`));
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > o.maxBytes) return fail(new FetchRefused(`larger than ${o.maxBytes} bytes`, true));
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > o.maxBytes) return fail(new FetchRefused(`larger than ${o.maxBytes} bytes`, true));
          chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ body: Buffer.concat(chunks), contentType: typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null });
        });
        res.on('error', (e) => fail(new FetchRefused(e.message)));
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => fail(new FetchRefused(e.code === 'EPRIVATE' ? e.message.replace(/^refused: /, '') : e.message)));
    req.end();
  });
}
