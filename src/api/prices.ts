// The API's view of the stored prices (EXCHANGE_RATES_URL; the fetcher is src/derived/exchange-rates.ts):
// what the source last answered for the coin (a row a day) and the known tokens, read from
// PostgreSQL at most every PRICES_TTL_MS and held in memory, so an answer showing a price reads
// nothing more and never waits on the source. Off (no source set): nothing is read, every price
// is null. A price older than the book's stale age is not shown as current (null, not an old
// price passed off as today's).
import type { PgStore } from '../storage/postgres/store.js';
import type { Logger } from '../log.js';
import { coinPriceDays, pricesVersion, tokenPrices, type CoinDayRow, type TokenPriceRow } from '../storage/postgres/exchange-rates.js';

/** A token's market data as answers carry it (decimal text; USD). */
export interface TokenMarket {
  exchangeRate: string;
  marketCap: string | null;
  volume24h: string | null;
}

/** What the book shows: posted as is to the API threads (src/api/route-threads.ts). */
export interface PriceSnapshot {
  /** The coin's current price and market cap; null: unknown or stale. */
  coin: { price: string; marketCap: string | null } | null;
  /** The coin's price a day, newest first (a past day's is its closing price). */
  days: { day: string; price: string; marketCap: string | null }[];
  /** Tokens with a current price, by lower-case address. */
  tokens: [string, TokenMarket][];
  /** Token prices stored since this time (ms) are the current ones (null: none is), for the reads ordered by USD value. */
  tokensSince: number | null;
}

export interface MarketChartPoint {
  date: string;
  closing_price: string;
  market_cap: string | null;
  tvl: null;
}

/** How often the stored prices are looked at (ms): a new answer shows within it. */
export const PRICES_TTL_MS = 5_000;
/** Default stale age: a price not renewed for a day is not shown. */
export const DEFAULT_STALE_MS = 24 * 3600_000;
/** Days of /stats/charts/market, today included (Blockscout's recent history). */
export const MARKET_CHART_DAYS = 30;
const DAY_MS = 86_400_000;

