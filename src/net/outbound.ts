// The one way the explorer sends an HTTP(S) request to a URL that is not the operator's own node
// (webhook deliveries, icon URLs, NFT metadata and its IPFS gateway, compiler downloads, the online
// signature lookup, the price source): the host is resolved once, every address it resolves to is
// checked (private-address.ts), and the connection goes to exactly those checked addresses, so no
// second DNS answer can rebind it to an internal one; TLS (SNI, certificate) and the Host header
// still name the host. Redirects are followed up to a cap, each target checked the same way; the
// body is capped in size and the whole exchange, redirects included, in time, so a server dripping
// bytes is cut off too.
// A failure is an OutboundError whose message may be shown to whoever gave the URL (it never names
// a resolved address or a DNS error) and whose `detail` is for the log.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPrivateAddress } from './private-address.js';

/** A host's addresses (dns.promises.lookup with all: true). Tests inject their own. */
export type Resolve = (host: string) => Promise<dns.LookupAddress[]>;

// Read at call time, not bound at import: a test that replaces dns.promises.lookup is obeyed.
const systemResolve: Resolve = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

export interface OutboundOptions {
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest response body accepted (declared or streamed). */
  maxBytes: number;
  /** The whole exchange: resolving, connecting, every redirect and the body. */
  timeoutMs: number;
  /** Redirects followed (each target checked like the first URL). Default 0: none. */
  maxRedirects?: number;
  /** Plain http:// as well as https://. Default false. */
  allowHttp?: boolean;
  /**
   * Private, loopback, link-local and metadata addresses reached anyway: an operator setting or a
   * test (true), or a predicate for URLs the operator configured (e.g. under its IPFS gateway).
   */
  allowPrivate?: boolean | ((url: URL) => boolean);
  /** Extra CA certificates (PEM) to trust, e.g. an operator's internal CA or a test's. */
  ca?: string | Buffer;
  /** False: the answer ends at its headers; its body is neither read nor returned. Default true. */
  readBody?: boolean;
  /** Tests only: how host names are resolved. Default the system's resolver (dns.lookup). */
  resolve?: Resolve;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered (after redirects). */
  url: string;
}

export type OutboundFailure =
  /** Not a URL this request may go to (scheme, credentials, syntax): the message says which. */
  | 'invalid'
  /** The host is, or resolves to, an address that is not public. */
  | 'refused'
  /** The name does not resolve, or no connection or TLS session could be made, or it broke. */
  | 'unreachable'
  | 'timeout'
  | 'too-large'
  /** A redirect beyond maxRedirects (`status` holds its HTTP status). */
  | 'redirect';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    /** Safe to show to whoever gave the URL. */
    message: string,
    /** For the log: hosts, resolved addresses, error codes. */
    readonly detail: string = message,
    readonly status?: number,
  ) {
    super(message);
  }

  /** Whether trying again later can help. */
  get retryable(): boolean {
    return this.kind === 'unreachable' || this.kind === 'timeout';
  }
}

const REFUSED = 'the target is refused (not a public address)';
const UNREACHABLE = 'the target is unreachable';

/** A URL checked for a request: its addresses, each allowed. */
export interface CheckedTarget {
  url: URL;
  addresses: dns.LookupAddress[];
}

/**
 * Parses and checks a URL the way every request does: scheme, no credentials, the host resolved
 * once and every address allowed. Throws an OutboundError ('invalid', 'refused', 'unreachable').
 */
