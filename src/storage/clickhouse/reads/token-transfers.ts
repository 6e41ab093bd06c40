// Token transfer reads for the API. Items are one per (log, batch position): an ERC-1155
// TransferBatch gives one item per id, in batch order. Lists are newest first by (block, log) and
// in batch order inside a log; a transaction's transfers are in log order.
import type { ClickHouseStore } from '../store.js';
import { U32_MAX, clampIdx, clampU64, directionSql, type Direction, type TransferKey } from './common.js';
import type { TokenRow } from '../../postgres/reads/tokens.js';

export interface TokenTransferRead {
  block_number: string;
  log_index: number;
  batch_index: number;
  transaction_index: number;
  transaction_hash: string;
  block_hash: string;
  /** Unix seconds. */
  ts: number;
  token_address: string;
  token_type: string;
  from: string;
  to: string;
  value: string;
  token_id: string | null;
  kind: string;
  method_id: string;
  /** Number of ids in this item's log (1 unless an ERC-1155 batch). */
  batch_size: number;
  /**
   * The token's derived record (PostgreSQL `tokens`), attached to the rows the API reads through
   * its context (src/api/context.ts); undefined when read without it, null when not derived yet.
   */
  token_meta?: TokenRow | null;
}

const COLUMNS = `block_number, log_index, batch_index, transaction_index, transaction_hash, block_hash, toUnixTimestamp(timestamp) AS ts,
  token_address, token_type, "from", "to", value, token_id, kind, method_id`;

// batch_size of each row's log, computed over the same block range (a window over the log).
const WITH_BATCH = `count() OVER (PARTITION BY block_number, log_index) AS batch_size`;

function keyParams(k: TransferKey | undefined): Record<string, unknown> {
  if (!k) return {};
  return {
    kb: clampU64(k.block),
    kl: clampIdx(k.logIndex),
    // A whole log already shown: every position of it counts as shown.
    kx: k.batchIndex === undefined ? U32_MAX + 1n : clampIdx(k.batchIndex),
  };
}

/** Strictly after `k` in (block desc, log desc, batch asc) order. */
const AFTER_DESC = `(block_number < {kb:UInt64} OR (block_number = {kb:UInt64} AND (log_index < {kl:Int64} OR (log_index = {kl:Int64} AND batch_index > {kx:Int64}))))`;
/** Strictly after `k` in (log asc, batch asc) order inside one block. */
const AFTER_ASC = `(log_index > {kl:Int64} OR (log_index = {kl:Int64} AND batch_index > {kx:Int64}))`;

function typeFilter(types: readonly string[] | undefined): string {
  return types && types.length ? ' AND token_type IN {types:Array(String)}' : '';
}

/** One transaction's transfers, in log order. */
export async function transactionTokenTransfers(
  ch: ClickHouseStore,
  block: bigint,
  txIndex: number,
  o: { after?: TransferKey; types?: readonly string[]; limit: number },
): Promise<TokenTransferRead[]> {
  // No window for batch_size here (it doubled the cost of this read, the one a transaction page
  // waits for): a log's items are all in the page unless the page starts or ends inside it, and
  // only an ERC-1155 TransferBatch log has more than one item; just those are counted.
  const rows = await ch.query<TokenTransferRead>(
    `SELECT ${COLUMNS} FROM token_transfers
     WHERE block_number = {b:UInt64} AND transaction_index = {t:UInt32}${o.after ? ` AND ${AFTER_ASC}` : ''}${typeFilter(o.types)}
     ORDER BY log_index, batch_index LIMIT {limit:UInt32}`,
    { b: clampU64(block), t: txIndex, ...keyParams(o.after), types: o.types, limit: o.limit },
  );
  const seen = new Map<number, number>();
  for (const r of rows) seen.set(r.log_index, (seen.get(r.log_index) ?? 0) + 1);
  const cut = new Set<number>();
  if (rows.length) {
    if (o.after) cut.add(rows[0].log_index);
    if (rows.length >= o.limit) cut.add(rows[rows.length - 1].log_index);
  }
  const ask = [...cut].filter((l) => rows.some((r) => r.log_index === l && r.token_type === 'ERC-1155'));
  const counted = new Map<number, number>();
  if (ask.length) {
    const n = await ch.query<{ log_index: number; n: string }>(
      'SELECT log_index, count() AS n FROM token_transfers WHERE block_number = {b:UInt64} AND log_index IN {ls:Array(UInt32)} GROUP BY log_index',
      { b: clampU64(block), ls: ask },
    );
    for (const r of n) counted.set(Number(r.log_index), Number(r.n));
  }
  for (const r of rows) r.batch_size = counted.get(r.log_index) ?? (r.token_type === 'ERC-1155' ? seen.get(r.log_index)! : 1);
  return rows;
}

/**
 * A page of transfers newest first: the page's keys are chosen from `keyTable` (a key range read
 * in reverse), then its rows are read from token_transfers with batch sizes counted over just the
 * blocks they come from.
 */
