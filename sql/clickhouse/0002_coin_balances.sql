-- Native coin balance of an address after each block where it changed (value and delta, wei).
-- Sorted by address then height: /addresses/{hash}/coin-balance-history newest first is one
-- key range; re-inserts replace.
CREATE TABLE IF NOT EXISTS coin_balance_history (
  address String,
  block_number UInt64,
  value UInt256,
  delta Int256,
  timestamp DateTime('UTC')
) ENGINE = ReplacingMergeTree ORDER BY (address, block_number);
