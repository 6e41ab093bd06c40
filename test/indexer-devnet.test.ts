// Devnet end to end: the scenario's chain indexed through both trace paths; every transaction,
// log, token transfer and internal transaction the node reports is stored exactly once.
import t from 'tap';
import { withDevnet } from './helpers/devnet.js';
import { rpc } from './helpers/rpc.js';
import { tmpDir } from './helpers/tmp.js';
import { openStores, migrateAll, type Stores } from '../src/storage/stores.js';
import { createIndexer } from '../src/indexer/indexer.js';
import { indexingStatus } from '../src/storage/indexing-status.js';
import type { RpcVariant } from '../src/rpc/client.js';
import { INPUT_IN_POINT_ROW, ROOT_INPUT_FROM_TX } from '../src/chain/clickhouse-rows.js';
import { withPointInputs } from '../src/storage/postgres/points.js';
import { transactionTraceFrames } from '../src/storage/clickhouse/reads/raw-trace.js';
import { etherscanTransactionInternals } from '../src/storage/clickhouse/reads/etherscan.js';


interface NodeTx { hash: string; from: string; to: string | null; value: string; blockNumber: string; transactionIndex: string; input: string }
interface NodeReceipt { transactionHash: string; status: string; gasUsed: string; effectiveGasPrice: string; logs: { logIndex: string; address: string }[]; contractAddress: string | null }
interface ParityTrace { type: string; action: { from?: string; to?: string; value?: string; callType?: string; address?: string; refundAddress?: string; balance?: string }; result?: { address?: string } | null; traceAddress: number[]; error?: string }

const rows = (s: Stores, sql: string) => s.ch.query<Record<string, string>>(sql);

