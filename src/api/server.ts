// The HTTP server: uWebSockets.js on a port, the only importer of uWS in the project. It turns a
// uWS request into an ApiRequest, decides what it may do before reading any body byte, awaits the
// handler and writes the ApiReply corked. onAborted is registered before anything is awaited (uWS
// requires it; a write after an abort would crash). A handler that throws becomes a logged 500
// with a generic body. What uWS itself does wrongly and this code cannot reach is in docs/http.md.
//
// Before a body is read, in this order: the message framing (duplicate Content-Length: 400; a
// Transfer-Encoding other than `chunked`: 501; both answered with the connection closed, since
// the rest of the bytes cannot be framed), the client's requests in progress (at most
// maxRequestsPerClient; 429), the route's body limit (Front.bodyLimit, checked against the
// announced Content-Length and again while a chunked body arrives: 413), then Front.admit (rate
// limits and credentials). The socket is paused while admit runs, so a refused client's body is
// never buffered; any reply sent before its body was read closes the connection.
//
// The Phoenix websocket (`socket`, src/api/socket): upgrades on its path are admitted by the
// endpoint (serializer version, API key, rate limit, sockets per client) before the upgrade; a
// refusal is an ordinary HTTP answer. Open sockets use uWS's native pub/sub for fan-out, with the
// outgoing buffer capped per socket (maxBackpressure; a send past it closes that socket) and an
// idle timeout without server pings (a client's heartbeats keep it open).
import uWS from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { INTERNAL_ERROR_BODY } from './errors.js';
import { JSON_TYPE, admittedRequest, statusLine, type ApiReply, type ApiRequest } from './http.js';
import type { Admission, Front } from './front.js';
import type { SocketEndpoint, SocketHandlers } from './socket/endpoint.js';
import type { Admitted } from './socket/admission.js';

export interface ServerOptions {
  /** The whole request at once (body included), when there is no front. */
  handle?(req: ApiRequest): Promise<ApiReply>;
  /** Body limits and admission before the body is read (preferred over handle). */
  front?: Front;
  /** Address to listen on (HOST). */
  host: string;
  /** 0: a free port (the bound one is reported). */
  port: number;
  /** Without a front: the largest body of POST, PUT, PATCH and DELETE (bytes); other methods take none. */
  maxBodyBytes?: number;
  /**
   * Requests of one client in progress at once (from its headers until the reply is written or
   * it goes away); more get 429 and their connection is closed. 0: no cap. Default 64.
   */
  maxRequestsPerClient?: number;
  /** The client a request counts against (default: the socket's address). */
  clientOf?(socketIp: string, headers: Readonly<Record<string, string>>): string;
  /** The Phoenix websocket endpoint (/socket/v2/websocket), when served. */
  socket?: SocketEndpoint;
  /** How long close() waits for requests in progress (default DRAIN_MS). */
  drainMs?: number;
  log: Logger;
}

/** How long a stopping server lets requests in progress finish. */
const DRAIN_MS = 10_000;

export interface RunningServer {
  readonly port: number;
  /** Open websockets and the bytes queued for them now (diagnostics, tests). */
  sockets(): { open: number; bufferedBytes: number; maxBufferedBytes: number };
  close(): Promise<void>;
}

