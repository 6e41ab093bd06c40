-- Chain history. Every table is a ReplacingMergeTree whose ORDER BY is the row's natural
-- unique key, so re-inserting a range (after a crash) replaces rows instead of doubling them;
-- the indexer also deletes rows above its committed checkpoint before it resumes, and the
-- orphaned blocks' rows on a reorg, so reads need no FINAL. Why each sort key is what it is:
-- docs/architecture.md, "ClickHouse tables".
-- Hashes and addresses are lower-case 0x strings; an absent address is ''.

CREATE TABLE IF NOT EXISTS blocks (
  number UInt64,
  hash String,
  parent_hash String,
  timestamp DateTime('UTC'),
  miner String,
  size UInt64,
  gas_limit UInt64,
  gas_used UInt64,
  base_fee_per_gas Nullable(UInt256),
  difficulty UInt256,
  total_difficulty Nullable(UInt256),
  nonce String,
  mix_hash String,
  extra_data String,
  state_root String,
  transactions_root String,
  receipts_root String,
  sha3_uncles String,
  uncles Array(String),
  transaction_count UInt32,
  withdrawals_root Nullable(String),
  withdrawal_count UInt32,
  blob_gas_used Nullable(UInt64),
  excess_blob_gas Nullable(UInt64),
  parent_beacon_block_root Nullable(String),
  burnt_fees UInt256,
  priority_fees UInt256
) ENGINE = ReplacingMergeTree ORDER BY number;

-- hash -> position, for /blocks/{hash}, /transactions/{hash} and search.
CREATE TABLE IF NOT EXISTS hash_index (
  hash String,
  kind Enum8('block' = 1, 'transaction' = 2),
  block_number UInt64,
  transaction_index UInt32
) ENGINE = ReplacingMergeTree ORDER BY hash;

CREATE TABLE IF NOT EXISTS withdrawals (
  block_number UInt64,
  withdrawal_index UInt64,
  validator_index UInt64,
  address String,
  amount UInt256,
  timestamp DateTime('UTC')
) ENGINE = ReplacingMergeTree ORDER BY (block_number, withdrawal_index);

CREATE TABLE IF NOT EXISTS transactions (
  block_number UInt64,
  transaction_index UInt32,
  hash String,
  block_hash String,
  timestamp DateTime('UTC'),
  from String,
  to String,
  nonce UInt64,
  value UInt256,
  gas UInt64,
  gas_price Nullable(UInt256),
  max_fee_per_gas Nullable(UInt256),
  max_priority_fee_per_gas Nullable(UInt256),
  type UInt8,
  input String,
  method_id String,
  status Nullable(UInt8),
  gas_used UInt64,
  cumulative_gas_used UInt64,
  effective_gas_price UInt256,
  fee UInt256,
  created_contract String,
  error String,
  chain_id Nullable(UInt64),
  v String,
  r String,
  s String,
  y_parity Nullable(UInt8),
  access_list String,
  max_fee_per_blob_gas Nullable(UInt256),
  blob_versioned_hashes Array(String),
  blob_gas_used Nullable(UInt64),
  blob_gas_price Nullable(UInt256),
  authorization_list String,
  log_count UInt32,
  token_transfer_count UInt32,
  internal_count UInt32
) ENGINE = ReplacingMergeTree ORDER BY (block_number, transaction_index);

-- One row per (address, transaction) the address sent, received or created.
CREATE TABLE IF NOT EXISTS address_transactions (
  address String,
  block_number UInt64,
  transaction_index UInt32,
  hash String,
  is_from UInt8,
  is_to UInt8
) ENGINE = ReplacingMergeTree ORDER BY (address, block_number, transaction_index);

CREATE TABLE IF NOT EXISTS logs (
  block_number UInt64,
  log_index UInt32,
  transaction_index UInt32,
  transaction_hash String,
  block_hash String,
  address String,
  topic0 String,
  topic1 String,
  topic2 String,
  topic3 String,
  data String,
  timestamp DateTime('UTC')
) ENGINE = ReplacingMergeTree ORDER BY (block_number, log_index);

CREATE TABLE IF NOT EXISTS address_logs (
  address String,
  block_number UInt64,
  log_index UInt32
) ENGINE = ReplacingMergeTree ORDER BY (address, block_number, log_index);

-- batch_index: position inside an ERC-1155 TransferBatch (0 otherwise).
CREATE TABLE IF NOT EXISTS token_transfers (
  block_number UInt64,
  log_index UInt32,
  batch_index UInt32,
  transaction_index UInt32,
  transaction_hash String,
  block_hash String,
  timestamp DateTime('UTC'),
  token_address String,
  token_type LowCardinality(String),
  from String,
  to String,
  value UInt256,
  token_id Nullable(UInt256),
  kind LowCardinality(String),
  method_id String
) ENGINE = ReplacingMergeTree ORDER BY (block_number, log_index, batch_index);

CREATE TABLE IF NOT EXISTS address_token_transfers (
  address String,
  block_number UInt64,
  log_index UInt32,
  batch_index UInt32,
  token_address String,
  token_type LowCardinality(String),
  is_from UInt8,
  is_to UInt8
) ENGINE = ReplacingMergeTree ORDER BY (address, block_number, log_index, batch_index);

CREATE TABLE IF NOT EXISTS token_transfers_by_token (
  token_address String,
  block_number UInt64,
  log_index UInt32,
  batch_index UInt32,
  token_id Nullable(UInt256)
) ENGINE = ReplacingMergeTree ORDER BY (token_address, block_number, log_index, batch_index);

-- trace_index: position of the frame in depth-first order within its transaction (0 is the
-- top-level call, which Blockscout does not list as an internal transaction but we keep).
CREATE TABLE IF NOT EXISTS internal_transactions (
  block_number UInt64,
  transaction_index UInt32,
  trace_index UInt32,
  transaction_hash String,
  block_hash String,
  timestamp DateTime('UTC'),
  trace_address Array(UInt32),
  type LowCardinality(String),
  call_type LowCardinality(String),
  from String,
  to String,
  value UInt256,
  gas UInt64,
  gas_used UInt64,
  input String,
  output String,
  error String,
  created_contract_address String,
  created_contract_code String
) ENGINE = ReplacingMergeTree ORDER BY (block_number, transaction_index, trace_index);

CREATE TABLE IF NOT EXISTS address_internal_transactions (
  address String,
  block_number UInt64,
  transaction_index UInt32,
  trace_index UInt32,
  is_from UInt8,
  is_to UInt8
) ENGINE = ReplacingMergeTree ORDER BY (address, block_number, transaction_index, trace_index);
