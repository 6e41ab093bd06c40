// A JSON-RPC HTTP server on a free loopback port that answers from recorded responses:
// - ethereum-etl files `web3_response.<method>_<params>.json` (params lower-cased, lists joined
//   with '_', objects as sorted key_value pairs), and
// - mainnet-18000000 style files `[{request, response}]`,
// - or responses/handlers added in code.
// Batch requests are supported. A method nobody recorded -> JSON-RPC error -32601; a known
// method with unrecorded params -> -32000 "no recorded response". Failures can be injected
// (HTTP status N times, delays, malformed JSON, dropped connections) for retry tests.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface JsonRpcRequest {
  jsonrpc?: string;
  id?: unknown;
  method: string;
  params?: unknown[];
}

type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

export type Handler = (params: unknown[], req: JsonRpcRequest) => Answer | Promise<Answer>;

export interface Fault {
  /** Reply with this HTTP status (and a small body). */
  status?: number;
  /** Extra response headers (e.g. retry-after). */
  headers?: Record<string, string>;
  /** Wait this long before answering (normally, unless another fault is set). */
  delayMs?: number;
  /** Answer 200 with a body that is not JSON. */
  malformed?: boolean;
  /** Destroy the connection without answering. */
  drop?: boolean;
  /** Only requests containing this method. */
  method?: string;
  /** How many HTTP requests this fault applies to. Default 1. */
  times?: number;
}

export interface RequestLog {
  /** Methods of the HTTP request, in order. */
  methods: string[];
  batch: boolean;
  /** What was done: 'ok' or the fault applied. */
  outcome: string;
}

export interface ReplayServer {
  url: string;
  port: number;
  /** Every HTTP request received. */
  log: RequestLog[];
  /** Most HTTP requests handled at the same time. */
  maxConcurrent: number;
  /** HTTP requests received so far (counted on arrival, before any injected delay). */
  received: number;
  /** Queue failures (applied in order, each `times` times). */
  fault(f: Fault): void;
  /** Record a response for `method` with exactly these params. */
  add(method: string, params: unknown[], answer: Answer | unknown): void;
  /** Answer every call of `method` with `handler` (overrides recordings). */
  handle(method: string, handler: Handler): void;
  /** Make `method` unknown (-32601) even if recorded. */
  disable(method: string): void;
  /** Load recordings from a file or a folder (recursively). */
  load(path: string): void;
  /** Number of calls received per method. */
  calls(method: string): number;
  close(): Promise<void>;
}

function paramToStr(p: unknown): string {
  if (Array.isArray(p)) return p.map(paramToStr).join('_');
  if (p !== null && typeof p === 'object') {
    return Object.keys(p)
      .sort()
      .map((k) => `${k}_${paramToStr((p as Record<string, unknown>)[k])}`)
      .join('_');
  }
  return String(p).toLowerCase();
}

/** The ethereum-etl file key of a call: `<method>_<params...>`. */
export function recordingKey(method: string, params: unknown[] = []): string {
  return `${method}_${params.map(paramToStr).join('_')}`;
}

function isAnswer(x: unknown): x is Answer {
  return x !== null && typeof x === 'object' && ('result' in x || 'error' in x) && Object.keys(x).every((k) => ['result', 'error', 'jsonrpc', 'id'].includes(k));
}

