-- Point rows (issue #30): what a single transaction's and a single block's answer read, for the
-- API's uncached reads by hash and by number (a primary-key read here costs a fraction of a
-- ClickHouse query). ClickHouse keeps the chain's lists, scans and counters. Written by the
-- indexer in its checkpoint's transaction (a claimer of the shared catch-up: with the range's
-- `stored` mark), deleted with the chain's rows on a rewind; `data` is the compact encoding of
-- src/chain/point-rows.ts. The BRIN indexes serve the deletes by height (rows arrive in chain
-- order, so a range of pages per height span) at a few KB in all.
CREATE TABLE IF NOT EXISTS point_blocks (
  number bigint PRIMARY KEY,
  hash bytea NOT NULL,
  data bytea NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS point_blocks_hash ON point_blocks (hash);

CREATE TABLE IF NOT EXISTS point_transactions (
  hash bytea PRIMARY KEY,
  block_number bigint NOT NULL,
  data bytea NOT NULL
);
CREATE INDEX IF NOT EXISTS point_transactions_block ON point_transactions USING brin (block_number);
-- Calldata is mostly ABI words padded with zeros: rows past 128 bytes are compressed in place
-- (PostgreSQL only tries past ~2 KB by default) and stay in the heap, one page read.
ALTER TABLE point_transactions ALTER COLUMN data SET STORAGE MAIN;
ALTER TABLE point_transactions SET (toast_tuple_target = 128);

-- What an address page says the address has, kept by the accounting lane as counters (journaled
-- per block, so a reorg takes them back): transactions sent (proves an externally owned account),
-- logs emitted (proves a contract), blocks mined, withdrawals received. With the lane at the
-- checkpoint the API answers the address overview from PostgreSQL alone.
ALTER TABLE addresses
  ADD COLUMN IF NOT EXISTS sent_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS log_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS mined_count bigint NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS withdrawal_count bigint NOT NULL DEFAULT 0;

-- What the upgrade must fill from ClickHouse (src/indexer/point-backfill.ts), fixed here, before
-- any process of this release runs: the point rows of blocks up to the chain checkpoint, and the
-- activity counters of blocks the accounting lane applied without them (journaled from its reorg
-- tail, TAIL_LENGTH = 1024 blocks below its cursor, as the lane journals its own). On an empty
-- store both are empty and the backfill is done at once. Heights below FIRST_BLOCK are skipped.
INSERT INTO indexer_facts (name, value, updated_at)
SELECT 'point_rows_backfill',
       jsonb_build_object('done', false, 'next', 0, 'to', cp, 'blocks', 0, 'txs', 0,
                          'counters', jsonb_build_object('next', 0, 'to', lane, 'journalFrom', lane - 1024 + 1)),
       now()
FROM (SELECT coalesce((SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks'), -1) AS cp,
             coalesce((SELECT block_number FROM derived_cursors WHERE lane = 'accounting'), -1) AS lane) x
ON CONFLICT (name) DO NOTHING;
