// The ingest benchmark (bench/): the synthetic chain is well formed and deterministic, the replay
// server answers single and batch calls from its pre-serialized bytes, the real worker and the
// real indexer accept the chain and store exactly what was generated (so the benchmark measures
// a correct ingest), and `node build/bench/ingest.js` runs tiny and prints its figures, its
// storage per transaction and its targets (issue #21) with their bounds.
// Behaviour only: no timing is asserted anywhere.
import t from 'tap';
import { runBenchScript } from './helpers/bench-child.js';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { generateChain, type ChainCounts } from '../bench/synth.js';
import { BLOCK_METHODS, blockKey, buildResponseStore, loadResponseStore, lookup, saveResponseStore } from '../bench/responses.js';
import { startReplayServer } from '../bench/replay-server.js';
import { decodeBlockBundle, RowCollector, SummaryBuilder } from '../src/chain/bundle.js';
import { groupTraces } from '../src/rpc/fetch.js';
import { ingest } from '../workers/ingest.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { openStores, migrateAll } from '../src/storage/stores.js';
import type { RpcBlock, RpcReceipt } from '../src/chain/wire.js';
import { tmpDir } from './helpers/tmp.js';

const BENCH = fileURLToPath(new URL('../bench/ingest.js', import.meta.url));
const roundTrip = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const HASH = /^0x[0-9a-f]{64}$/;
const ADDR = /^0x[0-9a-f]{40}$/;

t.test('the synthetic chain has mainnet-like shapes and is consistent', async (t) => {
  const { blocks, counts } = generateChain({ blocks: 12 });
  t.equal(blocks.length, 13, 'genesis plus 12 blocks');
  t.equal(blocks[0]!.block.transactions.length, 0, 'genesis has no transactions');
  const perBlock = counts.txs / 12;
  t.ok(perBlock > 150 && perBlock < 190, `about 170 txs per block (${perBlock.toFixed(1)})`);
  const logsPerBlock = counts.logs / 12;
  t.ok(logsPerBlock > 330 && logsPerBlock < 470, `about 400 logs per block (${logsPerBlock.toFixed(1)})`);
  const share = (k: keyof ChainCounts['kinds']) => counts.kinds[k] / counts.txs;
  t.ok(share('native') > 0.38 && share('native') < 0.5, 'native transfers about 45%');
  t.ok(share('erc20') > 0.29 && share('erc20') < 0.41, 'ERC-20 transfers about 35%');
  t.ok(share('swap') > 0.08 && share('swap') < 0.16, 'swaps about 12%');
  t.ok(counts.kinds.create > 0 && counts.kinds.nested > 0 && counts.internalTxs > 0 && counts.failedTxs > 0);

  let problems = 0;
  const problem = (msg: string) => {
    if (problems++ < 5) t.fail(msg);
  };
  for (let i = 0; i < blocks.length; i++) {
    const { block, receipts, callTracer, parity, number } = blocks[i]!;
    if (Number(block.number) !== number) problem(`block ${number}: number`);
    if (!HASH.test(block.hash)) problem(`block ${number}: hash`);
    if (i > 0 && block.parentHash !== blocks[i - 1]!.block.hash) problem(`block ${number}: parentHash`);
    if (block.logsBloom!.length !== 514) problem(`block ${number}: logsBloom length`);
    if (receipts.length !== block.transactions.length) problem(`block ${number}: receipts`);
    if (number > 0 && callTracer.length !== block.transactions.length) problem(`block ${number}: callTracer entries`);
    let cumulative = 0;
    let logIndex = 0;
    for (let k = 0; k < block.transactions.length; k++) {
      const tx = block.transactions[k]!;
      const r = receipts[k]!;
      if (!HASH.test(tx.hash) || r.transactionHash !== tx.hash || callTracer[k]!.txHash !== tx.hash) problem(`block ${number} tx ${k}: hashes`);
      if (Number(tx.transactionIndex) !== k || Number(r.transactionIndex) !== k) problem(`block ${number} tx ${k}: index`);
      if (tx.blockHash !== block.hash || r.blockHash !== block.hash) problem(`block ${number} tx ${k}: blockHash`);
      if (!ADDR.test(tx.from) || (tx.to !== null && !ADDR.test(tx.to))) problem(`block ${number} tx ${k}: addresses`);
      if (tx.type === '0x2' && (!tx.maxFeePerGas || !tx.maxPriorityFeePerGas)) problem(`block ${number} tx ${k}: 1559 fields`);
      if (!r.effectiveGasPrice || r.logsBloom!.length !== 514) problem(`block ${number} tx ${k}: receipt fields`);
      cumulative += Number(r.gasUsed);
      if (Number(r.cumulativeGasUsed) !== cumulative) problem(`block ${number} tx ${k}: cumulativeGasUsed`);
      if (tx.to === null && !r.contractAddress) problem(`block ${number} tx ${k}: creation without contractAddress`);
      for (const l of r.logs) {
        if (Number(l.logIndex) !== logIndex++) problem(`block ${number} tx ${k}: logIndex`);
        if (l.transactionHash !== tx.hash) problem(`block ${number} tx ${k}: log tx hash`);
      }
    }
    if (Number(block.gasUsed) !== cumulative) problem(`block ${number}: gasUsed`);
    const roots = parity.filter((p) => p.traceAddress.length === 0);
    if (roots.length !== block.transactions.length) problem(`block ${number}: one parity root per tx`);
  }
  t.equal(problems, 0, 'every block, receipt, log and trace is consistent');
});

