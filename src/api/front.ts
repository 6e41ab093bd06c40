// What the HTTP server and the request handlers above it share, so the server depends on neither:
// the two steps of a request's admission (Front, Admission; src/api/server.ts calls them, the
// gateway implements them) and the Account API as the gateway and the websocket admission use it.
import type { ApiReply, ApiRequest } from './http.js';

/**
 * What admit decides: a reply to send now, or how to answer once the body (if any) is in, with
 * `headers` the server writes after that answer's own (the rate-limit headers, decided here: so
 * the answer needs no second promise to take them).
 */
export type Admission = { reply: ApiReply } | { finish(body: Buffer | undefined): Promise<ApiReply>; headers?: Readonly<Record<string, string>> };

/** The two steps of a request that the server needs to keep bodies unread until they are wanted. */
export interface Front {
  /** Largest body this request may send, in bytes (0: none), from its method, path and headers. */
  bodyLimit(req: ApiRequest): number;
  /**
   * Checks that need no body (rate limits, credentials); `announcesBody` when one will follow.
   * Decided at once where no lookup is needed (most requests): a promise less per request.
   */
  admit(req: ApiRequest, announcesBody: boolean): Admission | Promise<Admission>;
}

/** The Account API as the gateway and the websocket admission use it (src/account/app.ts). */
export interface AccountLike {
  handle(req: ApiRequest): Promise<ApiReply>;
  identify(req: Pick<ApiRequest, 'headers' | 'query'>): Promise<{ userId: string; keyId?: string } | null>;
  /** Its own body cap of a path (the public-name icon upload takes an image), when larger than accountBodyBytes. */
  maxBodyBytes?(path: string): number;
  /** Hears public-name decisions taken through it (the API clears its caches). */
  onPublicNamesChanged?(fn: (address: string) => void): () => void;
}
