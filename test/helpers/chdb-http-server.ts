// Tests only: embedded chDB served over ClickHouse's HTTP interface, a stand-in for a ClickHouse
// server (none can be installed here) so that several explorer processes share one store through
// the code path a real deployment uses: @clickhouse/client's HTTP transport, server-side parameter
// binding (`param_*`), settings in the URL, streamed INSERT bodies, errors as ClickHouse words
// them. Run as its own process (`node chdb-http-server.js --data-dir D [--user U --password P]
// [--engine-arg A]...`); it prints `listening <port>` once it accepts connections. Each
// `--engine-arg` goes to every chDB session as a `clickhouse local` argument, e.g.
// `--config-file=F` for a server's config.d file (deploy/clickhouse-backups.xml's backups disk):
// what a server reads from its configuration, chDB takes only when a session opens. Not a
// ClickHouse server: no sessions (`session_id`), no progress headers, no multipart parameters, no
// TLS; what it cannot do it refuses with a 400 naming the reason, never by answering something else.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createRequire } from 'node:module';

interface ChdbResult {
  readonly elapsed: number;
  readonly rowsRead: number;
  readonly bytesRead: number;
  bytes(): Uint8Array;
}
interface ChdbSession {
  queryAsync(sql: string, opts?: { format?: string }): Promise<ChdbResult>;
  queryBindAsync(sql: string, params: Record<string, string | null>, opts?: { format?: string }): Promise<ChdbResult>;
  cleanup?(): void;
}

/** URL parameters that steer the HTTP interface itself; every other one is a setting. */
const NOT_SETTINGS = new Set([
  'query', 'database', 'query_id', 'default_format', 'user', 'password', 'enable_http_compression',
  'wait_end_of_query', 'buffer_size', 'compress', 'decompress', 'quota_key', 'session_timeout', 'session_check',
]);

/** Ways ClickHouse answers its exceptions over HTTP (the client reads the body either way). */
function statusOf(code: number): number {
  if (code === 516) return 403;
  if ([60, 81].includes(code)) return 404;
  if ([27, 36, 38, 41, 46, 47, 62, 115, 130, 241, 457].includes(code)) return 400;
  return 500;
}

class HttpError extends Error {
  constructor(readonly status: number, readonly code: number, message: string) {
    super(message);
  }
}

/** Reverses the TSV (Escaped) escaping a client applies to a String parameter's text. */
function tsvUnescape(s: string): string {
  const map: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', a: '\x07', v: '\v', '\\': '\\', "'": "'", '"': '"', N: 'N' };
  return s.replace(/\\(.)/gs, (_, c: string) => map[c] ?? c);
}

/**
 * The parameters of a request for chDB's binder, which TSV-escapes a string value itself: String
 * parameters are unescaped first so that the engine sees the value the client meant; other types'
 * texts pass as they are (the binder leaves a text without backslashes, tabs or newlines alone).
 */