t.test('the same seed gives the same bytes, another seed other bytes', async (t) => {
  const a = buildResponseStore({ blocks: 3 });
  const b = buildResponseStore({ blocks: 3 });
  const c = buildResponseStore({ blocks: 3, seed: 7 });
  t.ok(Buffer.concat(a.data).equals(Buffer.concat(b.data)), 'deterministic');
  t.notOk(Buffer.concat(a.data).equals(Buffer.concat(c.data)), 'seeded');
  t.same(a.counts, b.counts);
});

t.test('a store in several segments answers as one, also once saved and loaded', async (t) => {
  // 4,800 blocks with traces are ~5.4 GB: more than one Buffer or one readFileSync can hold.
  const one = buildResponseStore({ blocks: 4 });
  const many = buildResponseStore({ blocks: 4 }, { segmentBytes: 40_000 });
  t.equal(one.data.length, 1, 'small enough for one segment by default');
  t.ok(many.data.length > 3, `${many.data.length} segments of at most 40,000 bytes (or one answer)`);
  const file = path.join(tmpDir(t), 'responses.bin');
  saveResponseStore(many, file);
  const loaded = loadResponseStore(file);
  let keys = 0;
  for (let n = 0; n <= one.head; n++) {
    for (const m of BLOCK_METHODS) {
      const want = lookup(one, blockKey(m, n));
      if (!want) continue;
      keys++;
      if (!want.equals(lookup(many, blockKey(m, n))!) || !want.equals(lookup(loaded, blockKey(m, n))!)) t.fail(`${m} ${n} differs`);
    }
  }
  t.equal(keys, one.index.size, `all ${keys} answers the same`);
  t.same(loaded.bytesPerMethod, one.bytesPerMethod);
});

t.test('the decoder accepts the chain in both trace formats, with the generated counts', async (t) => {
  const { blocks, counts } = generateChain({ blocks: 6 });
  const rows: Record<string, Record<string, number>> = {};
  for (const mode of ['callTracer', 'parity'] as const) {
    const sink = new RowCollector();
    const summary = new SummaryBuilder();
    for (const b of blocks) {
      const raw = roundTrip(mode === 'callTracer' ? b.callTracer : b.parity);
      const traces = b.number === 0 ? ({ format: mode, txs: [] } as never) : groupTraces(mode, raw, b.block.transactions.length, b.number);
      decodeBlockBundle({ block: roundTrip(b.block), receipts: roundTrip(b.receipts), traces }, sink, summary);
    }
    const s = summary.build();
    t.equal(s.txs, counts.txs, `${mode}: txs`);
    t.equal(s.logs, counts.logs, `${mode}: logs`);
    t.equal(s.tokenTransfers, counts.tokenTransfers, `${mode}: token transfers`);
    t.equal(s.internalTxs, counts.internalTxs, `${mode}: internal transactions`);
    t.equal(s.rows.withdrawals, counts.withdrawals, `${mode}: withdrawals`);
    t.equal(sink.rows.token_transfers.filter((r) => r.token_type === 'ERC-721').length, counts.erc721Transfers, `${mode}: ERC-721 transfers`);
    t.equal(sink.rows.transactions.filter((r) => r.status === 0).length, counts.failedTxs, `${mode}: failed transactions`);
    rows[mode] = s.rows;
  }
  t.same(rows.callTracer, rows.parity, 'both trace formats give the same number of rows per table');
});

