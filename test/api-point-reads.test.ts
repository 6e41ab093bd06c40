// The point-read path (issue #30) answers exactly what the ClickHouse path answers: a devnet
// indexed with point rows and the derived lanes at rest, then every transaction's, block's and
// address's answers read three ways, byte for byte: from the point rows the indexer wrote and the
// accounting lane's counters, from ClickHouse alone (point rows gone, the backfill not done), and
// from point rows the upgrade's backfill rebuilt from ClickHouse.
import t from 'tap';
import { EventEmitter } from 'node:events';
import { request } from './helpers/api.js';
import { apiWithDerived } from './helpers/api-derived.js';
import { addressFactRows } from '../src/storage/postgres/reads/addresses.js';
import { createApiApp, type ApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { createRpcClient } from '../src/rpc/client.js';
import { getFact, setFact } from '../src/storage/postgres/indexer.js';
import { PointBackfill, POINT_BACKFILL_FACT } from '../src/indexer/point-backfill.js';
import { indexingStatus } from '../src/storage/indexing-status.js';
import { startRouteThreads } from '../src/api/route-threads.js';
import { RecentTransactions } from '../src/api/recent-transactions.js';
import { pointAddressTransactions, withPointInputs } from '../src/storage/postgres/points.js';
import { INPUT_IN_POINT_ROW } from '../src/chain/clickhouse-rows.js';
import { LAG_BLOCKS_MAX } from '../src/api/accounting-lag.js';
import { rangeNamedAddresses, readRangeFacts } from '../src/storage/clickhouse/derived.js';
import { accountingChanges } from '../src/derived/accounting.js';
import { NAMED } from '../src/chain/named-addresses.js';
import { ingest } from '../workers/ingest.js';
import { unwindAccounting } from '../src/storage/postgres/derived.js';

t.test('transactions, blocks and addresses: PostgreSQL answers as ClickHouse does', async (t) => {
  const api = await apiWithDerived(t);
  const { ch, pg } = api.stores;
  const node = createRpcClient({ url: api.devnet.url, timeoutMs: 5000, maxRetries: 1 });
  // ClickHouse lookups by hash, counted: the point path makes none.
  let byHash = 0;
  const chQueries: string[] = [];
  const counted = {
    ...ch,
    query: (sql: string, params?: Record<string, unknown>) => {
      byHash += Number(sql.includes('hash_index'));
      chQueries.push(sql);
      return ch.query(sql, params);
    },
  } as typeof ch;
  // Attached to a quiet event source, as behind a running indexer (the head then comes from the events).
  const fresh = (): ApiApp => {
    const app = createApiApp({ ch: counted, pg, log: createLogger('api'), cacheMaxMb: 0, rpc: node });
    app.attach(new EventEmitter());
    return app;
  };

  const txs = await ch.query<{ hash: string; status: number | null; internal_count: number; token_transfer_count: number }>(
    'SELECT hash, status, internal_count, token_transfer_count FROM transactions ORDER BY block_number, transaction_index',
  );
  const blocks = await ch.query<{ number: string; hash: string }>('SELECT number, hash FROM blocks ORDER BY number');
  t.ok(txs.length >= 10, `the devnet has transactions (${txs.length})`);
  t.ok(txs.some((x) => x.status === 0), 'some reverted');
  t.ok(txs.some((x) => x.internal_count > 0), 'some with internal transactions');
  t.ok(txs.some((x) => x.token_transfer_count > 0), 'some with token transfers');

  // Written by the indexer as it committed: one row per stored transaction and block.
  const counts = async () => {
    const [p] = await pg.query<{ t: number; b: number }>('SELECT (SELECT count(*)::int FROM point_transactions) AS t, (SELECT count(*)::int FROM point_blocks) AS b');
    return p;
  };
  t.same(await counts(), { t: txs.length, b: blocks.length }, 'every stored transaction and block has its point row');
  t.equal((await getFact<{ done: boolean }>(pg, POINT_BACKFILL_FACT))?.done, true, 'nothing to backfill on a store indexed from the start');

  // Addresses: every one the chain names (senders, receivers, log emitters, miners), and one it does not.
  const addresses = (
    await ch.query<{ a: string }>(
      `SELECT DISTINCT a FROM (SELECT address AS a FROM address_transactions UNION ALL SELECT address AS a FROM address_logs
         UNION ALL SELECT miner AS a FROM blocks UNION ALL SELECT address AS a FROM address_internal_transactions) WHERE a != '' ORDER BY a`,
    )
  ).map((r) => r.a);
  addresses.push('0x' + '5e'.repeat(20));
  const lane = await addressFactRows(pg, addresses);
  t.equal(lane.standing.current, true, 'the accounting lane stands at the checkpoint');
  t.ok([...lane.rows.values()].some((r) => r.log_count !== '0') && [...lane.rows.values()].some((r) => r.sent_count !== '0'), 'and counted logs and senders');

  // A later page of each address with two or more transactions: from its second newest on.
  const cursors = await ch.query<{ address: string; b: string; i: number }>(
    `SELECT address, toString(block_number) AS b, transaction_index AS i FROM address_transactions
     ORDER BY address, block_number DESC, transaction_index DESC LIMIT 1 OFFSET 1 BY address`,
  );
  t.ok(cursors.length > 3, `addresses with a later page (${cursors.length})`);

  const missing = '0x' + 'ab'.repeat(32);
  const paths = [
    ...txs.flatMap((x) => [`/api/v2/transactions/${x.hash}`, `/api/v2/transactions/${x.hash}/logs`, `/api/v2/transactions/${x.hash}/internal-transactions`]),
    ...blocks.flatMap((b) => [`/api/v2/blocks/${b.number}`, `/api/v2/blocks/${b.hash}`, `/api/v2/blocks/${b.number}/transactions`]),
    ...addresses.flatMap((a) => [
      `/api/v2/addresses/${a}`,
      `/api/v2/addresses/${a}/transactions`,
      `/api/v2/addresses/${a}/transactions?filter=to`,
      `/api/v2/addresses/${a}/transactions?filter=from`,
      `/api/v2/addresses/${a}/transactions?sort=block_number&order=asc`,
    ]),
    // Pages of a few: the newest blocks held in memory answer them (src/api/recent-transactions.ts).
    ...addresses.flatMap((a) => [
      `/api/v2/addresses/${a}/transactions?items_count=2`,
      `/api/v2/addresses/${a}/transactions?filter=from&items_count=1`,
      `/api/v2/addresses/${a}/transactions?filter=to&items_count=3`,
    ]),
    ...cursors.flatMap((c) => [
      `/api/v2/addresses/${c.address}/transactions?block_number=${c.b}&index=${c.i}&items_count=2`,
      `/api/v2/addresses/${c.address}/transactions?block_number=${c.b}&index=${c.i}`,
      `/api/v2/addresses/${c.address}/transactions?filter=to&block_number=${c.b}&index=${c.i}`,
      `/api/v2/addresses/${c.address}/transactions?sort=block_number&order=asc&block_number=${c.b}&index=${c.i}`,
    ]),
    // Positions past any stored one, on both sides.
    `/api/v2/addresses/${addresses[0]}/transactions?block_number=99999999999999999999&index=5`,
    `/api/v2/addresses/${addresses[0]}/transactions?sort=block_number&order=asc&block_number=0&index=-1`,
    `/api/v2/transactions/${missing}`,
    `/api/v2/blocks/${missing}`,
    `/api/v2/blocks/${blocks.length + 100}`,
  ];
  // Answers read from ClickHouse's rows whose calldata is in the point rows only (lists, traces,
  // the Etherscan-compatible API, creation code): the same with the calldata in ClickHouse.
  const created = (await ch.query<{ a: string }>("SELECT created_contract AS a FROM transactions WHERE created_contract != '' ORDER BY block_number, transaction_index")).map((r) => r.a);
  t.ok(created.length > 0, `the devnet deploys contracts (${created.length})`);
  const calldataPaths = [
    '/api/v2/transactions',
    '/api/v2/main-page/transactions',
    ...blocks.map((b) => `/api/v2/blocks/${b.number}/transactions`),
    ...txs.flatMap((x) => [`/api/v2/transactions/${x.hash}/raw-trace`, `/api?module=transaction&action=gettxinfo&txhash=${x.hash}`, `/api?module=account&action=txlistinternal&txhash=${x.hash}`]),
    ...addresses.flatMap((a) => [
      `/api/v2/addresses/${a}/transactions?sort=value&order=desc`,
      `/api?module=account&action=txlist&address=${a}`,
      `/api?module=account&action=txlistinternal&address=${a}`,
      `/api?module=account&action=tokentx&address=${a}`,
    ]),
    ...created.map((a) => `/api/v2/smart-contracts/${a}`),
    `/api?module=contract&action=getcontractcreation&contractaddresses=${created.join(',')}`,
    `/api?module=logs&action=getLogs&fromBlock=0&toBlock=latest`,
  ];

  // ClickHouse queries per answer: a transaction, a block and an address overview make none on the point path.
  const single = (p: string) => /^\/api\/v2\/(transactions|blocks|addresses)\/[^/]+$/.test(p);
  let singleQueries = 0;
  const answers = async (app: ApiApp, list = paths) => {
    const out: string[] = [];
    for (const p of list) {
      const before = chQueries.length;
      const r = await app.handle(request(p));
      // The stored head is read once, then follows the block events.
      if (single(p)) singleQueries += chQueries.slice(before).filter((q) => !q.startsWith('SELECT number FROM blocks ORDER BY number DESC LIMIT 1')).length;
      out.push(`${r.status} ${typeof r.body === 'string' ? r.body : r.body.toString('utf8')}`);
    }
    return out;
  };
  const fromPoints = await answers(fresh());
  // An address's transactions pages in chain order: from the point rows alone.
  t.equal(chQueries.filter((q) => q.includes('address_transactions')).length, 0, 'no address transactions page read ClickHouse');
  t.equal(singleQueries, 0, `no ClickHouse query for ${paths.filter(single).length} transactions, blocks and address overviews`);
  t.ok(fromPoints.filter((a) => a.startsWith('200 ')).length >= paths.length - 3, 'every stored one found');
  t.equal(chQueries.filter((q) => /address_logs|withdrawals WHERE address|miner = /.test(q)).length, 0, 'no address activity probe in ClickHouse on the point path');
  t.equal(byHash, 0, 'no lookup by hash in ClickHouse on the point path');
  const calldataFromPoints = await answers(fresh(), calldataPaths);

  // The accounting lane some blocks behind the checkpoint, as for a second after each block at the
  // head (src/api/accounting-lag.ts): its rows unwound as a reorg unwinds them, to 4 and to
  // LAG_BLOCKS_MAX blocks below the checkpoint. What the unwind changed belongs to addresses those
  // blocks name, so the rows of every other address are those of the checkpoint; their pages are
  // the same bytes, their overviews with no ClickHouse query. (A page embedding a token the blocks
  // name shows its holder count as the lane has it: as before, not compared.)
  await api.derived.stop();
  const laneRows = async () => {
    const rows = new Map<string, string>();
    const add = (kind: string, key: string, row: unknown) => rows.set(`${kind} ${key} ${JSON.stringify(row)}`, key);
    for (const r of await pg.query<{ hash: string }>('SELECT * FROM addresses')) add('addresses', r.hash, r);
    for (const r of await pg.query<{ address: string }>('SELECT * FROM contracts')) add('contracts', r.address, r);
    for (const r of await pg.query<{ address: string }>('SELECT * FROM tokens')) add('tokens', r.address, r);
    for (const r of await pg.query<{ holder: string }>('SELECT * FROM token_balances')) add('token_balances', r.holder, r);
    return rows;
  };
  const laneTables = ['addresses', 'contracts', 'tokens', 'token_balances', 'token_holders', 'nft_instances', 'chain_counters', 'derived_journal', 'derived_cursors'];
  const at = await laneRows();
  const top = blocks.length - 1;
  t.ok(top > LAG_BLOCKS_MAX, `the devnet has more than ${LAG_BLOCKS_MAX} blocks (${blocks.length})`);
  for (const lag of [4, LAG_BLOCKS_MAX]) {
    const base = top - lag;
    const named = new Set((await rangeNamedAddresses(ch, base + 1, top)).addresses);
    // The worker names the same addresses as it decodes those blocks (what the indexer's block
    // event hands the API in its own process, instead of this read).
    const caps = await getFact<{ traces: 'callTracer' | 'parity' | 'parity-replay' | 'off' }>(pg, 'capabilities');
    const decoded = await ingest({ from: base + 1, to: top, rpc: { url: api.devnet.url, variant: 'anvil' }, traces: caps!.traces, receipts: 'block' });
    t.same(new Set(decoded.named!.addresses), named, `${lag} blocks: the worker names what ClickHouse's rows name (${named.size})`);
    // And what it says of them is what the accounting lane records from those blocks' rows: the
    // counters they move, the addresses first seen, the contracts created and destroyed, the tokens.
    const changes = accountingChanges(await readRangeFacts(ch, base + 1, top), { blockNumber: top, blockHash: blocks[top]!.hash });
    const BIT: Record<string, number> = { addr_logs: NAMED.LOGGED, addr_sent: NAMED.SENT, addr_tt: NAMED.TRANSFERRED, addr_mined: NAMED.MINED, addr_wd: NAMED.WITHDREW };
    const laneBits = new Map<string, number>();
    const bit = (a: string, b: number) => laneBits.set(a, (laneBits.get(a) ?? 0) | b);
    for (const c of changes.counters) if (BIT[c.kind]) bit(c.key, BIT[c.kind]!);
    for (const x of changes.seen) bit(x.address, NAMED.SEEN);
    const sorted = <T,>(xs: T[]) => xs.map((x) => JSON.stringify(x)).sort();
    const n = decoded.named!;
    t.same(sorted(n.addresses.map((a, i) => [a, n.kinds[i]]).filter(([, k]) => k)), sorted([...laneBits]), `${lag} blocks: what the worker says each address did is what the lane counts (${laneBits.size})`);
    t.ok([NAMED.LOGGED, NAMED.SENT, NAMED.TRANSFERRED, NAMED.MINED, NAMED.SEEN].every((b) => n.kinds.some((k) => k & b)), 'logs, senders, transfers, a miner and first sightings among them');
    t.same(sorted(n.created), sorted(changes.creations.map((c) => ({ address: c.address, creator: c.creator, tx: c.tx, block: c.block }))), `the contracts created (${n.created.length})`);
    t.same(sorted(n.selfDestructed), sorted([...new Set(changes.selfDestructs.map((x) => x.address))]), `the contracts destroyed (${n.selfDestructed.length})`);
    t.same(sorted(n.tokens), sorted(changes.tokens.map((x) => [x.address, x.type])), `the tokens first seen in transfers, with their standard (${n.tokens.length})`);
    if (lag === LAG_BLOCKS_MAX) {
      const longer = await ingest({ from: base, to: top, rpc: { url: api.devnet.url, variant: 'anvil' }, traces: caps!.traces, receipts: 'block' });
      t.equal(longer.named, undefined, `a range of ${lag + 1} blocks (a catch-up's) is not named`);
    }
    // Kept aside and put back after (what the other lanes fetched for re-created rows included).
    for (const table of laneTables) await pg.query(`CREATE TABLE saved_${table} AS SELECT * FROM ${table}`);
    await pg.tx((c) => unwindAccounting(c, { blockNumber: base, blockHash: blocks[base]!.hash }));
    const behind = await laneRows();
    const changed = new Set([...at].filter(([k]) => !behind.has(k)).map(([, a]) => a));
    for (const [k, a] of behind) if (!at.has(k)) changed.add(a);
    t.ok(changed.size > 0, `${lag} blocks: the unwind changed the lane's rows of ${changed.size} addresses`);
    t.same([...changed].filter((a) => !named.has(a)), [], `each of them named by the unapplied blocks (${named.size} named)`);

    const others = addresses.filter((a) => !named.has(a));
    t.ok(others.length > 0 && others.length < addresses.length, `addresses they name (${addresses.length - others.length}) and do not (${others.length})`);
    const app = fresh();
    const onOthers = paths.filter((p) => others.some((a) => p.startsWith(`/api/v2/addresses/${a}`)));
    let overviewQueries = 0;
    const seen: string[] = [];
    for (const p of onOthers) {
      const before = chQueries.length;
      const r = await app.handle(request(p));
      if (/^\/api\/v2\/addresses\/[^/]+$/.test(p)) {
        // The unapplied range's names: read once, by the first answer that needs them.
        overviewQueries += chQueries.slice(before).filter((q) => !q.includes('SELECT DISTINCT address FROM (') && !q.startsWith('SELECT number, hash FROM blocks WHERE number BETWEEN')).length;
      }
      seen.push(`${r.status} ${typeof r.body === 'string' ? r.body : r.body.toString('utf8')}`);
    }
    t.same(seen, onOthers.map((p) => fromPoints[paths.indexOf(p)]), `${onOthers.length} pages of the addresses they do not name: the same bytes`);
    t.equal(overviewQueries, 0, `their ${others.length} address overviews from the lane's rows, no ClickHouse query`);
    const before = chQueries.length;
    const namedOne = addresses.find((a) => named.has(a))!;
    t.equal((await app.handle(request(`/api/v2/addresses/${namedOne}`))).status, 200, 'an address they name: answered');
    t.ok(chQueries.slice(before).some((q) => q.includes('address_logs')), 'from ClickHouse');

    // Told those blocks by the indexer's block event (as the indexer in the same process tells
    // it): the addresses they name answered from the lane's rows and what the event says of them,
    // the same bytes as from ClickHouse's rows above, with no ClickHouse query. A transaction's
    // answer shows its addresses' facts, the overview its creation, activity and token.
    const events = new EventEmitter();
    const told = createApiApp({ ch: counted, pg, log: createLogger('api'), cacheMaxMb: 0, rpc: node });
    told.attach(events);
    events.emit('block', { from: base + 1, to: top, blocks: decoded.blocks, summary: decoded.summary, named: decoded.named });
    const onNamed = [...addresses.filter((a) => named.has(a)).map((a) => `/api/v2/addresses/${a}`), ...txs.map((x) => `/api/v2/transactions/${x.hash}`)];
    const fromChain: string[] = [];
    const chainApp = fresh();
    for (const p of onNamed) {
      const r = await chainApp.handle(request(p));
      fromChain.push(`${r.status} ${typeof r.body === 'string' ? r.body : r.body.toString('utf8')}`);
    }
    const fromEvents: string[] = [];
    let toldQueries = 0;
    for (const p of onNamed) {
      const at = chQueries.length;
      const r = await told.handle(request(p));
      toldQueries += chQueries.slice(at).filter((q) => !q.startsWith('SELECT number FROM blocks ORDER BY number DESC LIMIT 1')).length;
      fromEvents.push(`${r.status} ${typeof r.body === 'string' ? r.body : r.body.toString('utf8')}`);
    }
    // ClickHouse's proof of an address does not see a self-destruct; the lane's rows do, and so do
    // the events: an overview's creation status is the one the lane gives at the checkpoint.
    let destroyed = 0;
    const expected = fromChain.map((x, i) => {
      const p = onNamed[i]!;
      if (!/^\/api\/v2\/addresses\/[^/]+$/.test(p)) return x;
      const body = JSON.parse(x.slice(4));
      const atCheckpoint = JSON.parse(fromPoints[paths.indexOf(p)]!.slice(4)).creation_status;
      if (atCheckpoint !== body.creation_status) destroyed++;
      return `${x.slice(0, 4)}${JSON.stringify({ ...body, creation_status: atCheckpoint })}`;
    });
    t.same(fromEvents, expected, `${lag} blocks: ${onNamed.length - txs.length} overviews of the addresses they name and ${txs.length} transactions: the same bytes from the events (${destroyed} self-destructed, as the lane says at the checkpoint)`);
    t.ok(destroyed > 0, 'one of them destroyed in those blocks');
    t.equal(toldQueries, 0, 'with no ClickHouse query');

    await pg.tx(async (c) => {
      for (const table of laneTables) {
        await c.query(`DELETE FROM ${table}`);
        await c.query(`INSERT INTO ${table} SELECT * FROM saved_${table}`);
        await c.query(`DROP TABLE saved_${table}`);
      }
    });
    t.same(await laneRows(), at, 'put back: the lane at the checkpoint again');
  }

  // The newest blocks in memory (src/api/recent-transactions.ts), with windows small enough to
  // leave blocks out (by count, and by transactions: a block cut by the read's bound left out):
  // every address's pages of a few, each direction, after each of its positions, as the point
  // rows answer them.
  {
    let reads = 0;
    const counting = { ...pg, pool: { query: (...a: unknown[]) => (reads++, (pg.pool.query as (...x: unknown[]) => unknown)(...a)) } } as unknown as typeof pg;
    const rows = await ch.query<{ address: string; b: string; i: number }>('SELECT address, toString(block_number) AS b, transaction_index AS i FROM address_transactions');
    const positions = new Map<string, { block: bigint; index: bigint }[]>();
    for (const r of rows) positions.set(r.address, [...(positions.get(r.address) ?? []), { block: BigInt(r.b), index: BigInt(r.i) }]);
    let compared = 0;
    let differ = 0;
    const compare = async (w: RecentTransactions) => {
      for (const a of addresses) {
        for (const direction of [null, 'from', 'to'] as const) {
          for (const limit of [1, 2, 3]) {
            for (const after of [undefined, ...(positions.get(a) ?? [])]) {
              const got = w.page(a, { direction, after, limit });
              if (got === null) continue;
              const want = await pointAddressTransactions(pg, a, { direction, order: 'desc', after, limit });
              compared++;
              if (JSON.stringify(got) !== JSON.stringify(want) && differ++ < 3) t.same(got, want, `${a} ${direction} ${limit} after ${after?.block}/${after?.index}`);
            }
          }
        }
      }
    };
    for (const [windowBlocks, windowTxs] of [[64, 20_000], [3, 1000], [64, 12]] as const) {
      const w = new RecentTransactions(counting, windowBlocks, windowTxs);
      await w.sync(1, null);
      t.ok(w.size <= windowTxs, `window of ${windowBlocks} blocks / ${windowTxs} transactions holds ${w.size}`);
      await compare(w);
      // Blocks arriving: the newest three taken away and read again as new ones (the window
      // starts over at the shorter chain, then reads the blocks above its top and lets old ones go).
      const from = Number(blocks[blocks.length - 3]!.number);
      await pg.query('CREATE TEMP TABLE saved_t AS SELECT * FROM point_transactions WHERE block_number >= $1', [from]);
      await pg.query('CREATE TEMP TABLE saved_b AS SELECT * FROM point_blocks WHERE number >= $1', [from]);
      await pg.query('DELETE FROM point_transactions WHERE block_number >= $1', [from]);
      await pg.query('DELETE FROM point_blocks WHERE number >= $1', [from]);
      await w.sync(2, null);
      await pg.query('INSERT INTO point_blocks SELECT * FROM saved_b');
      await pg.query('INSERT INTO point_transactions SELECT * FROM saved_t');
      await pg.query('DROP TABLE saved_t, saved_b');
      reads = 0;
      await w.sync(3, null);
      t.equal(reads, 1, 'new blocks: one read');
      t.ok(w.size <= windowTxs, `and again ${w.size} held`);
      await compare(w);
    }
    t.equal(differ, 0, `${compared} pages from the window, each as the point rows answer it`);
    t.ok(compared > 100, 'many pages compared');
    const w = new RecentTransactions(counting, 64, 20_000);
    await w.sync(1, null);
    reads = 0;
    await w.sync(1, null);
    t.equal(reads, 0, 'nothing heard: nothing read');
    await w.sync(1, 0);
    t.equal(reads, 1, 'with no events, read again once the time passed');
    const top = blocks[blocks.length - 1]!;
    await pg.query(`UPDATE point_blocks SET hash = decode(repeat('00', 32), 'hex') WHERE number = $1`, [top.number]);
    reads = 0;
    await w.sync(2, null);
    t.equal(reads, 2, 'the block at its top replaced (a reorg): read again from nothing');
    await pg.query(`UPDATE point_blocks SET hash = decode($2, 'hex') WHERE number = $1`, [top.number, top.hash.slice(2)]);
  }

  // The same computed in API threads (API_THREADS): their own PostgreSQL pools, ClickHouse asked
  // of this thread (the logs and internal transactions pages read it), the news heard in order.
  const threads = await startRouteThreads({ count: 2, ch: counted, pgUrl: pg.url, rpc: { url: api.devnet.url, timeoutMs: 5000, maxRetries: 1 }, log: createLogger('threads') });
  let offloaded = 0;
  const threaded = createApiApp({
    ch: counted,
    pg,
    log: createLogger('api'),
    cacheMaxMb: 0,
    rpc: node,
    threadMinBytes: 0,
    threads: { compute: (...a) => (offloaded++, threads.compute(...a)), tell: (n) => threads.tell(n) },
  });
  threaded.attach(new EventEmitter());
  const chBefore = chQueries.length;
  const fromThreads = await answers(threaded);
  t.equal(offloaded, paths.length, 'every answer computed in a thread');
  t.ok(chQueries.length > chBefore, 'their ClickHouse reads asked of the main thread');
  t.same(fromThreads, fromPoints, `${paths.length} answers byte for byte the same from API threads`);
  t.equal(threads.live(), 2, 'both threads live');
  await threads.close();
  t.equal(threads.live(), 0, 'closed');
  t.same(await answers(threaded), fromPoints, 'with no thread live, answered on the main thread');

  // ClickHouse alone, as a store of a release before the point rows: every calldata in ClickHouse
  // (the indexer wrote it to the point rows only), no point rows, and the backfill not done (a miss
  // then goes to ClickHouse).
  // A block between its ClickHouse insert and its checkpoint's commit: its transactions are not
  // listed until their point rows are there (nothing else knows their calldata).
  const newest = txs[txs.length - 1]!.hash;
  await pg.query("CREATE TABLE held_point AS SELECT * FROM point_transactions WHERE hash = decode($1, 'hex')", [newest.slice(2)]);
  await pg.query("DELETE FROM point_transactions WHERE hash = decode($1, 'hex')", [newest.slice(2)]);
  const hashesOf = (r: { status: number; body: string | Buffer }) => {
    const body = typeof r.body === 'string' ? r.body : r.body.toString('utf8');
    return r.status === 200 ? (JSON.parse(body) as { items: { hash: string }[] }).items.map((x) => x.hash) : [`status ${r.status}`];
  };
  const without = hashesOf(await fresh().handle(request('/api/v2/transactions')));
  // Committed while the answer is being made (the indexer commits just after its ClickHouse insert):
  // looked for again, and listed.
  const meanwhile = fresh().handle(request('/api/v2/transactions'));
  await new Promise((resolve) => setTimeout(resolve, 30));
  await pg.query('INSERT INTO point_transactions SELECT * FROM held_point');
  await pg.query('DROP TABLE held_point');
  const caught = hashesOf(await meanwhile);
  const withIt = hashesOf(await fresh().handle(request('/api/v2/transactions')));
  t.same(without, withIt.filter((h) => h !== newest), 'a transaction without its point row is left out of the list, the rest listed');
  t.ok(withIt.includes(newest) && !without.includes(newest), 'and listed once its point row is there');
  t.same(caught, withIt, 'a point row committed while the answer waits for it: listed');
  const ghost = { hash: '0x' + 'cd'.repeat(32), input: INPUT_IN_POINT_ROW };
  const plain = { hash: '0x' + 'ce'.repeat(32), input: '0x1234' };
  const one = { hash: newest, input: INPUT_IN_POINT_ROW };
  t.same(await withPointInputs(pg, [one, ghost, plain], (r) => r.hash), [one, plain], 'withPointInputs: a calldata put back, a missing row left out, a stored calldata kept');
  t.not(one.input, INPUT_IN_POINT_ROW, 'the calldata put back in place');

  const marked = await ch.query<{ hash: string; input: string }>('SELECT hash, input FROM transactions');
  t.ok(marked.length === txs.length && marked.every((r) => r.input === INPUT_IN_POINT_ROW), 'the indexer stored no calldata in ClickHouse');
  const inputs = await withPointInputs(pg, marked, (r) => r.hash);
  t.equal(inputs.length, txs.length, 'every calldata in the point rows');
  await ch.command(
    `ALTER TABLE transactions UPDATE input = transform(hash, {hs:Array(String)}, {is:Array(String)}, input) WHERE 1 SETTINGS mutations_sync = 1`,
    { hs: inputs.map((r) => r.hash), is: inputs.map((r) => r.input) },
  );
  t.equal((await ch.query('SELECT hash FROM transactions WHERE input = {m:String}', { m: INPUT_IN_POINT_ROW })).length, 0, 'put back into ClickHouse');
  await pg.query('DELETE FROM point_transactions');
  await pg.query('DELETE FROM point_blocks');
  await setFact(pg, POINT_BACKFILL_FACT, { done: false, next: 0, to: -1, blocks: 0, txs: 0 });
  const fromClickHouse = await answers(fresh());
  t.ok(byHash > txs.length, `the ClickHouse path looks hashes up there (${byHash})`);
  for (let i = 0; i < paths.length; i++) {
    if (fromPoints[i] !== fromClickHouse[i]) t.equal(fromPoints[i], fromClickHouse[i], `${paths[i]}: the same bytes`);
  }
  t.same(fromPoints, fromClickHouse, `${paths.length} answers byte for byte the same from the point rows and from ClickHouse`);
  const calldataFromClickHouse = await answers(fresh(), calldataPaths);
  for (let i = 0; i < calldataPaths.length; i++) {
    if (calldataFromPoints[i] !== calldataFromClickHouse[i]) t.equal(calldataFromPoints[i], calldataFromClickHouse[i], `${calldataPaths[i]}: the same bytes`);
  }
  t.same(calldataFromPoints, calldataFromClickHouse, `${calldataPaths.length} answers with calldata byte for byte the same from the point rows and from ClickHouse`);
  t.ok(calldataFromPoints.filter((a) => a.startsWith('200 ') && a.includes('0x6080')).length > created.length, 'init code among them');

  // The upgrade: the backfill rebuilds the rows from ClickHouse, a chunk at a time.
  const lines: string[] = [];
  const log = { ...createLogger('test'), info: (m: string) => void lines.push(m) };
  await pg.query('DELETE FROM indexer_facts WHERE name = $1', [POINT_BACKFILL_FACT]);
  const backfill = new PointBackfill({ ch, pg, log: log as never, firstBlock: 0, chunk: 3 });
  await backfill.begin(blocks.length - 1);
  t.same((await indexingStatus(pg, ch)).details.point_rows, { done: false, next: 0, to: blocks.length - 1 }, 'the indexing status shows the backfill to do');
  let steps = Number(await backfill.step());
  t.same((await indexingStatus(pg, ch)).details.point_rows, { done: false, next: 3, to: blocks.length - 1 }, 'and its progress');
  while (await backfill.step()) steps++;
  t.ok(steps >= Math.ceil(blocks.length / 3), `filled in chunks (${steps})`);
  t.ok(lines.some((l) => l.includes('point rows filled')), 'with progress in the log');
  t.equal((await getFact<{ done: boolean }>(pg, POINT_BACKFILL_FACT))?.done, true, 'and done');
  t.same((await indexingStatus(pg, ch)).details.point_rows, { done: true, next: blocks.length, to: blocks.length - 1 }, 'as the indexing status says');
  t.same(await counts(), { t: txs.length, b: blocks.length }, 'every row back');
  const fromBackfill = await answers(fresh());
  t.same(fromBackfill, fromPoints, 'the backfilled rows answer byte for byte as the indexer\'s');

  // A rewind during the fill (an upgrade with the counters of 0..last to fill): it stops at the
  // ancestor, in the rewind's transaction, so the new branch's blocks are never counted twice.
  const last = blocks.length - 1;
  await setFact(pg, POINT_BACKFILL_FACT, { done: false, next: 0, to: last, blocks: 0, txs: 0, counters: { next: 0, to: last, journalFrom: 0 } });
  const again = new PointBackfill({ ch, pg, log: log as never, firstBlock: 0, chunk: 2 });
  await again.begin(last);
  await again.step();
  const state = await pg.tx((c) => again.rewind(c, 4));
  again.adopt(state);
  t.match(await getFact(pg, POINT_BACKFILL_FACT), { done: false, next: 2, to: 4, counters: { next: 0, to: 4 } }, 'a rewind to block 4 stops both fills there');
  const journaled = await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM derived_journal WHERE kind LIKE 'addr_%' AND block_number > 4");
  while (await again.step()) continue;
  t.match(await getFact(pg, POINT_BACKFILL_FACT), { done: true, to: 4, counters: { next: 5, to: 4 } }, 'and the fill ends at it');
  t.same(await pg.query<{ n: number }>("SELECT count(*)::int AS n FROM derived_journal WHERE kind LIKE 'addr_%' AND block_number > 4"), journaled, 'nothing counted above it');
});