const EMPTY: PriceSnapshot = { coin: null, days: [], tokens: [], tokensSince: null };
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class PriceBook {
  private snap: PriceSnapshot = EMPTY;
  private tokenMap = new Map<string, TokenMarket>();
  private dayMap = new Map<string, string>();
  private raw: { days: CoinDayRow[]; tokens: TokenPriceRow[] } = { days: [], tokens: [] };
  private version = '';
  /** What the shown snapshot was made of: the version and which prices were fresh enough. */
  private shownKey = '';
  private checkedAt = 0;
  private refreshing: Promise<boolean> | null = null;

  private readonly staleMs: number;
  private readonly ttlMs: number;

  /** `pg` null: prices are off (the snapshot stays empty unless one is applied). */
  constructor(
    private readonly pg: PgStore | null,
    o: { staleMs?: number; ttlMs?: number } = {},
    private readonly log?: Logger,
  ) {
    this.staleMs = o.staleMs ?? DEFAULT_STALE_MS;
    this.ttlMs = o.ttlMs ?? PRICES_TTL_MS;
  }

  get on(): boolean {
    return this.pg !== null;
  }

  /**
   * Reads the stored prices again if the TTL (PRICES_TTL_MS) has passed; true when what answers show changed
   * (new answers from the source, or a price that went stale), so cached answers must go.
   */
  /** Whether refresh() would read now (a request checks this without awaiting anything). */
  due(now = Date.now()): boolean {
    return this.pg !== null && now - this.checkedAt >= this.ttlMs;
  }

  async refresh(now = Date.now()): Promise<boolean> {
    if (!this.due(now)) return false;
    this.refreshing ??= (async () => {
      try {
        const version = await pricesVersion(this.pg!);
        if (version !== this.version) {
          const [days, tokens] = await Promise.all([coinPriceDays(this.pg!), tokenPrices(this.pg!)]);
          this.raw = { days, tokens };
          this.version = version;
        }
      } catch (e) {
        // The answers go on with what was read before; tried again after the TTL.
        this.log?.warn('could not read the stored prices', { error: e instanceof Error ? e.message : String(e) });
        this.checkedAt = now;
        return false;
      }
      this.checkedAt = now;
      const version = this.version;
      const fresh = (at: number) => now - at < this.staleMs;
      const coinRow = this.raw.days[0];
      const coinFresh = coinRow !== undefined && fresh(coinRow.fetched_at);
      const shownTokens = this.raw.tokens.filter((t) => fresh(t.fetched_at));
      const key = `${version}|${coinFresh}|${shownTokens.length}`;
      if (key === this.shownKey) return false;
      this.shownKey = key;
      this.apply({
        coin: coinFresh ? { price: coinRow.price, marketCap: coinRow.market_cap } : null,
        days: this.raw.days.map((d) => ({ day: d.day, price: d.price, marketCap: d.market_cap })),
        tokens: shownTokens.map((t) => [t.token, { exchangeRate: t.price, marketCap: t.market_cap, volume24h: t.volume_24h }]),
        tokensSince: shownTokens.length ? shownTokens.reduce((m, t) => Math.min(m, t.fetched_at), Infinity) : null,
      });
      return true;
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** Shows this snapshot (an API thread is given the main thread's). */
  apply(s: PriceSnapshot): void {
    this.snap = s;
    this.tokenMap = new Map(s.tokens);
    this.dayMap = new Map(s.days.map((d) => [d.day, d.price]));
  }

  snapshot(): PriceSnapshot {
    return this.snap;
  }

  /** The coin's current USD price (Blockscout's exchange_rate, /stats coin_price). */
  coinPrice(): string | null {
    return this.snap.coin?.price ?? null;
  }

  /** The coin's market cap as the source gave it with the current price. */
  coinMarketCap(): string | null {
    return this.snap.coin?.marketCap ?? null;
  }

  /** A token's market data, when the source knows the token. */
  token(address: string): TokenMarket | undefined {
    return this.tokenMap.size ? this.tokenMap.get(address) : undefined;
  }

  get hasTokens(): boolean {
    return this.tokenMap.size > 0;
  }

  /**
   * The time (ms) from which stored token prices are the ones shown, for reads that order by USD
   * value in PostgreSQL (an address's token balances); null when no token price is shown.
   */
  tokensFreshSince(): number | null {
    return this.snap.tokensSince;
  }

  /**
   * A transaction's historic_exchange_rate, as Blockscout gives it: for a transaction more than a
   * day old, its UTC day's closing price when a price was recorded that day; else null.
   */
  historicRate(timestampMs: number, now: number): string | null {
    if (!this.dayMap.size || !(timestampMs < now - DAY_MS)) return null;
    return this.dayMap.get(dayOf(timestampMs)) ?? null;
  }

  /**
   * /stats coin_price_change_percentage as Blockscout computes it: the current price against
   * yesterday's closing price, in percent, rounded up to two decimals; null without both.
   */
  changePercent(now: number): number | null {
    const price = this.coinPrice();
    const yesterday = this.dayMap.get(dayOf(now - DAY_MS));
    if (price === null || yesterday === undefined) return null;
    return percentChange(price, yesterday);
  }

  /**
   * /stats/charts/market: the days of the last MARKET_CHART_DAYS with a recorded price, newest
   * first, each with its closing price (today's: the current one) and market cap.
   */
  marketChart(now: number): MarketChartPoint[] {
    const earliest = dayOf(now - (MARKET_CHART_DAYS - 1) * DAY_MS);
    const today = dayOf(now);
    return this.snap.days
      .filter((d) => d.day >= earliest && d.day <= today)
      .map((d) => ({ date: d.day, closing_price: d.price, market_cap: d.marketCap, tvl: null }));
  }
}

/** A decimal string as an integer and its scale (digits after the point). */
function scaled(d: string): [bigint, number] {
  const [i, f = ''] = d.split('.');
  return [BigInt(i + f), f.length];
}

/**
 * (now / before - 1) * 100, rounded up to two decimals, computed exactly on the decimal strings
 * (as Blockscout's Decimal does: 2310 against 2200 is 5, not 5.01); null when `before` is 0.
 */
export function percentChange(now: string, before: string): number | null {
  const [a, sa] = scaled(now);
  const [b, sb] = scaled(before);
  const scale = Math.max(sa, sb);
  const x = a * 10n ** BigInt(scale - sa);
  const y = b * 10n ** BigInt(scale - sb);
  if (y === 0n) return null;
  // Hundredths of a percent, rounded up (BigInt division truncates toward zero: up for negatives).
  const n = (x - y) * 10_000n;
  const q = n >= 0n ? (n + y - 1n) / y : n / y;
  return Number(q) / 100;
}