t.test('the scenario is indexed exactly, through callTracer and through trace_block', async (t) => {
  const devnet = await withDevnet(t);
  const url = devnet.url;
  const head = Number(await rpc<string>(url, 'eth_blockNumber'));
  // What the node says.
  const txs: NodeTx[] = [];
  const receipts = new Map<string, NodeReceipt>();
  for (let n = 0; n <= head; n++) {
    const b = await rpc<{ transactions: NodeTx[] }>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
    txs.push(...b.transactions);
    for (const r of await rpc<NodeReceipt[]>(url, 'eth_getBlockReceipts', [`0x${n.toString(16)}`])) receipts.set(r.transactionHash, r);
  }
  const nodeInternal: string[] = [];
  for (const tx of txs) {
    const traces = await rpc<ParityTrace[]>(url, 'trace_transaction', [tx.hash]);
    for (const tr of traces) {
      if (tr.traceAddress.length === 0) continue;
      const from = tr.action.from ?? tr.action.address ?? '';
      const to = tr.type === 'create' ? tr.result?.address ?? '' : tr.action.to ?? tr.action.refundAddress ?? '';
      const value = BigInt(tr.action.value ?? tr.action.balance ?? '0x0').toString();
      nodeInternal.push(`${tx.hash}|${tr.traceAddress.join('_')}|${from.toLowerCase()}|${to.toLowerCase()}|${value}`);
    }
  }
  nodeInternal.sort();
  const nodeLogs = [...receipts.values()].reduce((a, r) => a + r.logs.length, 0);
  t.equal(txs.length, devnet.scenario.counts.txs, 'node and scenario agree on the tx count');

  const internalByVariant: Record<string, string[]> = {};
  for (const variant of ['geth', 'erigon'] as RpcVariant[]) {
    const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
    try {
      await migrateAll(stores);
      const indexer = createIndexer({ ch: stores.ch, pg: stores.pg, rpc: { url, variant }, batchBlocks: 4, workers: 1, pollMs: 100, pending: false });
      const blockEvents: number[] = [];
      indexer.on('block', (e) => blockEvents.push(...e.blocks.map((b) => b.number)));
      await indexer.start();
      t.equal(indexer.caps?.traces, variant === 'geth' ? 'callTracer' : 'parity', `${variant}: trace format`);
      await indexer.waitFor(head, 120_000);
      await indexer.stop();
      t.same(blockEvents, Array.from({ length: head + 1 }, (_, i) => i), `${variant}: blocks committed once each, in order`);

      const blocks = await rows(stores, 'SELECT number, count() AS c FROM blocks GROUP BY number ORDER BY number');
      t.equal(blocks.length, head + 1, `${variant}: every block stored`);
      t.ok(blocks.every((b) => b.c === '1'), `${variant}: no block doubled`);

      const stored = await rows(stores, 'SELECT hash, status, gas_used, fee, `from`, `to`, value, block_number, transaction_index FROM transactions');
      t.equal(stored.length, txs.length, `${variant}: one row per transaction`);
      t.equal(new Set(stored.map((r) => r.hash)).size, txs.length, `${variant}: no transaction doubled`);
      const byHash = new Map(stored.map((r) => [r.hash, r]));
      let mismatches = 0;
      for (const tx of txs) {
        const r = byHash.get(tx.hash);
        const rc = receipts.get(tx.hash)!;
        const ok =
          r &&
          Number(r.status) === Number(rc.status) &&
          r.gas_used === BigInt(rc.gasUsed).toString() &&
          r.fee === (BigInt(rc.gasUsed) * BigInt(rc.effectiveGasPrice)).toString() &&
          r.from === tx.from.toLowerCase() &&
          r.to === (tx.to ?? '').toLowerCase() &&
          r.value === BigInt(tx.value).toString() &&
          Number(r.block_number) === Number(tx.blockNumber) &&
          Number(r.transaction_index) === Number(tx.transactionIndex);
        if (!ok) mismatches++;
      }
      t.equal(mismatches, 0, `${variant}: every transaction matches the node (status, gas, fee, parties, value, position)`);
      const failed = stored.filter((r) => Number(r.status) === 0);
      t.same(failed.map((r) => r.hash), [devnet.scenario.failedTx.hash.toLowerCase()], `${variant}: exactly the failed tx has status 0`);

      const logCount = await rows(stores, 'SELECT count() AS n, uniqExact(transaction_hash, log_index) AS u FROM logs');
      t.equal(Number(logCount[0].n), nodeLogs, `${variant}: every log stored`);
      t.equal(Number(logCount[0].u), nodeLogs, `${variant}: no log doubled`);

      const tt = await rows(stores, 'SELECT token_type, count() AS n FROM token_transfers GROUP BY token_type ORDER BY token_type');
      const c = devnet.scenario.counts.tokenTransfers;
      t.same(tt, [
        { token_type: 'ERC-1155', n: String(c.erc1155) },
        { token_type: 'ERC-20', n: String(c.erc20) },
        { token_type: 'ERC-721', n: String(c.erc721) },
      ], `${variant}: token transfers by type`);
      const kinds = await rows(stores, "SELECT countIf(kind = 'token_minting') AS mint, countIf(kind = 'token_burning') AS burn FROM token_transfers");
      t.ok(Number(kinds[0].mint) > 0 && Number(kinds[0].burn) > 0, `${variant}: mints and burns told apart`);

      const internal = await rows(stores, `SELECT transaction_hash, trace_address, from, to, value FROM internal_transactions WHERE trace_index > 0`);
      const mine = internal
        .map((r) => `${r.transaction_hash}|${(r.trace_address as unknown as number[]).join('_')}|${r.from}|${r.to}|${r.value}`)
        .sort();
      t.same(mine, nodeInternal, `${variant}: internal transactions equal the node's trace_transaction`);
      internalByVariant[variant] = (await rows(stores,
        'SELECT transaction_hash, trace_index, trace_address, type, call_type, from, to, value, error, created_contract_address FROM internal_transactions ORDER BY block_number, transaction_index, trace_index',
      )).map((r) => JSON.stringify(r));

      // The calldata is stored once, in the point rows: ClickHouse's transactions carry the marker.
      const txInputs = await rows(stores, `SELECT countIf(input = '${INPUT_IN_POINT_ROW}') AS marked, count() AS n FROM transactions`);
      t.same(txInputs, [{ marked: String(txs.length), n: String(txs.length) }], `${variant}: no transaction's calldata stored in ClickHouse`);
      const backs = await withPointInputs(stores.pg, txs.map((x) => ({ hash: x.hash, input: INPUT_IN_POINT_ROW })), (x) => x.hash);
      t.same(backs.map((x) => x.input), txs.map((x) => x.input), `${variant}: the point rows give back every transaction's calldata`);
      // Each top-level frame's input is its transaction's: stored as the marker, read back whole.
      const rootInputs = await rows(stores, `SELECT countIf(input = '${ROOT_INPUT_FROM_TX}') AS marked, count() AS n FROM internal_transactions WHERE trace_index = 0`);
      t.same(rootInputs, [{ marked: String(txs.length), n: String(txs.length) }], `${variant}: every top-level frame stores the marker, not the input again`);
      let inputMismatches = 0;
      for (const tx of txs) {
        const stored = await transactionTraceFrames(stores.ch, BigInt(tx.blockNumber), Number(tx.transactionIndex));
        const frames = await withPointInputs(stores.pg, stored, () => tx.hash);
        if (frames[0]?.input !== tx.input || frames.some((f) => f.input === ROOT_INPUT_FROM_TX || f.input === INPUT_IN_POINT_ROW)) inputMismatches++;
      }
      t.equal(inputMismatches, 0, `${variant}: the raw-trace read gives every top-level frame the node's transaction input`);
      const deployments = txs.filter((x) => x.to === null);
      t.ok(deployments.length > 0, 'the scenario deploys contracts at the top level');
      let creationMismatches = 0;
      for (const tx of deployments) {
        // txlistinternal lists a top-level creation, with its init code (the transaction's input).
        const listed = await withPointInputs(stores.pg, await etherscanTransactionInternals(stores.ch, tx.hash, 100), (f) => f.transaction_hash);
        if (listed[0]?.trace_index !== 0 || listed[0].input !== tx.input) creationMismatches++;
      }
      t.equal(creationMismatches, 0, `${variant}: txlistinternal gives each top-level creation its init code`);

      const fresh = devnet.scenario.freshEoa.toLowerCase();
      const addrTx = await rows(stores, `SELECT count() AS n FROM address_transactions WHERE address = '${fresh}'`);
      const expectFresh = txs.filter((x) => x.from.toLowerCase() === fresh || (x.to ?? '').toLowerCase() === fresh).length;
      t.equal(Number(addrTx[0].n), expectFresh, `${variant}: the fresh EOA's transactions, both directions`);

      const created = await rows(stores, `SELECT count() AS n FROM internal_transactions WHERE created_contract_address = '${devnet.scenario.create2.expectedAddress.toLowerCase()}'`);
      t.equal(Number(created[0].n), 1, `${variant}: the CREATE2 child is an internal create`);

      const status = await indexingStatus(stores.pg, stores.ch);
      t.equal(status.finished_indexing_blocks, true, `${variant}: status says finished`);
      t.equal(status.indexed_blocks_ratio, '1.00');
      t.equal(status.details.stored_blocks, head + 1);
    } finally {
      await stores.close();
    }
  }
  t.same(internalByVariant.geth, internalByVariant.erigon, 'both trace paths give the same internal transaction rows');
});
