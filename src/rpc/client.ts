// JSON-RPC over HTTP on viem's transport layer (getHttpRpcClient: fetch, per-request timeout,
// JSON parsing), with what the indexer needs on top: explicit JSON-RPC batches, a bound on
// in-flight HTTP requests, retries with exponential backoff and jitter on HTTP 429/5xx,
// timeouts, dropped connections, malformed bodies and transient JSON-RPC errors (rate limits),
// never on deterministic errors (-32601 method not found, invalid params, ...), and RpcError
// with method, redacted url, code and message. No database, no global state: usable in
// worker threads.

import { HttpRequestError, ResponseBodyTooLargeError, RpcRequestError, TimeoutError } from 'viem';
import { getHttpRpcClient } from 'viem/utils';
import { RpcError, isTransientRpcError, type RpcErrorKind } from './errors.js';
import { redactUrl } from './url.js';
import { createNodeFetch } from './http.js';
import { backoffMs, sleep } from '../retry.js';

export type RpcVariant = 'geth' | 'erigon' | 'nethermind' | 'besu' | 'anvil';

export interface RpcClientOptions {
  url: string;
  /** Trace API endpoint (debug_trace* / trace_*); defaults to `url`. */
  traceUrl?: string;
  variant?: RpcVariant;
  /** Per-request timeout (one HTTP request, batch or not). Default 30 s. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 5. */
  maxRetries?: number;
  /** Max calls per JSON-RPC batch. Default 20. */
  batchSize?: number;
  /** Max HTTP requests in flight (main and trace URL together). Default 4. */
  concurrency?: number;
  /** First backoff step; doubles per retry, with jitter. Default 200 ms. */
  retryBaseMs?: number;
  /** Backoff cap. Default 10 s. */
  retryMaxMs?: number;
  /** Largest response body accepted. Default 512 MiB. */
  maxResponseBytes?: number;
  headers?: Record<string, string>;
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: { method: string; attempt: number; delayMs: number; reason: string }) => void;
}

export interface RpcCall {
  method: string;
  params?: readonly unknown[];
}

export interface CallOptions {
  /** Send to the trace URL. */
  trace?: boolean;
}

/** Result of one call of a batch: either `result` or `error`. */
export type CallOutcome<T = unknown> = { ok: true; result: T } | { ok: false; error: RpcError };

export interface RpcStats {
  httpRequests: number;
  calls: number;
  retries: number;
  inFlight: number;
  maxInFlight: number;
}

/** One JSON-RPC method's figures: calls sent (every attempt, as RpcStats.calls) and calls that failed for good, by kind. */
export interface MethodStats {
  calls: number;
  errors: Partial<Record<RpcErrorKind, number>>;
}

/** The sum of several clients' per-method figures (the indexer's and its ingest workers'). */
export function sumMethodStats(all: readonly Record<string, MethodStats>[]): Record<string, MethodStats> {
  const out: Record<string, MethodStats> = {};
  for (const one of all) {
    for (const [method, s] of Object.entries(one)) {
      const o = (out[method] ??= { calls: 0, errors: {} });
      o.calls += s.calls;
      for (const [kind, n] of Object.entries(s.errors) as [RpcErrorKind, number][]) o.errors[kind] = (o.errors[kind] ?? 0) + n;
    }
  }
  return out;
}

export interface RpcClient {
  /** Main URL, redacted. */
  readonly url: string;
  /** Trace URL, redacted. */
  readonly traceUrl: string;
  readonly variant: RpcVariant;
  readonly options: Readonly<Required<Pick<RpcClientOptions, 'timeoutMs' | 'maxRetries' | 'batchSize' | 'concurrency'>>>;
  /** One call; throws RpcError. */
  request<T = unknown>(method: string, params?: readonly unknown[], opts?: CallOptions): Promise<T>;
  /** Many calls in JSON-RPC batches of `batchSize`; one outcome per call, in order. */
  batch<T = unknown>(calls: readonly RpcCall[], opts?: CallOptions): Promise<CallOutcome<T>[]>;
  /** Like `batch`, but throws the first call's error. */
  batchOrThrow<T = unknown>(calls: readonly RpcCall[], opts?: CallOptions): Promise<T[]>;
  stats(): RpcStats;
  /** Per JSON-RPC method since the client was made (a copy). */
  methods(): Record<string, MethodStats>;
}

interface Wire {
  jsonrpc: '2.0';
  id: number;
  method: string;
  params: readonly unknown[];
}

interface WireResponse {
  id?: number | string | null;
  result?: unknown;
  error?: { code?: number; message?: string; data?: unknown };
}

type Endpoint = ReturnType<typeof getHttpRpcClient>;

/** A counting semaphore. */
function createLimiter(max: number, stats: RpcStats) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(fn: () => Promise<T>): Promise<T> {
    if (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    stats.inFlight = active;
    if (active > stats.maxInFlight) stats.maxInFlight = active;
    try {
      return await fn();
    } finally {
      active--;
      stats.inFlight = active;
      const next = waiting.shift();
      if (next) next();
    }
  };
}


