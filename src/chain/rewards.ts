// Block rewards: what a block paid out, as Blockscout lists it (Explorer.Chain.Block.Reward rows,
// `address_type` validator | emission_funds | uncle). Pure: no I/O.
//
// What is known, and from where:
// - The static reward (with the uncle-inclusion bonus) and the uncles' rewards are reported only
//   by parity-style `trace_block` (`type: 'reward'` traces). Types as Blockscout's
//   EthereumJSONRPC.FetchedBeneficiaries assigns them: rewardType "block" -> validator, "uncle" ->
//   uncle, "external" (POA block-reward contracts) -> validator for the first reward trace,
//   emission_funds for the second, validator after that. Any other rewardType (AuRa's
//   "emptyStep", ...) is left out: Blockscout matches only those three, and halting the indexer
//   over a reward it cannot classify would be worse. Rewards of one type to one address are
//   summed (Blockscout's reduce_uncle_rewards; one row per key).
// - The miner's fee income is the block's priority fees: sum of gas_used * (effective gas price -
//   base fee) (before London the base fee is 0: all fees). Like Blockscout (Indexer.Block.Fetcher
//   add_gas_payments) it is added to the validator reward paid to the miner. Blockscout's
//   trace_block path adds gas_used * gas_price there, which after London also counts the burnt
//   base fee that never reached the miner; its "manual" path (Block.block_reward_by_parts)
//   subtracts the burnt fees, as done here.
// - After the merge (difficulty 0) the execution layer pays no block reward (EIP-3675): the
//   miner's reward is the priority fees alone, known from the receipts even without traces.
// - Before the merge without reward traces (geth's callTracer, trace_replayBlockTransactions,
//   traces off) the static and uncle rewards are unknown: no row at all, rather than a fee-only
//   "Miner Reward" that would understate it. Blockscout's geth variant also lists none.

import { hexToBigInt, lower } from './hex.js';
import type { BlockRewardRow, RewardType } from './clickhouse-rows.js';
import type { ParityTrace } from './wire.js';

/** Blockscout's address type for the `index`-th reward trace of a block; null: a rewardType it does not list. */
function rewardType(rewardTypeName: string | undefined, index: number): RewardType | null {
  switch (rewardTypeName) {
    case 'block':
      return 'validator';
    case 'uncle':
      return 'uncle';
    case 'external':
      return index === 1 ? 'emission_funds' : 'validator';
    default:
      return null;
  }
}

const TYPE_ORDER: Record<RewardType, number> = { validator: 1, emission_funds: 2, uncle: 3 };

export interface RewardInputs {
  block_number: number;
  /** Lower-case fee recipient. */
  miner: string;
  /** The header's difficulty: 0 after the merge. */
  difficulty: bigint;
  /** The block's priority fees (wei); null when the receipts were not fetched (unknown). */
  priorityFees: bigint | null;
  /** The block's `reward` traces from trace_block; undefined when no reward-reporting trace method was asked. */
  rewardTraces: readonly ParityTrace[] | undefined;
}

/**
 * The block's reward rows, ordered by (address_type, address) as the table is. Empty when nothing
 * is known (see the file comment) and for the genesis block, which paid nothing.
 */
export function blockRewards(b: RewardInputs): BlockRewardRow[] {
  if (b.block_number === 0 || b.priorityFees === null) return [];
  const sums = new Map<string, { type: RewardType; address: string; value: bigint }>();
  const traces = b.rewardTraces ?? [];
  for (let i = 0; i < traces.length; i++) {
    const a = traces[i]!.action;
    const type = rewardType(a.rewardType, i);
    if (type === null) continue;
    const address = lower(a.author);
    const key = type + address;
    const cur = sums.get(key);
    if (cur) cur.value += hexToBigInt(a.value);
    else sums.set(key, { type, address, value: hexToBigInt(a.value) });
  }
  const minerKey = 'validator' + b.miner;
  const minerRow = sums.get(minerKey);
  if (minerRow) minerRow.value += b.priorityFees;
  else if (b.difficulty === 0n) sums.set(minerKey, { type: 'validator', address: b.miner, value: b.priorityFees });
  return [...sums.values()]
    .sort((x, y) => TYPE_ORDER[x.type] - TYPE_ORDER[y.type] || (x.address < y.address ? -1 : x.address > y.address ? 1 : 0))
    .map((r) => ({ block_number: b.block_number, address_type: r.type, address: r.address, reward: r.value.toString() }));
}
