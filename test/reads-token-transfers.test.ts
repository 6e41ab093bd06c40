// A transaction's token transfers carry each item's batch size (the items of its log) without a
// window over the block: counted only for an ERC-1155 log the page starts or ends inside.
import t from 'tap';
import { openStores, migrateAll } from '../src/storage/stores.js';
import { transactionTokenTransfers } from '../src/storage/clickhouse/reads/token-transfers.js';
import { tmpDir } from './helpers/tmp.js';

t.test('batch sizes of a transaction\'s transfers, whole and cut by the page', async (t) => {
  const stores = await openStores({ dataDir: tmpDir(t), clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  await migrateAll(stores);
  const ch = stores.ch;
  // Transaction 3 of block 7: an ERC-20 transfer (log 1), a TransferBatch of 3 ids (log 2), an
  // ERC-721 transfer (log 4), a TransferSingle (log 5). Another transaction's batch in log 3.
  const rows: [number, number, number, string][] = [
    [1, 0, 3, 'ERC-20'], [2, 0, 3, 'ERC-1155'], [2, 1, 3, 'ERC-1155'], [2, 2, 3, 'ERC-1155'],
    [3, 0, 4, 'ERC-1155'], [3, 1, 4, 'ERC-1155'], [4, 0, 3, 'ERC-721'], [5, 0, 3, 'ERC-1155'],
  ];
  for (const [log, batch, tx, type] of rows) {
    await ch.command(
      'INSERT INTO token_transfers (block_number, log_index, batch_index, transaction_index, token_type, value) VALUES (7, {l:UInt32}, {b:UInt32}, {t:UInt32}, {ty:String}, 1)',
      { l: log, b: batch, t: tx, ty: type },
    );
  }
  const sizes = (rs: { log_index: number; batch_index: number; batch_size: number }[]) => rs.map((r) => `${r.log_index}.${r.batch_index}:${r.batch_size}`);
  t.same(sizes(await transactionTokenTransfers(ch, 7n, 3, { limit: 50 })), ['1.0:1', '2.0:3', '2.1:3', '2.2:3', '4.0:1', '5.0:1'], 'whole page');
  t.same(sizes(await transactionTokenTransfers(ch, 7n, 3, { limit: 2 })), ['1.0:1', '2.0:3'], 'a page ending inside the batch counts it');
  t.same(
    sizes(await transactionTokenTransfers(ch, 7n, 3, { after: { block: 7n, logIndex: 2n, batchIndex: 0n }, limit: 1 })),
    ['2.1:3'],
    'a page starting and ending inside the batch counts it',
  );
  t.same(
    sizes(await transactionTokenTransfers(ch, 7n, 3, { after: { block: 7n, logIndex: 2n, batchIndex: 1n }, limit: 50 })),
    ['2.2:3', '4.0:1', '5.0:1'],
    'a page starting inside the batch counts it',
  );
  t.same(sizes(await transactionTokenTransfers(ch, 7n, 4, { limit: 50 })), ['3.0:2', '3.1:2'], 'the other transaction');
  t.same(sizes(await transactionTokenTransfers(ch, 7n, 3, { types: ['ERC-1155'], limit: 3 })), ['2.0:3', '2.1:3', '2.2:3'], 'type filter, page ends at the batch end');
  t.same(await transactionTokenTransfers(ch, 7n, 9, { limit: 50 }), [], 'no transfers');
});