export async function startReplayRpc(opts: { load?: string[] } = {}): Promise<ReplayServer> {
  const recordings = new Map<string, Answer>();
  const knownMethods = new Set<string>();
  const handlers = new Map<string, Handler>();
  const disabled = new Set<string>();
  const faults: Fault[] = [];
  const counts = new Map<string, number>();
  const log: RequestLog[] = [];
  let concurrent = 0;

  function add(method: string, params: unknown[], answer: unknown): void {
    const a: Answer = isAnswer(answer)
      ? 'error' in answer && answer.error
        ? { error: answer.error }
        : { result: (answer as { result: unknown }).result }
      : { result: answer };
    recordings.set(recordingKey(method, params), a);
    knownMethods.add(method);
  }

  function loadFile(path: string): void {
    const name = basename(path);
    if (name.startsWith('web3_response.') && name.endsWith('.json')) {
      const key = name.slice('web3_response.'.length, -'.json'.length);
      const body = JSON.parse(readFileSync(path, 'utf8')) as Answer;
      const a: Answer = 'error' in body && body.error ? { error: body.error } : { result: (body as { result: unknown }).result };
      recordings.set(key, a);
      // The method is the key up to the first '_' after the namespace prefix (eth_, debug_, trace_...).
      const m = /^([a-z0-9]+_[A-Za-z0-9]+)_/.exec(key);
      if (m) knownMethods.add(m[1]!);
      return;
    }
    if (name.endsWith('.json')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(path, 'utf8'));
      } catch {
        return;
      }
      if (Array.isArray(parsed) && parsed.every((e) => e && typeof e === 'object' && 'request' in e && 'response' in e)) {
        for (const e of parsed as { request: JsonRpcRequest; response: Answer }[]) {
          add(e.request.method, e.request.params ?? [], e.response);
        }
      }
    }
  }

  function load(path: string): void {
    if (statSync(path).isDirectory()) {
      for (const f of readdirSync(path)) load(join(path, f));
    } else loadFile(path);
  }

  for (const p of opts.load ?? []) load(p);

  async function answer(req: JsonRpcRequest): Promise<Record<string, unknown>> {
    const id = req.id ?? null;
    const method = req.method;
    counts.set(method, (counts.get(method) ?? 0) + 1);
    const notFound = { jsonrpc: '2.0', id, error: { code: -32601, message: `method not found: the method ${method} does not exist/is not available` } };
    if (typeof method !== 'string' || disabled.has(method)) return notFound;
    const h = handlers.get(method);
    let a: Answer | undefined;
    if (h) a = await h(req.params ?? [], req);
    else a = recordings.get(recordingKey(method, req.params ?? []));
    if (!a) {
      if (!knownMethods.has(method)) return notFound;
      return { jsonrpc: '2.0', id, error: { code: -32000, message: `replay: no recorded response for ${recordingKey(method, req.params ?? [])}` } };
    }
    return { jsonrpc: '2.0', id, ...a };
  }

  function takeFault(methods: string[]): Fault | undefined {
    const i = faults.findIndex((f) => !f.method || methods.includes(f.method));
    if (i < 0) return undefined;
    const f = faults[i]!;
    const left = (f.times ?? 1) - 1;
    if (left <= 0) faults.splice(i, 1);
    else faults[i] = { ...f, times: left };
    return f;
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    concurrent++;
    server.received++;
    server.maxConcurrent = Math.max(server.maxConcurrent, concurrent);
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } }));
        log.push({ methods: [], batch: false, outcome: 'parse error' });
        return;
      }
      const batch = Array.isArray(body);
      const reqs = (batch ? body : [body]) as JsonRpcRequest[];
      const methods = reqs.map((r) => r.method);
      const fault = takeFault(methods);
      if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
      if (fault?.drop) {
        log.push({ methods, batch, outcome: 'drop' });
        req.socket.destroy();
        return;
      }
      if (fault?.status) {
        log.push({ methods, batch, outcome: `http ${fault.status}` });
        res.writeHead(fault.status, { 'content-type': 'text/plain', ...(fault.headers ?? {}) });
        res.end(`injected ${fault.status}`);
        return;
      }
      if (fault?.malformed) {
        log.push({ methods, batch, outcome: 'malformed' });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"jsonrpc":"2.0","id":1,"result":[{"oops"');
        return;
      }
      const answers = await Promise.all(reqs.map(answer));
      log.push({ methods, batch, outcome: fault?.delayMs ? `delay ${fault.delayMs}` : 'ok' });
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(batch ? answers : answers[0]));
    } finally {
      concurrent--;
    }
  }

  const httpServer: Server = createServer((req, res) => {
    onRequest(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as AddressInfo).port;

  const server: ReplayServer = {
    url: `http://127.0.0.1:${port}/`,
    port,
    log,
    maxConcurrent: 0,
    received: 0,
    fault: (f) => faults.push(f),
    add,
    handle: (m, h) => {
      handlers.set(m, h);
      knownMethods.add(m);
    },
    disable: (m) => disabled.add(m),
    load,
    calls: (m) => counts.get(m) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
  return server;
}
