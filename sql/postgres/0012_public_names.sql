-- Public names and token info (#19): what accounts submit for an address or token, the operator's
-- decisions on them (each recorded and reversible), the names the public API shows, and the icons
-- this instance stores and serves itself (never hot-linked).

-- Accounts the operator made admins (`explorer admin grant`): they may review submissions.
CREATE TABLE IF NOT EXISTS account_admins (
  user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  granted_at timestamptz NOT NULL DEFAULT now(),
  granted_by text NOT NULL
);

-- Checked (and where possible re-encoded) images, by the sha256 of the stored bytes.
CREATE TABLE IF NOT EXISTS public_icons (
  sha256 text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  ext text NOT NULL CHECK (ext IN ('png', 'jpg', 'webp', 'gif')),
  content_type text NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  bytes bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public_name_submissions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id bigint REFERENCES users (id) ON DELETE SET NULL,
  address text NOT NULL CHECK (address ~ '^0x[0-9a-f]{40}$'),
  -- 'token' when the address is a stored token (then `links` may name its official links).
  kind text NOT NULL CHECK (kind IN ('address', 'token')),
  name text NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  website text,
  description text,
  -- '<sha256>.<ext>' of public_icons.
  icon text,
  links jsonb NOT NULL DEFAULT '{}',
  -- Proof of control: an EIP-191 signature of signed_message and the address it recovers to.
  signature text,
  signed_message text,
  signer text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS public_name_submissions_status ON public_name_submissions (status, id);
CREATE INDEX IF NOT EXISTS public_name_submissions_user ON public_name_submissions (user_id, id);
CREATE INDEX IF NOT EXISTS public_name_submissions_address ON public_name_submissions (address);

-- The names the public API shows, one per address. A removed name stays as a row with active
-- false, and every change takes a new version from the sequence: API processes pick changes up
-- by version (removals included) without reading the whole table.
CREATE SEQUENCE IF NOT EXISTS public_names_version_seq;
CREATE TABLE IF NOT EXISTS public_names (
  address text PRIMARY KEY,
  version bigint NOT NULL,
  active boolean NOT NULL,
  submission_id bigint REFERENCES public_name_submissions (id) ON DELETE SET NULL,
  kind text NOT NULL,
  name text NOT NULL,
  tags text[] NOT NULL DEFAULT '{}',
  website text,
  description text,
  icon text,
  links jsonb NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS public_names_version ON public_names (version);

-- Every decision: who, when, what the submission and the shown name were before and after (so a
-- revert restores `before`), and which decision reverted it.
CREATE TABLE IF NOT EXISTS public_name_decisions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  submission_id bigint NOT NULL REFERENCES public_name_submissions (id) ON DELETE CASCADE,
  action text NOT NULL CHECK (action IN ('approve', 'reject', 'edit', 'revert')),
  actor text NOT NULL,
  at timestamptz NOT NULL,
  note text,
  before jsonb NOT NULL,
  after jsonb NOT NULL,
  reverts bigint REFERENCES public_name_decisions (id),
  reverted_by bigint REFERENCES public_name_decisions (id)
);
CREATE INDEX IF NOT EXISTS public_name_decisions_submission ON public_name_decisions (submission_id, id);
