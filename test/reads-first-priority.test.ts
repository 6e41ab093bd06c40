// The indexer's work beside an API in one process runs at a lower CPU priority (READS_FIRST_NICE):
// the backends of PgStore.yielding's pool and the ingest pool's worker threads, read back from
// /proc; the store's own backends and the main thread keep theirs.
import t from 'tap';
import fs from 'node:fs';
import { embeddedStores } from './helpers/stores.js';
import { createIngestPool, READS_FIRST_NICE } from '../src/indexer/pool.js';

/** The nice value in /proc/<pid>/stat or /proc/self/task/<tid>/stat (field 19; the name may hold spaces). */
function niceOf(statPath: string): number {
  const text = fs.readFileSync(statPath, 'utf8');
  return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[16]);
}

const noProc = fs.existsSync('/proc/self/task') ? false : 'no /proc here';

t.test("a yielding pool's backends run at its priority, the store's own at the default", { skip: noProc }, async (t) => {
  const stores = await embeddedStores(t, { migrate: false });
  const y = stores.pg.yielding(READS_FIRST_NICE);
  const pid = async (q: typeof y.query) => (await q<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!.pid;
  const before = niceOf(`/proc/${await pid(stores.pg.query)}/stat`);
  // Several at once: every connection of the pool, not only its first.
  const pids = await Promise.all(Array.from({ length: 4 }, () => y.tx(async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid)));
  t.equal(new Set(pids).size, 4, 'four backends');
  for (const p of pids) t.equal(niceOf(`/proc/${p}/stat`), READS_FIRST_NICE, `backend ${p} at nice ${READS_FIRST_NICE}`);
  t.equal(niceOf(`/proc/${await pid(stores.pg.query)}/stat`), before, "the store's own backend keeps its priority");
  t.equal(await y.query<{ n: number }>('SELECT 1 AS n').then((r) => r[0]!.n), 1, 'the yielding pool answers');
  // Closed before its parent, then again with it (the store's teardown): no error.
  await y.close();
  await t.resolves(y.close(), 'closing twice is harmless');
});

t.test('the ingest workers run at the nice they are given; the main thread keeps its own', { skip: noProc }, async (t) => {
  const threads = () => new Set(fs.readdirSync('/proc/self/task'));
  const main = niceOf('/proc/self/stat');
  const old = threads();
  const pool = createIngestPool(2, { nice: READS_FIRST_NICE });
  t.teardown(() => pool.destroy());
  // The workers set their priority when their module loads, shortly after the pool starts them.
  const until = Date.now() + 20_000;
  let niced: string[] = [];
  while (Date.now() < until) {
    niced = [...threads()].filter((id) => !old.has(id)).filter((id) => {
      try {
        return niceOf(`/proc/self/task/${id}/stat`) === READS_FIRST_NICE;
      } catch {
        return false; // a thread that ended meanwhile
      }
    });
    if (niced.length >= 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(niced.length, 2, `both worker threads at nice ${READS_FIRST_NICE}`);
  t.equal(niceOf('/proc/self/stat'), main, 'the main thread keeps its priority');
});
