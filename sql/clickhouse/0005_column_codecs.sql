-- Column codecs for the chain tables (issue #21: <= 1.5 KB stored per transaction). Types, values
-- and sort keys are unchanged: a codec only changes how a column's bytes are compressed, so every
-- read returns the same values. Measured with bench/storage.ts (300 blocks of the benchmark chain
-- with callTracer traces, 50,882 txs, after OPTIMIZE ... FINAL; bench/README.md, "Storage per
-- transaction"): 3,321 -> 1,710 compressed bytes per transaction (internal_transactions
-- 1,466 -> 754, transactions 1,019 -> 528, logs 308 -> 160, address_transactions 172 -> 86,
-- token_transfers 148 -> 83, hash_index 71 -> 37, address_token_transfers 66 -> 28,
-- address_internal_transactions 39 -> 18); 1,200 blocks (203,790 txs): 3,270 -> 1,684. Cost:
-- inserts and merges take 15-25% more CPU (1,200 blocks: 10.9 -> 13.5 CPU-s to insert, about
-- 13 us more per transaction; 5.1 -> 6.3 CPU-s to merge everything; on a shared machine).
-- Why each codec:
-- - String columns (hashes, addresses, calldata, return data, code, log data and topics, all
--   lower-case hex) ZSTD(1): the default LZ4 finds repeats but has no entropy coding, so the hex
--   of random bytes (hashes, signatures, most calldata and code) stays about its own size; ZSTD's
--   entropy coding stores each hex digit in about 4 bits. Strings alone: 3,321 -> 1,832 B/tx.
--   ZSTD(3) was measured too: no smaller (1,862 B/tx), and slower to write, so level 1.
-- - Unsigned integers up to 64 bits (indexes, gas, nonces, counts, flags) T64, ZSTD(1): T64 keeps
--   only the bits the values of a block use; per column 5-45% smaller than ZSTD(1) alone.
-- - Delta, ZSTD(1) where a column counts up in the table's own order: block_number in the tables
--   sorted by block, log_index in logs and token_transfers, trace_index in internal_transactions
--   (the differences are mostly 0 or 1; 40-85% smaller than T64 there). In the tables sorted by
--   address or hash block_number is not in order: T64 there (Delta was up to 50% larger).
-- - timestamp ZSTD(1): DoubleDelta was measured larger at these sizes (0.11 against 0.07 B/tx).
-- - UInt256/Int256 amounts and Arrays ZSTD(1): Delta and T64 do not take 256-bit values.
--   The integer codecs together: 1,832 -> 1,710 B/tx.
-- ALTER ... MODIFY COLUMN with the same type and a new codec changes metadata only (no mutation,
-- milliseconds): parts written from now on (inserts and merges) use the codecs; existing parts
-- keep LZ4 until they are merged (OPTIMIZE TABLE <table> FINAL rewrites a table at once).
-- Rerunning a statement is a no-op. Enum8 columns (hash_index.kind, block_rewards.address_type:
-- one byte a row) keep the default.

ALTER TABLE internal_transactions
  MODIFY COLUMN block_number UInt64 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN transaction_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN trace_index UInt32 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN transaction_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN block_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN timestamp DateTime('UTC') CODEC(ZSTD(1)),
  MODIFY COLUMN trace_address Array(UInt32) CODEC(ZSTD(1)),
  MODIFY COLUMN type LowCardinality(String) CODEC(ZSTD(1)),
  MODIFY COLUMN call_type LowCardinality(String) CODEC(ZSTD(1)),
  MODIFY COLUMN `from` String CODEC(ZSTD(1)),
  MODIFY COLUMN `to` String CODEC(ZSTD(1)),
  MODIFY COLUMN value UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN gas UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN gas_used UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN input String CODEC(ZSTD(1)),
  MODIFY COLUMN output String CODEC(ZSTD(1)),
  MODIFY COLUMN error String CODEC(ZSTD(1)),
  MODIFY COLUMN created_contract_address String CODEC(ZSTD(1)),
  MODIFY COLUMN created_contract_code String CODEC(ZSTD(1));

ALTER TABLE transactions
  MODIFY COLUMN block_number UInt64 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN transaction_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN hash String CODEC(ZSTD(1)),
  MODIFY COLUMN block_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN timestamp DateTime('UTC') CODEC(ZSTD(1)),
  MODIFY COLUMN `from` String CODEC(ZSTD(1)),
  MODIFY COLUMN `to` String CODEC(ZSTD(1)),
  MODIFY COLUMN nonce UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN value UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN gas UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN gas_price Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN max_fee_per_gas Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN max_priority_fee_per_gas Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN type UInt8 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN input String CODEC(ZSTD(1)),
  MODIFY COLUMN method_id String CODEC(ZSTD(1)),
  MODIFY COLUMN status Nullable(UInt8) CODEC(T64, ZSTD(1)),
  MODIFY COLUMN gas_used UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN cumulative_gas_used UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN effective_gas_price UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN fee UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN created_contract String CODEC(ZSTD(1)),
  MODIFY COLUMN error String CODEC(ZSTD(1)),
  MODIFY COLUMN chain_id Nullable(UInt64) CODEC(T64, ZSTD(1)),
  MODIFY COLUMN v String CODEC(ZSTD(1)),
  MODIFY COLUMN r String CODEC(ZSTD(1)),
  MODIFY COLUMN s String CODEC(ZSTD(1)),
  MODIFY COLUMN y_parity Nullable(UInt8) CODEC(T64, ZSTD(1)),
  MODIFY COLUMN access_list String CODEC(ZSTD(1)),
  MODIFY COLUMN max_fee_per_blob_gas Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN blob_versioned_hashes Array(String) CODEC(ZSTD(1)),
  MODIFY COLUMN blob_gas_used Nullable(UInt64) CODEC(T64, ZSTD(1)),
  MODIFY COLUMN blob_gas_price Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN authorization_list String CODEC(ZSTD(1)),
  MODIFY COLUMN log_count UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN token_transfer_count UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN internal_count UInt32 CODEC(T64, ZSTD(1));

ALTER TABLE logs
  MODIFY COLUMN block_number UInt64 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN log_index UInt32 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN transaction_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN transaction_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN block_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN topic0 String CODEC(ZSTD(1)),
  MODIFY COLUMN topic1 String CODEC(ZSTD(1)),
  MODIFY COLUMN topic2 String CODEC(ZSTD(1)),
  MODIFY COLUMN topic3 String CODEC(ZSTD(1)),
  MODIFY COLUMN data String CODEC(ZSTD(1)),
  MODIFY COLUMN timestamp DateTime('UTC') CODEC(ZSTD(1));

ALTER TABLE address_transactions
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN block_number UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN transaction_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN hash String CODEC(ZSTD(1)),
  MODIFY COLUMN is_from UInt8 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN is_to UInt8 CODEC(T64, ZSTD(1));

ALTER TABLE token_transfers
  MODIFY COLUMN block_number UInt64 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN log_index UInt32 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN batch_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN transaction_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN transaction_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN block_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN timestamp DateTime('UTC') CODEC(ZSTD(1)),
  MODIFY COLUMN token_address String CODEC(ZSTD(1)),
  MODIFY COLUMN token_type LowCardinality(String) CODEC(ZSTD(1)),
  MODIFY COLUMN `from` String CODEC(ZSTD(1)),
  MODIFY COLUMN `to` String CODEC(ZSTD(1)),
  MODIFY COLUMN value UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN token_id Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN kind LowCardinality(String) CODEC(ZSTD(1)),
  MODIFY COLUMN method_id String CODEC(ZSTD(1));

ALTER TABLE hash_index
  MODIFY COLUMN hash String CODEC(ZSTD(1)),
  MODIFY COLUMN block_number UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN transaction_index UInt32 CODEC(T64, ZSTD(1));

ALTER TABLE address_token_transfers
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN block_number UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN log_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN batch_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN token_address String CODEC(ZSTD(1)),
  MODIFY COLUMN token_type LowCardinality(String) CODEC(ZSTD(1)),
  MODIFY COLUMN is_from UInt8 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN is_to UInt8 CODEC(T64, ZSTD(1));

ALTER TABLE address_internal_transactions
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN block_number UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN transaction_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN trace_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN is_from UInt8 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN is_to UInt8 CODEC(T64, ZSTD(1));

ALTER TABLE address_logs
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN block_number UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN log_index UInt32 CODEC(T64, ZSTD(1));

ALTER TABLE token_transfers_by_token
  MODIFY COLUMN token_address String CODEC(ZSTD(1)),
  MODIFY COLUMN block_number UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN log_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN batch_index UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN token_id Nullable(UInt256) CODEC(ZSTD(1));

ALTER TABLE withdrawals
  MODIFY COLUMN block_number UInt64 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN withdrawal_index UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN validator_index UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN amount UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN timestamp DateTime('UTC') CODEC(ZSTD(1));

ALTER TABLE blocks
  MODIFY COLUMN number UInt64 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN hash String CODEC(ZSTD(1)),
  MODIFY COLUMN parent_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN timestamp DateTime('UTC') CODEC(ZSTD(1)),
  MODIFY COLUMN miner String CODEC(ZSTD(1)),
  MODIFY COLUMN size UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN gas_limit UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN gas_used UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN base_fee_per_gas Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN difficulty UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN total_difficulty Nullable(UInt256) CODEC(ZSTD(1)),
  MODIFY COLUMN nonce String CODEC(ZSTD(1)),
  MODIFY COLUMN mix_hash String CODEC(ZSTD(1)),
  MODIFY COLUMN extra_data String CODEC(ZSTD(1)),
  MODIFY COLUMN state_root String CODEC(ZSTD(1)),
  MODIFY COLUMN transactions_root String CODEC(ZSTD(1)),
  MODIFY COLUMN receipts_root String CODEC(ZSTD(1)),
  MODIFY COLUMN sha3_uncles String CODEC(ZSTD(1)),
  MODIFY COLUMN uncles Array(String) CODEC(ZSTD(1)),
  MODIFY COLUMN transaction_count UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN withdrawals_root Nullable(String) CODEC(ZSTD(1)),
  MODIFY COLUMN withdrawal_count UInt32 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN blob_gas_used Nullable(UInt64) CODEC(T64, ZSTD(1)),
  MODIFY COLUMN excess_blob_gas Nullable(UInt64) CODEC(T64, ZSTD(1)),
  MODIFY COLUMN parent_beacon_block_root Nullable(String) CODEC(ZSTD(1)),
  MODIFY COLUMN burnt_fees UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN priority_fees UInt256 CODEC(ZSTD(1));

ALTER TABLE block_rewards
  MODIFY COLUMN block_number UInt64 CODEC(Delta, ZSTD(1)),
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN reward UInt256 CODEC(ZSTD(1));

ALTER TABLE coin_balance_history
  MODIFY COLUMN address String CODEC(ZSTD(1)),
  MODIFY COLUMN block_number UInt64 CODEC(T64, ZSTD(1)),
  MODIFY COLUMN value UInt256 CODEC(ZSTD(1)),
  MODIFY COLUMN delta Int256 CODEC(ZSTD(1)),
  MODIFY COLUMN timestamp DateTime('UTC') CODEC(ZSTD(1));

