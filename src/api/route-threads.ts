// API threads (API_THREADS): the public API's routes computed in worker threads
// (src/api/api-thread.ts), so that one process answers uncached reads on more than one core.
// The main thread keeps the sockets, the rate limits, the response cache, the websocket and the
// indexer; a thread reads PostgreSQL itself and asks the main thread for its ClickHouse reads
// (embedded chDB answers on the main thread only). Each thread's context hears what the main
// thread's hears (events, names), in order, before any later request.
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { CachedResponse } from '../cache/response-cache.js';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { Logger } from '../log.js';
import type { RpcClientOptions } from '../rpc/client.js';
import type { RouteThreads, ThreadNews } from './app.js';
import type { BeaconNodeOptions } from './beacon-blobs.js';

// beside this file once built (build/src/api/)
const WORKER = fileURLToPath(new URL('./api-thread.js', import.meta.url));

/** What a thread is started with (src/api/api-thread.ts). */
export interface ApiThreadData {
  pgUrl: string;
  pgPoolSize: number;
  chDatabase: string;
  chEmbedded: boolean;
  chCluster?: string;
  rpc?: ThreadRpc;
  publicUrl?: string;
  tokenSearchMemoryMax?: number;
  tokenSearchStaleMs?: number;
  /** BEACON_NODE_URL's options: a blob answer computed in a thread asks the node from there. */
  beaconNode?: BeaconNodeOptions;
  /** News it must start from: whether the app is attached, the icons' origin. */
  news: ThreadNews[];
}

/** How a thread's context reaches the node: plain options (they cross to the thread by copy). */
export type ThreadRpc = Pick<RpcClientOptions, 'url' | 'timeoutMs' | 'maxRetries'>;

/** Main thread -> thread. */
export type ToThread =
  | { t: 'run'; id: number; pattern: string; path: Record<string, unknown>; query: Record<string, unknown> }
  | { t: 'news'; news: ThreadNews }
  | { t: 'close' }
  | { t: 'ch-rows'; id: number; rows?: unknown[]; error?: string };

/** Thread -> main thread. */
export type FromThread =
  | { t: 'ready'; tid?: number }
  | { t: 'done'; id: number; status: number; body: Uint8Array; policy: CachedResponse['policy']; block?: bigint }
  | { t: 'failed'; id: number; error: string }
  | { t: 'ch'; id: number; sql: string; params?: Record<string, unknown> };

export interface RouteThreadsOptions {
  /** How many threads (>= 1). */
  count: number;
  /** Runs the threads' ClickHouse reads. */
  ch: ClickHouseStore;
  /** The threads' own PostgreSQL pools: this server, this many connections each. */
  pgUrl: string;
  pgPoolSize?: number;
  /** The node, for what the routes ask it (contract reads, code of unknown addresses): the main app's client options. */
  rpc?: ThreadRpc;
  publicUrl?: string;
  /** TOKEN_SEARCH_MEMORY_MAX and TOKEN_SEARCH_STALE_MS: each thread holds its own token search. */
  tokenSearchMemoryMax?: number;
  tokenSearchStaleMs?: number;
  beaconNode?: BeaconNodeOptions;
  log: Logger;
}

/** How long a closing thread has to close its pool before it is stopped. */
const CLOSE_MS = 5000;
export interface RunningRouteThreads extends RouteThreads {
  /** Threads running now. */
  live(): number;
  /** Their OS thread ids, where known (a benchmark's CPU accounting). */
  tids(): number[];
  close(): Promise<void>;
}

/** A restarted thread waits this long, so that one failing at once does not spin. */
const RESTART_MS = 1000;

interface Slot {
  worker: Worker | null;
  /** The OS thread id it said it runs on (Linux). */
  tid?: number;
  pending: Map<number, { resolve(r: CachedResponse): void; reject(e: Error): void }>;
}