function bindable(sql: string, raw: Map<string, string>): Record<string, string | null> {
  const types = new Map<string, string>();
  for (const m of sql.matchAll(/\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{}]+?)\s*\}/g)) types.set(m[1], m[2]);
  const out: Record<string, string | null> = {};
  for (const [name, text] of raw) {
    const type = types.get(name) ?? 'String';
    if (text === '\\N' && /^Nullable\(/.test(type)) out[name] = null;
    else if (/^(Nullable\()?(LowCardinality\()?(String|FixedString\(\d+\))\)*$/.test(type)) out[name] = tsvUnescape(text);
    else if (/[\\\t\n]/.test(text)) {
      throw new HttpError(400, 36, `chdb-http-server (a test helper) cannot pass parameter ${name} of type ${type} with escapes through chDB's binder`);
    } else out[name] = text;
  }
  return out;
}

/** A setting's value as SQL. */
function settingValue(v: string): string {
  return /^-?\d+(\.\d+)?$/.test(v) ? v : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

interface Slot {
  session: ChdbSession;
  database: string | undefined;
  settings: Map<string, string>;
  busy: boolean;
}

export async function serve(opts: {
  dataDir: string;
  user?: string;
  password?: string;
  sessions?: number;
  engineArgs?: readonly string[];
}): Promise<http.Server> {
  // chdb is CommonJS; its root module holds Session (one engine per process, several sessions).
  const require = createRequire(import.meta.url);
  const { Session } = require('chdb') as { Session: new (dir: string, o?: { connectionArgs?: readonly string[] }) => ChdbSession };
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'chdb-http-insert-'));
  const slots: Slot[] = [];
  for (let i = 0; i < (opts.sessions ?? 4); i++) {
    const session = opts.engineArgs?.length ? new Session(opts.dataDir, { connectionArgs: opts.engineArgs }) : new Session(opts.dataDir);
    slots.push({ session, database: undefined, settings: new Map(), busy: false });
  }
  const waiting: ((s: Slot) => void)[] = [];
  const acquire = (): Promise<Slot> => {
    const free = slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return Promise.resolve(free);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (s: Slot) => {
    const next = waiting.shift();
    if (next) next(s);
    else s.busy = false;
  };

  /** Brings a session to the request's database and settings (a session keeps what was SET on it). */
  async function prepare(slot: Slot, database: string, settings: Map<string, string>) {
    if (slot.database !== database) {
      await slot.session.queryAsync(`USE ${database}`);
      slot.database = database;
    }
    for (const [k, v] of settings) {
      if (slot.settings.get(k) === v) continue;
      await slot.session.queryAsync(`SET ${k} = ${settingValue(v)}`);
      slot.settings.set(k, v);
    }
    for (const k of [...slot.settings.keys()]) {
      if (settings.has(k)) continue;
      await slot.session.queryAsync(`SET ${k} = DEFAULT`);
      slot.settings.delete(k);
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    if (url.pathname !== '/') throw new HttpError(404, 0, `chdb-http-server (a test helper) serves / and /ping, not ${url.pathname}`);
    checkAuth(req, url);
    if (url.searchParams.has('session_id')) throw new HttpError(400, 0, 'chdb-http-server (a test helper) has no HTTP sessions');
    if (/^multipart\//i.test(req.headers['content-type'] ?? '')) {
      throw new HttpError(400, 0, 'chdb-http-server (a test helper) does not read multipart parameters');
    }
    const settings = new Map<string, string>();
    const params = new Map<string, string>();
    for (const [k, v] of url.searchParams) {
      if (k.startsWith('param_')) params.set(k.slice(6), v);
      else if (!NOT_SETTINGS.has(k)) settings.set(k, v);
    }
    const database = url.searchParams.get('database') ?? req.headers['x-clickhouse-database']?.toString() ?? 'default';
    const format = url.searchParams.get('default_format') ?? req.headers['x-clickhouse-format']?.toString() ?? 'TabSeparated';
    const body = decoded(req);
    let sql = url.searchParams.get('query') ?? '';
    let staged: string | undefined;
    const insert = /^\s*INSERT\b[\s\S]*\bFORMAT\s+(\w+)\s*$/i.exec(sql);
    if (insert && req.method === 'POST') {
      // The body is the rows: streamed to a file as it arrives and read by the engine from there,
      // as a server reads the request stream (chDB takes no stream of its own).
      staged = path.join(staging, `${randomUUID()}.${insert[1]}`);
      await pipeline(body, fs.createWriteStream(staged));
      sql = sql.replace(/\bFORMAT\s+\w+\s*$/i, `FROM INFILE '${staged}' FORMAT ${insert[1]}`);
    } else {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      sql = sql && text ? `${sql}\n${text}` : sql || text;
    }
    if (!sql.trim()) throw new HttpError(400, 62, 'Empty query. (SYNTAX_ERROR)');
    const bound = params.size ? bindable(sql, params) : undefined;
    const queryId = url.searchParams.get('query_id') ?? randomUUID();
    const slot = await acquire();
    let result: ChdbResult;
    try {
      await prepare(slot, database, settings);
      result = bound ? await slot.session.queryBindAsync(sql, bound, { format }) : await slot.session.queryAsync(sql, { format });
    } finally {
      release(slot);
      if (staged) fs.rmSync(staged, { force: true });
    }
    const out = Buffer.from(result.bytes());
    const headers: http.OutgoingHttpHeaders = {
      'Content-Type': /^JSON/.test(format) ? 'application/json; charset=UTF-8' : 'text/plain; charset=UTF-8',
      'X-ClickHouse-Query-Id': queryId,
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Timezone': 'UTC',
      'X-ClickHouse-Server-Display-Name': 'chdb-http-server',
      'X-ClickHouse-Summary': JSON.stringify({
        read_rows: String(result.rowsRead), read_bytes: String(result.bytesRead),
        written_rows: '0', written_bytes: '0', total_rows_to_read: '0', result_rows: '0', result_bytes: String(out.length),
        elapsed_ns: String(Math.round(result.elapsed * 1e9)),
      }),
    };
    if (url.searchParams.get('enable_http_compression') === '1' && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      res.writeHead(200, { ...headers, 'Content-Encoding': 'gzip' }).end(zlib.gzipSync(out));
    } else {
      res.writeHead(200, headers).end(out);
    }
  }

  function checkAuth(req: http.IncomingMessage, url: URL) {
    if (opts.user === undefined) return;
    let user = req.headers['x-clickhouse-user']?.toString() ?? url.searchParams.get('user') ?? 'default';
    let password = req.headers['x-clickhouse-key']?.toString() ?? url.searchParams.get('password') ?? '';
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const text = Buffer.from(basic[1], 'base64').toString('utf8');
      user = decodeURIComponent(text.slice(0, text.indexOf(':')));
      password = decodeURIComponent(text.slice(text.indexOf(':') + 1));
    }
    if (user !== opts.user || password !== (opts.password ?? '')) {
      throw new HttpError(403, 516, `${user}: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)`);
    }
  }

  function decoded(req: http.IncomingMessage): NodeJS.ReadableStream {
    const enc = String(req.headers['content-encoding'] ?? '').toLowerCase();
    if (!enc || enc === 'identity') return req;
    if (enc === 'gzip') return req.pipe(zlib.createGunzip());
    if (enc === 'deflate') return req.pipe(zlib.createInflate());
    throw new HttpError(400, 0, `chdb-http-server (a test helper) cannot read Content-Encoding ${enc}`);
  }

  // Long `param_*` lists travel in the URL: a server takes up to 1 MiB there (http_max_uri_size).
  const server = http.createServer({ maxHeaderSize: 1 << 20, keepAliveTimeout: 10_000 }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      const err = e as { clickhouseCode?: number; message?: string };
      const code = e instanceof HttpError ? e.code : err.clickhouseCode ?? 0;
      const status = e instanceof HttpError ? e.status : statusOf(code);
      let message = String(err.message ?? e);
      if (!/^Code: \d+\./.test(message)) message = `Code: ${code}. DB::Exception: ${message}`;
      req.resume();
      if (!res.headersSent) {
        res.writeHead(status, { 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(code) });
      }
      res.end(`${message}\n`);
    });
  });
  server.on('close', () => {
    for (const s of slots) s.session.cleanup?.();
    fs.rmSync(staging, { recursive: true, force: true });
  });
  return server;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** Every value of an option given several times. */
function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === `--${name}` && i + 1 < process.argv.length ? [process.argv[i + 1]] : []));
}

// Run as a process: serves until SIGTERM/SIGINT, then closes its sessions.
if (process.argv[1] && import.meta.url === new URL(`file://${path.resolve(process.argv[1])}`).href) {
  const dataDir = arg('data-dir');
  if (!dataDir) {
    console.error('usage: chdb-http-server --data-dir DIR [--port N] [--user U --password P] [--engine-arg A]...');
    process.exit(2);
  }
  const server = await serve({ dataDir, user: arg('user'), password: arg('password'), engineArgs: args('engine-arg') });
  server.listen(Number(arg('port') ?? 0), '127.0.0.1', () => {
    console.log(`listening ${(server.address() as { port: number }).port}`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