function retryAfterMs(headers: Headers | undefined): number | undefined {
  const v = headers?.get('retry-after');
  if (!v) return undefined;
  const s = Number(v);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : Math.max(0, t - Date.now());
}

interface Classified {
  retryable: boolean;
  kind: RpcErrorKind;
  status?: number;
  code?: number;
  message: string;
  retryAfter?: number;
}

function rootCause(err: unknown): unknown {
  let e = err as { cause?: unknown } | undefined;
  for (let i = 0; i < 5 && e && typeof e === 'object' && e.cause; i++) e = e.cause as { cause?: unknown };
  return e;
}

/** Transport-level failure -> retryable or not, and how to report it. */
function classify(err: unknown): Classified {
  if (err instanceof TimeoutError) return { retryable: true, kind: 'timeout', message: 'request timed out' };
  if (err instanceof ResponseBodyTooLargeError) {
    return { retryable: false, kind: 'size', message: err.shortMessage };
  }
  if (err instanceof RpcRequestError) {
    // Non-2xx with a JSON-RPC error body.
    const status = err.status;
    const retryable = status === 429 || (status ?? 0) >= 500 || isTransientRpcError(err.code, err.shortMessage);
    return {
      retryable,
      kind: 'http',
      status,
      code: err.code,
      message: err.shortMessage,
      retryAfter: retryAfterMs(err.headers),
    };
  }
  if (err instanceof HttpRequestError) {
    const status = err.status;
    if (status !== undefined) {
      return {
        retryable: status === 429 || status === 408 || status >= 500,
        kind: 'http',
        status,
        message: (err.details || 'request failed').slice(0, 300),
        retryAfter: retryAfterMs(err.headers),
      };
    }
    const cause = rootCause(err) as { message?: string; name?: string; code?: string } | undefined;
    if (cause instanceof SyntaxError) {
      return { retryable: true, kind: 'parse', message: `malformed JSON in response: ${cause.message}` };
    }
    const msg = cause?.message ?? err.details ?? 'request failed';
    if (/Expected \d+ responses/.test(msg)) return { retryable: true, kind: 'parse', message: msg };
    return { retryable: true, kind: 'network', message: `connection failed: ${cause?.code ?? ''} ${msg}`.trim() };
  }
  if (err instanceof SyntaxError) return { retryable: true, kind: 'parse', message: `malformed JSON in response: ${err.message}` };
  const e = err as { message?: string } | undefined;
  return { retryable: true, kind: 'network', message: e?.message ?? String(err) };
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxRetries = options.maxRetries ?? 5;
  const batchSize = Math.max(1, options.batchSize ?? 20);
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const retryBaseMs = options.retryBaseMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 10_000;
  const maxResponseBytes = options.maxResponseBytes ?? 512 * 1024 * 1024;
  const variant = options.variant ?? 'geth';
  const stats: RpcStats = { httpRequests: 0, calls: 0, retries: 0, inFlight: 0, maxInFlight: 0 };
  const limit = createLimiter(concurrency, stats);
  // Method names come from this code (a fixed set), never from a request: a bounded label set.
  const byMethod = new Map<string, MethodStats>();
  const tally = (method: string): MethodStats => {
    let m = byMethod.get(method);
    if (!m) byMethod.set(method, (m = { calls: 0, errors: {} }));
    return m;
  };
  let nextId = 1;

  // node:http under viem's client (src/rpc/http.ts), which applies the body size limit itself.
  const fetchFn = createNodeFetch({ maxResponseBytes });
  const mk = (url: string): { ep: Endpoint; label: string } => ({
    ep: getHttpRpcClient(url, {
      timeout: timeoutMs,
      maxResponseBodySize: false,
      fetchFn: fetchFn as unknown as typeof fetch,
      fetchOptions: options.headers ? { headers: options.headers } : undefined,
    }),
    label: redactUrl(url),
  });
  const main = mk(options.url);
  const trace = options.traceUrl && options.traceUrl !== options.url ? mk(options.traceUrl) : main;

  /** One chunk (<= batchSize calls) with retries; fills outcomes[offset..]. */
  async function runChunk(
    target: { ep: Endpoint; label: string },
    calls: readonly RpcCall[],
    out: CallOutcome[],
    offset: number,
  ): Promise<void> {
    let pending: number[] = calls.map((_, i) => i);
    let lastErrors = new Map<number, RpcError>();
    /** A call's final outcome is an error. */
    const fail = (i: number, error: RpcError) => {
      out[offset + i] = { ok: false, error };
      const e = tally(calls[i]!.method).errors;
      e[error.kind] = (e[error.kind] ?? 0) + 1;
    };
    for (let attempt = 1; ; attempt++) {
      const reqs: Wire[] = pending.map((i) => ({
        jsonrpc: '2.0',
        id: nextId++,
        method: calls[i]!.method,
        params: calls[i]!.params ?? [],
      }));
      const retry: number[] = [];
      let retryAfter: number | undefined;
      let reason = '';
      stats.calls += reqs.length;
      for (const r of reqs) tally(r.method).calls++;
      try {
        stats.httpRequests++;
        const single = reqs.length === 1;
        const data = (await limit(() =>
          target.ep.request({ body: (single ? reqs[0] : reqs) as never }),
        )) as WireResponse | WireResponse[];
        const arr: WireResponse[] = Array.isArray(data) ? data : [data];
        const byId = new Map<unknown, WireResponse>();
        for (const d of arr) if (d && typeof d === 'object') byId.set(d.id, d);
        for (let k = 0; k < pending.length; k++) {
          const i = pending[k]!;
          const req = reqs[k]!;
          // By id; else by position when the node sent no ids (e.g. one error for a whole
          // rejected batch, which viem repeats per call).
          const d =
            byId.get(req.id) ??
            (single && arr.length === 1 ? arr[0] : arr.length === reqs.length && arr[k]?.id == null ? arr[k] : undefined);
          if (!d || typeof d !== 'object') {
            retry.push(i);
            reason = 'response missing from batch';
            lastErrors.set(i, new RpcError({ method: req.method, url: target.label, kind: 'parse', message: reason, attempts: attempt }));
          } else if (d.error) {
            const code = typeof d.error.code === 'number' ? d.error.code : undefined;
            const message = String(d.error.message ?? 'unknown error');
            const e = new RpcError({ method: req.method, url: target.label, kind: 'rpc', code, message, data: d.error.data, attempts: attempt });
            if (isTransientRpcError(code, message)) {
              retry.push(i);
              reason = `JSON-RPC error ${code}: ${message}`;
              lastErrors.set(i, e);
            } else fail(i, e);
          } else if ('result' in d) {
            out[offset + i] = { ok: true, result: d.result };
          } else {
            retry.push(i);
            reason = 'response without result or error';
            lastErrors.set(i, new RpcError({ method: req.method, url: target.label, kind: 'parse', message: reason, attempts: attempt }));
          }
        }
      } catch (err) {
        const c = classify(err);
        const method = reqs.length === 1 ? reqs[0]!.method : `batch of ${reqs.length} (${reqs[0]!.method}${reqs.some((r) => r.method !== reqs[0]!.method) ? ', ...' : ''})`;
        lastErrors = new Map();
        for (const i of pending) {
          const e = new RpcError({
            method: reqs.length === 1 ? calls[i]!.method : method,
            url: target.label,
            kind: c.kind,
            code: c.code,
            status: c.status,
            message: c.message,
            attempts: attempt,
            cause: err,
          });
          if (c.retryable) {
            retry.push(i);
            lastErrors.set(i, e);
          } else fail(i, e);
        }
        retryAfter = c.retryAfter;
        reason = c.kind === 'http' ? `HTTP ${c.status}` : c.message;
      }
      if (retry.length === 0) return;
      if (attempt > maxRetries) {
        for (const i of retry) fail(i, lastErrors.get(i)!);
        return;
      }
      let delay = backoffMs(attempt, { baseMs: retryBaseMs, maxMs: retryMaxMs });
      if (retryAfter !== undefined) delay = Math.max(delay, Math.min(retryAfter, 60_000));
      stats.retries++;
      options.onRetry?.({ method: calls[retry[0]!]!.method, attempt, delayMs: delay, reason });
      await sleep(delay);
      pending = retry;
    }
  }

  async function batch<T>(calls: readonly RpcCall[], opts?: CallOptions): Promise<CallOutcome<T>[]> {
    const out = new Array<CallOutcome>(calls.length);
    const target = opts?.trace ? trace : main;
    const chunks: Promise<void>[] = [];
    for (let s = 0; s < calls.length; s += batchSize) {
      chunks.push(runChunk(target, calls.slice(s, s + batchSize), out, s));
    }
    await Promise.all(chunks);
    return out as CallOutcome<T>[];
  }

  return clientOver(
    {
      url: main.label,
      traceUrl: trace.label,
      variant,
      options: { timeoutMs, maxRetries, batchSize, concurrency },
      stats: () => ({ ...stats }),
      methods: () => sumMethodStats([Object.fromEntries(byMethod)]),
    },
    batch,
  );
}

/** A client whose `request` and `batchOrThrow` go through `batch` (this file's, or a wrapper's of another client). */
export function clientOver(base: Omit<RpcClient, 'request' | 'batch' | 'batchOrThrow'>, batch: RpcClient['batch']): RpcClient {
  return {
    ...base,
    async request<T>(method: string, params: readonly unknown[] = [], opts?: CallOptions): Promise<T> {
      const [o] = await batch<T>([{ method, params }], opts);
      if (!o!.ok) throw o!.error;
      return o!.result;
    },
    batch,
    async batchOrThrow<T>(calls: readonly RpcCall[], opts?: CallOptions): Promise<T[]> {
      const outs = await batch<T>(calls, opts);
      const res = new Array<T>(outs.length);
      for (let i = 0; i < outs.length; i++) {
        const o = outs[i]!;
        if (!o.ok) throw o.error;
        res[i] = o.result;
      }
      return res;
    },
  };
}
