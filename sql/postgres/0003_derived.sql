-- Derived data: current state computed from the committed chain by the accounting lane, and
-- work queues of the fetch lanes (token metadata, supplies, NFT metadata, contract code, coin
-- balances, balance checks). Everything the accounting lane changes for a block is journaled
-- for the unfinalized tail, so a reorg reverses it exactly (src/derived/accounting.ts).

CREATE TABLE IF NOT EXISTS derived_cursors (
  lane text PRIMARY KEY,
  block_number bigint NOT NULL,
  block_hash text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- kind: what was changed; key: which row; delta: additive change; prev: previous value of a
-- set-type change (JSON text, null = absent).
CREATE TABLE IF NOT EXISTS derived_journal (
  id bigserial PRIMARY KEY,
  block_number bigint NOT NULL,
  kind text NOT NULL,
  key text NOT NULL,
  delta numeric(78, 0),
  prev text
);
CREATE INDEX IF NOT EXISTS derived_journal_block ON derived_journal (block_number);

CREATE TABLE IF NOT EXISTS chain_counters (
  name text PRIMARY KEY,
  value numeric(78, 0) NOT NULL
);

CREATE TABLE IF NOT EXISTS addresses (
  hash text PRIMARY KEY,
  first_seen_block bigint NOT NULL,
  tx_count bigint NOT NULL DEFAULT 0,
  token_transfer_count bigint NOT NULL DEFAULT 0,
  gas_used numeric(78, 0) NOT NULL DEFAULT 0,
  coin_balance numeric(78, 0),
  coin_balance_block bigint
);
CREATE INDEX IF NOT EXISTS addresses_first_seen ON addresses (first_seen_block);

CREATE TABLE IF NOT EXISTS tokens (
  address text PRIMARY KEY,
  type text NOT NULL,
  type_source text NOT NULL DEFAULT 'logs',
  name text,
  symbol text,
  decimals smallint,
  total_supply numeric(78, 0),
  holder_count bigint NOT NULL DEFAULT 0,
  transfer_count bigint NOT NULL DEFAULT 0,
  first_seen_block bigint NOT NULL,
  metadata_fetched_at timestamptz,
  metadata_attempts integer NOT NULL DEFAULT 0,
  metadata_next_at timestamptz DEFAULT now(),
  metadata_error text,
  supply_stale boolean NOT NULL DEFAULT true
);
CREATE INDEX IF NOT EXISTS tokens_metadata_due ON tokens (metadata_next_at) WHERE metadata_next_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS tokens_supply_stale ON tokens (address) WHERE supply_stale;
CREATE INDEX IF NOT EXISTS tokens_first_seen ON tokens (first_seen_block);

-- token_id is '' for ERC-20 and ERC-721 (a count of NFTs), the id for ERC-1155. Zero balances
-- are not kept; the zero address is never a holder.
CREATE TABLE IF NOT EXISTS token_balances (
  token text NOT NULL,
  holder text NOT NULL,
  token_id text NOT NULL DEFAULT '',
  value numeric(78, 0) NOT NULL,
  block_number bigint NOT NULL,
  PRIMARY KEY (token, holder, token_id)
);
CREATE INDEX IF NOT EXISTS token_balances_holder ON token_balances (holder, token);
CREATE INDEX IF NOT EXISTS token_balances_top ON token_balances (token, value DESC, holder);

-- positions: how many of the holder's balances of this token are positive (1 for ERC-20/721).
CREATE TABLE IF NOT EXISTS token_holders (
  token text NOT NULL,
  holder text NOT NULL,
  positions integer NOT NULL,
  PRIMARY KEY (token, holder)
);

-- Balances to check against balanceOf (a sample, and every one that went negative).
CREATE TABLE IF NOT EXISTS balance_checks (
  token text NOT NULL,
  holder text NOT NULL,
  token_id text NOT NULL DEFAULT '',
  block_number bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (token, holder, token_id)
);

CREATE TABLE IF NOT EXISTS nft_instances (
  token text NOT NULL,
  token_id text NOT NULL,
  owner text,
  first_seen_block bigint NOT NULL,
  token_uri text,
  metadata jsonb,
  image_url text,
  metadata_error text,
  metadata_attempts integer NOT NULL DEFAULT 0,
  metadata_next_at timestamptz DEFAULT now(),
  metadata_fetched_at timestamptz,
  PRIMARY KEY (token, token_id)
);
CREATE INDEX IF NOT EXISTS nft_instances_due ON nft_instances (metadata_next_at) WHERE metadata_next_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS nft_instances_owner ON nft_instances (owner);
CREATE INDEX IF NOT EXISTS nft_instances_first_seen ON nft_instances (first_seen_block);

CREATE TABLE IF NOT EXISTS contracts (
  address text PRIMARY KEY,
  creator text NOT NULL,
  creation_tx text NOT NULL,
  creation_block bigint NOT NULL,
  code text,
  code_fetched_at timestamptz,
  code_attempts integer NOT NULL DEFAULT 0,
  code_next_at timestamptz DEFAULT now(),
  self_destructed_block bigint
);
CREATE INDEX IF NOT EXISTS contracts_code_due ON contracts (code_next_at) WHERE code_next_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS contracts_creation_block ON contracts (creation_block);

-- (address, block) pairs whose native balance is to be read at that block.
CREATE TABLE IF NOT EXISTS coin_balance_pending (
  address text NOT NULL,
  block_number bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (address, block_number)
);
CREATE INDEX IF NOT EXISTS coin_balance_pending_due ON coin_balance_pending (block_number, next_at);
