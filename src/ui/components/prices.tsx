// The coin's price as the pages show it (home and stats tiles): only where the API gives one (a
// price source is set), with its change since yesterday's closing price when the API has both.
import { percent, usd } from '../format.js';

export function CoinPrice({ stats }: { stats: { coin_price?: string | null; coin_price_change_percentage?: number | null } }) {
  const change = stats.coin_price_change_percentage;
  return (
    <>
      {usd(stats.coin_price)}
      {change !== null && change !== undefined ? (
        <span class={`price-change ${change < 0 ? 'down' : 'up'}`} title="Since yesterday's closing price">
          {' '}
          {change > 0 ? '+' : ''}
          {percent(change, 2)}
        </span>
      ) : null}
    </>
  );
}
