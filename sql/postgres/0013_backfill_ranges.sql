-- The catch-up shared by several `explorer indexer` processes (INDEXER_CLAIM_RANGES > 0): block
-- ranges below the node's head that the leader planned, claimed by any process (FOR UPDATE SKIP
-- LOCKED, plus a session advisory lock per range held while it works on it), and, once their rows
-- are in ClickHouse, stored here with their blocks and ingest summary until the leader moves the
-- checkpoint over them in chain order (and deletes the row in that same transaction). Rows of
-- ranges that are not stored are never trusted: a claimer deletes a range's rows before inserting.
CREATE TABLE IF NOT EXISTS backfill_ranges (
  from_block bigint PRIMARY KEY,
  to_block bigint NOT NULL CHECK (to_block >= from_block),
  state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'claimed', 'stored')),
  -- The claiming process (host:pid:random) and its heartbeat (renewed while it works).
  owner text,
  lease_until timestamptz,
  -- How many times the range was claimed (more than once: a claimer died or gave it back).
  claims integer NOT NULL DEFAULT 0,
  -- When stored: the parent hash of its first block (the chain link to the checkpoint), its
  -- blocks (number, hash, parentHash, timestamp, txCount) for recent_blocks and the 'block'
  -- event, and its ingest summary (the watchlist matches it when the checkpoint passes it).
  first_parent text,
  blocks jsonb,
  summary jsonb,
  tx_count integer,
  stored_at timestamptz
);

CREATE INDEX IF NOT EXISTS backfill_ranges_state ON backfill_ranges (state, from_block);
