-- What the API's in-memory token search (src/api/token-search.ts) reads to stay current: each
-- tokens row carries the id of the transaction that last changed what search shows or ranks by
-- (name, symbol, type, total supply, holder count), and a removed token leaves a row in
-- token_search_removed. A reader that remembers the snapshot of its last read (pg_current_snapshot:
-- the transactions then still running, and the first id not yet given) asks only for rows whose
-- transaction is new since or was running then: nothing committed later is missed, whatever order
-- writers commit in (a sequence number would let a slow writer commit an older number after a
-- reader had passed it).
ALTER TABLE tokens ADD COLUMN IF NOT EXISTS search_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX IF NOT EXISTS tokens_search_xid ON tokens (search_xid);

CREATE TABLE IF NOT EXISTS token_search_removed (
  address text NOT NULL,
  search_xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX IF NOT EXISTS token_search_removed_xid ON token_search_removed (search_xid);

CREATE OR REPLACE FUNCTION tokens_search_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.search_xid := pg_current_xact_id();
  RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS tokens_search_touch ON tokens;
CREATE TRIGGER tokens_search_touch BEFORE UPDATE ON tokens FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.symbol IS DISTINCT FROM NEW.symbol OR OLD.type IS DISTINCT FROM NEW.type
        OR OLD.total_supply IS DISTINCT FROM NEW.total_supply OR OLD.holder_count IS DISTINCT FROM NEW.holder_count)
  EXECUTE FUNCTION tokens_search_touch();

CREATE OR REPLACE FUNCTION tokens_search_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO token_search_removed (address) VALUES (OLD.address);
  RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS tokens_search_removed ON tokens;
CREATE TRIGGER tokens_search_removed AFTER DELETE ON tokens FOR EACH ROW EXECUTE FUNCTION tokens_search_removed();
