// A JSON-RPC server over HTTP that answers from PRE-SERIALIZED result bytes (bench/responses.ts):
// per request it parses the (small) request, looks each call up and writes the stored bytes
// wrapped in `{"jsonrpc":"2.0","id":..,"result":..}`; a batch is the concatenation of those in
// `[..]`. Nothing is stringified per request, so the indexer, not the server, is measured.
//
// Use in process (`startReplayServer(store)`) or as its own process so its CPU is not on the
// indexer's main thread: `forkReplayServer(path)` runs this compiled file with `fork`, which
// loads the store saved at `path` (saveResponseStore) and reports its port over IPC. Both share
// the machine's cores with the indexer; the benchmark reports the server's CPU time.

import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { blockKey, loadResponseStore, lookup, type ResponseStore } from './responses.js';

export interface ServerStats {
  httpRequests: number;
  calls: number;
  callsPerMethod: Record<string, number>;
  bytesOut: number;
  maxConcurrent: number;
  /** CPU time of the server process (µs), when it runs in its own process. */
  cpuUserUs: number;
  cpuSystemUs: number;
}

export interface ReplayServer {
  url: string;
  port: number;
  /** Moves a held head to `n` (never past the store's last block). */
  show(n: number): Promise<void>;
  stats(): Promise<ServerStats>;
  close(): Promise<void>;
}

