-- address_transactions no longer keeps each row's transaction hash: no read uses it (every read
-- takes (block_number, transaction_index) keys from here and reads transactions by them), and a
-- hash does not compress: 67.7 of the table's 85.6 bytes per transaction on bench-storage's chain,
-- over issue #30's 2.0 KB per transaction for both stores. Dropping a column removes its files
-- from each part (no rewrite of the other columns); rerunning is a no-op.
ALTER TABLE address_transactions DROP COLUMN IF EXISTS hash;
