// The price fetcher (EXCHANGE_RATES_URL, off by default; issue #31, section 5): in the indexer
// process, in the background, a CoinGecko-compatible API is asked for the coin's USD price and
// market cap (/simple/price) every EXCHANGE_RATES_PERIOD_S, and for the prices of the ERC-20 tokens
// with the most holders by contract address (/simple/token_price/<platform>, 100 a request, a
// pause between requests) every EXCHANGE_RATES_TOKENS_PERIOD_S, through the guarded outbound
// helper. Answers go to PostgreSQL (src/storage/postgres/exchange-rates.ts), where the API reads
// them; no request of the API ever waits on the source. A failed or late answer changes nothing
// stored (the last known prices stay), is logged, and is asked again after a backoff. Each kind of
// question is claimed in PostgreSQL, so several indexer processes ask once between them.
import { outbound, OutboundError } from '../net/outbound.js';
import { backoffMs, Sleeper } from '../retry.js';
import type { Logger } from '../log.js';
import type { PgStore } from '../storage/postgres/store.js';
import {
  claimFetch,
  dropTokenPricesBefore,
  finishFetch,
  saveCoinPrice,
  saveTokenPrices,
  tokensToPrice,
  type FetchKind,
  type TokenPriceSample,
} from '../storage/postgres/exchange-rates.js';

export interface ExchangeRatesOptions {
  pg: PgStore;
  /** The API's base, e.g. https://api.coingecko.com/api/v3. */
  url: string;
  /** The coin's id at the source; unset: the coin's price is not asked. */
  coinId?: string;
  /** The chain's asset platform at the source; unset: token prices are not asked. */
  platform?: string;
  apiKey?: string;
  periodMs: number;
  tokensPeriodMs: number;
  /** Most tokens asked (the ERC-20 tokens with the most holders); 0: none. */
  tokensMax: number;
  log: Logger;
  /** Pause between two requests of a round (the source's rate limit). Default REQUEST_GAP_MS. */
  requestGapMs?: number;
  /** One request's whole exchange. Default 15 s. */
  timeoutMs?: number;
  /** Tests: a stub source on loopback over http. */
  allowHttp?: boolean;
  allowPrivate?: boolean;
  /** Tests: the clock the samples are taken by. */
  now?: () => number;
}

/** Tokens per /simple/token_price request (CoinGecko takes up to 515; 100 keeps the URL ~4 KB). */
export const TOKEN_BATCH = 100;
/** 24 requests a minute at most: under the free plan's 30. */
export const REQUEST_GAP_MS = 2_500;
/** How often the claims are looked at (due kinds are asked then). */
const TICK_MS = 10_000;
const MAX_BYTES = 1024 * 1024;
/** The first retry after a failure; then doubling, up to the kind's period. */
const RETRY_BASE_MS = 30_000;

export class ExchangeRates {
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly sleeper = new Sleeper();
  private readonly now: () => number;
  private readonly base: string;
  private readonly headers: Record<string, string>;

  constructor(private readonly o: ExchangeRatesOptions) {
    this.now = o.now ?? Date.now;
    this.base = o.url.replace(/\/+$/, '');
    this.headers = { accept: 'application/json' };
    if (o.apiKey) {
      // CoinGecko's keys: a demo key goes to the public host, a paid one to the pro host.
      this.headers[new URL(o.url).hostname === 'api.coingecko.com' ? 'x-cg-demo-api-key' : 'x-cg-pro-api-key'] = o.apiKey;
    }
  }

  /** The kinds of question this instance asks. */
  get kinds(): FetchKind[] {
    const out: FetchKind[] = [];
    if (this.o.coinId) out.push('coin');
    if (this.o.platform && this.o.tokensMax > 0) out.push('tokens');
    return out;
  }

