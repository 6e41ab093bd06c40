// Group commits during catch-up: a completed range waits for the ranges behind it so that
// several are inserted together (fewer, larger ClickHouse parts), but never past the wait
// bound, and never when nothing more is coming. Every range is committed once, in order.
import t from 'tap';
import { buildResponseStore } from '../bench/responses.js';
import { startReplayServer } from '../bench/replay-server.js';
import { createIndexer, type BlockEvent } from '../src/indexer/indexer.js';
import { createIngestPool, type IngestPool } from '../src/indexer/pool.js';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { tmpDir } from './helpers/tmp.js';

const BATCH = 3;

t.test('catch-up commits ranges in groups, in order, each once', async (t) => {
  const store = buildResponseStore({ blocks: 26 }); // 27 blocks with genesis: 9 ranges of 3
  const server = await startReplayServer(store);
  t.teardown(() => server.close());
  const ranges = Math.ceil((store.head + 1) / BATCH);

  for (const scenario of ['prompt', 'a slow range'] as const) {
    const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
    const pool = createIngestPool(2);
    try {
      await migrateAll(stores);
      // The block-table insert of each commit: how many ranges it carried (one chunk per range).
      const groups: number[] = [];
      const insertRaw = stores.ch.insertRaw.bind(stores.ch);
      stores.ch.insertRaw = (table, bytes, ...rest) => {
        if (table === 'blocks') groups.push(Array.isArray(bytes) ? bytes.length : 1);
        return insertRaw(table, bytes, ...rest);
      };
      // The second range is held back 2.5 s in the second scenario.
      const delivered: { from: number; at: number }[] = [];
      const slowPool: IngestPool = {
        threads: pool.threads,
        destroy: () => Promise.resolve(),
        async run(task) {
          const r = await pool.run(task);
          if (scenario === 'a slow range' && task.from === BATCH) await new Promise((res) => setTimeout(res, 2500));
          delivered.push({ from: task.from, at: Date.now() });
          return r;
        },
      };
      const events: (BlockEvent & { at: number })[] = [];
      const indexer = createIndexer({
        ch: stores.ch,
        pg: stores.pg,
        rpc: { url: server.url, variant: 'geth' },
        batchBlocks: BATCH,
        pool: slowPool,
        pollMs: 100,
        pending: false,
        groupWaitMs: scenario === 'prompt' ? 60_000 : 300,
      });
      indexer.on('block', (e: BlockEvent) => events.push({ ...e, at: Date.now() }));
      await indexer.start();
      await indexer.waitFor(store.head, 120_000);
      await indexer.stop();

      t.same(events.map((e) => [e.from, e.to]), Array.from({ length: ranges }, (_, i) => [i * BATCH, Math.min(store.head, i * BATCH + BATCH - 1)]), `${scenario}: every range committed once, in order`);
      const [{ n }] = await stores.ch.query<{ n: string }>('SELECT count() AS n FROM blocks');
      t.equal(Number(n), store.head + 1, `${scenario}: every block stored`);
      t.equal(groups.reduce((a, b) => a + b, 0), ranges, `${scenario}: the inserts carried every range once`);
      if (scenario === 'prompt') {
        // With the workers quicker than the wait bound, every commit but the last carries at
        // least 4 ranges (9 ranges: 4 + 4 + 1, or larger groups when more were already done).
        t.ok(groups.slice(0, -1).every((g) => g >= 4), `groups of at least 4 ranges before the last (${groups.join(', ')})`);
        t.ok(groups.length < ranges, 'fewer inserts than ranges');
      } else {
        // The first range does not wait for the held-back one beyond the bound.
        const first = events[0]!;
        const slow = delivered.find((d) => d.from === BATCH)!;
        t.equal(first.to, BATCH - 1, 'the first range committed alone');
        t.ok(first.at < slow.at, 'before the slow range was delivered');
      }
    } finally {
      await pool.destroy();
      await stores.close();
    }
  }
});

t.test('stop() ends a group wait at once; groupWaitMs is checked', async (t) => {
  for (const bad of [NaN, -1, Infinity, 1e9]) {
    t.throws(
      () => createIndexer({ ch: {} as never, pg: {} as never, rpc: { url: 'http://127.0.0.1:1', variant: 'geth' }, groupWaitMs: bad }),
      { name: 'RangeError' },
      `groupWaitMs ${bad} refused`,
    );
  }
  const store = buildResponseStore({ blocks: 11 }); // 4 ranges of 3
  const server = await startReplayServer(store);
  t.teardown(() => server.close());
  const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
  const pool = createIngestPool(2);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  t.teardown(async () => {
    release();
    await pool.destroy();
    await stores.close();
  });
  await migrateAll(stores);
  const delivered: number[] = [];
  const heldPool: IngestPool = {
    threads: pool.threads,
    destroy: () => Promise.resolve(),
    async run(task) {
      const r = await pool.run(task);
      if (task.from === BATCH) await held; // the second range never arrives before stop()
      delivered.push(task.from);
      return r;
    },
  };
  const events: BlockEvent[] = [];
  const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: server.url, variant: 'geth' }, batchBlocks: BATCH, pool: heldPool, pollMs: 100, pending: false, groupWaitMs: 60_000 });
  indexer.on('block', (e: BlockEvent) => events.push(e));
  await indexer.start();
  const t0 = Date.now();
  while (!delivered.includes(0) && Date.now() - t0 < 60_000) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500));
  t.ok(delivered.includes(0), 'the first range was delivered');
  t.equal(events.length, 0, 'it waits for the held range behind it');
  const s0 = Date.now();
  await indexer.stop();
  t.ok(Date.now() - s0 < 10_000, `stop() returned without waiting out the 60 s group wait (${Date.now() - s0} ms)`);
});
