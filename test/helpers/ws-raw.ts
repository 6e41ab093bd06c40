// Websockets over a raw TCP socket, for what a client library hides: the answer to an upgrade
// (status and body of a refusal), client frames built by hand (masked, as RFC 6455 requires), and
// clients that never read. Also the Phoenix client as Blockscout's frontend uses it, with `ws` as
// its transport (Node 20 has no global WebSocket).
import net from 'node:net';
import crypto from 'node:crypto';
import WebSocket from 'ws';
import { Socket as PhoenixSocket, type SocketConnectOption } from 'phoenix';

export interface RawUpgrade {
  sock: net.Socket;
  status: number;
  /** The response head, lower-case header names. */
  headers: Record<string, string>;
  /** Bytes after the head (a refusal's body, or the first frames). */
  rest: Buffer;
}

/** Sends an upgrade request and resolves with the response head (the socket stays open). */
export function rawUpgrade(port: number, target = '/socket/v2/websocket?vsn=2.0.0', headers: Record<string, string> = {}): Promise<RawUpgrade> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      sock.off('data', onData);
      sock.pause();
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const h: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        h[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({ sock, status: Number(lines[0].split(' ')[1]), headers: h, rest: buf.subarray(end + 4) });
    };
    sock.on('data', onData);
    sock.on('error', reject);
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    sock.write(
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`,
    );
  });
}

/** A client text frame (FIN, masked). */
export function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = crypto.randomBytes(4);
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x81, 0x80 | len]) : Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff]);
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([head, mask, body]);
}

/** Resolves when the socket is closed by the other side, or false after `ms`. */
export function closedWithin(sock: net.Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (sock.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(true);
    };
    sock.once('close', done);
    sock.once('end', done);
    sock.once('error', done);
    sock.resume();
  });
}

/** A Phoenix socket to the API (connect() not called yet). */
export function phoenix(port: number, opts: Partial<SocketConnectOption> = {}): PhoenixSocket {
  return new PhoenixSocket(`ws://127.0.0.1:${port}/socket/v2`, { transport: WebSocket, reconnectAfterMs: () => 60_000, ...opts });
}

/** Joins a topic; resolves with the reply's status and response. */
export function join(channel: ReturnType<PhoenixSocket['channel']>, ms = 10_000): Promise<{ status: 'ok' | 'error' | 'timeout'; response: any }> {
  return new Promise((resolve) => {
    channel
      .join(ms)
      .receive('ok', (response) => resolve({ status: 'ok', response }))
      .receive('error', (response) => resolve({ status: 'error', response }))
      .receive('timeout', () => resolve({ status: 'timeout', response: null }));
  });
}
