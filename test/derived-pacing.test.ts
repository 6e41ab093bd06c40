// Pacing of the derived lanes: while the indexer catches up they take turns within one budget;
// when catch-up ends every lane runs again, including those that were queued for a turn (a lost
// wake-up once left the accounting lane asleep for good).
import t from 'tap';
import { EventEmitter } from 'node:events';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { Derived } from '../src/derived/scheduler.js';
import type { Indexer } from '../src/indexer/indexer.js';
import type { RpcClient } from '../src/rpc/client.js';
import type { PgStore } from '../src/storage/postgres/store.js';
import { tmpDir } from './helpers/tmp.js';

t.test('lanes paced during catch-up all run again at the head', async (t) => {
  const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  await migrateAll(stores);
  const events = new EventEmitter();
  const stats = { head: 10_000 as number | null, committed: 0 as number | null };
  const indexer = Object.assign(events, { stats, addRewindHook: () => undefined }) as unknown as Indexer;
  // Slow steps (every store call waits 25 ms), so that lanes queue for a turn while one works.
  const slow = <T>(p: Promise<T>) => new Promise<void>((r) => setTimeout(r, 25)).then(() => p);
  const pg: PgStore = { ...stores.pg, pool: stores.pg.pool, query: (sql, params) => slow(stores.pg.query(sql, params)), tx: (fn) => slow(stores.pg.tx(fn)) } as PgStore;
  const derived = new Derived({ pg, ch: stores.ch, rpc: {} as RpcClient, pollMs: 20, catchUpShare: 0.2 });
  derived.attach(indexer);
  derived.start();
  t.teardown(() => derived.stop());
  const busy = () => Object.values(derived.stepMs).reduce((a, b) => a + b, 0);
  // Catching up: all lanes together work 20% of the time (one step's overrun allowed).
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 1500));
  const share = busy() / (performance.now() - t0);
  t.ok(share < 0.2 + 0.1, `lanes worked ${(share * 100).toFixed(1)}% of the time while catching up`);
  const during = { ...derived.steps };
  // At the head: every lane steps again, several times, within a few poll intervals.
  stats.committed = 10_000;
  events.emit('block');
  const lanes = ['accounting', 'coin', 'tokens', 'supply', 'nft', 'code', 'checks'];
  const end = Date.now() + 8_000;
  while (Date.now() < end && !lanes.every((l) => (derived.steps[l] ?? 0) >= (during[l] ?? 0) + 5)) await new Promise((r) => setTimeout(r, 50));
  for (const l of lanes) t.ok((derived.steps[l] ?? 0) >= (during[l] ?? 0) + 5, `${l} runs at the head (${during[l] ?? 0} -> ${derived.steps[l] ?? 0} steps)`);
  // A bulk commit (many blocks at once) paces them again, even close to the head.
  stats.committed = 10_100;
  stats.head = 10_100;
  events.emit('block');
  await new Promise((r) => setTimeout(r, 200));
  const b0 = busy();
  const t1 = performance.now();
  await new Promise((r) => setTimeout(r, 1000));
  const bulkShare = (busy() - b0) / (performance.now() - t1);
  t.ok(bulkShare < 0.2 + 0.1, `lanes worked ${(bulkShare * 100).toFixed(1)}% of the time during bulk ingest near the head`);
});
