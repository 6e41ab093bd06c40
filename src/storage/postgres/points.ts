// Point rows in PostgreSQL (sql/postgres/0016_point_rows.sql): written with a range's checkpoint
// (or a claimed range's stored mark), deleted with the chain's rows, read by hash or number in
// one primary-key read. The rows are encoded by src/chain/point-rows.ts.
import { decodeBlockRow, decodeTxRow, TX_TRANSFERS, type BlockBlobFacts, type PointBatch } from '../../chain/point-rows.js';
import { INPUT_IN_POINT_ROW } from '../../chain/clickhouse-rows.js';

/** How many token transfers a transaction's point row carries (its page's). */
export { TX_TRANSFERS };
import type { TransactionRead } from '../clickhouse/reads/transactions.js';
import type { BlockRead, BlockRewardRead } from '../clickhouse/reads/blocks.js';
import type { TokenTransferRead } from '../clickhouse/reads/token-transfers.js';
import type { PgStore } from './store.js';
import { setFactIn } from './indexer.js';

/** A transaction's client, or the store (each statement on its own). */
type Queryable = { query(sql: string, params?: unknown[]): Promise<unknown> };

/**
 * indexer_facts name of the upgrade's backfill progress (src/indexer/point-backfill.ts), here so
 * that the indexing status can read it without loading indexer code.
 */
export const POINT_BACKFILL_FACT = 'point_rows_backfill';

/**
 * Inserts a range's point rows (inside the caller's transaction). A transaction hash already
 * present keeps its first row: nothing stops a node from answering one hash twice, and
 * ClickHouse's read by hash answers the first too.
 */
export async function insertPoints(c: Queryable, batches: readonly PointBatch[]): Promise<void> {
  for (const p of batches) {
    if (p.blocks.count) {
      await c.query(
        `INSERT INTO point_blocks (number, hash, data) SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[])
         ON CONFLICT DO NOTHING`,
        [p.blocks.numbers, p.blocks.hashes, p.blocks.rows],
      );
    }
    if (p.txs.count) {
      await c.query(
        `INSERT INTO point_transactions (hash, block_number, transaction_index, from_address, to_address, created_address, data)
         SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::int[], $4::bytea[], $5::bytea[], $6::bytea[], $7::bytea[])
         ON CONFLICT DO NOTHING`,
        [p.txs.hashes, p.txs.blocks, p.txs.indexes, p.txs.froms, p.txs.tos, p.txs.created, p.txs.rows],
      );
    }
  }
}

/** Inserts point rows and sets a fact (the backfill's progress) in one transaction. */
export async function insertPointsWithFact(pg: PgStore, batch: PointBatch, fact: string, value: unknown): Promise<void> {
  await pg.tx(async (c) => {
    await insertPoints(c, [batch]);
    await setFactIn(c, fact, value);
  });
}

/** Removes the point rows at heights >= from (a rewind, or rows above a checkpoint). */
export async function deletePointsFrom(c: Queryable, from: number): Promise<void> {
  await c.query('DELETE FROM point_transactions WHERE block_number >= $1', [from]);
  await c.query('DELETE FROM point_blocks WHERE number >= $1', [from]);
}

/** Removes the point rows of heights [from, to] (a range of the shared catch-up planned again). */
export async function deletePointsRange(c: Queryable, from: number, to: number): Promise<void> {
  await c.query('DELETE FROM point_transactions WHERE block_number BETWEEN $1 AND $2', [from, to]);
  await c.query('DELETE FROM point_blocks WHERE number BETWEEN $1 AND $2', [from, to]);
}

const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');
const isHash = (h: string) => /^0x[0-9a-f]{64}$/.test(h);

/** A transaction by hash as the API reads it, with what its page needs of its block and frames. */
export interface PointTransaction {
  tx: TransactionRead;
  baseFee: string | null;
  /** The top-level frame's output when it reverted ('' when none). */
  revertOutput: string;
  /** A frame below the top level failed. */
  failedInner: boolean;
  /** Its first token transfers (TX_TRANSFERS), as ClickHouse reads them. */
  transfers: TokenTransferRead[];
}

