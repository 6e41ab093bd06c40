-- Names for function selectors and event topics beyond a contract's own verified ABI (issue #31,
-- section 3; src/storage/postgres/signatures.ts): the functions, events and errors of every
-- verified contract of this instance (Blockscout's contract_methods), signatures an operator
-- imported (`explorer signatures import`), and what an online lookup answered. The build-time
-- catalogue of npm packages' ABIs lives in the code (src/abi/signature-catalogue.generated.ts).
--
-- `selector` is the 4-byte function or error selector, or the 32-byte event topic 0; `item` the
-- human-readable ABI item ('function mint(address to, uint256 amount)'; parameter names only where
-- the source gives them). One row per selector, source and item: the same item from two verified
-- contracts is kept once, with the first one as its origin. Readers follow additions the way the
-- token search does (0018): by the id of the transaction that added a row, never missing one a
-- slow writer commits late.
CREATE TABLE IF NOT EXISTS signatures (
  selector bytea NOT NULL CHECK (length(selector) IN (4, 32)),
  source text NOT NULL CHECK (source IN ('verified', 'imported', 'online')),
  item text NOT NULL,
  origin text NOT NULL,
  added_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  PRIMARY KEY (selector, source, item)
);
CREATE INDEX IF NOT EXISTS signatures_added_xid ON signatures (added_xid);

-- Each selector asked of the online lookup, found or not: asked again only after a while.
CREATE TABLE IF NOT EXISTS signature_lookups (
  selector bytea PRIMARY KEY,
  found integer NOT NULL,
  asked_at timestamptz NOT NULL DEFAULT now()
);

-- Verified contracts whose functions, events and errors are in `signatures` (those verified before
-- this release are added by the verification service when it starts).
ALTER TABLE verified_contracts ADD COLUMN IF NOT EXISTS methods_indexed boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS verified_contracts_methods_pending ON verified_contracts (id) WHERE NOT methods_indexed;
