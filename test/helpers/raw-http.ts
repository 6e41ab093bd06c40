// HTTP/1.x over a raw TCP socket, for the cases a real client library would refuse to send
// (duplicate Content-Length, odd Transfer-Encoding, HTTP/1.0, pipelining, bodies cut short):
// what came back, parsed into responses, and whether the server closed the connection.
import net from 'node:net';

export interface RawResponse {
  version: string;
  status: number;
  reason: string;
  /** Lower-case names; a repeated header keeps its values joined by ", ". */
  headers: Record<string, string>;
  /** Header names exactly as sent, in order. */
  rawNames: string[];
  body: string;
}

export interface RawResult {
  responses: RawResponse[];
  /** Everything received. */
  text: string;
  /** The server closed the connection (end or reset) within the wait. */
  closed: boolean;
  /** Milliseconds until the close, or until the wait ended. */
  ms: number;
  /** A write failed because the server had closed (EPIPE/ECONNRESET). */
  writeFailed: boolean;
}

export interface RawOptions {
  /** Longest wait for the server (ms). */
  waitMs?: number;
  /** Stop waiting once this many complete responses arrived (the socket is then destroyed). */
  responses?: number;
  /** Sent after the first bytes, as long as the socket accepts writes. */
  then?: (s: net.Socket) => void;
}

/** Splits `text` into the complete HTTP responses it holds (Content-Length framed). */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const lines = rest.slice(0, end).split('\r\n');
    const m = /^(HTTP\/\d\.\d) (\d{3}) ?(.*)$/.exec(lines[0]);
    if (!m) break;
    const headers: Record<string, string> = {};
    const rawNames: string[] = [];
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':');
      const name = line.slice(0, i);
      rawNames.push(name);
      const k = name.toLowerCase();
      const v = line.slice(i + 1).trim();
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    if (rest.length < bodyStart + length) break;
    out.push({ version: m[1], status: Number(m[2]), reason: m[3], headers, rawNames, body: rest.slice(bodyStart, bodyStart + length) });
    rest = rest.slice(bodyStart + length);
  }
  return out;
}

/** Sends `bytes` to 127.0.0.1:port and collects the answer. */
export function rawExchange(port: number, bytes: string | Buffer, o: RawOptions = {}): Promise<RawResult> {
  const waitMs = o.waitMs ?? 3000;
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const started = Date.now();
    const chunks: Buffer[] = [];
    let closed = false;
    let writeFailed = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      s.destroy();
      resolve({ responses: parseResponses(text), text, closed, ms: Date.now() - started, writeFailed });
    };
    const timer = setTimeout(finish, waitMs);
    s.on('data', (d) => {
      chunks.push(d);
      if (o.responses && parseResponses(Buffer.concat(chunks).toString('latin1')).length >= o.responses) finish();
    });
    s.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE' || e.code === 'ECONNRESET') writeFailed = true;
      closed = true;
      finish();
    });
    s.on('end', () => {
      closed = true;
      finish();
    });
    s.on('close', () => {
      closed = true;
      finish();
    });
    s.write(bytes);
    o.then?.(s);
  });
}
