// An API thread (src/api/route-threads.ts): computes the public API's routes for the main
// thread's app with its own context and PostgreSQL pool; its ClickHouse reads are asked of the
// main thread. Messages are handled in order, so news (a block, a name) reaches this context
// before any request the main thread sends after it.
import { parentPort, workerData } from 'node:worker_threads';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { createApiApp, type ThreadNews } from './app.js';
import { openPostgres } from '../storage/postgres/store.js';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import { createRpcClient } from '../rpc/client.js';
import { createLogger } from '../log.js';
import type { ApiThreadData, FromThread, ToThread } from './route-threads.js';

const port = parentPort!;
const data = workerData as ApiThreadData;
const log = createLogger('api-thread');
const post = (m: FromThread, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);

// ClickHouse through the main thread: reads only (the routes write nothing there).
let nextCh = 1;
const chWaiting = new Map<number, { resolve(rows: unknown[]): void; reject(e: Error): void }>();
const ch: ClickHouseStore = {
  get client(): never {
    throw new Error('an API thread has no ClickHouse client of its own');
  },
  database: data.chDatabase,
  embedded: data.chEmbedded,
  cluster: data.chCluster,
  query<T>(sql: string, params?: Record<string, unknown>): Promise<T[]> {
    const id = nextCh++;
    return new Promise<T[]>((resolve, reject) => {
      chWaiting.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      post({ t: 'ch', id, sql, params });
    });
  },
  command: () => Promise.reject(new Error('an API thread does not write to ClickHouse')),
  insertRaw: () => Promise.reject(new Error('an API thread does not write to ClickHouse')),
  close: async () => undefined,
};

const pg = await openPostgres({ url: data.pgUrl, poolSize: data.pgPoolSize });
const rpc = data.rpc ? createRpcClient(data.rpc) : undefined;
const app = createApiApp({ ch, pg, log, cacheMaxMb: 0, publicUrl: data.publicUrl, tokenSearchMemoryMax: data.tokenSearchMemoryMax, tokenSearchStaleMs: data.tokenSearchStaleMs, rpc, beaconNode: data.beaconNode });
const events = new EventEmitter();
let detach: (() => void) | undefined;

function hear(n: ThreadNews): void {
  switch (n.kind) {
    case 'attached':
      if (n.attached && !detach) detach = app.attach(events);
      if (!n.attached && detach) {
        detach();
        detach = undefined;
      }
      return;
    case 'block':
      events.emit('block', { to: n.to, range: n.range, summary: { createdContracts: n.createdContracts.map((address) => ({ address })) } });
      return;
    case 'reorg':
    case 'derived':
      events.emit(n.kind);
      return;
    case 'verified':
      events.emit('verified', { ok: true });
      return;
    case 'names':
      app.publicNamesChanged();
      return;
    case 'icon-origin':
      app.setIconOrigin(n.origin);
      return;
    case 'prices':
      app.ctx.prices.apply(n.snapshot);
      return;
  }
}
for (const n of data.news) hear(n);

/** The body in an ArrayBuffer of its own, to move rather than copy (small Buffers share Node's pool). */
function ownBytes(b: Buffer): Uint8Array {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b);
}

port.on('message', (m: ToThread) => {
  if (m.t === 'news') hear(m.news);
  else if (m.t === 'close') {
    detach?.();
    void pg.close().finally(() => port.close());
  }
  else if (m.t === 'ch-rows') {
    const w = chWaiting.get(m.id);
    chWaiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.rows!);
  } else if (m.t === 'run') {
    app.computeRoute(m.pattern, m.path, m.query).then(
      (r) => {
        const body = ownBytes(r.body);
        post({ t: 'done', id: m.id, status: r.status, body, policy: r.policy, block: r.block }, [body.buffer as ArrayBuffer]);
      },
      (e: unknown) => post({ t: 'failed', id: m.id, error: e instanceof Error ? e.message : String(e) }),
    );
  }
});
/** This thread's id in the OS (Linux), so that a benchmark can tell its CPU from the others'. */
function osThreadId(): number | undefined {
  try {
    return Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}
post({ t: 'ready', tid: osThreadId() });
