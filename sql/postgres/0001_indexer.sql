-- The indexer's committed state. ClickHouse rows above a lane's checkpoint are not yet
-- committed and are removed before the lane resumes.
CREATE TABLE IF NOT EXISTS indexer_checkpoints (
  lane text PRIMARY KEY,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The unfinalized tail the head follower compares parent hashes against.
CREATE TABLE IF NOT EXISTS recent_blocks (
  number bigint PRIMARY KEY,
  hash text NOT NULL,
  parent_hash text NOT NULL
);

-- Facts the indexer learned about the node (e.g. trace support), shown in indexing status.
CREATE TABLE IF NOT EXISTS indexer_facts (
  name text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
