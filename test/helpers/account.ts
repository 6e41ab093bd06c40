// The Account API for tests: embedded PostgreSQL (migrated) under a temporary directory, apps
// built on it, an SMTP sink on loopback, a movable clock, and a small client that calls
// handle() with plain request objects. Everything is closed when the test ends.
import type { Test } from 'tap';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { openPostgres, type PgStore } from '../../src/storage/postgres/store.js';
import { migratePostgres } from '../../src/storage/migrate.js';
import { createAccountApp, type AccountApp, type AccountDeps } from '../../src/account/app.js';
import { createAccountWithSession } from '../../src/account/cli.js';
import { dumpAccountData } from '../../src/storage/postgres/account/users.js';
import type { ApiReply, ApiRequest } from '../../src/api/http.js';
import { createLogger } from '../../src/log.js';
import { tmpDir } from './tmp.js';

export const BASE = '/account/api/v1';

export async function accountPg(t: Test): Promise<PgStore> {
  const dir = tmpDir(t, 'explorer-account-');
  const pg = await openPostgres({ dataDir: path.join(dir, 'postgres'), poolSize: 6 });
  t.teardown(() => pg.close());
  await migratePostgres(pg);
  return pg;
}

export interface Clock {
  now: () => number;
  advance(ms: number): void;
}

export function movableClock(start = Date.now()): Clock {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

export async function accountApp(t: Test, pg: PgStore, deps: Partial<AccountDeps> = {}): Promise<AccountApp> {
  const app = createAccountApp({ pg, log: createLogger('account').child('test'), publicUrl: 'https://explorer.test', chainId: 1, ...deps });
  t.teardown(() => app.close());
  await app.ready();
  return app;
}

export interface Res {
  status: number;
  body: any;
  headers: Record<string, string>;
  raw: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  rawBody?: Buffer | string;
  headers?: Record<string, string>;
}

export function makeRequest(method: string, pathAndQuery: string, o: CallOptions = {}): ApiRequest {
  const q = pathAndQuery.indexOf('?');
  const p = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const headers: Record<string, string> = { host: 'explorer.test', ...o.headers };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  let body: Buffer | undefined;
  if (o.rawBody !== undefined) body = Buffer.isBuffer(o.rawBody) ? o.rawBody : Buffer.from(o.rawBody);
  else if (o.body !== undefined) {
    body = Buffer.from(JSON.stringify(o.body));
    headers['content-type'] = 'application/json';
  }
  return { method, path: p, query: new URLSearchParams(q < 0 ? '' : pathAndQuery.slice(q + 1)), headers, ip: '127.0.0.1', body };
}

export function parseReply(r: ApiReply): Res {
  const raw = Buffer.isBuffer(r.body) ? r.body.toString('utf8') : r.body;
  let body: unknown = undefined;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = raw;
  }
  return { status: r.status, body, headers: r.headers, raw };
}

/** A client of one handle(): call(method, '/user/info', {token}) with paths relative to BASE. */
export function client(handle: (req: ApiRequest) => Promise<ApiReply>) {
  return async (method: string, rel: string, o: CallOptions = {}): Promise<Res> =>
    parseReply(await handle(makeRequest(method, rel.startsWith('/account/') ? rel : BASE + rel, o)));
}

/** An account made directly in the database, and a session token for it. */
export async function newAccount(
  pg: PgStore,
  email: string,
  name = 'Test User',
  nickname?: string,
  clock: () => number = Date.now,
): Promise<{ userId: string; token: string }> {
  const r = await createAccountWithSession(pg, { email, name, nickname: nickname ?? name }, clock);
  if (!r) throw new Error(`account ${email} exists`);
  return { userId: r.userId, token: r.token };
}

export const dump = (pg: PgStore) => dumpAccountData(pg);

export interface Mail {
  to: string[];
  raw: string;
}

/** An SMTP server on loopback that keeps what it receives. */
export async function smtpSink(t: Test): Promise<{ port: number; mails: Mail[]; next(): Promise<Mail> }> {
  const mails: Mail[] = [];
  const waiting: ((m: Mail) => void)[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const m = { to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') };
        const w = waiting.shift();
        if (w) w(m);
        else mails.push(m);
        cb();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const a = server.server.address();
      resolve(typeof a === 'object' && a ? a.port : 0);
    });
  });
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return {
    port,
    mails,
    next: () =>
      new Promise<Mail>((resolve, reject) => {
        const m = mails.shift();
        if (m) return resolve(m);
        const timer = setTimeout(() => reject(new Error('no mail arrived within 10 s')), 10_000);
        waiting.push((x) => {
          clearTimeout(timer);
          resolve(x);
        });
      }),
  };
}

/** The 6-digit code of a sign-in mail. */
export function codeOf(m: Mail): string {
  const r = /(?:sign-in|confirmation) code is (\d{6})/.exec(m.raw.replace(/=\r?\n/g, ''));
  if (!r) throw new Error(`no code in the mail:\n${m.raw}`);
  return r[1];
}

/**
 * What a client written from SERVICE.md needs: the service's handle() and a session token for a
 * new account (SERVICE.md: "How a session token is obtained: not shown").
 */
export async function specService(t: Test): Promise<{
  handle: (req: ApiRequest) => Promise<ApiReply>;
  sessionToken(email: string, name?: string): Promise<string>;
}> {
  const pg = await accountPg(t);
  const app = await accountApp(t, pg);
  return {
    handle: (req) => app.handle(req),
    sessionToken: async (email, name = 'Spec Client') => (await newAccount(pg, email, name)).token,
  };
}
