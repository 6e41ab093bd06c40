// What a transaction's stored traces say about it, read in one query for a page: the revert data
// of a reverted transaction (its top-level frame's output) and whether a frame below the top
// level failed.
import t from 'tap';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { ApiContext } from '../src/api/context.js';
import type { TransactionRead } from '../src/storage/clickhouse/reads/transactions.js';
import { createLogger } from '../src/log.js';
import { tmpDir } from './helpers/tmp.js';

t.test('revert outputs and internal errors of a page of transactions', async (t) => {
  const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  await migrateAll(stores);
  const frames: [number, number, number, string, string][] = [
    // block, tx, trace, output, error
    [5, 0, 0, '0x08c379a0aa', 'execution reverted'], // reverted, with revert data
    [5, 0, 1, '0x', 'out of gas'], // and a failed frame below (counted: reverted txs may have both)
    [5, 1, 0, '0x', ''], // succeeded, a nested frame failed
    [5, 1, 1, '0x', ''],
    [5, 1, 2, '0xdead', 'execution reverted'],
    [5, 1, 3, '0x', 'execution reverted'],
    [6, 0, 0, '0x', 'execution reverted'], // reverted without data
    [6, 1, 0, '0x01', ''], // succeeded, nested frames fine
    [6, 1, 1, '0x02', ''],
    [7, 0, 0, '0xbeef', 'execution reverted'], // not asked about
    [7, 0, 1, '0x', 'boom'],
  ];
  for (const [b, i, tr, out, err] of frames) {
    await stores.ch.command(
      'INSERT INTO internal_transactions (block_number, transaction_index, trace_index, output, error) VALUES ({b:UInt64}, {i:UInt32}, {tr:UInt32}, {o:String}, {e:String})',
      { b, i, tr, o: out, e: err },
    );
  }
  const row = (b: number, i: number, status: number, internal: number): TransactionRead =>
    ({ block_number: String(b), transaction_index: i, status, internal_count: internal, from: '0x' + '1'.repeat(40), to: '', created_contract: '', authorization_list: '' }) as TransactionRead;
  const ctx = new ApiContext({ ch: stores.ch, pg: stores.pg, log: createLogger('test') });
  const rows = [row(5, 0, 0, 1), row(5, 1, 1, 3), row(6, 0, 0, 0), row(6, 1, 1, 1), row(8, 0, 1, 0)];
  const l = await ctx.txLookups(rows);
  t.same([...l.revertOutputs].sort(), [['5:0', '0x08c379a0aa']], 'revert data of reverted transactions only; none for an empty output');
  t.same([...(l.internalErrors ?? [])].sort(), ['5:0', '5:1'], 'failed frames below the top level');
  const none = await ctx.txLookups([row(6, 1, 1, 1), row(8, 0, 1, 0)]);
  t.same([...none.revertOutputs], []);
  t.same([...(none.internalErrors ?? [])], []);
});
