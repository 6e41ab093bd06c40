// module=block of the Etherscan-compatible API: getblockreward, getblockcountdown, getblocknobytime and
// eth_block_number, as Blockscout's API.RPC.BlockController and BlockView answer them.
import type { ApiContext } from '../context.js';
import { blockByNumber, blockRewards } from '../../storage/clickhouse/reads/blocks.js';
import { blockNumberByTime } from '../../storage/clickhouse/reads/etherscan.js';
import { parseInteger, type Params } from './params.js';
import { fail, ok, type ActionReply, type ActionTable } from './actions.js';
import { blockCountdown } from '../routes/blocks.js';

/**
 * getblockreward: the miner's reward rows of the block (src/chain/rewards.ts: the priority fees
 * after the merge, plus the static and uncle rewards where the node's traces report them).
 * timeStamp is a decimal string like every other number of this API (Blockscout's view writes a
 * JSON number there; Etherscan a string); uncles and uncleInclusionReward are null as Blockscout's.
 */
async function getblockreward(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const raw = p.get('blockno');
  if (raw === undefined) return fail("Query parameter 'blockno' is required");
  const n = parseInteger(raw);
  if (n === null) return fail('Invalid block number');
  const block = n < 0n ? null : await blockByNumber(ctx.ch, n);
  if (!block) return fail('Block does not exist', null, 'volatile');
  const rows = (await blockRewards(ctx.ch, [n])).get(block.number) ?? [];
  // No rows: the genesis block paid nothing; any other block's reward is not known here (a
  // pre-merge chain without reward traces), which is said rather than answered as 0.
  if (!rows.length && n !== 0n) return fail('Block reward is not known for this block', null, 'stable');
  const reward = rows.filter((r) => r.address_type === 'validator' && r.address === block.miner).reduce((s, r) => s + BigInt(r.reward), 0n);
  return ok(
    { blockNumber: block.number, timeStamp: String(block.ts), blockMiner: block.miner, blockReward: reward.toString(), uncles: null, uncleInclusionReward: null },
    'stable',
  );
}

/** getblockcountdown: the blocks left to `blockno` and the seconds they take (Etherscan's fields, as strings). */
async function getblockcountdown(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const raw = p.get('blockno');
  if (raw === undefined) return fail("Query parameter 'blockno' is required");
  const n = parseInteger(raw);
  if (n === null || n < 0n) return fail('Invalid block number');
  const c = await blockCountdown(ctx, n);
  // Blockscout's messages for a block already there and for a store without an average yet.
  if (c === 'indexing') return fail('Chain is indexing now, try again later', null, 'volatile');
  if (c === 'passed') return fail('Error! Block number already pass', null, 'volatile');
  return ok({ CurrentBlock: String(c.current), CountdownBlock: String(c.target), RemainingBlock: String(c.remaining), EstimateTimeInSec: c.seconds.toFixed(1) });
}

async function getblocknobytime(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const rawTs = p.get('timestamp');
  if (rawTs === undefined) return fail("Query parameter 'timestamp' is required");
  const closest = p.get('closest');
  if (closest === undefined) return fail("Query parameter 'closest' is required");
  const ts = parseInteger(rawTs);
  // DateTime.from_unix refuses what is beyond year 9999.
  if (ts === null || ts > 253402300799n || ts < -377705116800n) return fail('Invalid `timestamp` param');
  if (closest !== 'before' && closest !== 'after') return fail('Invalid `closest` param');
  const n = await blockNumberByTime(ctx.ch, ts, closest);
  // A later block may be the answer for "after" (or the first for "before"): volatile.
  if (n === null) return fail('Block does not exist', null, 'volatile');
  return ok({ blockNumber: n });
}

/** eth_block_number: JSON-RPC-shaped (Blockscout's EthRPC view), the request's id or 1. */
async function ethBlockNumber(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const head = await ctx.head();
  return { body: { jsonrpc: '2.0', result: head === null ? null : `0x${head.toString(16)}`, id: p.get('id') ?? 1 }, policy: 'volatile' };
}

export const blockActions: ActionTable = { getblockreward, getblockcountdown, getblocknobytime, eth_block_number: ethBlockNumber };