export async function checkTarget(raw: string, o: Pick<OutboundOptions, 'allowHttp' | 'allowPrivate' | 'resolve'>): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid', 'not a valid URL');
  }
  if (url.protocol !== 'https:' && !(o.allowHttp && url.protocol === 'http:')) {
    throw new OutboundError('invalid', o.allowHttp ? 'the URL must use http or https' : 'the URL must use https');
  }
  if (url.username || url.password) throw new OutboundError('invalid', 'the URL must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: dns.LookupAddress[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await (o.resolve ?? systemResolve)(host);
    } catch (e) {
      throw new OutboundError('unreachable', UNREACHABLE, `cannot resolve ${host}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (!addresses.length) throw new OutboundError('unreachable', UNREACHABLE, `${host} resolves to no address`);
  }
  const allowed = typeof o.allowPrivate === 'function' ? o.allowPrivate(url) : !!o.allowPrivate;
  if (!allowed) {
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad)
      throw new OutboundError('refused', REFUSED, bad.address === host ? `${host} is a private address` : `${host} resolves to private address ${bad.address}`);
  }
  return { url, addresses };
}

/** A `lookup` that answers the checked addresses only: the connection cannot go anywhere else. */
function fixedLookup(target: CheckedTarget): net.LookupFunction {
  return (_hostname, options, callback) => {
    const cb = callback as unknown as (e: Error | null, a: string | dns.LookupAddress[], f?: number) => void;
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    const list = family ? target.addresses.filter((a) => a.family === family) : target.addresses;
    if (!list.length) return cb(Object.assign(new Error(`no IPv${family} address`), { code: 'ENOTFOUND' }), '');
    if (options.all) return cb(null, list);
    cb(null, list[0]!.address, list[0]!.family);
  };
}

type Answer = OutboundResponse | { redirect: string; status: number };

/** One request to one checked target; settles once, on the answer, an error or the deadline. */
function exchange(
  target: CheckedTarget,
  req: { method: string; headers: Record<string, string>; body?: string | Buffer },
  o: OutboundOptions,
  deadline: AbortSignal,
  timedOut: () => OutboundError,
): Promise<Answer> {
  const { url } = target;
  return new Promise<Answer>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      f();
    };
    let request: http.ClientRequest | undefined;
    const fail = (e: OutboundError) =>
      settle(() => {
        request?.destroy();
        reject(e);
      });
    const broke = (e: NodeJS.ErrnoException) =>
      fail(new OutboundError('unreachable', UNREACHABLE, `${url.host}: ${e.code ?? e.message}${e.code && e.message ? ` (${e.message})` : ''}`));
    const onDeadline = () => fail(timedOut());
    const mod = url.protocol === 'https:' ? https : http;
    try {
      request = mod.request(
        url,
        {
          method: req.method,
          headers: req.body !== undefined ? { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) } : req.headers,
          lookup: fixedLookup(target),
          agent: false,
          ...(url.protocol === 'https:' && o.ca ? { ca: o.ca } : {}),
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          if (status >= 300 && status < 400 && location) {
            return settle(() => {
              request?.destroy();
              resolve({ redirect: location, status });
            });
          }
          if (o.readBody === false) {
            return settle(() => {
              request?.destroy();
              resolve({ status, headers: res.headers, body: Buffer.alloc(0), url: url.href });
            });
          }
          const tooLarge = () => new OutboundError('too-large', `larger than ${o.maxBytes} bytes`);
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > o.maxBytes) return fail(tooLarge());
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > o.maxBytes) return fail(tooLarge());
            chunks.push(c);
          });
          res.on('end', () => settle(() => resolve({ status, headers: res.headers, body: Buffer.concat(chunks), url: url.href })));
          res.on('error', broke);
          res.on('close', () => {
            if (!res.complete) broke(Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' }));
          });
        },
      );
    } catch (e) {
      // Headers node refuses (control characters): nothing was sent.
      return fail(new OutboundError('invalid', 'the request could not be made', (e as Error).message));
    }
    request.on('error', broke);
    if (deadline.aborted) return onDeadline();
    deadline.addEventListener('abort', onDeadline, { once: true });
    request.end(req.body);
  });
}

/** `p`, or the deadline's error as soon as it passes (a DNS lookup cannot be cancelled). */
function beforeDeadline<T>(p: Promise<T>, deadline: AbortSignal, timedOut: () => OutboundError): Promise<T> {
  if (deadline.aborted) return Promise.reject(timedOut());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(timedOut());
    deadline.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}

/** The request, through the guard; any HTTP status is an answer, every other failure an OutboundError. */
export async function outbound(raw: string, o: OutboundOptions): Promise<OutboundResponse> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), o.timeoutMs);
  const timedOut = () => new OutboundError('timeout', `no complete answer within ${o.timeoutMs} ms`);
  const maxRedirects = o.maxRedirects ?? 0;
  const headers = Object.fromEntries(Object.entries(o.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  let req = { method: (o.method ?? 'GET').toUpperCase(), headers, body: o.body };
  let current = raw;
  try {
    for (let hop = 0; ; hop++) {
      const target = await beforeDeadline(checkTarget(current, o), ac.signal, timedOut);
      const answer = await exchange(target, req, o, ac.signal, timedOut);
      if (!('redirect' in answer)) return answer;
      if (hop >= maxRedirects) {
        const why = maxRedirects === 0 ? `the URL redirects (HTTP ${answer.status}) and redirects are not followed` : `more than ${maxRedirects} redirects`;
        throw new OutboundError('redirect', why, why, answer.status);
      }
      let next: URL;
      try {
        next = new URL(answer.redirect, target.url);
      } catch {
        throw new OutboundError('invalid', `HTTP ${answer.status} with an invalid Location`);
      }
      // As browsers do: 303 (and 301/302 after a POST) continue with a GET without the body; the
      // credentials a caller sent are for the first origin only.
      if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && req.method === 'POST')) {
        const { 'content-type': _t, ...rest } = req.headers;
        req = { method: 'GET', headers: rest, body: undefined };
      }
      if (next.origin !== target.url.origin) {
        const { authorization: _a, cookie: _c, ...rest } = req.headers;
        req = { ...req, headers: rest };
      }
      current = next.href;
    }
  } finally {
    clearTimeout(timer);
  }
}