interface Call {
  jsonrpc?: string;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

const PRE = Buffer.from('{"jsonrpc":"2.0","id":');
const MID_RESULT = Buffer.from(',"result":');
const END = Buffer.from('}');
const COMMA = Buffer.from(',');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const NULL = Buffer.from('null');

function blockNumberParam(p: unknown, head: number): number | undefined {
  if (p === 'latest' || p === 'safe' || p === 'finalized' || p === 'pending') return head;
  if (p === 'earliest') return 0;
  if (typeof p !== 'string' || !/^0x[0-9a-fA-F]+$/.test(p)) return undefined;
  return parseInt(p, 16);
}

/**
 * A head the caller moves (bench/api.ts's reads while the indexer follows a head: it shows the
 * next block when its schedule says, so a measured window holds the block it means to).
 * Without it the whole store is there from the start.
 */
export interface HeldHead {
  /** The first head shown. */
  head: number;
}

/** The answer to one call: result bytes, or an error object. Blocks above `head` are not there yet. */
function answer(store: ResponseStore, c: Call, head: number): { result: Buffer } | { error: { code: number; message: string } } {
  const method = c.method;
  const params = Array.isArray(c.params) ? (c.params as unknown[]) : [];
  const above = (n: number) => n > head;
  switch (method) {
    case 'eth_blockNumber':
      return { result: Buffer.from(JSON.stringify('0x' + head.toString(16))) };
    case 'eth_chainId':
      return { result: Buffer.from('"0x1"') };
    case 'net_version':
      return { result: Buffer.from('"1"') };
    case 'web3_clientVersion':
      return { result: Buffer.from('"bench-replay/1.0"') };
    case 'eth_syncing':
      return { result: Buffer.from('false') };
    case 'eth_getBlockByNumber': {
      const n = blockNumberParam(params[0], head);
      if (n === undefined) return { error: { code: -32602, message: 'invalid argument 0: hex string expected' } };
      const key = blockKey(params[1] === true ? 'eth_getBlockByNumber/full' : 'eth_getBlockByNumber/hashes', n);
      return { result: (above(n) ? undefined : lookup(store, key)) ?? NULL };
    }
    case 'eth_getBlockReceipts': {
      const n = blockNumberParam(params[0], head);
      if (n === undefined) return { error: { code: -32602, message: 'invalid argument 0: hex string expected' } };
      return { result: (above(n) ? undefined : lookup(store, blockKey('eth_getBlockReceipts', n))) ?? NULL };
    }
    case 'debug_traceBlockByNumber': {
      const n = blockNumberParam(params[0], head);
      if (n === undefined) return { error: { code: -32602, message: 'invalid argument 0: hex string expected' } };
      const cfg = params[1] as { tracer?: string } | undefined;
      if (!cfg || cfg.tracer !== 'callTracer') return { error: { code: -32000, message: 'bench replay server: only the callTracer is recorded' } };
      if (n === 0) return { error: { code: -32000, message: 'genesis is not traceable' } };
      const r = above(n) ? undefined : lookup(store, blockKey('debug_traceBlockByNumber', n));
      return r ? { result: r } : { error: { code: -32000, message: `block #${n} not found` } };
    }
    case 'trace_block': {
      const n = blockNumberParam(params[0], head);
      if (n === undefined) return { error: { code: -32602, message: 'invalid argument 0: hex string expected' } };
      return { result: (above(n) ? undefined : lookup(store, blockKey('trace_block', n))) ?? NULL };
    }
    // For the derived-data lanes (BENCH_DERIVED=1): every balance is 1 wei, every call returns
    // one zero word, every contract has a tiny code. Constant answers keep the server cheap.
    // No code at OP Stack predeploys (0x4200…00xx): the synthetic chain is an Ethereum chain,
    // and the indexer's chain-family probe asks for the L1Block predeploy's code.
    case 'eth_getBalance':
      return { result: Buffer.from('"0x1"') };
    case 'eth_call':
      return { result: Buffer.from('"0x' + '0'.repeat(64) + '"') };
    case 'eth_getCode':
      return { result: Buffer.from(/^0x4200{36}[0-9a-f]{2}$/i.test(String(params[0])) ? '"0x"' : '"0x6080604052"') };
    default:
      return { error: { code: -32601, message: `the method ${String(method)} does not exist/is not available` } };
  }
}

/** Starts the server in this process on 127.0.0.1 and a free port. */
export async function startReplayServer(store: ResponseStore, port = 0, held?: HeldHead): Promise<ReplayServer> {
  /** The head the node answers with (the store's last block unless held). */
  let shown = held ? Math.min(store.head, held.head) : store.head;
  const callsPerMethod: Record<string, number> = {};
  const st = { httpRequests: 0, calls: 0, bytesOut: 0, maxConcurrent: 0 };
  let concurrent = 0;

  function respond(res: ServerResponse, body: Buffer): void {
    const pieces: Buffer[] = [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (typeof parsed !== 'object' || parsed === null)) {
      pieces.push(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })));
    } else {
      const batch = Array.isArray(parsed);
      const calls = (batch ? parsed : [parsed]) as Call[];
      if (batch) pieces.push(OPEN);
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i]!;
        if (i > 0) pieces.push(COMMA);
        st.calls++;
        const m = String(c.method);
        callsPerMethod[m] = (callsPerMethod[m] ?? 0) + 1;
        const a = answer(store, c, shown);
        const id = Buffer.from(JSON.stringify(c.id ?? null));
        if ('result' in a) pieces.push(PRE, id, MID_RESULT, a.result, END);
        else pieces.push(PRE, id, Buffer.from(',"error":' + JSON.stringify(a.error)), END);
      }
      if (batch) pieces.push(CLOSE);
    }
    const out = Buffer.concat(pieces);
    st.bytesOut += out.length;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': out.length });
    res.end(out);
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    st.httpRequests++;
    concurrent++;
    if (concurrent > st.maxConcurrent) st.maxConcurrent = concurrent;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        respond(res, Buffer.concat(chunks));
      } catch (e) {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(e));
      } finally {
        concurrent--;
      }
    });
    req.on('error', () => {
      concurrent--;
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/`,
    port: actual,
    async show(n) {
      if (!held) throw new Error('replay server: the head is not held');
      shown = Math.min(store.head, n);
    },
    async stats() {
      const cpu = process.cpuUsage();
      return { ...st, callsPerMethod: { ...callsPerMethod }, cpuUserUs: cpu.user, cpuSystemUs: cpu.system };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ---- as a separate process --------------------------------------------------------------------

type ToChild = { cmd: 'stats' } | { cmd: 'show'; head: number } | { cmd: 'close' };
type FromChild =
  | { type: 'ready'; url: string; port: number }
  | { type: 'stats'; stats: ServerStats }
  | { type: 'shown' }
  | { type: 'error'; message: string };

const THIS_FILE = fileURLToPath(import.meta.url);

/**
 * Runs the server in a child process (this compiled file) on the store saved at `storePath`.
 * The child exits when told to close or when this process goes away (IPC disconnect).
 */
export async function forkReplayServer(storePath: string, opts: { timeoutMs?: number; held?: HeldHead } = {}): Promise<ReplayServer & { pid: number }> {
  const child: ChildProcess = fork(THIS_FILE, opts.held ? [storePath, JSON.stringify(opts.held)] : [storePath], {
    // No inherited --cpu-prof and the like: the server is not what is measured.
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: ((m: FromChild) => void)[] = [];
  child.on('message', (m: FromChild) => waiting.shift()?.(m));
  const next = (what: string): Promise<FromChild> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`replay server: no ${what} within ${opts.timeoutMs ?? 120_000} ms`)), opts.timeoutMs ?? 120_000);
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`replay server exited (code ${code}) before ${what}`));
      };
      child.once('exit', onExit);
      waiting.push((m) => {
        clearTimeout(timer);
        child.off('exit', onExit);
        if (m.type === 'error') reject(new Error(`replay server: ${m.message}`));
        else resolve(m);
      });
    });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let ready: FromChild;
  try {
    ready = await next('ready message');
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  if (ready.type !== 'ready') throw new Error('replay server: unexpected first message');
  const send = (m: ToChild) => child.send(m);
  /** One command and its reply (the child answers in order). */
  const ask = async <T extends FromChild['type']>(m: ToChild, type: T): Promise<Extract<FromChild, { type: T }>> => {
    const p = next(type);
    send(m);
    const r = await p;
    if (r.type !== type) throw new Error('replay server: unexpected reply');
    return r as Extract<FromChild, { type: T }>;
  };
  return {
    url: ready.url,
    port: ready.port,
    pid: child.pid!,
    async show(n) {
      await ask({ cmd: 'show', head: n }, 'shown');
    },
    async stats() {
      return (await ask({ cmd: 'stats' }, 'stats')).stats;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) send({ cmd: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function childMain(storePath: string, held: HeldHead | undefined): Promise<void> {
  const reply = (m: FromChild) => process.send!(m);
  let server: ReplayServer;
  try {
    const store = loadResponseStore(storePath);
    server = await startReplayServer(store, 0, held);
  } catch (e) {
    reply({ type: 'error', message: (e as Error).message });
    process.exit(1);
  }
  process.on('message', async (m: ToChild) => {
    if (m.cmd === 'stats') reply({ type: 'stats', stats: await server.stats() });
    else if (m.cmd === 'show') {
      try {
        await server.show(m.head);
        reply({ type: 'shown' });
      } catch (e) {
        reply({ type: 'error', message: (e as Error).message });
      }
    } else if (m.cmd === 'close') {
      await server.close();
      process.disconnect();
      process.exit(0);
    }
  });
  // The parent is gone: nobody will ask again.
  process.on('disconnect', () => {
    void server.close().finally(() => process.exit(0));
  });
  reply({ type: 'ready', url: server.url, port: server.port });
}

if (process.send && process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const path = process.argv[2];
  if (!path) {
    process.send({ type: 'error', message: 'usage: replay-server.js <store path> [held head JSON]' } satisfies FromChild);
    process.exit(2);
  }
  void childMain(path, process.argv[3] ? (JSON.parse(process.argv[3]) as HeldHead) : undefined);
}
