// The upgrade's backfill of ERC-4337 user operations (src/indexer/user-operations-backfill.ts): a
// chain with user operations of EntryPoint v0.6, v0.7 and v0.8 (the real contracts, test/helpers/
// user-operations.ts; one bundle sent through another contract, read from the traces) is indexed;
// then the store is put as a release before user operations left it (no user_operations rows,
// `user_operations_from` past them, as migration 0022 writes it), the backfill runs in small chunks,
// is stopped mid-way with a chunk's rows inserted but its progress not written (a kill between the
// two), and a new indexer goes on. Its rows must equal the fresh index's byte for byte (no row
// twice, none missing) and so must every API answer about them; the status says the past is
// indexed only once it is.
import t from 'tap';
import { EventEmitter } from 'node:events';
import { withAnvil } from './helpers/devnet.js';
import { rpc } from './helpers/rpc.js';
import { embeddedStores } from './helpers/stores.js';
import { request } from './helpers/api.js';
import { sendUserOperations } from './helpers/user-operations.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { UserOperationsBackfill, type UserOperationsBackfillState } from '../src/indexer/user-operations-backfill.js';
import { getCheckpoint, getFact, setFact, CHAIN_LANE } from '../src/storage/postgres/indexer.js';
import { USER_OPERATIONS_BACKFILL, USER_OPERATIONS_FROM } from '../src/storage/postgres/user-operations.js';
import { deleteRows } from '../src/storage/clickhouse/delete-rows.js';
import { insertUserOperations } from '../src/storage/clickhouse/user-operations-backfill.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { indexingStatus } from '../src/storage/indexing-status.js';

const BUNDLER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const AA = '/api/v2/proxy/account-abstraction';