/**
 * A transaction's point row, as pointTransactionOf takes it. Hashes and addresses come as hex
 * text (encode): what the API shows, without node-pg parsing bytea's hex into bytes and the API
 * writing them back as hex (~6% of a page's API CPU).
 */
const ROW_COLS = `t.block_number::text AS block_number, t.transaction_index, encode(t.from_address, 'hex') AS from_address,
  encode(t.to_address, 'hex') AS to_address, t.data`;

/**
 * The read of a transaction's row with its block's, prepared once per connection ($1: the hash's
 * bytes); exported so that the API benchmark measures the point store alone with this very read.
 */
export const POINT_TRANSACTION_QUERY = {
  name: 'point_transaction',
  text: `SELECT ${ROW_COLS}, encode(b.hash, 'hex') AS block_hash, b.data AS block_data FROM point_transactions t JOIN point_blocks b ON b.number = t.block_number WHERE t.hash = $1`,
} as const;

/** A transaction's row with its block's, by hash (lower-case 0x + 64 hex), or null. */
export async function pointTransaction(pg: PgStore, hash: string): Promise<PointTransaction | null> {
  if (!isHash(hash)) return null;
  const r = await pg.pool.query<PointTxRow>({
    ...POINT_TRANSACTION_QUERY,
    values: [bytes(hash)],
  });
  const row = r.rows[0];
  return row ? pointTransactionOf(hash, row) : null;
}

/** How often, and how long apart, a missing point row is looked for again (a commit under way). */
const INPUT_RETRIES = 8;
const INPUT_RETRY_MS = 25;

/**
 * `rows` with the calldata that ClickHouse's rows leave in the point rows (INPUT_IN_POINT_ROW, in
 * `input`) put back, found by each row's transaction hash: one read for all of them, none when no
 * row needs it. The rows are changed in place. A point row not there yet is looked for again, up
 * to INPUT_RETRIES times 25 ms apart: the indexer commits a block's point rows just after its
 * ClickHouse insert. One still missing then is left out of the answer: its block is being rewound (or its
 * commit failed), not part of the indexed chain.
 */
export async function withPointInputs<R extends { input: string }>(pg: PgStore, rows: R[], hashOf: (r: R) => string): Promise<R[]> {
  let need = rows.filter((r) => r.input === INPUT_IN_POINT_ROW);
  if (!need.length) return rows;
  for (let attempt = 0; ; attempt++) {
    const want = [...new Set(need.map(hashOf))].filter(isHash);
    const r = want.length
      ? await pg.pool.query<{ hash: string; data: Buffer }>({
          name: 'point_inputs',
          text: `SELECT encode(hash, 'hex') AS hash, data FROM point_transactions WHERE hash = ANY($1::bytea[])`,
          values: [want.map(bytes)],
        })
      : { rows: [] };
    const inputs = new Map<string, string>();
    for (const row of r.rows) inputs.set(`0x${row.hash}`, decodeTxRow(row.data).fields.input as string);
    for (const x of need) {
      const input = inputs.get(hashOf(x));
      if (input !== undefined) x.input = input;
    }
    need = need.filter((x) => x.input === INPUT_IN_POINT_ROW);
    if (!need.length) return rows;
    if (attempt >= INPUT_RETRIES) return rows.filter((x) => x.input !== INPUT_IN_POINT_ROW);
    await new Promise((resolve) => setTimeout(resolve, INPUT_RETRY_MS));
  }
}

type PointTxRow = {
  block_number: string;
  transaction_index: number;
  /** Hex, no 0x. */
  from_address: string;
  to_address: string | null;
  data: Buffer;
  /** Null on a page's later rows of the same block. */
  block_hash: string | null;
  block_data: Buffer | null;
};

