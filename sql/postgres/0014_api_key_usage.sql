-- Requests each API replica allowed per API key, so that a key's rate limit holds across replicas
-- (src/ratelimit/shared-key-limits.ts): one row per key and replica with the replica's running
-- total; each replica charges its own bucket with what the others' totals grew by. Rows of
-- replicas that stopped are removed after an hour.
CREATE TABLE IF NOT EXISTS api_key_usage (
  key_id text NOT NULL,
  replica text NOT NULL,
  used bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, replica)
);
CREATE INDEX IF NOT EXISTS api_key_usage_updated ON api_key_usage (updated_at);
