-- ERC-4337 user operations (issue #32): one row per user operation an EntryPoint (v0.6, v0.7,
-- v0.8) executed, decoded by the indexer from the bundle's handleOps / handleAggregatedOps calldata
-- and the EntryPoint's logs (src/chain/user-operations.ts), written beside the transaction's rows
-- and deleted with them above a checkpoint or on a reorg, like every chain table; re-inserts
-- replace. Sorted by chain position (the lists' order, newest first, and a block's rewind); the
-- reads by hash, sender, bundler and transaction go through bloom-filter skip indexes, since a
-- user operation is a small share of a chain's transactions and the API's other orders are scans
-- of this table only. Optional addresses (factory, paymaster, aggregator) are '' when absent;
-- v0.7+ keeps its packed words (account_gas_limits, gas_fees) beside the unpacked limits.
CREATE TABLE IF NOT EXISTS user_operations (
  block_number UInt64 CODEC(T64, ZSTD(1)),
  transaction_index UInt32 CODEC(T64, ZSTD(1)),
  bundle_index UInt32 CODEC(T64, ZSTD(1)),
  op_index UInt32 CODEC(T64, ZSTD(1)),
  hash String CODEC(ZSTD(1)),
  block_hash String CODEC(ZSTD(1)),
  transaction_hash String CODEC(ZSTD(1)),
  timestamp DateTime('UTC') CODEC(ZSTD(1)),
  entry_point String CODEC(ZSTD(1)),
  entry_point_version LowCardinality(String),
  sender String CODEC(ZSTD(1)),
  nonce UInt256 CODEC(ZSTD(1)),
  init_code String CODEC(ZSTD(1)),
  factory String CODEC(ZSTD(1)),
  call_data String CODEC(ZSTD(1)),
  call_gas_limit UInt256 CODEC(ZSTD(1)),
  verification_gas_limit UInt256 CODEC(ZSTD(1)),
  pre_verification_gas UInt256 CODEC(ZSTD(1)),
  max_fee_per_gas UInt256 CODEC(ZSTD(1)),
  max_priority_fee_per_gas UInt256 CODEC(ZSTD(1)),
  account_gas_limits String CODEC(ZSTD(1)),
  gas_fees String CODEC(ZSTD(1)),
  paymaster String CODEC(ZSTD(1)),
  paymaster_and_data String CODEC(ZSTD(1)),
  signature String CODEC(ZSTD(1)),
  aggregator String CODEC(ZSTD(1)),
  aggregator_signature Nullable(String) CODEC(ZSTD(1)),
  bundler String CODEC(ZSTD(1)),
  beneficiary String CODEC(ZSTD(1)),
  status UInt8,
  revert_reason Nullable(String) CODEC(ZSTD(1)),
  gas UInt256 CODEC(ZSTD(1)),
  gas_used UInt256 CODEC(ZSTD(1)),
  actual_gas_cost UInt256 CODEC(ZSTD(1)),
  sponsor_type LowCardinality(String),
  user_logs_start_index UInt32 CODEC(T64, ZSTD(1)),
  user_logs_count UInt32 CODEC(T64, ZSTD(1)),
  INDEX user_operations_hash hash TYPE bloom_filter GRANULARITY 1,
  INDEX user_operations_transaction transaction_hash TYPE bloom_filter GRANULARITY 1,
  INDEX user_operations_sender sender TYPE bloom_filter GRANULARITY 1,
  INDEX user_operations_bundler bundler TYPE bloom_filter GRANULARITY 1
) ENGINE = ReplacingMergeTree ORDER BY (block_number, transaction_index, bundle_index, op_index)
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576,
    primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;
