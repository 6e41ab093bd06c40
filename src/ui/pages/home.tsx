// The home page: search, the chain's counters, daily transactions, and the latest blocks and
// transactions, which the live island refreshes on every new block (from `/?part=live`, the same
// section rendered alone). The indexing banner shows only while catch-up is really behind.
import { AddressLink, Amount, BlockLink, Empty, Tile, Time, TxLink } from '../components/common.js';
import { ENOUGH_DAYS, LineChart, hourlyLine } from '../components/chart.js';
import { duration, groupDigits, gwei, percent } from '../format.js';
import { CoinPrice } from '../components/prices.js';
import type { PageCtx, PageResult } from '../page.js';
import { apiGet, apiGetOptional } from './errors.js';

/** Failures in a row before the banner says indexing is stuck (as the API's health check counts them). */
const STUCK_ATTEMPTS = 3;

interface IndexingStatusJson {
  finished_indexing_blocks: boolean;
  indexed_blocks_ratio: string;
  details?: {
    stored_blocks?: number;
    node_head?: number | null;
    committed_block?: number | null;
    indexer_error?: { from: number; to: number; attempts: number; since: string; error: string } | null;
  };
}

/** The indexing banner's text, or null when the indexer follows the head. */
export async function indexingBanner(ctx: PageCtx): Promise<string | null> {
  const s = await apiGetOptional<IndexingStatusJson>(ctx, '/api/v2/main-page/indexing-status');
  const stall = s?.details?.indexer_error;
  if (stall && stall.attempts >= STUCK_ATTEMPTS) {
    const upTo = s!.details!.committed_block;
    return (
      `Indexing is stuck: blocks ${groupDigits(String(stall.from))} to ${groupDigits(String(stall.to))} could not be indexed ` +
      `(${stall.attempts} attempts since ${stall.since.slice(0, 19).replace('T', ' ')} UTC: ${stall.error}). ` +
      (upTo == null ? 'Nothing is indexed yet.' : `Everything shown stops at block ${groupDigits(String(upTo))}.`)
    );
  }
  if (!s || s.finished_indexing_blocks) return null;
  const pct = (Math.floor(Number(s.indexed_blocks_ratio) * 1000) / 10).toFixed(1);
  const of = s.details?.node_head != null ? ` (${groupDigits(String(s.details.stored_blocks ?? 0))} of ${groupDigits(String(s.details.node_head + 1))} blocks)` : '';
  return `Indexing this chain: ${pct}% of blocks indexed${of}. Counts and lists are complete up to the indexed height.`;
}

