// The ClickHouse row format of the chain tables, the storage format the workers write: the
// column lists, in ONE place. They mirror the CREATE TABLE statements of sql/clickhouse/0001_chain.sql, 0004_block_rewards.sql, 0008_transaction_blobs.sql and 0010_user_operations.sql, with the columns later migrations add (0009_op_stack.sql: transactions.op), exactly (names, order and types);
// test/decode-tables.test.ts parses the SQL files and fails on any drift.
// The row types below are derived from these lists, so a renamed column is a compile error in
// every decoder that fills it.

export const TABLE_COLUMNS = {
  blocks: [
    ['number', 'UInt64'],
    ['hash', 'String'],
    ['parent_hash', 'String'],
    ['timestamp', "DateTime('UTC')"],
    ['miner', 'String'],
    ['size', 'UInt64'],
    ['gas_limit', 'UInt64'],
    ['gas_used', 'UInt64'],
    ['base_fee_per_gas', 'Nullable(UInt256)'],
    ['difficulty', 'UInt256'],
    ['total_difficulty', 'Nullable(UInt256)'],
    ['nonce', 'String'],
    ['mix_hash', 'String'],
    ['extra_data', 'String'],
    ['state_root', 'String'],
    ['transactions_root', 'String'],
    ['receipts_root', 'String'],
    ['sha3_uncles', 'String'],
    ['uncles', 'Array(String)'],
    ['transaction_count', 'UInt32'],
    ['withdrawals_root', 'Nullable(String)'],
    ['withdrawal_count', 'UInt32'],
    ['blob_gas_used', 'Nullable(UInt64)'],
    ['excess_blob_gas', 'Nullable(UInt64)'],
    ['parent_beacon_block_root', 'Nullable(String)'],
    ['burnt_fees', 'UInt256'],
    ['priority_fees', 'UInt256'],
    // OP Stack: the L1 data and operator fees of its transactions (0 on other chains; sql/clickhouse/0012).
    ['op_fees', 'UInt256'],
  ],
  hash_index: [
    ['hash', 'String'],
    ['kind', "Enum8('block' = 1, 'transaction' = 2)"],
    ['block_number', 'UInt64'],
    ['transaction_index', 'UInt32'],
  ],
  withdrawals: [
    ['block_number', 'UInt64'],
    ['withdrawal_index', 'UInt64'],
    ['validator_index', 'UInt64'],
    ['address', 'String'],
    ['amount', 'UInt256'],
    ['timestamp', "DateTime('UTC')"],
  ],
  transactions: [
    ['block_number', 'UInt64'],
    ['transaction_index', 'UInt32'],
    ['hash', 'String'],
    ['block_hash', 'String'],
    ['timestamp', "DateTime('UTC')"],
    ['from', 'String'],
    ['to', 'String'],
    ['nonce', 'UInt64'],
    ['value', 'UInt256'],
    ['gas', 'UInt64'],
    ['gas_price', 'Nullable(UInt256)'],
    ['max_fee_per_gas', 'Nullable(UInt256)'],
    ['max_priority_fee_per_gas', 'Nullable(UInt256)'],
    ['type', 'UInt8'],
    ['input', 'String'],
    ['method_id', 'String'],
    ['status', 'Nullable(UInt8)'],
    ['gas_used', 'UInt64'],
    ['cumulative_gas_used', 'UInt64'],
    ['effective_gas_price', 'UInt256'],
    ['fee', 'UInt256'],
    ['created_contract', 'String'],
    ['error', 'String'],
    ['chain_id', 'Nullable(UInt64)'],
    ['v', 'String'],
    ['r', 'String'],
    ['s', 'String'],
    ['y_parity', 'Nullable(UInt8)'],
    ['access_list', 'String'],
    ['max_fee_per_blob_gas', 'Nullable(UInt256)'],
    ['blob_versioned_hashes', 'Array(String)'],
    ['blob_gas_used', 'Nullable(UInt64)'],
    ['blob_gas_price', 'Nullable(UInt256)'],
    ['authorization_list', 'String'],
    ['log_count', 'UInt32'],
    ['token_transfer_count', 'UInt32'],
    ['internal_count', 'UInt32'],
    ['op', 'String'],
  ],
  address_transactions: [
    ['address', 'String'],
    ['block_number', 'UInt64'],
    ['transaction_index', 'UInt32'],
    ['is_from', 'UInt8'],
    ['is_to', 'UInt8'],
  ],
  logs: [
    ['block_number', 'UInt64'],
    ['log_index', 'UInt32'],
    ['transaction_index', 'UInt32'],
    ['transaction_hash', 'String'],
    ['block_hash', 'String'],
    ['address', 'String'],
    ['topic0', 'String'],
    ['topic1', 'String'],
    ['topic2', 'String'],
    ['topic3', 'String'],
    ['data', 'String'],
    ['timestamp', "DateTime('UTC')"],
  ],
  address_logs: [
    ['address', 'String'],
    ['block_number', 'UInt64'],
    ['log_index', 'UInt32'],
  ],
  token_transfers: [
    ['block_number', 'UInt64'],
    ['log_index', 'UInt32'],
    ['batch_index', 'UInt32'],
    ['transaction_index', 'UInt32'],
    ['transaction_hash', 'String'],
    ['block_hash', 'String'],
    ['timestamp', "DateTime('UTC')"],
    ['token_address', 'String'],
    ['token_type', 'LowCardinality(String)'],
    ['from', 'String'],
    ['to', 'String'],
    ['value', 'UInt256'],
    ['token_id', 'Nullable(UInt256)'],
    ['kind', 'LowCardinality(String)'],
    ['method_id', 'String'],
  ],
  address_token_transfers: [
    ['address', 'String'],
    ['block_number', 'UInt64'],
    ['log_index', 'UInt32'],
    ['batch_index', 'UInt32'],
    ['token_address', 'String'],
    ['token_type', 'LowCardinality(String)'],
    ['is_from', 'UInt8'],
    ['is_to', 'UInt8'],
  ],
  token_transfers_by_token: [
    ['token_address', 'String'],
    ['block_number', 'UInt64'],
    ['log_index', 'UInt32'],
    ['batch_index', 'UInt32'],
    ['token_id', 'Nullable(UInt256)'],
  ],
  internal_transactions: [
    ['block_number', 'UInt64'],
    ['transaction_index', 'UInt32'],
    ['trace_index', 'UInt32'],
    ['transaction_hash', 'String'],
    ['block_hash', 'String'],
    ['timestamp', "DateTime('UTC')"],
    ['trace_address', 'Array(UInt32)'],
    ['type', 'LowCardinality(String)'],
    ['call_type', 'LowCardinality(String)'],
    ['from', 'String'],
    ['to', 'String'],
    ['value', 'UInt256'],
    ['gas', 'UInt64'],
    ['gas_used', 'UInt64'],
    ['input', 'String'],
    ['output', 'String'],
    ['error', 'String'],
    ['created_contract_address', 'String'],
    ['created_contract_code', 'String'],
  ],
  address_internal_transactions: [
    ['address', 'String'],
    ['block_number', 'UInt64'],
    ['transaction_index', 'UInt32'],
    ['trace_index', 'UInt32'],
    ['is_from', 'UInt8'],
    ['is_to', 'UInt8'],
  ],
  transaction_blobs: [
    ['versioned_hash', 'String'],
    ['block_number', 'UInt64'],
    ['transaction_index', 'UInt32'],
    ['transaction_hash', 'String'],
    ['timestamp', "DateTime('UTC')"],
  ],
  user_operations: [
    ['block_number', 'UInt64'],
    ['transaction_index', 'UInt32'],
    ['bundle_index', 'UInt32'],
    ['op_index', 'UInt32'],
    ['hash', 'String'],
    ['block_hash', 'String'],
    ['transaction_hash', 'String'],
    ['timestamp', "DateTime('UTC')"],
    ['entry_point', 'String'],
    ['entry_point_version', 'LowCardinality(String)'],
    ['sender', 'String'],
    ['nonce', 'UInt256'],
    ['init_code', 'String'],
    ['factory', 'String'],
    ['call_data', 'String'],
    ['call_gas_limit', 'UInt256'],
    ['verification_gas_limit', 'UInt256'],
    ['pre_verification_gas', 'UInt256'],
    ['max_fee_per_gas', 'UInt256'],
    ['max_priority_fee_per_gas', 'UInt256'],
    ['account_gas_limits', 'String'],
    ['gas_fees', 'String'],
    ['paymaster', 'String'],
    ['paymaster_and_data', 'String'],
    ['signature', 'String'],
    ['aggregator', 'String'],
    ['aggregator_signature', 'Nullable(String)'],
    ['bundler', 'String'],
    ['beneficiary', 'String'],
    ['status', 'UInt8'],
    ['revert_reason', 'Nullable(String)'],
    ['gas', 'UInt256'],
    ['gas_used', 'UInt256'],
    ['actual_gas_cost', 'UInt256'],
    ['sponsor_type', 'LowCardinality(String)'],
    ['user_logs_start_index', 'UInt32'],
    ['user_logs_count', 'UInt32'],
  ],
  block_rewards: [
    ['block_number', 'UInt64'],
    ['address_type', "Enum8('validator' = 1, 'emission_funds' = 2, 'uncle' = 3)"],
    ['address', 'String'],
    ['reward', 'UInt256'],
  ],
} as const satisfies Record<string, readonly (readonly [string, string])[]>;

