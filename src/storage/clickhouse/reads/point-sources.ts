// What the point rows of stored blocks are built from, read back from ClickHouse (the upgrade's
// backfill, src/indexer/point-backfill.ts): the same fields the API reads, and the facts of the
// frames that a transaction's and a block's page show, aggregated here.
import type { ClickHouseStore } from '../store.js';
import { BLOCK_COLUMNS, type BlockRead, type BlockRewardRead } from './blocks.js';
import { TX_COLUMNS, type TransactionRead } from './transactions.js';
import { LISTED_FRAME } from './internal-transactions.js';
import { TX_TRANSFERS } from '../../../chain/point-rows.js';
import { INPUT_IN_POINT_ROW } from '../../../chain/clickhouse-rows.js';

export interface PointSources {
  blocks: BlockRead[];
  txs: TransactionRead[];
  /** Per transaction with frames: its top-level frame's output, and whether a frame below it failed. */
  frames: { block_number: string; transaction_index: number; top: string; failed: number }[];
  /** Per block: how many of its frames the internal-transaction lists show. */
  listed: { block_number: string; n: string }[];
  rewards: BlockRewardRead[];
  /** The first TX_TRANSFERS token transfers of each transaction, in (log, batch) order. */
  transfers: (Record<string, unknown> & { block_number: string; transaction_index: number; log_index: number; token_type: string })[];
  /** Items per ERC-1155 log. */
  logItems: { block_number: string; log_index: number; n: string }[];
}

export async function pointSources(ch: ClickHouseStore, from: number, to: number): Promise<PointSources> {
  const p = { a: from, b: to };
  const [blocks, txs, frames, listed, rewards, transfers, logItems] = await Promise.all([
    ch.query<BlockRead>(`SELECT ${BLOCK_COLUMNS} FROM blocks WHERE number BETWEEN {a:UInt64} AND {b:UInt64} ORDER BY number`, p),
    ch.query<TransactionRead>(
      `SELECT ${TX_COLUMNS} FROM transactions WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64} ORDER BY block_number, transaction_index`,
      p,
    ),
    ch.query<PointSources['frames'][number]>(
      `SELECT block_number, transaction_index, anyIf(output, trace_index = 0) AS top, max(trace_index > 0 AND error != '') AS failed
       FROM internal_transactions WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64}
       GROUP BY block_number, transaction_index`,
      p,
    ),
    ch.query<PointSources['listed'][number]>(
      `SELECT block_number, count() AS n FROM internal_transactions
       WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64} AND ${LISTED_FRAME} GROUP BY block_number`,
      p,
    ),
    ch.query<BlockRewardRead>(
      'SELECT block_number, address_type, address, reward FROM block_rewards WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64}',
      p,
    ),
    ch.query<PointSources['transfers'][number]>(
      `SELECT block_number, transaction_index, log_index, batch_index, token_address, token_type, "from", "to", value, token_id, kind, method_id
       FROM token_transfers WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64}
       ORDER BY block_number, transaction_index, log_index, batch_index LIMIT ${TX_TRANSFERS} BY block_number, transaction_index`,
      p,
    ),
    ch.query<PointSources['logItems'][number]>(
      `SELECT block_number, log_index, count() AS n FROM token_transfers
       WHERE block_number BETWEEN {a:UInt64} AND {b:UInt64} AND token_type = 'ERC-1155' GROUP BY block_number, log_index`,
      p,
    ),
  ]);
  // Rows written with their point rows keep their calldata there only: rebuilding those point
  // rows from ClickHouse would store the marker as calldata. The backfill covers blocks stored by
  // releases before the point rows, which all have it.
  const marked = txs.find((t) => t.input === INPUT_IN_POINT_ROW);
  if (marked) throw new Error(`point rows cannot be rebuilt from ClickHouse for block ${marked.block_number}: its calldata is in PostgreSQL's point rows only`);
  return { blocks, txs, frames, listed, rewards, transfers, logItems };
}
