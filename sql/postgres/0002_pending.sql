-- The node's pending pool as last seen, with the time each transaction was first seen.
CREATE TABLE IF NOT EXISTS pending_transactions (
  hash text PRIMARY KEY,
  "from" text NOT NULL,
  "to" text,
  nonce bigint NOT NULL,
  value numeric(78, 0) NOT NULL,
  gas numeric(78, 0) NOT NULL,
  gas_price numeric(78, 0),
  max_fee_per_gas numeric(78, 0),
  max_priority_fee_per_gas numeric(78, 0),
  type integer NOT NULL,
  input text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS pending_transactions_first_seen ON pending_transactions (first_seen_at DESC, hash);
CREATE INDEX IF NOT EXISTS pending_transactions_from ON pending_transactions ("from");
CREATE INDEX IF NOT EXISTS pending_transactions_to ON pending_transactions ("to");
