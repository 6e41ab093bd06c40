// The point rows in PostgreSQL are exactly the committed chain's: one per block and transaction
// ClickHouse holds up to the checkpoint, none of an orphaned block, none above it.
import type { Test } from 'tap';
import type { Stores } from '../../src/storage/stores.js';

export async function pointRowsMatchChain(t: Test, stores: Pick<Stores, 'ch' | 'pg'>, label = ''): Promise<void> {
  const [cp] = await stores.pg.query<{ n: string }>("SELECT block_number::text AS n FROM indexer_checkpoints WHERE lane = 'blocks'");
  const top = cp ? Number(cp.n) : -1;
  const chBlocks = await stores.ch.query<{ num: string; hash: string }>('SELECT toString(number) AS num, hash FROM blocks WHERE number <= {n:Int64} ORDER BY number', { n: top });
  const pgBlocks = await stores.pg.query<{ num: string; hash: string }>("SELECT number::text AS num, '0x' || encode(hash, 'hex') AS hash FROM point_blocks ORDER BY number");
  t.same(pgBlocks, chBlocks, `${label}point rows of blocks: exactly the committed chain's (${chBlocks.length})`);
  const chTxs = await stores.ch.query<{ hash: string; b: string }>('SELECT hash, toString(block_number) AS b FROM transactions WHERE block_number <= {n:Int64} ORDER BY hash', { n: top });
  const pgTxs = await stores.pg.query<{ hash: string; b: string }>("SELECT '0x' || encode(hash, 'hex') AS hash, block_number::text AS b FROM point_transactions ORDER BY hash");
  t.same(pgTxs, chTxs, `${label}point rows of transactions: exactly the committed chain's (${chTxs.length})`);
}