export type TableName = keyof typeof TABLE_COLUMNS;

export const TABLE_NAMES = Object.keys(TABLE_COLUMNS) as TableName[];

/** Column names per table, in CREATE TABLE order. */
export const TABLES: Record<TableName, readonly string[]> = Object.fromEntries(
  TABLE_NAMES.map((t) => [t, TABLE_COLUMNS[t].map((c) => c[0])]),
) as unknown as Record<TableName, readonly string[]>;

// ---- Row types derived from the column lists ----

/** TypeScript value type for a ClickHouse column type, as the encoder expects it. */
export type TsType<T extends string> = T extends `Nullable(${infer X})`
  ? TsType<X> | null
  : T extends `LowCardinality(${infer X})`
    ? TsType<X>
    : T extends 'UInt8' | 'UInt16' | 'UInt32'
      ? number
      : T extends 'UInt64'
        ? number | string // number when < 2^53, decimal string otherwise
        : T extends 'UInt256'
          ? string // decimal string
          : T extends `DateTime${string}`
            ? number // unix seconds
            : T extends 'String' | `Enum8(${string})`
              ? string
              : T extends 'Array(String)'
                ? string[]
                : T extends 'Array(UInt32)'
                  ? number[]
                  : never;

type ColumnsOf<T extends TableName> = (typeof TABLE_COLUMNS)[T][number];

