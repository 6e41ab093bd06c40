// Advanced filters (Blockscout's /api/v2/advanced-filters) over the whole chain: transactions,
// internal transactions and token transfers, each read newest first from its own table after a
// shared cursor with the filters the SQL can apply (addresses, methods, age, token standards and
// contracts, coin amounts); src/api/advanced-filters.ts merges them and applies the rest.
import type { ClickHouseStore } from '../store.js';
import { LISTED_FRAME } from './internal-transactions.js';
import { clampIdx, clampU64 } from './common.js';

/** Where the previous page ended: a transaction's own item, one of its token transfers or internal transactions. */
export interface AfCursor {
  block: bigint;
  txIndex: bigint;
  kind: 'transaction' | 'token_transfer' | 'internal';
  /** Log index and batch position (token transfer), trace index (internal). */
  logIndex?: bigint;
  batchIndex?: bigint;
  traceIndex?: bigint;
}

export interface AfSqlFilter {
  /** Senders and receivers: include lists win over exclude lists on each side; both sides by `relation`. */
  from?: { include?: string[]; exclude?: string[] };
  to?: { include?: string[]; exclude?: string[] };
  relation: 'or' | 'and';
  /** 4-byte selectors (lower case, 0x-prefixed). */
  methods?: string[];
  /** Unix seconds, inclusive. */
  ageFrom?: number;
  ageTo?: number;
}

export interface AfTxFilter extends AfSqlFilter {
  /** Any of: value > 0; a creation; a call (a receiver; whether it is a contract is checked after). */
  kinds?: { coin: boolean; creation: boolean; call: boolean };
  /** Wei, inclusive. */
  valueFrom?: bigint;
  valueTo?: bigint;
}

export interface AfTransferFilter extends AfSqlFilter {
  /** Token standards ('ERC-20', ...). */
  tokenTypes?: string[];
  tokens?: { include?: string[]; exclude?: string[] };
}

export interface AfTransactionRow {
  block_number: string;
  transaction_index: number;
  hash: string;
  ts: number;
  from: string;
  to: string;
  created_contract: string;
  value: string;
  fee: string;
  status: number | null;
  error: string;
  method_id: string;
}

export interface AfInternalRow {
  block_number: string;
  transaction_index: number;
  trace_index: number;
  transaction_hash: string;
  ts: number;
  type: string;
  from: string;
  to: string;
  created_contract_address: string;
  value: string;
  gas_used: string;
  error: string;
  method_id: string;
}

export interface AfTransferRow {
  block_number: string;
  transaction_index: number;
  log_index: number;
  batch_index: number;
  transaction_hash: string;
  ts: number;
  token_address: string;
  token_type: string;
  from: string;
  to: string;
  value: string;
  token_id: string | null;
  method_id: string;
}

/** One side's condition, or null when the side is not filtered. */
function side(col: string, s: { include?: string[]; exclude?: string[] } | undefined, name: string, params: Record<string, unknown>): string | null {
  if (s?.include?.length) {
    params[name] = s.include;
    return `${col} IN {${name}:Array(String)}`;
  }
  if (s?.exclude?.length) {
    params[name] = s.exclude;
    return `${col} NOT IN {${name}:Array(String)}`;
  }
  return null;
}

/** The shared conditions: addresses (by relation), methods, age. */
function common(f: AfSqlFilter, fromCol: string, toCol: string, methodExpr: string, params: Record<string, unknown>): string[] {
  const out: string[] = [];
  const a = side(fromCol, f.from, 'af_from', params);
  const b = side(toCol, f.to, 'af_to', params);
  if (a && b) out.push(f.relation === 'and' ? `(${a} AND ${b})` : `(${a} OR ${b})`);
  else if (a || b) out.push((a ?? b)!);
  if (f.methods?.length) {
    params.af_methods = f.methods;
    out.push(`${methodExpr} IN {af_methods:Array(String)}`);
  }
  if (f.ageFrom !== undefined) {
    params.af_age_from = f.ageFrom;
    out.push('timestamp >= toDateTime({af_age_from:Int64})');
  }
  if (f.ageTo !== undefined) {
    params.af_age_to = f.ageTo;
    out.push('timestamp <= toDateTime({af_age_to:Int64})');
  }
  return out;
}

function cursorParams(c: AfCursor | undefined, params: Record<string, unknown>): void {
  if (!c) return;
  params.cb = clampU64(c.block);
  params.ct = clampIdx(c.txIndex);
}

/** Strictly before the cursor's transaction, in (block, transaction index) descending order. */
const BEFORE_TX = '(block_number < {cb:UInt64} OR (block_number = {cb:UInt64} AND transaction_index < {ct:Int64}))';
const SAME_TX = '(block_number = {cb:UInt64} AND transaction_index = {ct:Int64})';

// The reads select `toString(value) AS value`: conditions name the column as `t.value`, since an
// alias would otherwise stand for the text.

/** The kinds asked for (`creation`: how a row says it created a contract) and the value's bounds. */
function coinConditions(f: AfTxFilter, creation: string, params: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (f.kinds) {
    const any: string[] = [];
    if (f.kinds.coin) any.push('t.value > 0');
    if (f.kinds.creation) any.push(creation);
    if (f.kinds.call) any.push(`NOT (${creation})`);
    out.push(any.length ? `(${any.join(' OR ')})` : '0');
  }
  if (f.valueFrom !== undefined) {
    params.af_vf = f.valueFrom.toString();
    out.push('t.value >= toUInt256({af_vf:String})');
  }
  if (f.valueTo !== undefined) {
    params.af_vt = f.valueTo.toString();
    out.push('t.value <= toUInt256({af_vt:String})');
  }
  return out;
}

