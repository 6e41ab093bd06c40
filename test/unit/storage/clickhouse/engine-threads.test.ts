// Embedded chDB's own threads run at CLICKHOUSE_ENGINE_NICE (src/storage/clickhouse/engine-threads.ts),
// threads the engine starts later too, while Node's threads (the event loop, libuv's pool, worker
// threads) keep the process's priority.
import t from 'tap';
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { openClickHouse } from '../../../../src/storage/clickhouse/store.js';
import { lowerEngineThreads } from '../../../../src/storage/clickhouse/engine-threads.js';
import { tmpDir } from '../../../helpers/tmp.js';

const linux = fs.existsSync('/proc/self/task');

/** This process's threads: name and nice (field 19 of /proc/<tid>/stat, after the name's parenthesis). */
function threads(): { tid: number; name: string; nice: number }[] {
  const out = [];
  for (const t of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is field 3 (state): nice, field 19, is fields[16].
      out.push({ tid: Number(t), name: fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim(), nice: Number(fields[16]) });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

t.test('a nice of 0 changes nothing and starts no timer', async (t) => {
  const before = threads().map((x) => x.nice);
  const none = lowerEngineThreads(0);
  t.equal(none.lowered, 0);
  none.stop();
  t.same(threads().map((x) => x.nice).slice(0, before.length), before);
});

// The test's own priority: a nice above 7 cannot be lowered to 7 without privileges.
const base = linux ? threads().find((x) => x.tid === process.pid)!.nice : 0;

t.test("chDB's threads at the nice, Node's at the process's", { skip: !linux ? 'no /proc/self/task (not Linux)' : base > 7 ? `this process runs at nice ${base}` : false }, async (t) => {
  const ch = await openClickHouse({ database: 'explorer', dataDir: tmpDir(t), engineNice: 7 });
  t.teardown(() => ch.close());
  // Work that makes the engine start more of its pools (inserts, merges, a parallel read).
  await ch.command('CREATE TABLE IF NOT EXISTS t (a UInt64) ENGINE = MergeTree ORDER BY a');
  await ch.command('INSERT INTO t SELECT number FROM numbers(200000)');
  await ch.command('INSERT INTO t SELECT number FROM numbers(200000)');
  await ch.query('SELECT sum(a) FROM t');
  await ch.command('OPTIMIZE TABLE t FINAL');
  // A worker thread and libuv's pool, started after the engine.
  const worker = new Worker('setTimeout(() => {}, 5000)', { eval: true });
  t.teardown(() => worker.terminate());
  await new Promise((r) => worker.once('online', r));
  await fs.promises.readFile('/proc/self/stat');
  // The engine's pools grow as it works: the next pass (every second) catches what is new.
  await new Promise((r) => setTimeout(r, 1200));
  const all = threads();
  const engine = all.filter((x) => x.name !== 'node');
  const own = all.filter((x) => x.name === 'node');
  t.ok(engine.length >= 5, `${engine.length} engine threads (${[...new Set(engine.map((x) => x.name))].join(', ')})`);
  t.same(engine.filter((x) => x.nice !== 7).map((x) => `${x.name} ${x.tid}: ${x.nice}`), [], 'every engine thread at nice 7');
  t.ok(own.length >= 3, `${own.length} Node threads`);
  t.same(own.filter((x) => x.nice !== base).map((x) => `${x.tid}: ${x.nice}`), [], `every Node thread (the worker included) at the process's nice, ${base}`);
});
