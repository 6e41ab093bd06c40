// Block JSON (Blockscout's block_view prepare_block; schemas Block / BlockResponse).
import type { BlockRead, BlockRewardRead } from '../../storage/clickhouse/reads/blocks.js';
import type { BlockBlobFacts } from '../../storage/clickhouse/reads/blobs.js';
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
  // Blockscout's Ethereum build (BlockScoutWeb.API.V2.EthereumView.extend_block_json_response): on
  // every block, null before Cancun; the price and burnt blob fees on a single block only.
  blob_transactions_count: number;
  blob_gas_used: string | null;
  excess_blob_gas: string | null;
  blob_gas_price?: string | null;
  burnt_blob_fees?: string;
}

export interface BlockDetail {
  /** Listed internal transactions of the block (single-block variant only). */
  internalCount: number;
}

/** Blockscout's BlockView.block_reward_text: the single block's labels per address_type. */
const REWARD_LABELS: Record<BlockRewardRead['address_type'], string> = {
  // "Chore Reward" needs a POA keys-manager contract (a validator reward paid to a key other
  // than the miner's payout key); without one configured Blockscout says "Miner Reward" too.
  validator: 'Miner Reward',
  emission_funds: 'Emission Reward',
  uncle: 'Uncle Reward',
};

/**
 * `detail` present: the single-block variant (counts filled, reward labels). `rewards`: the
 * block's stored reward rows (src/chain/rewards.ts: none when unknown), in lists typed by
 * address_type as Blockscout's prepare_reward does. `blobs`: what its transactions say of its
 * blobs (absent: it has no blob transaction).
 */
export function blockJson(b: BlockRead, facts: FactsLookup, rewards: readonly BlockRewardRead[], detail?: BlockDetail, blobs?: BlockBlobFacts): BlockJson {
  const gasUsed = BigInt(b.gas_used);
  const gasLimit = BigInt(b.gas_limit);
  const hasBaseFee = b.base_fee_per_gas !== null;
  const burnt = hasBaseFee ? BigInt(b.burnt_fees) : null;
  const priority = BigInt(b.priority_fees);
  // Every fee paid is either burnt (base fee) or goes to the miner (priority fee).
  const fees = (burnt ?? 0n) + priority;
  const target = gasLimit / ELASTICITY;
  const out: BlockJson = {
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
    // Blockscout sends it only with a base fee (`base_fee_per_gas && ...`): before London there
    // is no priority fee, every fee goes to the miner (still in transaction_fees).
    priority_fee: hasBaseFee ? priority.toString() : null,
    transaction_fees: fees.toString(),
    gas_target_percentage: target === 0n ? 0 : percent(gasUsed - target, target),
    gas_used_percentage: percent(gasUsed, gasLimit),
    burnt_fees_percentage: burnt === null || fees === 0n ? null : percent(burnt, fees),
    uncles_hashes: b.uncles.map((hash) => ({ hash })),
    rewards: rewards.map((r) => ({ reward: r.reward, type: detail ? REWARD_LABELS[r.address_type] : r.address_type })),
    type: 'block',
    is_pending_update: false,
    blob_transactions_count: blobs?.count ?? 0,
    blob_gas_used: b.blob_gas_used,
    excess_blob_gas: b.excess_blob_gas,
  };
  if (detail) {
    // Blockscout's Block.transaction_blob_gas_price (its first blob transaction's) and blob gas
    // used times it, 0 without either.
    const price = blobs?.price ?? null;
    out.blob_gas_price = price;
    out.burnt_blob_fees = (BigInt(b.blob_gas_used ?? 0) * BigInt(price ?? 0)).toString();
  }
  return out;
}