/** What uWS keeps per websocket. */
interface WsData {
  admitted: Admitted;
  handlers?: SocketHandlers;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const HEX_BYTES = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * The client's address as uWS's getRemoteAddressAsText writes it (IPv4 dotted, IPv6 as eight
 * groups of four hex digits, an IPv4-mapped address too), from its bytes: a third of the text
 * call's cost, which was the largest single cost of a cached answer in this file.
 */
export function addressText(raw: ArrayBuffer): string {
  const b = new Uint8Array(raw);
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (b.length !== 16) return Buffer.from(raw).toString('hex');
  let s = HEX_BYTES[b[0]!]! + HEX_BYTES[b[1]!]!;
  for (let i = 2; i < 16; i += 2) s += ':' + HEX_BYTES[b[i]!]! + HEX_BYTES[b[i + 1]!]!;
  return s;
}

const jsonError = (status: number, message: string, headers: Record<string, string> = {}): ApiReply => ({
  status,
  headers: { 'content-type': JSON_TYPE, ...headers },
  body: JSON.stringify({ message }),
});

/**
 * A reply's status line and headers, inside the caller's cork. for-in rather than
 * Object.entries: entries allocates an array per header and costs several times more on the
 * ~11 headers of every answer (measured 0.1-0.9 µs against 0.06-0.15 µs). `more`: the
 * admission's headers (Admission.headers), after the reply's.
 */
function writeHead(res: uWS.HttpResponse, r: ApiReply, more?: Readonly<Record<string, string>>): void {
  res.writeStatus(statusLine(r.status));
  const headers = r.headers;
  for (const k in headers) res.writeHeader(k, headers[k]!);
  if (more) for (const k in more) res.writeHeader(k, more[k]!);
}

/** The front of a plain handler: bodies up to maxBody on the methods that carry one. */
function handlerFront(handle: (req: ApiRequest) => Promise<ApiReply>, maxBody: number): Front {
  return {
    bodyLimit: (req) => (BODY_METHODS.has(req.method) ? maxBody : 0),
    admit: (req) => ({ finish: (body) => handle(admittedRequest(req, req.ip, body, req.meter, req.viewer)) }),
  };
}

/**
 * A framing problem of the request head (RFC 9112 §6), or null. uWS frames by the first
 * Content-Length and decodes `gzip, chunked` as chunked: both are refused here.
 */
function framingProblem(contentLengths: string[], transferEncodings: string[]): ApiReply | null {
  if (contentLengths.length > 1) {
    return jsonError(400, 'The request has more than one Content-Length header (RFC 9112 §6.3)');
  }
  if (contentLengths.length === 1 && !/^[0-9]{1,15}$/.test(contentLengths[0].trim())) {
    return jsonError(400, 'The Content-Length header is not a number of bytes');
  }
  if (transferEncodings.length) {
    const codings = transferEncodings.join(',').split(',').map((c) => c.trim().toLowerCase()).filter(Boolean);
    if (codings.length === 1 && codings[0] === 'chunked') return null;
    if (codings.length && codings.every((c) => c === 'chunked')) {
      return jsonError(400, 'The request applies the chunked transfer coding more than once (RFC 9112 §7)');
    }
    if (!codings.length) return jsonError(400, 'The Transfer-Encoding header is empty');
    return jsonError(501, 'Only the chunked transfer coding is supported in requests (RFC 9112 §6.1)');
  }
  return null;
}

export function startServer(opts: ServerOptions): Promise<RunningServer> {
  if (!opts.front && !opts.handle) throw new Error('startServer needs a front or a handle function');
  const front = opts.front ?? handlerFront(opts.handle!, opts.maxBodyBytes ?? 1024 * 1024);
  const maxInFlight = opts.maxRequestsPerClient ?? 64;
  const clientOf = opts.clientOf ?? ((ip: string) => ip);
  const app = uWS.App();
  let closing = false;
  /** Requests in progress per client. */
  const inFlight = new Map<string, number>();
  /** Requests in progress in all (close() waits for them). */
  let active = 0;
  /**
   * Socket addresses whose request was refused for its framing, until the current batch of
   * socket reads is done. uWS parses every request in a read at once, so what follows such a
   * request in the same bytes (e.g. a smuggled second request) reaches the handler before the
   * socket can be closed: it is never answered and its socket is closed. uWS gives no connection
   * identity, so another connection of the same address read in the same batch is closed too (it
   * can retry).
   */
  const poisoned = new Set<string>();

  app.any('/*', (res, req) => {
    let aborted = false;
    let answered = false;
    /** The admission's headers for every answer after it (Admission.headers). */
    let admissionHeaders: Readonly<Record<string, string>> | undefined;
    /** Whether every body byte announced has been read (a reply before that closes the connection). */
    let bodyDone = true;
    let release = () => {};
    /** Wakes a streamed reply waiting for the socket to drain (set while it waits). */
    let wake: (() => void) | null = null;
    res.onAborted(() => {
      aborted = true;
      release();
      wake?.();
    });
    // Everything from req must be read now: it is invalid after this callback returns.
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const query = new URLSearchParams(req.getQuery() ?? '');
    const headers: Record<string, string> = {};
    const contentLengths: string[] = [];
    const transferEncodings: string[] = [];
    req.forEach((k, v) => {
      const name = k.toLowerCase();
      // uWS lists a repeated header once per line: the framing headers are kept whole.
      if (name === 'content-length') contentLengths.push(v);
      else if (name === 'transfer-encoding') transferEncodings.push(v);
      headers[name] = v;
    });
    const ip = addressText(res.getRemoteAddress());

    if (poisoned.has(ip)) {
      // Closed once this read is processed: closing now would drop the refusal written before,
      // which uWS still holds corked while it parses the read.
      answered = true;
      setImmediate(() => {
        if (!aborted) res.close();
      });
      return;
    }

    /** Writes the reply; `close` ends the connection after it (unread body bytes are dropped). */
    const write = (r: ApiReply, close = false) => {
      const sending = !aborted && !answered;
      answered = true;
      if (r.stream) {
        if (sending && method !== 'HEAD' && !close) {
          void pump(r, r.stream);
          return;
        }
        // Nothing of it is sent: let it clean up (it is lazy, so usually nothing ran yet).
        void r.stream[Symbol.asyncIterator]().return?.();
      }
      if (!sending) return;
      res.cork(() => {
        writeHead(res, r, admissionHeaders);
        res.end(r.body, close || closing);
      });
      release();
    };
    /**
     * A streamed reply: the head, then each chunk as the iterator gives it. A chunk uWS could not
     * pass to the socket at once stays buffered by uWS; the next one is pulled only after
     * onWritable says the socket drained, so a slow client holds the producer back (memory: about
     * one chunk). A client that goes away stops the iterator (its finally blocks run). An error
     * after the head cannot change the status: the connection is closed without the final chunk,
     * so the client sees a truncated body rather than a short file that looks complete.
     */
    const pump = async (r: ApiReply, stream: AsyncIterable<Uint8Array>) => {
      const it = stream[Symbol.asyncIterator]();
      let finished = false;
      res.onWritable(() => {
        const w = wake;
        wake = null;
        w?.();
        return true;
      });
      res.cork(() => writeHead(res, r, admissionHeaders));
      try {
        for (;;) {
          const next = await it.next();
          if (aborted) break;
          if (next.done) {
            finished = true;
            res.cork(() => res.end(undefined, closing));
            break;
          }
          if (!next.value.byteLength) continue;
          let drained = true;
          res.cork(() => {
            drained = res.write(next.value);
          });
          if (!drained) await new Promise<void>((resolve) => (wake = resolve));
          if (aborted) break;
        }
      } catch (e) {
        opts.log.error('streamed reply failed', { path: path.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
        if (!aborted) res.close();
      } finally {
        wake = null;
        if (!finished) await Promise.resolve(it.return?.()).catch(() => undefined);
        release();
      }
    };
    const fail = (e: unknown) => {
      opts.log.error('handler failed', { path: path.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
      write({ status: 500, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(INTERNAL_ERROR_BODY) }, !bodyDone);
    };

    const framing = framingProblem(contentLengths, transferEncodings);
    if (framing) {
      poisoned.add(ip);
      setImmediate(() => poisoned.delete(ip));
      write(framing, true);
      return;
    }

    const client = clientOf(ip, headers);
    const count = inFlight.get(client) ?? 0;
    if (maxInFlight > 0 && count >= maxInFlight) {
      write(jsonError(429, 'Too many requests in progress from this client', { 'retry-after': '1' }), true);
      return;
    }
    inFlight.set(client, count + 1);
    active++;
    let released = false;
    release = () => {
      if (released) return;
      released = true;
      active--;
      const n = (inFlight.get(client) ?? 1) - 1;
      if (n > 0) inFlight.set(client, n);
      else inFlight.delete(client);
    };

    // Every field named, in admittedRequest's order: the handlers see requests of one shape.
    const apiReq: ApiRequest = { method, path, query, headers, ip, body: undefined, meter: undefined, viewer: undefined };
    const declared = contentLengths.length ? Number(contentLengths[0].trim()) : 0;
    const chunked = transferEncodings.length > 0;
    const announces = declared > 0 || chunked;
    bodyDone = !announces;
    let limit: number;
    try {
      limit = announces ? front.bodyLimit(apiReq) : 0;
    } catch (e) {
      fail(e);
      return;
    }
    const tooLarge = () =>
      jsonError(413, limit === 0 ? 'This endpoint takes no request body' : `The request body is larger than ${limit} bytes`);
    if (announces && (declared > limit || limit === 0)) {
      write(tooLarge(), true);
      return;
    }

    // The body is collected from now on (uWS drops bytes that arrive with no data handler), but
    // the socket is paused until admission: at most what one socket read already holds arrives.
    let finish: ((body: Buffer | undefined) => void) | null = null;
    let body: Buffer | undefined;
    if (announces) {
      const chunks: Buffer[] = [];
      let size = 0;
      res.onData((chunk, isLast) => {
        if (answered || aborted) return;
        size += chunk.byteLength;
        if (size > limit) {
          write(tooLarge(), true);
          return;
        }
        // The chunk's memory is reused by uWS after this callback: copy it.
        chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
        if (!isLast) return;
        bodyDone = true;
        body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
        chunks.length = 0;
        finish?.(body);
      });
      res.pause();
    }

    const admitted = (a: Admission) => {
      if (aborted || answered) return;
      if ('reply' in a) {
        // A connection that stays open reads its next request (res is invalid after the write).
        if (announces && bodyDone) res.resume();
        write(a.reply, !bodyDone);
        return;
      }
      admissionHeaders = a.headers;
      const run = (b: Buffer | undefined) => {
        let p: Promise<ApiReply>;
        try {
          p = a.finish(b);
        } catch (e) {
          fail(e);
          return;
        }
        p.then((r) => write(r), fail);
      };
      if (announces) res.resume();
      if (bodyDone) run(body);
      else finish = run;
    };
    // Most admissions are decided at once (no lookup): they go on without waiting for a promise.
    try {
      const a = front.admit(apiReq, announces);
      if (a instanceof Promise) a.then(admitted, fail);
      else admitted(a);
    } catch (e) {
      fail(e);
    }
  });

  const openSockets = new Set<uWS.WebSocket<WsData>>();
  if (opts.socket) serveSocket(app, opts.socket, openSockets, () => closing, opts.log);

  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (token) => {
      if (!token) {
        reject(new Error(`cannot listen on ${opts.host}:${opts.port}`));
        return;
      }
      const port = uWS.us_socket_local_port(token as unknown as uWS.us_socket);
      opts.socket?.setPublisher((topic, frame) => {
        app.publish(topic, frame, false);
      });
      resolve({
        port,
        sockets() {
          let bufferedBytes = 0;
          let maxBufferedBytes = 0;
          for (const ws of openSockets) {
            const b = ws.getBufferedAmount();
            bufferedBytes += b;
            if (b > maxBufferedBytes) maxBufferedBytes = b;
          }
          return { open: openSockets.size, bufferedBytes, maxBufferedBytes };
        },
        async close() {
          if (closing) return;
          closing = true;
          opts.socket?.setPublisher(undefined);
          uWS.us_listen_socket_close(token);
          // Open websockets would keep the process (and their clients) waiting: say goodbye.
          for (const ws of [...openSockets]) ws.end(1001, 'server shutting down');
          // Requests already taken are answered (with Connection: close) before the caller goes
          // on to close the stores they read, up to drainMs; a longer one is cut.
          const until = Date.now() + (opts.drainMs ?? DRAIN_MS);
          while (active > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
          if (active > 0) opts.log.warn('stopped with requests still in progress', { requests: active });
          // Closing the listen socket leaves open connections open: idle keep-alive ones (fetch
          // keeps a connection 4 s) would hold this process and the client's for that long, and a
          // request still running past drainMs would go on. Close them all. (In this binding's
          // runtime, not in its type declarations.)
          (app as unknown as { close(): void }).close();
        },
      });
    });
  });
}

/** The websocket route: admission on upgrade, then one Session per socket (src/api/socket). */
function serveSocket(app: uWS.TemplatedApp, endpoint: SocketEndpoint, openSockets: Set<uWS.WebSocket<WsData>>, closing: () => boolean, log: Logger) {
  const limits = endpoint.limits;
  app.ws<WsData>(endpoint.path, {
    maxPayloadLength: limits.maxPayloadBytes,
    maxBackpressure: limits.maxBufferedBytes,
    // Typed as a number in this binding's declarations; uWS reads it as a flag.
    closeOnBackpressureLimit: 1,
    idleTimeout: limits.idleTimeoutSec,
    sendPingsAutomatically: false,
    compression: uWS.DISABLED,
    upgrade(res, req, context) {
      let aborted = false;
      let admitted: Admitted | undefined;
      res.onAborted(() => {
        aborted = true;
        admitted?.release();
      });
      // Everything from req must be read now: it is invalid after this callback returns.
      const path = req.getUrl();
      const query = new URLSearchParams(req.getQuery() ?? '');
      const headers: Record<string, string> = {};
      req.forEach((k, v) => {
        headers[k.toLowerCase()] = v;
      });
      const key = req.getHeader('sec-websocket-key');
      const protocols = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const ip = addressText(res.getRemoteAddress());
      const answer = (r: ApiReply) => {
        if (aborted) return;
        aborted = true;
        res.cork(() => {
          writeHead(res, r);
          res.end(r.body, true);
        });
      };
      if (closing()) {
        answer({ status: 503, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ message: 'The server is shutting down' }) });
        return;
      }
      let admission;
      try {
        admission = endpoint.admit({ method: 'GET', path, query, headers, ip });
      } catch (e) {
        admission = Promise.reject(e);
      }
      admission.then(
        (a) => {
          if ('reply' in a) {
            answer(a.reply);
            return;
          }
          admitted = a.admitted;
          if (aborted || closing()) {
            a.admitted.release();
            if (!aborted) answer({ status: 503, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ message: 'The server is shutting down' }) });
            return;
          }
          // Phoenix's client may offer subprotocols (its auth token); the answer names one it offered or none.
          const chosen = protocols.split(',').map((p) => p.trim()).includes('phoenix') ? 'phoenix' : '';
          res.cork(() => res.upgrade<WsData>({ admitted: a.admitted }, key, chosen, extensions, context));
        },
        (e) => {
          log.error('websocket admission failed', { error: e instanceof Error ? e.message : String(e) });
          answer({ status: 500, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(INTERNAL_ERROR_BODY) });
        },
      );
    },
    open(ws) {
      openSockets.add(ws);
      const data = ws.getUserData();
      data.handlers = endpoint.open(
        {
          send: (frame) => {
            ws.send(frame, false);
          },
          subscribe: (topic) => {
            ws.subscribe(topic);
          },
          unsubscribe: (topic) => {
            ws.unsubscribe(topic);
          },
          end: (code, reason) => ws.end(code, reason),
        },
        data.admitted,
      );
    },
    message(ws, message, isBinary) {
      const h = ws.getUserData().handlers;
      try {
        if (isBinary) h?.onBinary();
        // The message's memory is reused after this callback: decoded to a string now.
        else h?.onText(Buffer.from(message).toString('utf8'));
      } catch (e) {
        log.error('websocket message failed', { error: e instanceof Error ? e.message : String(e) });
        ws.end(1011, 'internal error');
      }
    },
    close(ws) {
      openSockets.delete(ws);
      const data = ws.getUserData();
      if (data.handlers) data.handlers.onClose();
      else data.admitted.release();
    },
  });
}
