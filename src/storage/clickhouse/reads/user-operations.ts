// ERC-4337 reads for the API's /proxy/account-abstraction/* paths: user operations by hash and in
// lists, and the aggregates Blockscout's user-ops-indexer answers (accounts, bundlers, paymasters,
// factories, bundles), all from `user_operations` (sql/clickhouse/0010). FINAL everywhere: a range
// re-inserted after a crash may hold a row twice until a merge, and the table is small (a user
// operation per bundle transaction or so), so the merge on read costs little.
import type { UserOperationRow } from '../../../chain/clickhouse-rows.js';
import type { ClickHouseStore } from '../store.js';

/** A stored user operation as read back: 64-bit and 256-bit numbers as strings; `ts` in unix seconds. */
export type UserOperationRead = Omit<UserOperationRow, 'block_number' | 'timestamp'> & { block_number: string; ts: number };

const COLUMNS = `block_number, transaction_index, bundle_index, op_index, hash, block_hash, transaction_hash, toUnixTimestamp(timestamp) AS ts,
  entry_point, entry_point_version, sender, nonce, init_code, factory, call_data, call_gas_limit, verification_gas_limit,
  pre_verification_gas, max_fee_per_gas, max_priority_fee_per_gas, account_gas_limits, gas_fees, paymaster, paymaster_and_data,
  signature, aggregator, aggregator_signature, bundler, beneficiary, status, revert_reason, gas, gas_used, actual_gas_cost,
  sponsor_type, user_logs_start_index, user_logs_count`;

/** Parameters without the unset ones (a server's client would send them as text). */
const defined = (p: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined));

export async function userOperationByHash(ch: ClickHouseStore, hash: string): Promise<UserOperationRead | null> {
  const rows = await ch.query<UserOperationRead>(`SELECT ${COLUMNS} FROM user_operations FINAL WHERE hash = {h:String} LIMIT 1`, { h: hash });
  return rows[0] ?? null;
}

export interface UserOperationFilter {
  sender?: string;
  bundler?: string;
  paymaster?: string;
  factory?: string;
  transaction_hash?: string;
  bundle_index?: number;
  entry_point?: string;
  block_number?: bigint;
}

/**
 * Newest first as Blockscout's list_user_ops: by (block_number, hash) descending, from the cursor
 * (the first row of the page, inclusive) on; `limit` rows.
 */
export async function listUserOperations(
  ch: ClickHouseStore,
  f: UserOperationFilter,
  after: { block: bigint; hash: string } | undefined,
  limit: number,
): Promise<UserOperationRead[]> {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit };
  for (const k of ['sender', 'bundler', 'paymaster', 'factory', 'transaction_hash', 'entry_point'] as const) {
    if (f[k] !== undefined) {
      where.push(`${k} = {${k}:String}`);
      params[k] = f[k];
    }
  }
  // Blockscout filters by bundle_index only together with a transaction hash.
  if (f.transaction_hash !== undefined && f.bundle_index !== undefined) {
    where.push('bundle_index = {bundle_index:UInt32}');
    params.bundle_index = f.bundle_index;
  }
  if (f.block_number !== undefined) {
    where.push('block_number = {block_number:UInt64}');
    params.block_number = f.block_number.toString();
  }
  if (after) {
    where.push('(block_number, hash) <= ({after_block:UInt64}, {after_hash:String})');
    params.after_block = after.block.toString();
    params.after_hash = after.hash;
  }
  return ch.query<UserOperationRead>(
    `SELECT ${COLUMNS} FROM user_operations FINAL ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY block_number DESC, hash DESC LIMIT {limit:UInt32}`,
    params,
  );
}

export interface AccountRead {
  address: string;
  total_ops: string;
  /** '' when no operation of this account carried a factory. */
  creation_factory: string;
  creation_op_hash: string;
  creation_transaction_hash: string;
  /** Unix seconds; 0 without a creation operation. */
  creation_ts: number;
}

// The aliases differ from the columns: ClickHouse would take `factory` in the HAVING and in the
// other aggregates for the alias, an aggregate inside an aggregate.
const ACCOUNT_SELECT = `SELECT sender AS address, toString(count()) AS total_ops,
    argMinIf(factory, (block_number, transaction_index, bundle_index, op_index), factory != '') AS creation_factory,
    argMinIf(hash, (block_number, transaction_index, bundle_index, op_index), factory != '') AS creation_op_hash,
    argMinIf(transaction_hash, (block_number, transaction_index, bundle_index, op_index), factory != '') AS creation_transaction_hash,
    toUnixTimestamp(argMinIf(timestamp, (block_number, transaction_index, bundle_index, op_index), factory != '')) AS creation_ts
  FROM user_operations FINAL`;

