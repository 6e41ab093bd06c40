// The gas tracker (/gas-tracker, Blockscout's frontend URL): what to pay now at three speeds (the
// API's /stats gas_prices: slow, average, fast, each its price, base and priority fee and expected
// wait), the latest block's base fee, and how full the recent blocks were (/blocks: gas used of the
// limit, as SVG bars: no script). The coin's price and market cap where a price source is
// set (the API gives them then, and not otherwise).
import { BlockLink, Empty, Tile, Time } from '../components/common.js';
import { CoinPrice } from '../components/prices.js';
import { groupDigits, gwei, percent, usd } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { apiGet, apiGetOptional } from './errors.js';

interface GasLevel {
  price: number | null;
  time: number | null;
  fiat_price: string | null;
  base_fee: number | null;
  priority_fee: number | null;
  priority_fee_wei: string | null;
  wei: string | null;
}

const LEVELS = [
  { id: 'slow', label: 'Slow' },
  { id: 'average', label: 'Average' },
  { id: 'fast', label: 'Fast' },
] as const;

/** Blocks whose fullness is drawn. */
const RECENT_BLOCKS = 20;

/** "~12 s", "~1.5 min" from milliseconds; '' when unknown. */
export function waitText(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  const s = ms / 1000;
  return s < 90 ? `~${Number(s.toFixed(s < 10 ? 1 : 0))} s` : `~${Number((s / 60).toFixed(1))} min`;
}

/** The gas used of a block's limit as a fraction 0..1 (exact integers in, a number for drawing out). */
export function fullness(used: string | null | undefined, limit: string | null | undefined): number | null {
  try {
    if (!used || !limit || BigInt(limit) <= 0n) return null;
    return Number((BigInt(used) * 10_000n) / BigInt(limit)) / 10_000;
  } catch {
    return null;
  }
}

function Level({ id, label, level }: { id: string; label: string; level: GasLevel | null | undefined }) {
  return (
    <section class={`gas-level gas-${id}`} aria-label={`${label} gas price`}>
      <h2>{label}</h2>
      {level ? (
        <>
          <p class="gas-price">{level.wei ? gwei(level.wei) : level.price !== null ? `${level.price} gwei` : '—'}</p>
          {level.fiat_price ? <p class="gas-fiat">{usd(level.fiat_price)} for a transfer</p> : null}
          <dl class="gas-parts">
            {level.base_fee !== null ? (
              <div>
                <dt>Base fee</dt>
                <dd>{level.base_fee} gwei</dd>
              </div>
            ) : null}
            {level.priority_fee_wei !== null ? (
              <div>
                <dt>Priority fee</dt>
                <dd>{gwei(level.priority_fee_wei)}</dd>
              </div>
            ) : null}
            {level.time !== null ? (
              <div>
                <dt>Expected wait</dt>
                <dd>{waitText(level.time)}</dd>
              </div>
            ) : null}
          </dl>
        </>
      ) : (
        <p class="muted">Not known yet: no recent block has a transaction.</p>
      )}
    </section>
  );
}

export async function gasTrackerPage(ctx: PageCtx): Promise<PageResult> {
  const [stats, blocks] = await Promise.all([
    apiGet<any>(ctx, '/api/v2/stats', 'Stats'),
    apiGetOptional<{ items: any[] }>(ctx, '/api/v2/blocks?type=block'),
  ]);
  const prices: Record<string, GasLevel | null> | null = stats.gas_prices ?? null;
  const recent = (blocks?.items ?? []).slice(0, RECENT_BLOCKS);
  const latest = recent[0];
  return {
    title: 'Gas tracker · Explorer',
    description: 'What a transaction pays now at three speeds, the base fee and how full the recent blocks are.',
    section: 'stats',
    body: (
      <>
        <h1>Gas tracker</h1>
        {stats.gas_price_updated_at ? (
          <p class="muted">
            From the newest blocks, as of <Time iso={stats.gas_price_updated_at} />.
          </p>
        ) : null}
        {prices ? (
          <div class="gas-levels">
            {LEVELS.map((l) => (
              <Level id={l.id} label={l.label} level={prices[l.id]} />
            ))}
          </div>
        ) : (
          <section class="card">
            <Empty>No gas prices yet: they come from the transactions of the newest blocks.</Empty>
          </section>
        )}
        <section class="tiles" aria-label="Network">
          <Tile label="Base fee (latest block)" value={latest?.base_fee_per_gas ? gwei(latest.base_fee_per_gas) : '—'} />
          <Tile label="Network utilisation" value={stats.network_utilization_percentage !== null && stats.network_utilization_percentage !== undefined ? percent(stats.network_utilization_percentage, 2) : '—'} />
          {stats.coin_price ? <Tile label={`${ctx.coin} price`} value={<CoinPrice stats={stats} />} /> : null}
          {stats.market_cap && stats.coin_price ? <Tile label={`${ctx.coin} market cap`} value={usd(stats.market_cap, { compact: true })} /> : null}
        </section>
        <section class="card" aria-labelledby="gas-blocks-h">
          <h2 id="gas-blocks-h">Recent blocks: gas used of the limit</h2>
          {recent.length ? (
            <ol class="gas-blocks">
              {recent.map((b) => {
                const full = fullness(b.gas_used, b.gas_limit);
                return (
                  <li>
                    <span class="gas-block-n">
                      <BlockLink n={b.height} />
                    </span>
                    {/* SVG attributes, not a style attribute: the page's CSP admits no inline styles. */}
                    <svg class="gas-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
                      <rect class="gas-bar-bg" width="100" height="10" />
                      <rect class="gas-bar-fg" width={full === null ? '0' : Math.max(full * 100, full > 0 ? 0.5 : 0).toFixed(2)} height="10" />
                    </svg>
                    <span class="gas-block-figures">
                      {full === null ? '—' : percent(full * 100, 2)} <span class="muted">of {groupDigits(String(b.gas_limit))}</span>
                      {b.base_fee_per_gas ? <span class="muted"> · base fee {gwei(b.base_fee_per_gas)}</span> : null}
                    </span>
                  </li>
                );
              })}
            </ol>
          ) : (
            <Empty>No block indexed yet.</Empty>
          )}
        </section>
      </>
    ),
  };
}
