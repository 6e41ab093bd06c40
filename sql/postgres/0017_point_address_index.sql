-- An address's transactions pages from the point rows (issue #30): a transaction's sender,
-- receiver and created contract become columns of its point row (no longer in `data`), with its
-- index in the block, so one index range per address gives a page's rows in chain order, as
-- ClickHouse's address_transactions gives its keys. `to_address` is the transaction's `to` (null
-- for a creation); `created_address` the contract it created when that is not its `to` (null
-- otherwise). Rows written before this migration have none of these: they are removed here and
-- the upgrade's fill writes them again from ClickHouse (the address counters it filled stay).
TRUNCATE point_transactions, point_blocks;
ALTER TABLE point_transactions
  ADD COLUMN transaction_index integer NOT NULL,
  ADD COLUMN from_address bytea NOT NULL,
  ADD COLUMN to_address bytea,
  ADD COLUMN created_address bytea;
CREATE INDEX point_transactions_from ON point_transactions (from_address, block_number, transaction_index);
CREATE INDEX point_transactions_to ON point_transactions (to_address, block_number, transaction_index);
CREATE INDEX point_transactions_created ON point_transactions (created_address, block_number, transaction_index)
  WHERE created_address IS NOT NULL;

UPDATE indexer_facts
SET value = value || jsonb_build_object('done', false, 'next', 0, 'to', x.cp, 'blocks', 0, 'txs', 0), updated_at = now()
FROM (SELECT coalesce((SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks'), -1) AS cp) x
WHERE name = 'point_rows_backfill';