function newestFirst(keyTable: string, where: string): string {
  return `WITH page AS (
       SELECT block_number, log_index, batch_index FROM ${keyTable}
       WHERE ${where}
       ORDER BY block_number DESC, log_index DESC, batch_index LIMIT {limit:UInt32})
     SELECT * FROM (
       SELECT ${COLUMNS}, ${WITH_BATCH} FROM token_transfers
       WHERE block_number IN (SELECT block_number FROM page))
     WHERE (block_number, log_index, batch_index) IN (SELECT * FROM page)
     ORDER BY block_number DESC, log_index DESC, batch_index`;
}

/** Every transfer, newest first. */
export async function listTokenTransfers(
  ch: ClickHouseStore,
  o: { after?: TransferKey; types?: readonly string[]; limit: number },
): Promise<TokenTransferRead[]> {
  return ch.query<TokenTransferRead>(
    newestFirst('token_transfers', `1${o.after ? ` AND ${AFTER_DESC}` : ''}${typeFilter(o.types)}`),
    { ...keyParams(o.after), types: o.types, limit: o.limit },
  );
}

/** An address's transfers (either side unless `direction`), newest first. */
export async function addressTokenTransfers(
  ch: ClickHouseStore,
  address: string,
  o: { direction: Direction; token?: string; after?: TransferKey; types?: readonly string[]; limit: number },
): Promise<TokenTransferRead[]> {
  const token = o.token ? ' AND token_address = {token:String}' : '';
  return ch.query<TokenTransferRead>(
    newestFirst('address_token_transfers', `address = {a:String}${directionSql(o.direction)}${token}${o.after ? ` AND ${AFTER_DESC}` : ''}${typeFilter(o.types)}`),
    { a: address, token: o.token, ...keyParams(o.after), types: o.types, limit: o.limit },
  );
}

/** A token's transfers, newest first (token_transfers_by_token is one key range per token). */
export async function tokenTokenTransfers(
  ch: ClickHouseStore,
  token: string,
  o: { after?: TransferKey; limit: number },
): Promise<TokenTransferRead[]> {
  return ch.query<TokenTransferRead>(
    newestFirst('token_transfers_by_token', `token_address = {t:String}${o.after ? ` AND ${AFTER_DESC}` : ''}`),
    { t: token, ...keyParams(o.after), limit: o.limit },
  );
}

/** Whether any transfer of this token is stored. */
export async function tokenHasTransfers(ch: ClickHouseStore, token: string): Promise<boolean> {
  const rows = await ch.query('SELECT 1 FROM token_transfers_by_token WHERE token_address = {t:String} LIMIT 1', { t: token });
  return rows.length > 0;
}

/** A movement of a token before a given transaction of its block (state changes' balances). */
export interface EarlierTransferRead {
  token_address: string;
  token_type: string;
  from: string;
  to: string;
  value: string;
  token_id: string | null;
}

/** Transfers of these tokens by the transactions of `block` before `txIndex`, in chain order. */
export async function earlierTransfersInBlock(ch: ClickHouseStore, block: bigint, txIndex: number, tokens: readonly string[]): Promise<EarlierTransferRead[]> {
  if (!tokens.length || txIndex === 0) return [];
  return ch.query<EarlierTransferRead>(
    `SELECT token_address, token_type, "from", "to", value, token_id FROM token_transfers
     WHERE block_number = {b:UInt64} AND transaction_index < {t:UInt32} AND token_address IN {tokens:Array(String)}
     ORDER BY log_index, batch_index`,
    { b: clampU64(block), t: txIndex, tokens: [...new Set(tokens)] },
  );
}

/** Largest value of a UInt256 column: an NFT id beyond it has no transfers. */
const U256_MAX = (1n << 256n) - 1n;

/**
 * Transfers of one NFT instance (token, id), newest first: a range of token_transfers_by_token
 * (the token's range, filtered on the id), one item per (log, batch position) carrying that id.
 * `tokenId` is a digit string; a negative one or one beyond uint256 has no transfers.
 */
export async function tokenInstanceTransfers(
  ch: ClickHouseStore,
  token: string,
  tokenId: string,
  o: { after?: TransferKey; limit: number },
): Promise<TokenTransferRead[]> {
  const id = BigInt(tokenId);
  if (id < 0n || id > U256_MAX) return [];
  return ch.query<TokenTransferRead>(
    newestFirst('token_transfers_by_token', `token_address = {t:String} AND token_id = {id:UInt256}${o.after ? ` AND ${AFTER_DESC}` : ''}`),
    { t: token, id, ...keyParams(o.after), limit: o.limit },
  );
}

/** How many transfer logs carry this NFT instance (an ERC-1155 batch naming it counts once). */
export async function tokenInstanceTransferCount(ch: ClickHouseStore, token: string, tokenId: string): Promise<number> {
  const id = BigInt(tokenId);
  if (id < 0n || id > U256_MAX) return 0;
  const [r] = await ch.query<{ n: string }>(
    'SELECT uniqExact(block_number, log_index) AS n FROM token_transfers_by_token WHERE token_address = {t:String} AND token_id = {id:UInt256}',
    { t: token, id },
  );
  return Number(r?.n ?? 0);
}