/** Starts `count` API threads and resolves once each is ready (rejects if one cannot start). */
export async function startRouteThreads(o: RouteThreadsOptions): Promise<RunningRouteThreads> {
  const slots: Slot[] = [];
  // The news a thread started later must begin from (the last of each kind that is state).
  let attached: ThreadNews | undefined;
  let iconOrigin: ThreadNews | undefined;
  let prices: ThreadNews | undefined;
  let nextId = 1;
  let closing = false;

  function spawn(slot: Slot): Promise<void> {
    const data: ApiThreadData = {
      pgUrl: o.pgUrl,
      pgPoolSize: o.pgPoolSize ?? 8,
      chDatabase: o.ch.database,
      chEmbedded: o.ch.embedded,
      chCluster: o.ch.cluster,
      rpc: o.rpc,
      publicUrl: o.publicUrl,
      tokenSearchMemoryMax: o.tokenSearchMemoryMax,
      tokenSearchStaleMs: o.tokenSearchStaleMs,
      beaconNode: o.beaconNode,
      news: [attached, iconOrigin, prices].filter((n): n is ThreadNews => n !== undefined),
    };
    const w = new Worker(WORKER, { workerData: data });
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      w.on('message', (m: FromThread) => {
        if (m.t === 'ready') {
          ready = true;
          slot.worker = w;
          slot.tid = m.tid;
          resolve();
        } else if (m.t === 'done') {
          const p = slot.pending.get(m.id);
          slot.pending.delete(m.id);
          p?.resolve({ status: m.status, body: Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength), policy: m.policy, block: m.block });
        } else if (m.t === 'failed') {
          const p = slot.pending.get(m.id);
          slot.pending.delete(m.id);
          p?.reject(new Error(m.error));
        } else if (m.t === 'ch') {
          o.ch.query(m.sql, m.params).then(
            (rows) => w.postMessage({ t: 'ch-rows', id: m.id, rows } satisfies ToThread),
            (e: unknown) => w.postMessage({ t: 'ch-rows', id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies ToThread),
          );
        }
      });
      w.on('error', (e) => {
        if (!ready) reject(e);
        else o.log.error('API thread failed', { error: e.message });
      });
      w.on('exit', (code) => {
        if (slot.worker === w) slot.worker = null;
        for (const p of slot.pending.values()) p.reject(new Error(`API thread exited (${code})`));
        slot.pending.clear();
        if (!ready) reject(new Error(`API thread exited at start (${code})`));
        else if (!closing) {
          o.log.error('API thread exited; starting it again', { code });
          setTimeout(() => {
            if (!closing) spawn(slot).catch((e: unknown) => o.log.error('API thread did not start again', { error: e instanceof Error ? e.message : String(e) }));
          }, RESTART_MS).unref();
        }
      });
    });
  }

  for (let i = 0; i < Math.max(1, o.count); i++) slots.push({ worker: null, pending: new Map() });
  try {
    await Promise.all(slots.map(spawn));
  } catch (e) {
    closing = true;
    await Promise.all(slots.map((s) => s.worker?.terminate()));
    throw e;
  }

  return {
    compute(pattern, path, query) {
      // The live thread with the fewest answers in progress; none live (one restarting): undefined.
      let best: Slot | undefined;
      for (const s of slots) if (s.worker && (!best || s.pending.size < best.pending.size)) best = s;
      if (!best) return undefined;
      const slot = best;
      const id = nextId++;
      return new Promise<CachedResponse>((resolve, reject) => {
        slot.pending.set(id, { resolve, reject });
        slot.worker!.postMessage({ t: 'run', id, pattern, path, query } satisfies ToThread);
      });
    },
    tell(news) {
      if (news.kind === 'attached') attached = news;
      if (news.kind === 'icon-origin') iconOrigin = news;
      if (news.kind === 'prices') prices = news;
      for (const s of slots) s.worker?.postMessage({ t: 'news', news } satisfies ToThread);
    },
    live: () => slots.filter((s) => s.worker).length,
    tids: () => slots.flatMap((s) => (s.worker && s.tid !== undefined ? [s.tid] : [])),
    async close() {
      closing = true;
      // Each closes its pool and ends; one that does not within CLOSE_MS is stopped.
      await Promise.all(
        slots.map(async (s) => {
          const w = s.worker;
          if (!w) return;
          const exited = new Promise((r) => w.once('exit', r));
          w.postMessage({ t: 'close' } satisfies ToThread);
          const timer = setTimeout(() => void w.terminate(), CLOSE_MS);
          await exited;
          clearTimeout(timer);
        }),
      );
    },
  };
}
