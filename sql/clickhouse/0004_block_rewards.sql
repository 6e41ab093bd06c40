-- What each block paid out, as Blockscout lists it under a block's `rewards` (src/chain/rewards.ts
-- says what is known and from where). One row per (block, address_type, address): re-inserts
-- replace; the indexer deletes rows above its checkpoint like every chain table. Sorted by block:
-- a page of blocks reads one key range. Small granules, as the other tables read by key (0003).
CREATE TABLE IF NOT EXISTS block_rewards (
  block_number UInt64,
  address_type Enum8('validator' = 1, 'emission_funds' = 2, 'uncle' = 3),
  address String,
  reward UInt256
) ENGINE = ReplacingMergeTree ORDER BY (block_number, address_type, address)
  SETTINGS index_granularity = 1024, min_compress_block_size = 16384, max_compress_block_size = 1048576;

-- Blocks stored before this table existed: after the merge (difficulty 0) the miner's reward is
-- the block's priority fees, already stored with the block; the indexer writes the same row for
-- new blocks. Earlier blocks' rewards came only from reward traces, which were not kept: they stay
-- unknown until re-indexed. Blocks that already have rows are skipped, so a rerun adds nothing.
INSERT INTO block_rewards (block_number, address_type, address, reward)
SELECT number, 'validator', miner, priority_fees FROM blocks
WHERE difficulty = 0 AND number > 0 AND number NOT IN (SELECT block_number FROM block_rewards);