  start(): void {
    this.loop ??= (async () => {
      while (!this.stopped) {
        await this.step().catch((e) => this.o.log.warn('price source: could not read or record what is due', { error: message(e) }));
        await this.sleeper.sleep(TICK_MS);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeper.wake();
    await this.loop;
  }

  /** Asks every kind that is due (and not claimed by another process); the kinds whose answers were stored. */
  async step(): Promise<FetchKind[]> {
    const stored: FetchKind[] = [];
    for (const kind of this.kinds) {
      if (this.stopped) break;
      const now = this.now();
      const period = kind === 'coin' ? this.o.periodMs : this.o.tokensPeriodMs;
      const claim = await claimFetch(this.o.pg, kind, new Date(now), new Date(now + this.leaseMs(kind)));
      if (!claim) continue;
      try {
        if (kind === 'coin') await this.coin(now);
        else await this.tokens(now);
        await finishFetch(this.o.pg, kind, new Date(now + period), false);
        stored.push(kind);
      } catch (e) {
        const failures = claim.failures + 1;
        const wait = Math.min(period, backoffMs(failures, { baseMs: RETRY_BASE_MS, maxMs: period }));
        this.o.log.warn(`price source: the ${kind} prices were not updated; the last known ones stay`, {
          error: message(e),
          ...(e instanceof OutboundError && e.detail !== e.message ? { detail: e.detail } : {}),
          failures,
          retry_in_s: Math.round(wait / 1000),
        });
        await finishFetch(this.o.pg, kind, new Date(now + wait), true);
      }
    }
    return stored;
  }

  /** How long a claim holds: a round's requests, pauses and timeouts, with room to spare. */
  private leaseMs(kind: FetchKind): number {
    const requests = kind === 'coin' ? 1 : Math.ceil(this.o.tokensMax / TOKEN_BATCH);
    return Math.max(5 * 60_000, 2 * requests * ((this.o.requestGapMs ?? REQUEST_GAP_MS) + (this.o.timeoutMs ?? 15_000)));
  }

  private async coin(now: number): Promise<void> {
    const id = this.o.coinId!;
    const body = await this.get(`/simple/price?ids=${encodeURIComponent(id)}&vs_currencies=usd&include_market_cap=true`);
    const entry = body[id] ?? body[id.toLowerCase()];
    const price = decimalOf(field(entry, 'usd'));
    if (price === null) throw new Error(`the source gave no USD price for coin "${id}"`);
    await saveCoinPrice(this.o.pg, { at: new Date(now), price, marketCap: knownAmount(field(entry, 'usd_market_cap')) });
  }

  private async tokens(now: number): Promise<void> {
    const tokens = await tokensToPrice(this.o.pg, this.o.tokensMax);
    const at = new Date(now);
    for (let i = 0; i < tokens.length; i += TOKEN_BATCH) {
      if (i > 0) await this.sleeper.sleep(this.o.requestGapMs ?? REQUEST_GAP_MS);
      if (this.stopped) return;
      const batch = tokens.slice(i, i + TOKEN_BATCH);
      const body = await this.get(
        `/simple/token_price/${encodeURIComponent(this.o.platform!)}?contract_addresses=${batch.join(',')}&vs_currencies=usd&include_market_cap=true&include_24hr_vol=true`,
      );
      const answers = new Map(Object.entries(body).map(([k, v]) => [k.toLowerCase(), v]));
      const known: TokenPriceSample[] = [];
      const unknown: string[] = [];
      for (const token of batch) {
        const entry = answers.get(token);
        const price = decimalOf(field(entry, 'usd'));
        if (price === null) unknown.push(token);
        else known.push({ token, price, marketCap: knownAmount(field(entry, 'usd_market_cap')), volume24h: decimalOf(field(entry, 'usd_24h_vol')) });
      }
      await saveTokenPrices(this.o.pg, at, known, unknown);
    }
    // A whole round answered: the prices it did not renew are of tokens no longer among those asked.
    await dropTokenPricesBefore(this.o.pg, at);
  }

  private async get(pathAndQuery: string): Promise<Record<string, unknown>> {
    const res = await outbound(this.base + pathAndQuery, {
      maxBytes: MAX_BYTES,
      timeoutMs: this.o.timeoutMs ?? 15_000,
      headers: this.headers,
      allowHttp: this.o.allowHttp,
      allowPrivate: this.o.allowPrivate,
    });
    if (res.status !== 200) throw new Error(`the source answered HTTP ${res.status}${res.status === 429 ? ' (too many requests)' : ''}`);
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new Error('the source answered something that is not JSON');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('the source answered JSON that is not an object');
    return body as Record<string, unknown>;
  }
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

function field(entry: unknown, key: string): unknown {
  return entry && typeof entry === 'object' ? (entry as Record<string, unknown>)[key] : undefined;
}

/** A non-negative finite number as decimal text PostgreSQL's numeric reads (exponents included), else null. */
export function decimalOf(v: unknown): string | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? String(v) : null;
}

/** An amount the source knows: CoinGecko answers 0 for a market cap it does not know. */
function knownAmount(v: unknown): string | null {
  return typeof v === 'number' && v > 0 ? decimalOf(v) : null;
}