async function live(ctx: PageCtx) {
  const [stats, blocks, txs] = await Promise.all([
    apiGet<any>(ctx, '/api/v2/stats', 'Chain statistics'),
    apiGet<any[]>(ctx, '/api/v2/main-page/blocks', 'Latest blocks'),
    apiGet<any[]>(ctx, '/api/v2/main-page/transactions', 'Latest transactions'),
  ]);
  // The gas tracker's average level (Blockscout's shape: {price in gwei, time, ...}); none before any block.
  const gas: number | null | undefined = stats.gas_prices?.average?.price;
  return (
    <div id="live" data-live="/?part=live">
      <section class="tiles" aria-label="Chain counters">
        {stats.coin_price ? <Tile label={`${ctx.coin} price`} value={<CoinPrice stats={stats} />} /> : null}
        <Tile label="Total blocks" value={groupDigits(String(stats.total_blocks))} />
        <Tile label="Average block time" value={stats.average_block_time !== undefined ? duration(stats.average_block_time) : '—'} />
        <Tile label="Total transactions" value={groupDigits(String(stats.total_transactions))} />
        <Tile label="Addresses" value={groupDigits(String(stats.total_addresses))} />
        {gas !== undefined && gas !== null ? <Tile label="Gas price" value={`${gas} gwei`} /> : null}
        <Tile label="Network utilization" value={stats.network_utilization_percentage === null ? '—' : percent(stats.network_utilization_percentage)} />
      </section>
      <div class="two-col">
        <section class="card" aria-labelledby="latest-blocks">
          <h2 id="latest-blocks">
            Latest blocks <a class="more" href="/blocks">View all</a>
          </h2>
          {blocks.length ? (
            <ul class="feed">
              {blocks.map((b) => (
                <li>
                  <div class="feed-main">
                    <BlockLink n={b.height} /> <Time iso={b.timestamp} />
                  </div>
                  <div class="feed-sub">
                    {groupDigits(String(b.transactions_count))} {b.transactions_count === 1 ? 'transaction' : 'transactions'} · miner <AddressLink a={b.miner} copy={false} />
                    {b.base_fee_per_gas ? <span class="muted"> · base fee {gwei(b.base_fee_per_gas)}</span> : null}
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No blocks indexed yet.</Empty>
          )}
        </section>
        <section class="card" aria-labelledby="latest-txs">
          <h2 id="latest-txs">
            Latest transactions <a class="more" href="/txs">View all</a>
          </h2>
          {txs.length ? (
            <ul class="feed">
              {txs.map((t) => (
                <li>
                  <div class="feed-main">
                    <span>
                      <span class={`dot ${t.status === 'ok' ? 'ok' : t.status === 'error' ? 'err' : 'pending'}`} title={t.status === 'ok' ? 'Success' : 'Failed'} />
                      <TxLink hash={t.hash} />
                    </span>
                    <Time iso={t.timestamp} />
                  </div>
                  <div class="feed-sub">
                    <AddressLink a={t.from} copy={false} /> → {t.to ? <AddressLink a={t.to} copy={false} /> : <span>contract creation</span>}
                    <span class="feed-value">
                      {' '}
                      · <Amount value={t.value} decimals={18} symbol={ctx.coin} max={4} />
                    </span>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No transactions indexed yet.</Empty>
          )}
        </section>
      </div>
    </div>
  );
}

export async function homePage(ctx: PageCtx): Promise<PageResult> {
  if (ctx.url.searchParams.get('part') === 'live') return { title: 'Latest', body: await live(ctx), fragment: true };
  const [section, chart, banner] = await Promise.all([
    live(ctx),
    apiGetOptional<{ chart_data: { date: string; transactions_count: number }[] }>(ctx, '/api/v2/stats/charts/transactions'),
    indexingBanner(ctx),
  ]);
  const days = (chart?.chart_data ?? []).map((d) => ({ x: d.date, y: Number(d.transactions_count) })).reverse();
  // A young chain (today is not in the daily chart): its transactions per hour until it has days enough.
  const hourly = days.length < ENOUGH_DAYS ? await hourlyLine(ctx, 'newTxns') : null;
  const points = hourly?.length ? hourly : days;
  return {
    title: 'Explorer',
    section: 'home',
    banner,
    // The chart script only where a chart has a line to draw.
    islands: points.length >= 2 ? ['live', 'chart'] : ['live'],
    body: (
      <>
        <section class="hero">
          <h1>Explore the chain</h1>
          <form class="hero-search" action="/search" method="get" role="search" data-island="search">
            <label class="sr-only" for="q">
              Search by address, transaction hash, block number or token
            </label>
            <input id="q" name="q" type="search" placeholder="Address, transaction hash, block number or token name" autocomplete="off" spellcheck={false} aria-keyshortcuts="/" />
            <button type="submit">Search</button>
          </form>
        </section>
        {section}
        <section class="card" aria-labelledby="daily">
          <h2 id="daily">{hourly?.length ? 'Transactions per hour' : 'Daily transactions'}</h2>
          {hourly?.length ? <p class="muted">The chain is younger than {ENOUGH_DAYS} days: per hour over the last 48 hours (UTC).</p> : null}
          <LineChart points={points} label={hourly?.length ? 'Transactions per hour' : 'Transactions per day'} />
        </section>
      </>
    ),
  };
}
