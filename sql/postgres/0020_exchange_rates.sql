-- Prices from the optional price source (EXCHANGE_RATES_URL, off by default; issue #31, section 5;
-- src/storage/postgres/exchange-rates.ts): the indexer process asks it in the background and keeps
-- what it answered here; the API reads only these rows, never the source.
--
-- One row per UTC day for the coin: each answer of the day replaces the day's row, so the row of a
-- day that is over holds its last answer (its closing price, /stats/charts/market and the historic
-- rate of that day's transactions) and today's row the current price.
CREATE TABLE IF NOT EXISTS coin_prices (
  day date PRIMARY KEY,
  price numeric NOT NULL CHECK (price >= 0),
  market_cap numeric CHECK (market_cap >= 0),
  fetched_at timestamptz NOT NULL
);

-- The current price of each token the source knows (asked by contract address on the chain's
-- platform); a token the source stopped knowing loses its row.
CREATE TABLE IF NOT EXISTS token_prices (
  token text PRIMARY KEY,
  price numeric NOT NULL CHECK (price >= 0),
  market_cap numeric CHECK (market_cap >= 0),
  volume_24h numeric CHECK (volume_24h >= 0),
  fetched_at timestamptz NOT NULL
);

-- When each kind of question ('coin', 'tokens') is next due: an indexer process claims it by moving
-- next_at forward, so several processes of one instance ask once per period between them.
CREATE TABLE IF NOT EXISTS exchange_rate_fetches (
  kind text PRIMARY KEY CHECK (kind IN ('coin', 'tokens')),
  next_at timestamptz NOT NULL,
  failures integer NOT NULL DEFAULT 0
);
