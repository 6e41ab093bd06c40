-- Accounts (../shared/spec/SERVICE.md, Account API): users, API keys, sign-in sessions and
-- their one-time proofs (SIWE nonces, e-mailed codes), watchlist entries, private address tags
-- and custom ABIs. Everything an account owns references users(id) ON DELETE CASCADE, so
-- deleting the user row removes all of it in one statement. Secrets are never stored: API keys,
-- session tokens and e-mailed codes are kept as SHA-256 digests (lower-case hex).
-- Addresses are stored lower-case (0x + 40 hex digits), as everywhere else in the project.

CREATE TABLE IF NOT EXISTS users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  -- Lower-cased; NULL for an account created by Sign-In with Ethereum.
  email text UNIQUE,
  nickname text NOT NULL,
  -- The wallet of a SIWE account (lower-case); NULL for an e-mail account.
  address text UNIQUE CHECK (address ~ '^0x[0-9a-f]{40}$'),
  registered_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS api_keys (
  id uuid PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  -- sha256 of the secret; the secret itself is shown once and never stored.
  secret_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX IF NOT EXISTS api_keys_user ON api_keys (user_id, created_at);

CREATE TABLE IF NOT EXISTS sessions (
  token_hash text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);
CREATE INDEX IF NOT EXISTS sessions_expiry ON sessions (expires_at);

-- Nonces handed out for Sign-In with Ethereum; a successful sign-in deletes its nonce.
CREATE TABLE IF NOT EXISTS siwe_nonces (
  nonce text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS siwe_nonces_expiry ON siwe_nonces (expires_at);

-- At most one live code per address; a new request replaces it. code_hash = sha256(salt || code).
CREATE TABLE IF NOT EXISTS email_codes (
  email text PRIMARY KEY,
  code_hash text NOT NULL,
  salt text NOT NULL,
  sent_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS email_codes_expiry ON email_codes (expires_at);

CREATE TABLE IF NOT EXISTS watchlist (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  address_hash text NOT NULL CHECK (address_hash ~ '^0x[0-9a-f]{40}$'),
  name text NOT NULL,
  -- {"native"|"ERC-20"|"ERC-721"|"ERC-1155": {"incoming": bool, "outgoing": bool}}, always all four keys.
  notification_settings jsonb NOT NULL,
  -- {"email": bool, "webhook": bool}; the webhook URL is account-wide (a later migration).
  notification_methods jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, address_hash)
);
-- Watchlist matching at indexing time looks entries up by the transfer's addresses.
CREATE INDEX IF NOT EXISTS watchlist_address ON watchlist (address_hash);

CREATE TABLE IF NOT EXISTS address_tags (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  address_hash text NOT NULL CHECK (address_hash ~ '^0x[0-9a-f]{40}$'),
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 35),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, address_hash)
);

CREATE TABLE IF NOT EXISTS custom_abis (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  contract_address_hash text NOT NULL CHECK (contract_address_hash ~ '^0x[0-9a-f]{40}$'),
  name text NOT NULL,
  abi jsonb NOT NULL CHECK (jsonb_typeof(abi) = 'array'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, contract_address_hash)
);