/** A block row's time and base fee, decoded once per block of a page (by its number). */
type BlockFacts = Map<string, { hash: string; ts: unknown; baseFee: string | null }>;

function pointTransactionOf(hash: string, row: PointTxRow, blocks: BlockFacts = new Map()): PointTransaction {
  let b = blocks.get(row.block_number);
  if (!b) {
    // A page's later rows of a block come without its row (addressPageQuery).
    if (!row.block_data || !row.block_hash) throw new Error(`point row of block ${row.block_number} read without its block`);
    const d = decodeBlockRow(row.block_data).fields;
    b = { hash: `0x${row.block_hash}`, ts: d.ts, baseFee: d.base_fee_per_gas as string | null };
    blocks.set(row.block_number, b);
  }
  // The read object's own fields first, then the row's decoded into it (the serialisers name
  // each field, so their order is not ClickHouse's).
  const into: Record<string, unknown> = {
    block_number: row.block_number,
    hash,
    block_hash: b.hash,
    ts: b.ts,
    transaction_index: row.transaction_index,
    from: `0x${row.from_address}`,
    to: row.to_address === null ? '' : `0x${row.to_address}`,
  };
  const t = decodeTxRow(row.data, into);
  const tx = into as unknown as TransactionRead;
  const transfers = t.transfers.map(
    (x) =>
      ({
        block_number: tx.block_number,
        log_index: x.log_index,
        batch_index: x.batch_index,
        transaction_index: tx.transaction_index,
        transaction_hash: hash,
        block_hash: tx.block_hash,
        ts: tx.ts,
        ...x,
      }) as TokenTransferRead,
  );
  return { tx, baseFee: b.baseFee, revertOutput: t.revertOutput, failedInner: t.failedInner, transfers };
}

/** A block as the API reads it, with its listed internal transactions' count and its rewards. */
export interface PointBlock {
  block: BlockRead;
  internalCount: number;
  rewards: BlockRewardRead[];
  /**
   * What its transactions say of its blobs; null for a row written before the point rows held the
   * blob fields (its blob_gas_used and excess_blob_gas are then missing too: read ClickHouse's row).
   */
  blobs: BlockBlobFacts | null;
}

function pointBlock(row: { number: string; hash: Buffer; data: Buffer } | undefined): PointBlock | null {
  if (!row) return null;
  const d = decodeBlockRow(row.data);
  const block = { number: row.number, hash: `0x${row.hash.toString('hex')}`, ...d.fields } as unknown as BlockRead;
  const rewards = d.rewards.map((x) => ({ block_number: row.number, ...x }) as BlockRewardRead);
  return { block, internalCount: d.internalCount, rewards, blobs: d.blobs };
}

export async function pointBlockByNumber(pg: PgStore, n: bigint): Promise<PointBlock | null> {
  if (n < 0n || n > 9223372036854775807n) return null;
  const r = await pg.pool.query<{ number: string; hash: Buffer; data: Buffer }>({
    name: 'point_block_number',
    text: 'SELECT number::text AS number, hash, data FROM point_blocks WHERE number = $1',
    values: [n.toString()],
  });
  return pointBlock(r.rows[0]);
}

export async function pointBlockByHash(pg: PgStore, hash: string): Promise<PointBlock | null> {
  if (!isHash(hash)) return null;
  const r = await pg.pool.query<{ number: string; hash: Buffer; data: Buffer }>({
    name: 'point_block_hash',
    text: 'SELECT number::text AS number, hash, data FROM point_blocks WHERE hash = $1',
    values: [bytes(hash)],
  });
  return pointBlock(r.rows[0]);
}

/** Which of an address's transactions a page lists (Blockscout's `filter`): sent, received (or created), or both. */
export type PointDirection = 'from' | 'to' | null;

const I64_MAX = (1n << 63n) - 1n;
const clampTo = (v: bigint, lo: bigint, hi: bigint) => (v < lo ? lo : v > hi ? hi : v);