/** An account (a user operation's sender) with its operation count and the operation that deployed it. */
export async function accountByAddress(ch: ClickHouseStore, address: string): Promise<AccountRead | null> {
  const rows = await ch.query<AccountRead>(`${ACCOUNT_SELECT} WHERE sender = {a:String} GROUP BY sender`, { a: address });
  return rows[0] ?? null;
}

/** Accounts in address order (Blockscout's list_accounts), from `from` (inclusive) on, optionally those a factory deployed. */
export async function listAccounts(ch: ClickHouseStore, factory: string | undefined, from: string | undefined, limit: number): Promise<AccountRead[]> {
  return ch.query<AccountRead>(
    `${ACCOUNT_SELECT} WHERE sender >= {from:String} GROUP BY sender
     ${factory !== undefined ? 'HAVING creation_factory = {factory:String}' : ''} ORDER BY sender LIMIT {limit:UInt32}`,
    defined({ from: from ?? '', factory, limit }),
  );
}

export interface CountedAddressRead {
  address: string;
  total: string;
  /** Bundlers only: how many bundles. */
  bundles?: string;
}

type Role = 'bundler' | 'paymaster' | 'factory';

/**
 * One role's addresses with their counts: a bundler's operations and bundles, a paymaster's
 * operations, a factory's deployed accounts (its operations carrying it). `address` set: that one
 * (none when it never had the role); else the list by rank (a bundler's bundles, the others' count)
 * and address descending, from the cursor (inclusive, as Blockscout's page token) on.
 */
export async function roleCounts(
  ch: ClickHouseStore,
  role: Role,
  opts: { address?: string; from?: { total: bigint; address: string }; limit: number },
): Promise<CountedAddressRead[]> {
  // Bundlers rank by their bundles, the others by their operations (Blockscout's ORDER BY 2 DESC, 1 DESC).
  const rank = role === 'bundler' ? 'uniqExact(transaction_hash, bundle_index)' : 'count()';
  const bundles = role === 'bundler' ? ', toString(uniqExact(transaction_hash, bundle_index)) AS bundles' : '';
  const where = opts.address !== undefined ? `${role} = {a:String}` : `${role} != ''`;
  const having = opts.from ? `HAVING (${rank}, address) <= ({from_total:UInt64}, {from_address:String})` : '';
  return ch.query<CountedAddressRead>(
    `SELECT ${role} AS address, toString(count()) AS total${bundles} FROM user_operations FINAL WHERE ${where}
     GROUP BY ${role} ${having} ORDER BY ${rank} DESC, address DESC LIMIT {limit:UInt32}`,
    defined({ a: opts.address, from_total: opts.from?.total.toString(), from_address: opts.from?.address, limit: opts.limit }),
  );
}

export interface BundleRead {
  transaction_hash: string;
  bundle_index: number;
  block_number: string;
  bundler: string;
  ts: number;
  total_ops: string;
}

/** Bundles newest first (Blockscout's list_bundles), from the cursor (inclusive) on. */
export async function listBundles(
  ch: ClickHouseStore,
  f: { bundler?: string; entry_point?: string },
  from: { block: bigint; hash: string; index: number } | undefined,
  limit: number,
): Promise<BundleRead[]> {
  const where: string[] = [];
  // The table's alias names the columns: `bundler` alone would be the select's any(bundler), an
  // aggregate in WHERE (the filter answered 500).
  if (f.bundler !== undefined) where.push('u.bundler = {bundler:String}');
  if (f.entry_point !== undefined) where.push('u.entry_point = {entry_point:String}');
  if (from) where.push('(u.block_number, u.transaction_hash, u.bundle_index) <= ({fb:UInt64}, {fh:String}, {fi:UInt32})');
  return ch.query<BundleRead>(
    `SELECT transaction_hash, bundle_index, block_number, any(u.bundler) AS bundler, toUnixTimestamp(any(u.timestamp)) AS ts, toString(count()) AS total_ops
     FROM user_operations AS u FINAL ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     GROUP BY block_number, transaction_hash, bundle_index
     ORDER BY block_number DESC, transaction_hash DESC, bundle_index DESC LIMIT {limit:UInt32}`,
    defined({ bundler: f.bundler, entry_point: f.entry_point, fb: from?.block.toString(), fh: from?.hash, fi: from?.index, limit }),
  );
}

/** Whether `hash` is a stored user operation's (search). */
export async function userOperationExists(ch: ClickHouseStore, hash: string): Promise<{ ts: number } | null> {
  const rows = await ch.query<{ ts: number }>(`SELECT toUnixTimestamp(timestamp) AS ts FROM user_operations WHERE hash = {h:String} LIMIT 1`, { h: hash });
  return rows[0] ?? null;
}
