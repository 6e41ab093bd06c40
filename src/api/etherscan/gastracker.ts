// module=gastracker of the Etherscan-compatible API: gasoracle (the three levels of the gas
// tracker, src/api/gas-prices.ts, in Etherscan's fields: gwei as decimal strings) and
// gasestimate (the expected wait, in seconds, of a transaction paying `gasprice` wei).
import type { ApiContext } from '../context.js';
import { gasTracker } from '../gas-prices.js';
import { listBlocks } from '../../storage/clickhouse/reads/blocks.js';
import { parseInteger, type Params } from './params.js';
import { fail, ok, type ActionReply, type ActionTable } from './actions.js';

/** Wei as gwei in decimal, trailing zeros dropped ("0.612345678", "12"). */
function gweiText(wei: bigint): string {
  const whole = wei / 1_000_000_000n;
  const frac = (wei % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

async function gasoracle(_p: Params, ctx: ApiContext): Promise<ActionReply> {
  const [g, last] = await Promise.all([gasTracker(ctx), listBlocks(ctx.ch, undefined, 5)]);
  if (!g.newest || !g.prices?.slow || !g.prices.average || !g.prices.fast) return fail('No blocks indexed yet', null, 'volatile');
  return ok({
    LastBlock: g.newest.number,
    SafeGasPrice: String(g.prices.slow.price),
    ProposeGasPrice: String(g.prices.average.price),
    FastGasPrice: String(g.prices.fast.price),
    // Before EIP-1559 there is no base fee to suggest.
    suggestBaseFee: g.nextBaseFee === null ? '' : gweiText(g.nextBaseFee),
    // The newest five blocks' gas used over their limit, oldest first.
    gasUsedRatio: last
      .slice()
      .reverse()
      .map((b) => (BigInt(b.gas_limit) === 0n ? 0 : Number(b.gas_used) / Number(b.gas_limit)))
      .join(','),
  });
}

async function gasestimate(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const raw = p.get('gasprice');
  if (raw === undefined) return fail("Query parameter 'gasprice' is required");
  const price = parseInteger(raw);
  if (price === null || price < 0n) return fail('Invalid `gasprice` param');
  const g = await gasTracker(ctx);
  const levels = [g.prices?.fast, g.prices?.average, g.prices?.slow];
  // The quickest level the price pays for; below the slow level's price no wait can be estimated.
  const met = levels.find((l) => l && l.wei !== null && l.time !== null && price >= BigInt(l.wei));
  if (!met) return fail('The gas price is below what the newest blocks\' slow level paid: no estimate', null, 'volatile');
  return ok(String(Math.round(met.time! / 1000)));
}

export const gastrackerActions: ActionTable = { gasoracle, gasestimate };
