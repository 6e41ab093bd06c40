-- Smaller granules for the tables the API reads by key. A point read (a transaction by hash,
-- a block, a page of an address's transactions by their keys) decompresses whole granules of
-- every column it selects: with the default 8,192 rows per granule, one transaction row cost
-- 8.9 MB of decompression and ~10 ms in embedded chDB on bench-api's 1,000,000-transaction store;
-- with 1,024-row granules and 16 KiB compression blocks it is ~1.5 MB and ~30% less time, while
-- full scans (stats) stay as fast (bench/README.md, "Point reads"). The granularity of a table
-- cannot be altered, so each table is rebuilt: copied into a new table with the settings, then
-- swapped in. Every step can be rerun after a crash: the copy is dropped and made again from
-- whichever table holds the data under the original name.

DROP TABLE IF EXISTS blocks__regranulated;
CREATE TABLE blocks__regranulated AS blocks ENGINE = ReplacingMergeTree ORDER BY number
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576;
INSERT INTO blocks__regranulated SELECT * FROM blocks;
EXCHANGE TABLES blocks AND blocks__regranulated;
DROP TABLE blocks__regranulated;

DROP TABLE IF EXISTS hash_index__regranulated;
CREATE TABLE hash_index__regranulated AS hash_index ENGINE = ReplacingMergeTree ORDER BY hash
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576;
INSERT INTO hash_index__regranulated SELECT * FROM hash_index;
EXCHANGE TABLES hash_index AND hash_index__regranulated;
DROP TABLE hash_index__regranulated;

DROP TABLE IF EXISTS transactions__regranulated;
CREATE TABLE transactions__regranulated AS transactions ENGINE = ReplacingMergeTree ORDER BY (block_number, transaction_index)
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576;
INSERT INTO transactions__regranulated SELECT * FROM transactions;
EXCHANGE TABLES transactions AND transactions__regranulated;
DROP TABLE transactions__regranulated;

DROP TABLE IF EXISTS logs__regranulated;
CREATE TABLE logs__regranulated AS logs ENGINE = ReplacingMergeTree ORDER BY (block_number, log_index)
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576;
INSERT INTO logs__regranulated SELECT * FROM logs;
EXCHANGE TABLES logs AND logs__regranulated;
DROP TABLE logs__regranulated;

DROP TABLE IF EXISTS token_transfers__regranulated;
CREATE TABLE token_transfers__regranulated AS token_transfers ENGINE = ReplacingMergeTree ORDER BY (block_number, log_index, batch_index)
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576;
INSERT INTO token_transfers__regranulated SELECT * FROM token_transfers;
EXCHANGE TABLES token_transfers AND token_transfers__regranulated;
DROP TABLE token_transfers__regranulated;

DROP TABLE IF EXISTS internal_transactions__regranulated;
CREATE TABLE internal_transactions__regranulated AS internal_transactions ENGINE = ReplacingMergeTree ORDER BY (block_number, transaction_index, trace_index)
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576;
INSERT INTO internal_transactions__regranulated SELECT * FROM internal_transactions;
EXCHANGE TABLES internal_transactions AND internal_transactions__regranulated;
DROP TABLE internal_transactions__regranulated;