t.test('user operations of blocks indexed before them: decoded from the store, resumable, equal to a fresh index', { timeout: 600_000 }, async (t) => {
  const anvil = await withAnvil(t);
  const scenario = await sendUserOperations(anvil.url, BUNDLER);
  // One more bundle sent through another contract: its calldata is an inner call, read from the traces.
  const forwarded = await scenario.versions.find((v) => v.version === 'v0.7')!.bundle(['plain'], { forwarded: true });
  scenario.ops.push(...forwarded);
  const stores = await embeddedStores(t);
  const { ch, pg } = stores;
  const head = Number(await rpc<string>(anvil.url, 'eth_blockNumber'));
  {
    const indexer = createIndexer({ ch, pg, rpc: { url: anvil.url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false });
    await indexer.start();
    try {
      await indexer.waitFor(head, 120_000);
    } finally {
      await indexer.stop();
    }
  }

  const app = createApiApp({ ch, pg, log: createLogger('api'), cacheMaxMb: 0 });
  app.attach(new EventEmitter());
  const get = async (p: string) => {
    const r = await app.handle(request(p));
    return { status: r.status, body: typeof r.body === 'string' ? r.body : r.body.toString('utf8') };
  };
  // Every stored row, in key order, as ClickHouse returns it (duplicates included: no FINAL).
  const rows = async () => JSON.stringify(await ch.query('SELECT * FROM user_operations ORDER BY block_number, transaction_index, bundle_index, op_index'));
  const countIn = async (a: number, b: number) => Number((await ch.query<{ n: string }>('SELECT count() AS n FROM user_operations WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64}', { a, b }))[0]!.n);
  // The answers about user operations: the list, each operation, the aggregates, the bundles.
  const paths = [
    `${AA}/operations`,
    ...scenario.ops.map((o) => `${AA}/operations/${o.hash}`),
    ...scenario.ops.map((o) => `${AA}/operations/${o.hash}/summary`),
    `${AA}/accounts`,
    ...scenario.versions.map((v) => `${AA}/accounts/${v.account}`),
    `${AA}/bundlers`,
    `${AA}/bundlers/${BUNDLER}`,
    `${AA}/paymasters`,
    `${AA}/factories`,
    `${AA}/bundles`,
    `/api/v2/search?q=${scenario.ops[3]!.hash}`,
  ];
  const answers = async () => Promise.all(paths.map(async (p) => `${p} ${JSON.stringify(await get(p))}`));

  const fresh = await rows();
  const freshAnswers = await answers();
  t.equal(JSON.parse(fresh).length, 13, 'the fresh index holds the thirteen operations');
  t.ok(JSON.parse(fresh).some((r: { hash: string }) => r.hash === forwarded[0]!.hash), 'the forwarded one among them (decoded from the traces)');
  t.equal(JSON.parse((await get(`${AA}/status`)).body).finished_past_indexing, true, 'a fresh index: the past is indexed');
  const opBlocks = JSON.parse(fresh).map((r: { block_number: string }) => Number(r.block_number)) as number[];

  // As a release before user operations left the store: none stored, migration 0022's fact at the checkpoint + 1.
  const cp = (await getCheckpoint(pg, CHAIN_LANE))!.blockNumber;
  await deleteRows(ch, 'user_operations', '1');
  await setFact(pg, USER_OPERATIONS_FROM, { block: cp + 1 });
  await setFact(pg, USER_OPERATIONS_BACKFILL, null);
  t.equal(await countIn(0, cp), 0, 'no user operation stored');
  t.same(JSON.parse((await get(`${AA}/operations`)).body).items, [], 'none answered');
  t.equal(JSON.parse((await get(`${AA}/status`)).body).finished_past_indexing, false, 'the past is not indexed');

  // A first process fills two chunks of 5 blocks, then is killed after inserting the next chunk's
  // rows and before writing its progress.
  const log = createLogger('backfill');
  const first = new UserOperationsBackfill({ ch, pg, log, firstBlock: 0, chunk: 5 });
  await first.begin();
  t.notOk(first.done, 'the backfill has blocks to fill');
  t.ok(await first.step(), 'a first chunk filled');
  t.ok(await first.step(), 'a second chunk filled');
  const mid = (await getFact<UserOperationsBackfillState>(pg, USER_OPERATIONS_BACKFILL))!;
  t.same([mid.next, mid.to, mid.done], [10, cp, false], 'its progress: blocks 0-9 of 0-checkpoint');
  t.equal(await countIn(0, 9), opBlocks.filter((b) => b <= 9).length, 'the first chunks\' operations stored');
  const strayTo = Math.max(...opBlocks);
  t.ok(strayTo >= 10, 'operations lie past the progress');
  const { rows: stray } = await first.decodeRange(10, strayTo);
  t.ok(stray.length > 0, 'the unfinished chunk has operations');
  await insertUserOperations(ch, stray);
  t.equal(JSON.parse((await get(`${AA}/status`)).body).finished_past_indexing, false, 'mid-way: the past is not indexed yet');
  t.match(
    JSON.parse((await get('/api/v2/config/db-background-migrations')).body).migrations,
    [{ migration_name: 'user_operations_backfill', status: 'started', meta: { next_block: 10, to_block: cp } }],
    'the background migrations show the fill under way',
  );
  t.same((await indexingStatus(pg, ch)).details.user_operations, { done: false, next: 10, to: cp }, 'and so does the indexing status');

  // The restarted process first removes the unfinished chunk's rows (above its progress)...
  const second = new UserOperationsBackfill({ ch, pg, log, firstBlock: 0, chunk: 5 });
  await second.begin();
  t.equal(await countIn(10, cp), 0, 'the unfinished chunk\'s rows removed at start');
  t.equal(await countIn(0, 9), opBlocks.filter((b) => b <= 9).length, 'the finished chunks\' kept');
  // ...and goes on as the indexer's upgrade step (a new indexer, as after a restart).
  const indexer = createIndexer({ ch, pg, rpc: { url: anvil.url, variant: 'anvil' }, workers: 1, pollMs: 50, pending: false, userOpsBackfillChunk: 5 });
  await indexer.start();
  t.teardown(() => indexer.stop());
  const deadline = Date.now() + 120_000;
  while (!(await getFact<UserOperationsBackfillState>(pg, USER_OPERATIONS_BACKFILL))?.done && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const end = (await getFact<UserOperationsBackfillState>(pg, USER_OPERATIONS_BACKFILL))!;
  t.same({ done: end.done, next: end.next, to: end.to, ops: end.ops }, { done: true, next: cp + 1, to: cp, ops: 13 }, 'the backfill finished: every block up to the checkpoint, thirteen operations');
  t.same(await getFact(pg, USER_OPERATIONS_FROM), { block: 0 }, 'every stored block\'s operations are stored');
  t.equal(await rows(), fresh, 'the rows equal the fresh index\'s, byte for byte (none twice)');
  t.same(await answers(), freshAnswers, 'and so does every answer about them');
  t.equal(JSON.parse((await get(`${AA}/status`)).body).finished_past_indexing, true, 'the status: the past is indexed');
  t.same(JSON.parse((await get('/api/v2/config/db-background-migrations')).body).migrations, [], 'no background migration left');
  t.same((await indexingStatus(pg, ch)).details.user_operations, { done: true, next: cp + 1, to: cp }, 'the indexing status: done');

  // Restarted once more, nothing is done again.
  const again = new UserOperationsBackfill({ ch, pg, log, firstBlock: 0, chunk: 5 });
  await again.begin();
  t.ok(again.done, 'a later start finds nothing to fill');
  t.equal(await rows(), fresh, 'and leaves the rows as they are');
});
