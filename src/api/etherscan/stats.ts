// module=stats of the Etherscan-compatible API: tokensupply and ethsupply, the two Blockscout
// answers this instance computes itself (StatsController). The price-based actions
// (ethprice, coinprice, ethsupplyexchange: Blockscout's answers carry the coin's BTC price, which
// the price source is not asked for) are not built; coinsupply (needs burnt coins) and totalfees
// are not served: this instance does not keep those figures.
import type { ApiContext } from '../context.js';
import { tokenRow } from '../../storage/postgres/reads/contracts.js';
import { coinBalanceSum } from '../../storage/postgres/reads/etherscan.js';
import { parseAddress, type Params } from './params.js';
import { fail, ok, type ActionReply, type ActionTable } from './actions.js';

/** tokensupply: the token's total supply as the derived lanes read it (null until read, as Blockscout renders nil). */
async function tokensupply(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const raw = p.get('contractaddress');
  if (raw === undefined) return fail('Query parameter contract address is required');
  const address = parseAddress(raw);
  if (!address) return fail('Invalid contract address format');
  const token = await tokenRow(ctx.pg, address);
  if (!token) return fail('contract address not found', null, 'volatile');
  return ok(token.total_supply);
}

/**
 * ethsupply: the sum of the coin balances this instance has read, in wei, which is what
 * Blockscout's ethsupply sums too (Explorer.Chain.Cache.AddressSum over its addresses): accounts
 * never seen in an indexed block are not in it.
 */
async function ethsupply(_p: Params, ctx: ApiContext): Promise<ActionReply> {
  return ok((await coinBalanceSum(ctx.pg)).sum);
}

export const statsActions: ActionTable = { tokensupply, ethsupply };