/**
 * The SQL of an address's transactions page in chain order: one index range per column that
 * names the address (sender, receiver, created contract), merged, a transaction once (a
 * transfer to oneself is in two ranges), with its block's row. $1 the address's bytes, ($2, $3)
 * the position after which the page starts, $4 the page's size. Prepared once per variant.
 */
function addressPageQuery(direction: PointDirection, order: 'asc' | 'desc'): { name: string; text: string } {
  const cols = direction === 'from' ? ['from_address'] : direction === 'to' ? ['to_address', 'created_address'] : ['from_address', 'to_address', 'created_address'];
  const cmp = order === 'asc' ? '>' : '<';
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const ranges = cols.map(
    (c) => `(SELECT hash, block_number, transaction_index, from_address, to_address, data FROM point_transactions
       WHERE ${c} = $1 AND (block_number, transaction_index) ${cmp} ($2::bigint, $3::bigint)
       ORDER BY block_number ${dir}, transaction_index ${dir} LIMIT $4)`,
  );
  return {
    name: `point_address_txs_${direction ?? 'all'}_${order}`,
    // A block's hash and row only on its first transaction of the page: the rest of its rows
    // would carry the same bytes, as hex text that node-pg parses for each.
    text: `SELECT encode(t.hash, 'hex') AS hash, ${ROW_COLS},
             CASE WHEN lag(t.block_number) OVER w = t.block_number THEN NULL ELSE encode(b.hash, 'hex') END AS block_hash,
             CASE WHEN lag(t.block_number) OVER w = t.block_number THEN NULL ELSE b.data END AS block_data
           FROM (SELECT DISTINCT ON (block_number, transaction_index) * FROM (${ranges.join(' UNION ALL ')}) u
                 ORDER BY block_number ${dir}, transaction_index ${dir} LIMIT $4) t
           JOIN point_blocks b ON b.number = t.block_number
           WINDOW w AS (ORDER BY t.block_number ${dir}, t.transaction_index ${dir})
           ORDER BY t.block_number ${dir}, t.transaction_index ${dir}`,
  };
}

/**
 * A page of an address's transactions in chain order from the point rows, as ClickHouse's
 * address_transactions orders them (rows after `after`, or from the newest/oldest). Only
 * complete when every stored block has its point rows (the caller checks).
 */
export async function pointAddressTransactions(
  pg: PgStore,
  address: string,
  o: { direction: PointDirection; order: 'asc' | 'desc'; after?: { block: bigint; index: bigint }; limit: number },
): Promise<PointTransaction[]> {
  // From the newest (oldest) when there is no position: past every row in that order.
  const [b, i] = o.after
    ? [clampTo(o.after.block, -1n, I64_MAX), clampTo(o.after.index, -2n, 1n << 31n)]
    : o.order === 'asc'
      ? [-1n, -1n]
      : [I64_MAX, 1n << 31n];
  const r = await pg.pool.query<PointTxRow & { hash: string }>({
    ...addressPageQuery(o.direction, o.order),
    values: [bytes(address), b.toString(), i.toString(), o.limit],
  });
  const blocks: BlockFacts = new Map();
  return r.rows.map((row) => pointTransactionOf(`0x${row.hash}`, row, blocks));
}

/**
 * The transactions of any of `addresses` (sender, receiver or created contract), newest first,
 * before position `before` (from the newest when absent): each address's index ranges read up to
 * `limit` rows, merged, a transaction once. Only complete when every stored block has its point
 * rows (the caller checks).
 */
