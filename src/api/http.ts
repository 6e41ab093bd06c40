// The API's own request and reply: plain objects, so handlers are tested without sockets and only
// src/api/server.ts knows about uWebSockets.js.
import type { RequestMeter } from '../ratelimit/rate-limiter.js';

/** A query string as parsed by URLSearchParams: keeps repeated keys in order. */
export interface QueryLike {
  get(name: string): string | null;
  getAll(name: string): string[];
  has(name: string): boolean;
  keys(): Iterable<string>;
  entries(): Iterable<[string, string]>;
}

export interface ApiRequest {
  method: string;
  /** Path without the query string, percent-encoded as received. */
  path: string;
  query: QueryLike;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The client's address: the socket's, or (after the gateway) the one a trusted proxy names. */
  ip: string;
  /** Request body (already capped by the server). */
  body?: Buffer;
  /** Set by the gateway: the client's account with the rate limits, charged for rows read. */
  meter?: RequestMeter;
  /** Set by the gateway: the account whose session or API key came with the request. */
  viewer?: string;
}

/**
 * The request with what the gateway decided about it, as one object literal of one shape: the
 * object spread it replaces cost about a microsecond a copy, a tenth of a cached answer's CPU.
 */
export function admittedRequest(req: ApiRequest, ip: string, body: Buffer | undefined, meter: RequestMeter | undefined, viewer: string | undefined): ApiRequest {
  return { method: req.method, path: req.path, query: req.query, headers: req.headers, ip, body, meter, viewer };
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
  /**
   * A body produced while it is sent (CSV exports): src/api/server.ts writes each chunk when the
   * socket takes it and pulls the next only then, so memory holds about one chunk. `body` is ''
   * with it. Whoever drops such a reply unsent calls its iterator's return(): nothing was read
   * yet (the iterator is lazy), but what it holds is let go (an export's concurrency slot).
   */
  stream?: AsyncIterable<Uint8Array>;
}

/** Whether the request carries an account credential (Bearer token, x-api-key, or apikey in the query). */
export function sentCredential(req: ApiRequest): boolean {
  const auth = req.headers['authorization'];
  return (typeof auth === 'string' && /^bearer\s+\S/i.test(auth)) || !!req.headers['x-api-key'] || req.query.has('apikey');
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, OPTIONS',
  'access-control-allow-headers':
    'content-type, authorization, x-api-key, updated-gas-oracle, recaptcha-v2-response, recaptcha-v3-response, recaptcha-bypass-token, scoped-recaptcha-bypass-token, show-scam-tokens, api-v2-temp-token',
  'access-control-expose-headers': 'bypass-429-option, x-ratelimit-reset, x-ratelimit-limit, x-ratelimit-remaining, api-v2-temp-token',
  'access-control-max-age': '86400',
};

/**
 * Reason phrases for the status line: every status of RFC 9110 §15 (and 429 of RFC 6585), so a
 * status the code starts to use later still gets its phrase rather than a made-up one.
 */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  100: 'Continue',
  101: 'Switching Protocols',
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  203: 'Non-Authoritative Information',
  204: 'No Content',
  205: 'Reset Content',
  206: 'Partial Content',
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  421: 'Misdirected Request',
  422: 'Unprocessable Content',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
};

/** The status line's text after "HTTP/1.1 ": the code and its reason phrase. */
export function statusLine(status: number): string {
  const text = STATUS_TEXT[status];
  if (text) return `${status} ${text}`;
  // An unregistered code: the reason phrase may be empty (RFC 9112 §4), which says nothing wrong.
  return `${status} `;
}
