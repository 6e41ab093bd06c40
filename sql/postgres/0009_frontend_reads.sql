-- Reads the Blockscout frontend needs beyond 0006 (src/storage/postgres/reads/top-addresses.ts,
-- counts.ts).

-- /api/v2/addresses (top accounts): positive balances, richest first with the hash ascending as
-- the tie-break (Blockscout's order); the ascending order is this index read backwards. Partial:
-- empty accounts are never listed.
CREATE INDEX IF NOT EXISTS addresses_top_balance ON addresses (coin_balance DESC, hash) WHERE coin_balance > 0;
-- /api/v2/addresses?sort=transactions_count: by transaction count, then balance and hash.
CREATE INDEX IF NOT EXISTS addresses_top_tx_count ON addresses (tx_count DESC, coin_balance DESC, hash) WHERE coin_balance > 0;

-- How many contracts the `contracts` table holds, kept current by statement-level triggers so the
-- counters (/api/v2/smart-contracts/counters, the stats service's totalContracts) never count the
-- table. The accounting lane inserts created contracts and a reorg's unwinding deletes them (both
-- in their own transactions); only inserted or deleted rows (the transition tables) are counted,
-- so `ON CONFLICT DO NOTHING` inserts that add nothing change nothing.
CREATE TABLE IF NOT EXISTS contract_count (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  n bigint NOT NULL
);
INSERT INTO contract_count (one, n) SELECT true, count(*) FROM contracts ON CONFLICT (one) DO UPDATE SET n = EXCLUDED.n;

CREATE OR REPLACE FUNCTION contract_count_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE contract_count SET n = n + (SELECT count(*) FROM added_rows);
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION contract_count_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE contract_count SET n = n - (SELECT count(*) FROM removed_rows);
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS contracts_counted_insert ON contracts;
CREATE TRIGGER contracts_counted_insert AFTER INSERT ON contracts
  REFERENCING NEW TABLE AS added_rows FOR EACH STATEMENT EXECUTE FUNCTION contract_count_added();

DROP TRIGGER IF EXISTS contracts_counted_delete ON contracts;
CREATE TRIGGER contracts_counted_delete AFTER DELETE ON contracts
  REFERENCING OLD TABLE AS removed_rows FOR EACH STATEMENT EXECUTE FUNCTION contract_count_removed();