/** Transactions after the cursor, newest first. */
export async function afTransactions(ch: ClickHouseStore, f: AfTxFilter, cursor: AfCursor | undefined, limit: number): Promise<AfTransactionRow[]> {
  const params: Record<string, unknown> = { limit };
  const where = common(f, '"from"', '"to"', 'method_id', params);
  cursorParams(cursor, params);
  if (cursor) where.push(BEFORE_TX);
  where.push(...coinConditions(f, `"to" = ''`, params));
  return ch.query<AfTransactionRow>(
    `SELECT block_number, transaction_index, hash, toUnixTimestamp(timestamp) AS ts, "from", "to", created_contract, toString(value) AS value,
       toString(fee) AS fee, status, error, method_id
     FROM transactions AS t ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
     ORDER BY block_number DESC, transaction_index DESC LIMIT {limit:UInt32}`,
    params,
  );
}

/** Internal transactions (as listed: below the top level, or a top-level creation) after the cursor, newest first. */
export async function afInternalTransactions(ch: ClickHouseStore, f: AfTxFilter, cursor: AfCursor | undefined, limit: number): Promise<AfInternalRow[]> {
  const params: Record<string, unknown> = { limit };
  const where = [LISTED_FRAME, ...common(f, '"from"', '"to"', 'substring(input, 1, 10)', params)];
  cursorParams(cursor, params);
  if (cursor) {
    if (cursor.kind === 'internal') {
      params.ci = clampIdx(cursor.traceIndex ?? 0n);
      where.push(`(${BEFORE_TX} OR (${SAME_TX} AND trace_index < {ci:Int64}))`);
    } else where.push(`(${BEFORE_TX} OR ${SAME_TX})`);
  }
  where.push(...coinConditions(f, `type IN ('create', 'create2')`, params));
  return ch.query<AfInternalRow>(
    `SELECT block_number, transaction_index, trace_index, transaction_hash, toUnixTimestamp(timestamp) AS ts, type, "from", "to",
       created_contract_address, toString(value) AS value, gas_used, error, substring(input, 1, 10) AS method_id
     FROM internal_transactions AS t WHERE ${where.join(' AND ')}
     ORDER BY block_number DESC, transaction_index DESC, trace_index DESC LIMIT {limit:UInt32}`,
    params,
  );
}

/** Token transfers after the cursor, newest first (in a transaction: by log and batch position, both descending). */
export async function afTokenTransfers(ch: ClickHouseStore, f: AfTransferFilter, cursor: AfCursor | undefined, limit: number): Promise<AfTransferRow[]> {
  const params: Record<string, unknown> = { limit };
  const where = common(f, '"from"', '"to"', 'method_id', params);
  cursorParams(cursor, params);
  if (cursor) {
    if (cursor.kind === 'token_transfer') {
      params.cl = clampIdx(cursor.logIndex ?? 0n);
      params.cx = clampIdx(cursor.batchIndex ?? 0n);
      where.push(`(${BEFORE_TX} OR (${SAME_TX} AND (log_index < {cl:Int64} OR (log_index = {cl:Int64} AND batch_index < {cx:Int64}))))`);
    } else if (cursor.kind === 'transaction') where.push(`(${BEFORE_TX} OR ${SAME_TX})`);
    else where.push(BEFORE_TX);
  }
  if (f.tokenTypes) {
    params.af_types = f.tokenTypes;
    where.push('token_type IN {af_types:Array(String)}');
  }
  const t = side('token_address', f.tokens, 'af_tokens', params);
  if (t) where.push(t);
  return ch.query<AfTransferRow>(
    `SELECT block_number, transaction_index, log_index, batch_index, transaction_hash, toUnixTimestamp(timestamp) AS ts, token_address,
       token_type, "from", "to", toString(value) AS value, toString(token_id) AS token_id, method_id
     FROM token_transfers ${where.length ? 'WHERE ' + where.join(' AND ') : ''}
     ORDER BY block_number DESC, transaction_index DESC, log_index DESC, batch_index DESC LIMIT {limit:UInt32}`,
    params,
  );
}

/** Fee and status of the transactions these items belong to, by "block:index" (one read by key). */
export async function afTransactionFacts(
  ch: ClickHouseStore,
  keys: readonly { block: string; index: number }[],
): Promise<Map<string, { fee: string; status: number | null; error: string; gas_price: string; to: string; method_id: string }>> {
  const out = new Map<string, { fee: string; status: number | null; error: string; gas_price: string; to: string; method_id: string }>();
  if (!keys.length) return out;
  const rows = await ch.query<{ block_number: string; transaction_index: number; fee: string; status: number | null; error: string; gas_price: string; to: string; method_id: string }>(
    `SELECT block_number, transaction_index, toString(fee) AS fee, status, error, toString(effective_gas_price) AS gas_price, "to", method_id FROM transactions
     WHERE block_number IN {bs:Array(UInt64)} AND has(arrayZip({bs:Array(UInt64)}, {is:Array(UInt32)}), (block_number, transaction_index))`,
    { bs: keys.map((k) => BigInt(k.block)), is: keys.map((k) => k.index) },
  );
  for (const r of rows) out.set(`${r.block_number}:${r.transaction_index}`, r);
  return out;
}
