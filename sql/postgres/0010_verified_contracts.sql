-- Verified contracts (src/verify, src/storage/postgres/verified.ts) and the verification jobs a
-- client polls (Etherscan's checkverifystatus guid; the v2 API's websocket result).

-- One row per verified address: what was matched and with what. `id` orders the verified list
-- (newest first, Blockscout's smart_contract_id cursor). A later verification of the same address
-- (a full match after a partial one) replaces the row.
CREATE TABLE IF NOT EXISTS verified_contracts (
  id bigserial UNIQUE,
  address_hash text PRIMARY KEY,
  name text NOT NULL,
  file_path text NOT NULL,
  language text NOT NULL,
  compiler_version text NOT NULL,
  evm_version text,
  optimization boolean NOT NULL,
  optimization_runs integer,
  via_ir boolean NOT NULL,
  settings jsonb NOT NULL,
  sources jsonb NOT NULL,
  abi jsonb NOT NULL,
  constructor_args text,
  libraries jsonb NOT NULL,
  match text NOT NULL CHECK (match IN ('full', 'partial')),
  runtime_match text,
  creation_match text,
  verified_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS verification_jobs (
  guid text PRIMARY KEY,
  address_hash text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'pass', 'fail')),
  message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS verification_jobs_address ON verification_jobs (address_hash, created_at DESC);