t.test('the replay server answers single calls and batches from its bytes', async (t) => {
  const store = buildResponseStore({ blocks: 2 });
  const server = await startReplayServer(store);
  t.teardown(() => server.close());
  const post = async (body: unknown) => {
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as unknown;
  };
  t.same(await post({ jsonrpc: '2.0', id: 'a', method: 'eth_blockNumber', params: [] }), { jsonrpc: '2.0', id: 'a', result: '0x2' });
  const batch = (await post([
    { jsonrpc: '2.0', id: 7, method: 'eth_getBlockByNumber', params: ['0x1', true] },
    { jsonrpc: '2.0', id: 8, method: 'eth_getBlockReceipts', params: ['0x1'] },
    { jsonrpc: '2.0', id: 9, method: 'debug_traceBlockByNumber', params: ['0x1', { tracer: 'callTracer' }] },
    { jsonrpc: '2.0', id: 10, method: 'eth_getBlockByNumber', params: ['0x9', false] },
    { jsonrpc: '2.0', id: 11, method: 'eth_nope', params: [] },
  ])) as { id: number; result?: unknown; error?: { code: number } }[];
  t.same(batch.map((r) => r.id), [7, 8, 9, 10, 11], 'ids echoed in order');
  t.same(batch[0]!.result, JSON.parse(lookup(store, blockKey('eth_getBlockByNumber/full', 1))!.toString()), 'the stored block');
  t.equal((batch[1]!.result as unknown[]).length, (batch[0]!.result as RpcBlock).transactions.length, 'one receipt per tx');
  t.equal((batch[2]!.result as unknown[]).length, (batch[0]!.result as RpcBlock).transactions.length, 'one trace per tx');
  t.equal(batch[3]!.result, null, 'a block beyond the head is null');
  t.equal(batch[4]!.error?.code, -32601, 'an unknown method is -32601');
  const stats = await server.stats();
  t.equal(stats.calls, 6);
  t.equal(stats.httpRequests, 2);
});

