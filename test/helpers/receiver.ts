// A local HTTPS webhook receiver (self-signed certificate from test/fixtures/tls, trusted by the
// notifier through its `ca` option) that records every delivery and answers as scripted, and an
// SMTP sink on loopback that keeps every message.
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { projectRoot } from '../../src/paths.js';

const TLS = path.join(projectRoot(), 'test', 'fixtures', 'tls');
export const TEST_CA = fs.readFileSync(path.join(TLS, 'cert.pem'));

export interface Delivery {
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  status: number;
}

export interface Receiver {
  url: string;
  port: number;
  deliveries: Delivery[];
  /** Statuses to answer with, in order (then 200); 0 = drop the connection. */
  script: number[];
  /** Delay before answering, ms. */
  delayMs: number;
  /** Requests received but not answered yet. */
  pending(): number;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  let inFlight = 0;
  const state: Receiver = { url: '', port: 0, deliveries: [], script: [], delayMs: 0, pending: () => inFlight, close: async () => undefined };
  const server = https.createServer(
    { key: fs.readFileSync(path.join(TLS, 'key.pem')), cert: fs.readFileSync(path.join(TLS, 'cert.pem')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      inFlight++;
      req.on('end', async () => {
        if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
        inFlight--;
        const status = state.script.length ? state.script.shift()! : 200;
        state.deliveries.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString(), status });
        if (status === 0) return req.socket.destroy();
        res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    },
  );
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  state.port = (server.address() as AddressInfo).port;
  state.url = `https://127.0.0.1:${state.port}/hook`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

export interface Mail {
  to: string[];
  raw: string;
}

export async function startSmtpSink(): Promise<{ url: string; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (d: Buffer) => (raw += d.toString()));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((r) => server.close(() => r())) };
}