export async function pointAddressesTransactions(
  pg: PgStore,
  addresses: readonly string[],
  o: { before?: { block: bigint; index: bigint }; limit: number },
): Promise<PointTransaction[]> {
  if (!addresses.length) return [];
  const [b, i] = o.before ? [clampTo(o.before.block, -1n, I64_MAX), clampTo(o.before.index, -2n, 1n << 31n)] : [I64_MAX, 1n << 31n];
  const range = (col: string) =>
    `SELECT x.* FROM unnest($1::bytea[]) a(addr), LATERAL (SELECT hash, block_number, transaction_index, from_address, to_address, data FROM point_transactions
       WHERE ${col} = a.addr AND (block_number, transaction_index) < ($2::bigint, $3::bigint)
       ORDER BY block_number DESC, transaction_index DESC LIMIT $4) x`;
  const r = await pg.pool.query<PointTxRow & { hash: string }>({
    name: 'point_addresses_txs',
    text: `SELECT encode(t.hash, 'hex') AS hash, ${ROW_COLS}, encode(b.hash, 'hex') AS block_hash, b.data AS block_data
           FROM (SELECT DISTINCT ON (block_number, transaction_index) * FROM (${['from_address', 'to_address', 'created_address'].map(range).join(' UNION ALL ')}) u
                 ORDER BY block_number DESC, transaction_index DESC LIMIT $4) t
           JOIN point_blocks b ON b.number = t.block_number
           ORDER BY t.block_number DESC, t.transaction_index DESC`,
    values: [addresses.map(bytes), b.toString(), i.toString(), o.limit],
  });
  const blocks: BlockFacts = new Map();
  return r.rows.map((row) => pointTransactionOf(`0x${row.hash}`, row, blocks));
}

/** The newest blocks' transactions, and where the point rows end (recentPointTransactions). */
export interface RecentPoints {
  /** The newest block with point rows, and its hash (null: none yet). */
  top: { number: bigint; hash: string } | null;
  /** The hash now stored for block `known` (null: none): a reader's check that its blocks still stand. */
  knownHash: string | null;
  /** Transactions of blocks above `above` (and above top - `blocks`), newest first, at most `limit`. */
  txs: PointTransaction[];
}

const RECENT_QUERY = {
  name: 'point_recent_txs',
  text: `WITH top AS (SELECT number, hash FROM point_blocks ORDER BY number DESC LIMIT 1)
    SELECT top.number::text AS top, encode(top.hash, 'hex') AS top_hash,
           (SELECT encode(hash, 'hex') FROM point_blocks WHERE number = $1) AS known_hash, x.*
    FROM (SELECT 1) one LEFT JOIN top ON true LEFT JOIN LATERAL (
      SELECT encode(t.hash, 'hex') AS hash, ${ROW_COLS}, encode(b.hash, 'hex') AS block_hash, b.data AS block_data
      FROM point_transactions t JOIN point_blocks b ON b.number = t.block_number
      WHERE t.block_number > greatest($2::bigint, top.number - $3::bigint)
      ORDER BY t.block_number DESC, t.transaction_index DESC LIMIT $4) x ON true`,
} as const;

/**
 * The transactions of the newest blocks, above block `above` and among the newest `blocks`
 * blocks, newest first, at most `limit` (the API's window of recent blocks, src/api/recent-transactions.ts);
 * with the newest block stored and the hash now stored at `known`, in one read.
 */
export async function recentPointTransactions(
  pg: PgStore,
  o: { known: bigint; above: bigint; blocks: number; limit: number },
): Promise<RecentPoints> {
  const r = await pg.pool.query<Partial<PointTxRow> & { hash: string | null; top: string | null; top_hash: string | null; known_hash: string | null }>({
    ...RECENT_QUERY,
    values: [o.known.toString(), o.above.toString(), o.blocks, o.limit],
  });
  const first = r.rows[0];
  const blocks: BlockFacts = new Map();
  const txs: PointTransaction[] = [];
  for (const row of r.rows) if (row.hash !== null) txs.push(pointTransactionOf(`0x${row.hash}`, row as PointTxRow, blocks));
  return {
    top: first?.top != null && first.top_hash != null ? { number: BigInt(first.top), hash: `0x${first.top_hash}` } : null,
    knownHash: first?.known_hash != null ? `0x${first.known_hash}` : null,
    txs,
  };
}