t.test('a chain that continues another, shown one block at a time (the reads while indexing)', async (t) => {
  const parent = '0x' + 'ab'.repeat(32);
  const store = buildResponseStore({ blocks: 2, start: { number: 500, parentHash: parent }, genesisTime: 1_000 }, { traces: 'callTracer' });
  t.equal(store.head, 502, 'blocks 500..502');
  const block = (n: number) => JSON.parse(lookup(store, blockKey('eth_getBlockByNumber/full', n))!.toString()) as RpcBlock;
  t.equal(block(500).parentHash, parent, 'the first block continues the given parent');
  t.equal(block(501).parentHash, block(500).hash, 'and the next its own');
  t.equal(Number(block(501).timestamp), 1_000 + 12 * 501, '12 s slots from the given genesis time');
  t.equal(lookup(store, blockKey('eth_getBlockByNumber/full', 499)), undefined, 'nothing before it');

  const server = await startReplayServer(store, 0, { head: 500 });
  t.teardown(() => server.close());
  const call = async (method: string, params: unknown[]) =>
    ((await (await fetch(server.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result: unknown }).result;
  t.equal(await call('eth_blockNumber', []), '0x1f4', 'the head starts where it is held');
  t.equal(await call('eth_getBlockByNumber', ['0x1f5', false]), null, 'the next one is not there yet');
  t.equal(await call('eth_getBlockReceipts', ['0x1f5']), null, 'nor its receipts');
  await server.show(501);
  t.equal(await call('eth_blockNumber', []), '0x1f5', 'a block more when shown');
  t.equal((await call('eth_getBlockByNumber', ['0x1f5', false]) as { hash: string }).hash, block(501).hash, 'and it is there');
  await server.show(600);
  t.equal(await call('eth_blockNumber', []), '0x1f6', 'never past the store');
  const free = await startReplayServer(store);
  t.teardown(() => free.close());
  await t.rejects(free.show(501), /the head is not held/, 'a server without a held head has nothing to show');
});

t.test('the ingest worker accepts the chain over the replay server, both variants', async (t) => {
  const store = buildResponseStore({ blocks: 5 });
  const server = await startReplayServer(store);
  t.teardown(() => server.close());
  const c = store.counts;
  for (const [variant, traces] of [['geth', 'callTracer'], ['erigon', 'parity']] as const) {
    const r = await ingest({ from: 0, to: store.head, rpc: { url: server.url, variant, maxRetries: 0 }, traces, receipts: 'block' });
    t.equal(r.blocks.length, store.head + 1, `${variant}: every block`);
    t.same(
      { txs: r.summary.txs, logs: r.summary.logs, tokenTransfers: r.summary.tokenTransfers, internalTxs: r.summary.internalTxs },
      { txs: c.txs, logs: c.logs, tokenTransfers: c.tokenTransfers, internalTxs: c.internalTxs },
      `${variant}: the worker's counts equal the generated ones`,
    );
    t.equal(r.receiptsFellBack, false);
  }
});

t.test('the indexer stores exactly the generated chain (txs, logs, token transfers, internal txs)', async (t) => {
  const store = buildResponseStore({ blocks: 7 });
  const server = await startReplayServer(store);
  t.teardown(() => server.close());
  const c = store.counts;
  for (const variant of ['geth', 'erigon'] as const) {
    const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
    try {
      await migrateAll(stores);
      const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url: server.url, variant }, batchBlocks: 3, workers: 1, pollMs: 100, pending: false });
      await indexer.start();
      t.equal(indexer.caps?.traces, variant === 'geth' ? 'callTracer' : 'parity', `${variant}: trace format`);
      await indexer.waitFor(store.head, 120_000);
      await indexer.stop();
      const n = async (sql: string) => Number((await stores.ch.query<{ n: string }>(sql))[0]!.n);
      t.same(
        {
          blocks: await n('SELECT count() AS n FROM blocks'),
          txs: await n('SELECT count() AS n FROM transactions'),
          logs: await n('SELECT count() AS n FROM logs'),
          tokenTransfers: await n('SELECT count() AS n FROM token_transfers'),
          internalTxs: await n('SELECT count() AS n FROM internal_transactions WHERE trace_index > 0'),
          withdrawals: await n('SELECT count() AS n FROM withdrawals'),
          failed: await n('SELECT count() AS n FROM transactions WHERE status = 0'),
          created: await n("SELECT count() AS n FROM transactions WHERE created_contract != ''"),
        },
        {
          blocks: c.blocks,
          txs: c.txs,
          logs: c.logs,
          tokenTransfers: c.tokenTransfers,
          internalTxs: c.internalTxs,
          withdrawals: c.withdrawals,
          failed: c.failedTxs,
          created: c.kinds.create,
        },
        `${variant}: stored counts equal the generated counts`,
      );
      const tx = (JSON.parse(lookup(store, blockKey('eth_getBlockReceipts', 1))!.toString()) as RpcReceipt[])[0]!;
      const row = (await stores.ch.query<{ hash: string; gas_used: string }>(`SELECT hash, gas_used FROM transactions WHERE hash = '${tx.transactionHash}'`))[0];
      t.equal(row?.gas_used, String(Number(tx.gasUsed)), `${variant}: a stored transaction carries its receipt's gas`);
    } finally {
      await stores.close();
    }
  }
});

