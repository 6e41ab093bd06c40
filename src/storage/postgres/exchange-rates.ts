// The price source's answers (sql/postgres/0020_exchange_rates.sql): the coin's price a day, the
// known tokens' current prices, and when each kind of question is next due. The fetcher
// (src/derived/exchange-rates.ts) writes them; the API (src/api/prices.ts) reads them.
import type { PgStore } from './store.js';

export type FetchKind = 'coin' | 'tokens';

/**
 * Claims a kind of question if it is due at `now`, leasing it until `leaseUntil` (a process that
 * dies while asking leaves it due again then). Null: not due, or another process has it.
 */
export async function claimFetch(pg: PgStore, kind: FetchKind, now: Date, leaseUntil: Date): Promise<{ failures: number } | null> {
  const rows = await pg.query<{ failures: number }>(
    `INSERT INTO exchange_rate_fetches (kind, next_at) VALUES ($1, $3)
     ON CONFLICT (kind) DO UPDATE SET next_at = EXCLUDED.next_at WHERE exchange_rate_fetches.next_at <= $2
     RETURNING failures`,
    [kind, now, leaseUntil],
  );
  return rows[0] ?? null;
}

/** Sets when the kind is next due, after an answer (failures back to 0) or a failure (one more). */
export async function finishFetch(pg: PgStore, kind: FetchKind, nextAt: Date, failed: boolean): Promise<void> {
  await pg.query(
    `UPDATE exchange_rate_fetches SET next_at = $2, failures = CASE WHEN $3 THEN failures + 1 ELSE 0 END WHERE kind = $1`,
    [kind, nextAt, failed],
  );
}

/** A price as decimal text (numeric accepts the source's exponents; it prints plain decimals). */
export interface CoinPriceSample {
  at: Date;
  price: string;
  marketCap: string | null;
}

/** The coin's price at `at`: the row of its UTC day, unless that row holds a later answer. */
export async function saveCoinPrice(pg: PgStore, s: CoinPriceSample): Promise<void> {
  await pg.query(
    `INSERT INTO coin_prices (day, price, market_cap, fetched_at) VALUES ($1::date, $2::numeric, $3::numeric, $4)
     ON CONFLICT (day) DO UPDATE SET price = EXCLUDED.price, market_cap = EXCLUDED.market_cap, fetched_at = EXCLUDED.fetched_at
     WHERE coin_prices.fetched_at <= EXCLUDED.fetched_at`,
    [s.at.toISOString().slice(0, 10), s.price, s.marketCap, s.at],
  );
}

export interface TokenPriceSample {
  /** Lower-case address. */
  token: string;
  price: string;
  marketCap: string | null;
  volume24h: string | null;
}

/** The ERC-20 tokens whose prices are asked: those with the most holders. */
export async function tokensToPrice(pg: PgStore, limit: number): Promise<string[]> {
  if (limit <= 0) return [];
  const rows = await pg.query<{ address: string }>(
    `SELECT address FROM tokens WHERE type = 'ERC-20' ORDER BY holder_count DESC, address LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.address);
}

/** One answer about tokens: the prices it gave, and the asked tokens it did not know (their rows go). */
export async function saveTokenPrices(pg: PgStore, at: Date, known: readonly TokenPriceSample[], unknown: readonly string[]): Promise<void> {
  await pg.tx(async (c) => {
    if (known.length) {
      await c.query(
        `INSERT INTO token_prices (token, price, market_cap, volume_24h, fetched_at)
         SELECT t, p, m, v, $5 FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::numeric[]) AS x(t, p, m, v)
         ON CONFLICT (token) DO UPDATE SET price = EXCLUDED.price, market_cap = EXCLUDED.market_cap,
           volume_24h = EXCLUDED.volume_24h, fetched_at = EXCLUDED.fetched_at`,
        [known.map((k) => k.token), known.map((k) => k.price), known.map((k) => k.marketCap), known.map((k) => k.volume24h), at],
      );
    }
    if (unknown.length) await c.query('DELETE FROM token_prices WHERE token = ANY($1::text[])', [unknown]);
  });
}

/** Token prices not asked again since `before` (the token left the most-held ones): gone. */
export async function dropTokenPricesBefore(pg: PgStore, before: Date): Promise<void> {
  await pg.query('DELETE FROM token_prices WHERE fetched_at < $1', [before]);
}

/** What says whether the stored prices changed: the newest answers' times and the token rows' count. */
export async function pricesVersion(pg: PgStore): Promise<string> {
  const [r] = await pg.query<{ v: string }>(
    `SELECT concat_ws('|', (SELECT max(fetched_at) FROM coin_prices)::text, (SELECT max(fetched_at) FROM token_prices)::text,
       (SELECT count(*) FROM token_prices)::text) AS v`,
  );
  return r?.v ?? '';
}

export interface CoinDayRow {
  /** YYYY-MM-DD (UTC). */
  day: string;
  price: string;
  market_cap: string | null;
  /** Milliseconds since the epoch. */
  fetched_at: number;
}

/** Every day's coin price, newest first. */
export async function coinPriceDays(pg: PgStore): Promise<CoinDayRow[]> {
  const rows = await pg.query<{ day: string; price: string; market_cap: string | null; ms: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, price::text AS price, market_cap::text AS market_cap,
            (extract(epoch FROM fetched_at) * 1000)::bigint::text AS ms
     FROM coin_prices ORDER BY day DESC`,
  );
  return rows.map((r) => ({ day: r.day, price: r.price, market_cap: r.market_cap, fetched_at: Number(r.ms) }));
}

export interface TokenPriceRow {
  token: string;
  price: string;
  market_cap: string | null;
  volume_24h: string | null;
  fetched_at: number;
}

/** Every stored token price. */
export async function tokenPrices(pg: PgStore): Promise<TokenPriceRow[]> {
  const rows = await pg.query<{ token: string; price: string; market_cap: string | null; volume_24h: string | null; ms: string }>(
    `SELECT token, price::text AS price, market_cap::text AS market_cap, volume_24h::text AS volume_24h,
            (extract(epoch FROM fetched_at) * 1000)::bigint::text AS ms
     FROM token_prices`,
  );
  return rows.map((r) => ({ token: r.token, price: r.price, market_cap: r.market_cap, volume_24h: r.volume_24h, fetched_at: Number(r.ms) }));
}
