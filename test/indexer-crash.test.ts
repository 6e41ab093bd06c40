// kill -9 of `explorer indexer` during catch-up, then a restart: the final state equals an
// uninterrupted run's, table by table and row by row.
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { withDevnet } from './helpers/devnet.js';
import { minedIn, rpc } from './helpers/rpc.js';
import { tmpDir } from './helpers/tmp.js';
import { projectRoot } from '../src/paths.js';
import { openStores } from '../src/storage/stores.js';
import { TABLE_NAMES } from '../src/chain/clickhouse-rows.js';

const CLI = path.join(projectRoot(), 'build', 'src', 'bin', 'explorer.js');

interface Run {
  child: ChildProcess;
  committed: () => number;
  exited: Promise<number | null>;
  output: () => string;
}

function runIndexer(t: Test, dataDir: string, url: string, extraEnv: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [CLI, 'indexer'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      ETHEREUM_JSONRPC_HTTP_URL: url,
      ETHEREUM_JSONRPC_VARIANT: 'anvil',
      INDEXER_BATCH_BLOCKS: '2',
      INDEXER_WORKERS: '1',
      LOG_LEVEL: 'debug',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let committed = -1;
  const onData = (d: Buffer) => {
    out += d;
    for (const m of d.toString().matchAll(/committed from=\d+ to=(\d+)/g)) committed = Math.max(committed, Number(m[1]));
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, committed: () => committed, exited, output: () => out };
}

async function until(fn: () => boolean, what: string, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** count and an order-independent checksum of every row of every chain table. */
async function fingerprint(dataDir: string): Promise<Record<string, string>> {
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  try {
    const out: Record<string, string> = {};
    for (const table of TABLE_NAMES) {
      const [r] = await stores.ch.query<{ n: string; h: string }>(`SELECT count() AS n, sum(cityHash64(*)) AS h FROM ${table}`);
      out[table] = `${r.n}:${r.h}`;
    }
    const [cp] = await stores.pg.query<{ block_number: number; block_hash: string }>('SELECT block_number, block_hash FROM indexer_checkpoints');
    out.checkpoint = `${cp?.block_number}:${cp?.block_hash}`;
    const tail = await stores.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM recent_blocks');
    out.tail = String(tail[0].n);
    // The point rows commit with the checkpoint: the same after a kill as after a clean run.
    for (const table of ['point_blocks', 'point_transactions']) {
      const [p] = await stores.pg.query<{ n: number; h: string }>(`SELECT count(*)::int AS n, coalesce(sum(hashtext(encode(data, 'hex'))::bigint), 0)::text AS h FROM ${table}`);
      out[table] = `${p.n}:${p.h}`;
    }
    return out;
  } finally {
    await stores.close();
  }
}

t.test('kill -9 during catch-up, restart: same state as an uninterrupted run', async (t) => {
  const devnet = await withDevnet(t);
  const url = devnet.url;
  let last = '';
  for (let i = 0; i < 160; i++) {
    last = await rpc<string>(url, 'eth_sendTransaction', [{ from: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8', to: '0x00000000000000000000000000000000000c0ffe', value: `0x${(i + 1).toString(16)}` }]);
  }
  const head = await minedIn(url, last);
  t.ok(head > 150, `chain of ${head} blocks`);

  const crashed = tmpDir(t);
  const first = runIndexer(t, crashed, url);
  await until(() => first.committed() >= 20, 'some commits');
  first.child.kill('SIGKILL');
  await first.exited;
  // The log line of a commit comes after its checkpoint and may not have reached us before the
  // kill: the checkpoint in the store is what a restart must resume from.
  const at = Number((await fingerprint(crashed)).checkpoint.split(':')[0]);
  t.ok(at >= first.committed() && at < head, `killed mid catch-up (checkpoint ${at}, last logged commit ${first.committed()}, head ${head})`);

  const second = runIndexer(t, crashed, url);
  await until(() => second.committed() >= head, 'the restart to reach the head');
  t.match(second.output(), /resume_from=(\d+)/);
  const resumedFrom = Number(/resume_from=(\d+)/.exec(second.output())![1]);
  t.equal(resumedFrom, at + 1, 'resumed from the block after the checkpoint');
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'clean exit');

  const clean = tmpDir(t);
  const third = runIndexer(t, clean, url);
  await until(() => third.committed() >= head, 'the uninterrupted run');
  third.child.kill('SIGTERM');
  t.equal(await third.exited, 0);

  const a = await fingerprint(crashed);
  const b = await fingerprint(clean);
  t.same(a, b, 'every table equal, row for row');
  t.equal(a.blocks.split(':')[0], String(head + 1));

  // The exact window: killed after the rows of a range are in ClickHouse, before its checkpoint.
  const window = tmpDir(t);
  const fourth = runIndexer(t, window, url, { EXPLORER_TEST_CRASH_AFTER_INSERT: '7' });
  t.equal(await fourth.exited, null, 'killed by the fault hook');
  t.equal(fourth.child.signalCode, 'SIGKILL');
  const beforeRestart = await fingerprint(window);
  t.equal(beforeRestart.checkpoint, `${fourth.committed()}:${beforeRestart.checkpoint.split(':')[1]}`, 'checkpoint is the last commit before the kill');
  t.ok(Number(beforeRestart.blocks.split(':')[0]) > fourth.committed() + 1, 'uncommitted rows were left in ClickHouse');
  const fifth = runIndexer(t, window, url);
  await until(() => fifth.committed() >= head, 'the restart after the fault');
  fifth.child.kill('SIGTERM');
  t.equal(await fifth.exited, 0);
  t.same(await fingerprint(window), b, 'same state as the uninterrupted run');
});
