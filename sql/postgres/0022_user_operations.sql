-- ERC-4337 user operations (issue #32) are decoded by the indexer as it indexes a block (ClickHouse
-- user_operations, sql/clickhouse/0010): blocks a previous release indexed hold none. The first
-- block this release decodes is fixed here, before any process of it runs (the chain checkpoint + 1;
-- 0 on an empty store), so /proxy/account-abstraction/status can say the past is not indexed
-- rather than answer an incomplete history as complete.
INSERT INTO indexer_facts (name, value, updated_at)
SELECT 'user_operations_from', jsonb_build_object('block', cp + 1), now()
FROM (SELECT coalesce((SELECT block_number FROM indexer_checkpoints WHERE lane = 'blocks'), -1) AS cp) x
ON CONFLICT (name) DO NOTHING;