export type RowOf<T extends TableName> = {
  [C in ColumnsOf<T> as C[0]]: TsType<C[1]>;
};

export type BlockRow = RowOf<'blocks'>;
export type HashIndexRow = RowOf<'hash_index'>;
export type WithdrawalRow = RowOf<'withdrawals'>;
export type TransactionRow = RowOf<'transactions'>;
export type AddressTransactionRow = RowOf<'address_transactions'>;
export type LogRow = RowOf<'logs'>;
export type AddressLogRow = RowOf<'address_logs'>;
export type TokenTransferRow = RowOf<'token_transfers'>;
export type AddressTokenTransferRow = RowOf<'address_token_transfers'>;
export type TokenTransferByTokenRow = RowOf<'token_transfers_by_token'>;
export type InternalTransactionRow = RowOf<'internal_transactions'>;
/**
 * internal_transactions.input of a top-level frame (trace_index 0) whose input is exactly its
 * transaction's stored input (transactions.input: calldata, or init code for a creation): the
 * calldata is not stored twice (issue #21). Not hex and not empty, so it cannot be taken for a
 * real input: an empty input is stored as the node sends it ('0x', or '' when a frame carries
 * none), and rows stored before this marker keep their full input. Every read puts
 * transactions.input back (src/storage/clickhouse/reads/root-input.ts).
 */
export const ROOT_INPUT_FROM_TX = '=';
/**
 * transactions.input of a row whose calldata is stored in its PostgreSQL point row only (issue
 * #30: the calldata was a quarter of the bytes of both stores, kept twice). Written by the ingest
 * (PointSink) for every row it writes with its point row; rows stored before keep their calldata
 * (the upgrade's backfill builds their point rows from it). Not hex and not empty, so never a real
 * input. Reads put the calldata back from the point rows by hash (`withInputs` in the API).
 */
export const INPUT_IN_POINT_ROW = '@';
export type AddressInternalTransactionRow = RowOf<'address_internal_transactions'>;
export type BlockRewardRow = RowOf<'block_rewards'>;
export type TransactionBlobRow = RowOf<'transaction_blobs'>;
export type UserOperationRow = RowOf<'user_operations'>;
/** Blockscout's `address_type` of a block reward (Explorer.Chain.Block.Reward). */
export type RewardType = 'validator' | 'emission_funds' | 'uncle';

export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155';
export type TransferKind = 'token_transfer' | 'token_minting' | 'token_burning';
