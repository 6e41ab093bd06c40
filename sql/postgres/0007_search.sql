-- Search over tokens (/api/v2/search and /search/quick): a case-insensitive substring of the
-- name or the symbol, exact matches (the whole name or symbol) first, then by holder count
-- (names A-Z, unnamed last, then the address), src/storage/postgres/reads/search.ts.
-- - trigram GIN indexes serve `name ILIKE '%q%'` / `symbol ILIKE '%q%'` for q of 3+ characters;
-- - the rank order is tokens_list_desc: for a query that matches many tokens the planner walks it
--   and stops after a page instead of sorting every match, and the keyset cursor of the next
--   page is a range of it;
-- - lower(name) / lower(symbol) B-trees serve the exact matches (and queries of 1-2 characters,
--   which only match exactly).
-- The trigram and rank indexes are the ones 0006_api_reads.sql creates for /tokens (same names,
-- same definitions: IF NOT EXISTS makes these no-ops there); this file does not depend on it.
-- pg_trgm is a trusted extension (PostgreSQL 13+); where it cannot be created, substring search
-- scans the tokens table instead.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available: search by a piece of a token name scans the tokens table';
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX IF NOT EXISTS tokens_name_trgm ON tokens USING gin (name gin_trgm_ops)';
    EXECUTE 'CREATE INDEX IF NOT EXISTS tokens_symbol_trgm ON tokens USING gin (symbol gin_trgm_ops)';
  END IF;
END
$$;
CREATE INDEX IF NOT EXISTS tokens_list_desc ON tokens ((-holder_count), (name IS NULL), (coalesce(name, '')), address);
CREATE INDEX IF NOT EXISTS tokens_search_name_lower ON tokens (lower(name));
CREATE INDEX IF NOT EXISTS tokens_search_symbol_lower ON tokens (lower(symbol));