t.test('`node build/bench/ingest.js` runs tiny, exits 0 and prints its figures', async (t) => {
  const { code, stdout, stderr } = await runBenchScript(BENCH, { BENCH_BLOCKS: '3', BENCH_PARSE_PASSES: '1', BENCH_WORKERS: '1' });
  t.equal(code, 0, `exit code 0${code === 0 ? '' : `; stderr: ${stderr.slice(-2000)}`}`);
  for (const re of [
    /^date: \d{4}-\d\d-\d\dT/m,
    /^machine: .+, \d+ cores, [\d.]+ GiB RAM, .+, node v\d+/m,
    /^chain: 3 blocks \+ genesis, [\d,]+ txs/m,
    /^ingest: [\d,.]+ s wall/m,
    /^blocks\/s: [\d,.]+$/m,
    /^txs\/s: [\d,.]+$/m,
    /^rows\/s: [\d,.]+ /m,
    /^parse-only: [\d,.]+ txs\/s/m,
    /^ratio ingest\/parse-only: [\d.]+ \(information, not a target\)$/m,
    /^targets: /m,
    /^  pipeline bound of these parts sharing \d+ cores, 1\/\(1\/pool \+ 1\/inserts \+ 1\/point inserts\): [\d,]+ txs\/s/m,
    /^target ingest: ingest txs\/s over the pipeline bound of its parts: [\d,.]+ txs\/s >= [\d,.]+ txs\/s .*: (MET|NOT MET)$/m,
    /^target ingest: ingest txs\/s with traces: [\d,.]+ txs\/s >= 20,000 txs\/s .*: (MET|NOT MET)/m,
    /^storage after OPTIMIZE \.\.\. FINAL, compressed bytes of active parts per transaction \(system\.parts\): .*transactions [\d,]+.*; total [\d,]+ bytes\/tx/m,
    /^target storage: compressed bytes per transaction after merges, all tables: [\d,.]+ B\/tx <= 1,500 B\/tx .*: (MET|NOT MET)$/m,
    /^cpu during ingest: /m,
    /^parts alone /m,
    /^verified: /m,
    /^load average after: /m,
  ]) {
    t.match(stdout, re, `prints ${re.source}`);
  }
  const jsonLine = stdout.split('\n').find((l) => l.startsWith('json: '));
  t.ok(jsonLine, 'a json summary line');
  const j = JSON.parse(jsonLine!.slice(6)) as { blocks: number; txs: number; rows: number; verified: boolean; txsPerS: number; parseOnlyTxsPerS: number; ratio: number };
  t.equal(j.blocks, 4);
  t.ok(j.txs > 0 && j.rows > j.txs);
  t.equal(j.verified, true);
  t.ok(j.txsPerS > 0 && j.parseOnlyTxsPerS > 0 && j.ratio > 0);
  const targets = (j as unknown as { targets: { area: string; verdict: string; value: number }[] }).targets;
  t.same(targets.map((x) => x.area), ['ingest', 'ingest', 'storage'], 'the json line carries the evaluated targets');
  t.ok(targets.every((x) => x.verdict !== 'NOT MEASURED' && x.value > 0), 'each measured in the run');
  const storage = (j as unknown as { storage: { bytesPerTx: number; tables: { table: string; rows: number }[] } }).storage;
  t.equal(storage.tables.find((x) => x.table === 'transactions')?.rows, j.txs, 'the transactions table after merges holds every tx once');
  // Each part alone runs BENCH_PARTS_PASSES (3) times and the bound uses the median pass.
  const parts = (j as unknown as { parts: { workersS: number; workersAllS: number[]; insertsS: number; insertsAllS: number[] } }).parts;
  t.equal(parts.workersAllS.length, 3, 'the pool alone ran 3 times');
  t.equal(parts.insertsAllS.length, 3, 'the inserts alone ran 3 times');
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1];
  t.equal(parts.workersS, median(parts.workersAllS), 'the pool figure is the median pass');
  t.equal(parts.insertsS, median(parts.insertsAllS), 'the inserts figure is the median pass');
  t.match(stdout, /^  worker pool .*txs\/s \(median of 3 passes: [\d.]+, [\d.]+, [\d.]+ s\); cpu s: /m, 'the pool line names its passes');
  t.match(stdout, /^  ClickHouse inserts .*rows\/s \(median of 3 passes: [\d.]+, [\d.]+, [\d.]+ s\); cpu s: /m, 'the inserts line names its passes');
  t.match(stdout, /^  PostgreSQL point inserts .*txs\/s \(median of 3 passes: [\d.]+, [\d.]+, [\d.]+ s\); cpu s: /m, 'the point inserts, a part of their own');
});
