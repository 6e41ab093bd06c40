// The web UI's one way to chain data: the public API's HTTP contract (/api/v2, and the stats
// service's /api/v1). In the all-in-one process the request is handed to the API handler in the
// same process (the same bytes, no socket); a UI on its own (`explorer ui`) asks API_URL over HTTP.
import type { ApiReply, ApiRequest } from '../api/http.js';

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

export interface ApiClient {
  /** GET `pathAndQuery` (e.g. '/api/v2/blocks?type=block'); any status is returned, a dead API throws ApiUnavailable. */
  get<T = any>(pathAndQuery: string): Promise<ApiResponse<T>>;
  /**
   * The API's reply to `req` as it is (status, headers, body or stream), for what the UI passes
   * through unchanged on its own origin: the CSV exports, streamed.
   */
  raw(req: ApiRequest): Promise<ApiReply>;
}

/** The API did not answer (down, timed out, not JSON): the page says so (503). */
export class ApiUnavailable extends Error {}

function parse(status: number, text: string): ApiResponse {
  try {
    return { status, body: text ? JSON.parse(text) : null };
  } catch {
    throw new ApiUnavailable(`the API answered ${status} with a body that is not JSON`);
  }
}

/** Requests handed to the API's handler in this process. */
export function inProcessClient(handle: (req: ApiRequest) => Promise<ApiReply>): ApiClient {
  return {
    async get(pathAndQuery) {
      const q = pathAndQuery.indexOf('?');
      const reply = await handle({
        method: 'GET',
        path: q < 0 ? pathAndQuery : pathAndQuery.slice(0, q),
        query: new URLSearchParams(q < 0 ? '' : pathAndQuery.slice(q + 1)),
        headers: {},
        ip: '127.0.0.1',
      });
      const text = typeof reply.body === 'string' ? reply.body : reply.body.toString('utf8');
      return parse(reply.status, text) as ApiResponse<any>;
    },
    raw: (req) => handle(req),
  };
}

/** Requests to an API server at `baseUrl` (API_URL), each within `timeoutMs`. */
export function httpClient(baseUrl: string, timeoutMs = 10_000): ApiClient {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    async get(pathAndQuery) {
      let res: Response;
      try {
        res = await fetch(base + pathAndQuery, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
      } catch (e) {
        throw new ApiUnavailable(`the API at ${base} did not answer (${e instanceof Error ? e.message : String(e)})`);
      }
      return parse(res.status, await res.text()) as ApiResponse<any>;
    },
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
      for (const k of ['content-type', 'content-disposition', 'cache-control', 'retry-after']) {
        const v = res.headers.get(k);
        if (v) headers[k] = v;
      }
      const body = res.body;
      if (!body) return { status: res.status, headers, body: '' };
      return { status: res.status, headers, body: '', stream: body as unknown as AsyncIterable<Uint8Array> };
    },
  };
}
