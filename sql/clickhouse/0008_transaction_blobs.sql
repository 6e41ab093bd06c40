-- Blob transactions by versioned hash (EIP-4844; GET /api/v2/blobs/{hash}): one row per (blob,
-- transaction carrying it). `transactions` keeps a transaction's versioned hashes in an array, and
-- finding a hash there means reading that column of every row, so this small index answers with
-- one key range instead, with what the answer shows (the transaction's hash and its block's time).
-- Written by the indexer beside the transaction's row and deleted with it above a checkpoint or on
-- a reorg, like every chain table; re-inserts replace. A hash does not compress (ZSTD(1) as in
-- 0005); small granules as the other tables read by key (0003); every sort-key column kept in the
-- primary index (0006).
CREATE TABLE IF NOT EXISTS transaction_blobs (
  versioned_hash String CODEC(ZSTD(1)),
  block_number UInt64 CODEC(T64, ZSTD(1)),
  transaction_index UInt32 CODEC(T64, ZSTD(1)),
  transaction_hash String CODEC(ZSTD(1)),
  timestamp DateTime('UTC') CODEC(ZSTD(1))
) ENGINE = ReplacingMergeTree ORDER BY (versioned_hash, block_number, transaction_index)
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576,
    primary_key_ratio_of_unique_prefix_values_to_skip_suffix_columns = 1;

-- Blob transactions stored before this table existed (their hashes are in `transactions`); rows
-- already here are replaced by the same rows, so a rerun adds nothing.
INSERT INTO transaction_blobs (versioned_hash, block_number, transaction_index, transaction_hash, timestamp)
SELECT arrayJoin(blob_versioned_hashes), block_number, transaction_index, hash, timestamp FROM transactions
WHERE type = 3 AND notEmpty(blob_versioned_hashes);
