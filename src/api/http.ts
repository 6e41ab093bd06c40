// The API's own request and reply: plain objects, so handlers are tested without sockets and only
// src/api/server.ts knows about uWebSockets.js.

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
  ip: string;
  /** Request body (already capped by the server). */
  body?: Buffer;
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
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

export function jsonReply(status: number, body: unknown, extra?: Record<string, string>): ApiReply {
  return { status, headers: { 'content-type': JSON_TYPE, ...extra }, body: JSON.stringify(body) };
}

/** Reason phrases for the status line. */
export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  204: 'No Content',
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};
