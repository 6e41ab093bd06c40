// The HTTP server: uWebSockets.js on a port, the only importer of uWS in the project. It turns a
// uWS request into an ApiRequest, awaits the handler and writes the ApiReply corked. onAborted is
// registered before anything is awaited (uWS requires it; a write after an abort would crash).
// Request bodies are read up to a cap (413 beyond it). A handler that throws becomes a logged
// 500 with a generic body.
import uWS from 'uWebSockets.js';
import type { Logger } from '../log.js';
import { INTERNAL_ERROR_BODY } from './errors.js';
import { JSON_TYPE, STATUS_TEXT, type ApiReply, type ApiRequest } from './http.js';

export interface ServerOptions {
  handle(req: ApiRequest): Promise<ApiReply>;
  /** Address to listen on (HOST). */
  host: string;
  /** 0: a free port (the bound one is reported). */
  port: number;
  /** Largest request body accepted (bytes). */
  maxBodyBytes?: number;
  log: Logger;
}

export interface RunningServer {
  readonly port: number;
  close(): Promise<void>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function statusLine(status: number): string {
  return `${status} ${STATUS_TEXT[status] ?? 'Unknown'}`;
}

export function startServer(opts: ServerOptions): Promise<RunningServer> {
  const maxBody = opts.maxBodyBytes ?? 1024 * 1024;
  const app = uWS.App();
  let closing = false;

  app.any('/*', (res, req) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    // Everything from req must be read now: it is invalid after this callback returns.
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const query = new URLSearchParams(req.getQuery() ?? '');
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k.toLowerCase()] = v;
    });
    const ip = Buffer.from(res.getRemoteAddressAsText()).toString();

    const write = (r: ApiReply) => {
      if (aborted) return;
      res.cork(() => {
        res.writeStatus(statusLine(r.status));
        for (const [k, v] of Object.entries(r.headers)) res.writeHeader(k, v);
        res.end(r.body, closing);
      });
    };
    const fail = (e: unknown) => {
      opts.log.error('handler failed', { path: path.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
      write({ status: 500, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(INTERNAL_ERROR_BODY) });
    };
    const run = (body?: Buffer) => {
      let p: Promise<ApiReply>;
      try {
        p = opts.handle({ method, path, query, headers, ip, body });
      } catch (e) {
        fail(e);
        return;
      }
      p.then(write, fail);
    };

    if (!BODY_METHODS.has(method)) {
      run();
      return;
    }
    const declared = Number(headers['content-length'] ?? '0');
    if (declared > maxBody) {
      write({ status: 413, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ message: 'Request body too large' }) });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    res.onData((chunk, isLast) => {
      if (refused) return;
      size += chunk.byteLength;
      if (size > maxBody) {
        refused = true;
        write({ status: 413, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ message: 'Request body too large' }) });
        return;
      }
      // The chunk's memory is reused by uWS after this callback: copy it.
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      if (isLast) run(Buffer.concat(chunks));
    });
  });

  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (token) => {
      if (!token) {
        reject(new Error(`cannot listen on ${opts.host}:${opts.port}`));
        return;
      }
      const port = uWS.us_socket_local_port(token as unknown as uWS.us_socket);
      resolve({
        port,
        async close() {
          if (closing) return;
          closing = true;
          uWS.us_listen_socket_close(token);
        },
      });
    });
  });
}
