// Block JSON (Blockscout's block_view prepare_block; schemas Block / BlockResponse).
import type { BlockRead } from '../../storage/clickhouse/reads/blocks.js';
import { requiredAddress, type AddressJson, type FactsLookup } from './address.js';
import { int, isoTimestamp, percent } from './common.js';

/** EIP-1559's elasticity multiplier: the gas target is half the limit. */
const ELASTICITY = 2n;

export interface BlockJson {
  height: number;
  timestamp: string;
  hash: string;
  parent_hash: string;
  miner: AddressJson;
  size: number;
  transactions_count: number;
  internal_transactions_count: number | null;
  withdrawals_count: number | null;
  gas_used: string;
  gas_limit: string;
  difficulty: string | null;
  total_difficulty: string | null;
  nonce: string | null;
  base_fee_per_gas: string | null;
  burnt_fees: string | null;
  priority_fee: string | null;
  transaction_fees: string;
  gas_target_percentage: number;
  gas_used_percentage: number;
  burnt_fees_percentage: number | null;
  uncles_hashes: { hash: string }[];
  rewards: { reward: string; type: string }[];
  type: 'block' | 'uncle' | 'reorg';
  is_pending_update: boolean;
}

export interface BlockDetail {
  /** Listed internal transactions of the block (single-block variant only). */
  internalCount: number;
}

/**
 * `detail` present: the single-block variant (counts filled). Rewards are not indexed yet, so
 * the list is empty rather than invented.
 */
export function blockJson(b: BlockRead, facts: FactsLookup, detail?: BlockDetail): BlockJson {
  const gasUsed = BigInt(b.gas_used);
  const gasLimit = BigInt(b.gas_limit);
  const hasBaseFee = b.base_fee_per_gas !== null;
  const burnt = hasBaseFee ? BigInt(b.burnt_fees) : null;
  const priority = BigInt(b.priority_fees);
  // Every fee paid is either burnt (base fee) or goes to the miner (priority fee).
  const fees = (burnt ?? 0n) + priority;
  const target = gasLimit / ELASTICITY;
  return {
    height: int(b.number),
    timestamp: isoTimestamp(b.ts),
    hash: b.hash,
    parent_hash: b.parent_hash,
    miner: requiredAddress(b.miner, facts),
    size: int(b.size),
    transactions_count: b.transaction_count,
    internal_transactions_count: detail ? detail.internalCount : null,
    withdrawals_count: detail ? b.withdrawal_count : null,
    gas_used: b.gas_used,
    gas_limit: b.gas_limit,
    difficulty: b.difficulty,
    total_difficulty: b.total_difficulty,
    nonce: b.nonce || null,
    base_fee_per_gas: b.base_fee_per_gas,
    burnt_fees: burnt === null ? null : burnt.toString(),
    priority_fee: priority.toString(),
    transaction_fees: fees.toString(),
    gas_target_percentage: target === 0n ? 0 : percent(gasUsed - target, target),
    gas_used_percentage: percent(gasUsed, gasLimit),
    burnt_fees_percentage: burnt === null || fees === 0n ? null : percent(burnt, fees),
    uncles_hashes: b.uncles.map((hash) => ({ hash })),
    rewards: [],
    type: 'block',
    is_pending_update: false,
  };
}
