// The web UI's one way to data: the public API's HTTP contract (/api/v2, and the stats service's
// /api/v1) and the Account API (/account/api/v1) for signed-in visitors. In the all-in-one process
// a request is handed to the API's handler in the same process (the same bytes, no socket); a UI
// on its own (`explorer ui`) asks API_URL over HTTP. A signed-in visitor's requests carry their
// session as `Authorization: Bearer`, so the API answers them personalised (private tags,
// watchlist names, custom-ABI decodings) and applies the visitor's own rate limit.
import type { ApiReply, ApiRequest } from '../api/http.js';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  /** Response headers (lower-case names) the UI may pass on, e.g. retry-after. */
  headers?: Record<string, string>;
}

/** Who asks: a signed-in visitor's session token and address (for their rate limit). */
export interface Caller {
  token?: string;
  ip?: string;
}

export interface ApiClient {
  /** GET `pathAndQuery` (e.g. '/api/v2/blocks?type=block'); any status is returned, a dead API throws ApiUnavailable. */
  get<T = any>(pathAndQuery: string, caller?: Caller): Promise<ApiResponse<T>>;
  /** A request with a JSON body (the Account API's changes); any status is returned. */
  send<T = any>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body: unknown, caller?: Caller): Promise<ApiResponse<T>>;
  /** A POST whose body is `bytes` as they are (the public-name icon upload takes the image itself); any status is returned. */
  upload<T = any>(path: string, bytes: Buffer, contentType: string, caller?: Caller): Promise<ApiResponse<T>>;
  /**
   * The API's reply to `req` as it is (status, headers, body or stream), for what the UI passes
   * through unchanged on its own origin: the CSV exports, streamed.
   */
  raw(req: ApiRequest): Promise<ApiReply>;
}

/** The API did not answer (down, timed out, not JSON): the page says so (503). */
export class ApiUnavailable extends Error {}

function parse(status: number, text: string, headers?: Record<string, string>): ApiResponse {
  try {
    return { status, body: text ? JSON.parse(text) : null, headers };
  } catch {
    throw new ApiUnavailable(`the API answered ${status} with a body that is not JSON`);
  }
}

function requestOf(method: string, pathAndQuery: string, caller: Caller | undefined, body?: unknown, raw?: { bytes: Buffer; type: string }): ApiRequest {
  const q = pathAndQuery.indexOf('?');
  const headers: Record<string, string> = {};
  if (caller?.token) headers.authorization = `Bearer ${caller.token}`;
  if (raw) headers['content-type'] = raw.type;
  else if (body !== undefined) headers['content-type'] = 'application/json';
  return {
    method,
    path: q < 0 ? pathAndQuery : pathAndQuery.slice(0, q),
    query: new URLSearchParams(q < 0 ? '' : pathAndQuery.slice(q + 1)),
    headers,
    ip: caller?.ip ?? '127.0.0.1',
    body: raw ? raw.bytes : body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
  };
}

const HEADERS_KEPT = ['retry-after', 'content-type', 'content-disposition', 'cache-control'];

/**
 * Requests handed to handlers in this process: anonymous public reads to `publicHandle` (the API
 * app itself: its response cache, no rate limit: the UI limits page requests per visitor), and
 * everything that carries a session to `gateway` (rate limits, credentials, personalisation, the
 * Account API).
 */
export function inProcessClient(publicHandle: (req: ApiRequest) => Promise<ApiReply>, gateway?: (req: ApiRequest) => Promise<ApiReply>): ApiClient {
  const call = async (req: ApiRequest): Promise<ApiResponse<any>> => {
    const viaGateway = gateway && (req.headers.authorization || req.path.startsWith('/account/'));
    const reply = await (viaGateway ? gateway : publicHandle)(req);
    const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
    const headers: Record<string, string> = {};
    for (const k of HEADERS_KEPT) if (reply.headers[k]) headers[k] = reply.headers[k];
    return parse(reply.status, text, headers) as ApiResponse<any>;
  };
  return {
    get: (pathAndQuery, caller) => call(requestOf('GET', pathAndQuery, caller)),
    send: (method, path, body, caller) => call(requestOf(method, path, caller, body)),
    upload: (path, bytes, type, caller) => call(requestOf('POST', path, caller, undefined, { bytes, type })),
    raw: (req) => publicHandle(req),
  };
}

/** Requests to an API server at `baseUrl` (API_URL), each within `timeoutMs`. */
export function httpClient(baseUrl: string, timeoutMs = 10_000): ApiClient {
  const base = baseUrl.replace(/\/+$/, '');
  const call = async (method: string, pathAndQuery: string, caller: Caller | undefined, body?: unknown, raw?: { bytes: Buffer; type: string }): Promise<ApiResponse<any>> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (caller?.token) headers.authorization = `Bearer ${caller.token}`;
    if (caller?.ip) headers['x-forwarded-for'] = caller.ip;
    if (raw) headers['content-type'] = raw.type;
    else if (body !== undefined) headers['content-type'] = 'application/json';
    const sent = raw ? new Uint8Array(raw.bytes) : body === undefined ? undefined : JSON.stringify(body);
    let res: Response;
    try {
      res = await fetch(base + pathAndQuery, { method, headers, body: sent, signal: AbortSignal.timeout(timeoutMs) });
    } catch (e) {
      throw new ApiUnavailable(`the API at ${base} did not answer (${e instanceof Error ? e.message : String(e)})`);
    }
    const kept: Record<string, string> = {};
    for (const k of HEADERS_KEPT) {
      const v = res.headers.get(k);
      if (v) kept[k] = v;
    }
    return parse(res.status, await res.text(), kept) as ApiResponse<any>;
  };
  return {
    get: (pathAndQuery, caller) => call('GET', pathAndQuery, caller),
    send: (method, path, body, caller) => call(method, path, caller, body),
    upload: (path, bytes, type, caller) => call('POST', path, caller, undefined, { bytes, type }),
    async raw(req) {
      const q = req.query.toString();
      let res: Response;
      try {
        // No timeout on the body: an export streams as long as it has rows (the API paces it).
        res = await fetch(`${base}${req.path}${q ? `?${q}` : ''}`, { headers: { 'x-forwarded-for': req.ip } });
      } catch (e) {
        throw new ApiUnavailable(`the API at ${base} did not answer (${e instanceof Error ? e.message : String(e)})`);
      }
      const headers: Record<string, string> = {};
      for (const k of HEADERS_KEPT) {
        const v = res.headers.get(k);
        if (v) headers[k] = v;
      }
      const body = res.body;
      if (!body) return { status: res.status, headers, body: '' };
      return { status: res.status, headers, body: '', stream: body as unknown as AsyncIterable<Uint8Array> };
    },
  };
}

/** `api` with every request made as `caller` (a signed-in visitor's pages). */
export function asCaller(api: ApiClient, caller: Caller): ApiClient {
  return {
    get: (p, c) => api.get(p, c ?? caller),
    send: (m, p, b, c) => api.send(m, p, b, c ?? caller),
    upload: (p, bytes, type, c) => api.upload(p, bytes, type, c ?? caller),
    raw: (req) => api.raw(req),
  };
}
