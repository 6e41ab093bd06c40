// The gas tracker of /api/v2/stats (`gas_prices`), computed as Blockscout's gas price oracle
// computes it (Explorer.Chain.Cache.GasPriceOracle, its default settings): over the newest 200
// blocks, per block the 35th, 60th and 90th percentile (slow, average, fast) of what transactions
// paid and of their priority fee per gas, each averaged over the blocks. With priority fees and a
// base fee, a level's price is its priority fee plus the next block's base fee; without, the price
// paid. The expected time is the average block time times 5, 3 and 1 (no pending-pool timings
// here, as Blockscout without them). No price source: fiat_price is null.
import { averageBlockMs, feePercentiles, recentBlocks, type BlockFeePercentiles, type RecentBlocks } from '../storage/clickhouse/reads/stats.js';
import { listBlocks, type BlockRead } from '../storage/clickhouse/reads/blocks.js';
import type { ApiContext } from './context.js';

/** Blocks looked at (GAS_PRICE_ORACLE_NUM_OF_BLOCKS' default). */
export const GAS_ORACLE_BLOCKS = 200;
/** Slow, average, fast percentiles (the oracle's SAFELOW/AVERAGE/FAST_PERCENTILE defaults). */
export const GAS_ORACLE_PERCENTILES = [0.35, 0.6, 0.9] as const;
/** Expected wait per level in average block times (the oracle's *_TIME_COEFFICIENT defaults). */
const TIME_COEFFICIENTS = [5, 3, 1] as const;
const LEVELS = ['slow', 'average', 'fast'] as const;

export interface GasPriceJson {
  /** Gwei, rounded up to 2 decimals. */
  price: number | null;
  /** Milliseconds. */
  time: number | null;
  fiat_price: string | null;
  base_fee: number | null;
  priority_fee: number | null;
  priority_fee_wei: string | null;
  wei: string | null;
}

export type GasPricesJson = Record<(typeof LEVELS)[number], GasPriceJson | null>;

/** The next block's base fee from its parent's (EIP-1559: elasticity 2, change denominator 8). */
export function nextBaseFee(baseFee: bigint, gasUsed: bigint, gasLimit: bigint): bigint {
  const target = gasLimit / 2n;
  if (target === 0n || gasUsed === target) return baseFee;
  if (gasUsed > target) {
    const delta = (baseFee * (gasUsed - target)) / target / 8n;
    return baseFee + (delta > 1n ? delta : 1n);
  }
  return baseFee - (baseFee * (target - gasUsed)) / target / 8n;
}

/** A rational amount of wei: a mean over blocks. */
interface Wei {
  num: bigint;
  den: bigint;
}

const mean = (xs: bigint[]): Wei | null => (xs.length ? { num: xs.reduce((a, b) => a + b, 0n), den: BigInt(xs.length) } : null);
const plus = (a: Wei, b: bigint): Wei => ({ num: a.num + b * a.den, den: a.den });
/** Gwei rounded up to 2 decimals, as the oracle's format_wei (Float.ceil(2)). */
function gwei(w: Wei): number {
  const scaled = w.num * 100n;
  const q = scaled / (w.den * 1_000_000_000n);
  const exact = q * w.den * 1_000_000_000n === scaled;
  return Number(exact ? q : q + 1n) / 100;
}
/** Wei rounded half up, as Decimal.round. */
const rounded = (w: Wei): string => ((2n * w.num + w.den) / (2n * w.den)).toString();

/**
 * The three levels from the newest blocks' percentiles (`blocks`, any order), the next block's
 * base fee (null before EIP-1559) and the average block time in ms (null without two blocks).
 */
export function gasPrices(blocks: readonly BlockFeePercentiles[], nextBase: bigint | null, averageBlockMs: number | null): GasPricesJson {
  const level = (fee: Wei | null, i: number, priority: Wei | null): GasPriceJson | null => {
    if (!fee) return null;
    return {
      price: gwei(fee),
      time: averageBlockMs === null ? null : averageBlockMs * TIME_COEFFICIENTS[i]!,
      fiat_price: null,
      base_fee: nextBase === null || !priority ? null : gwei({ num: nextBase, den: 1n }),
      priority_fee: nextBase === null || !priority ? null : gwei(priority),
      priority_fee_wei: nextBase === null || !priority ? null : rounded(priority),
      wei: rounded(fee),
    };
  };
  const out = {} as GasPricesJson;
  if (!blocks.length) {
    // No transaction in the window: every level is the next base fee alone, when there is one.
    // No transaction in the window: every level is the next base fee alone (and the average block
    // time itself, as the oracle then gives), when there is one.
    const base = nextBase === null ? null : { num: nextBase, den: 1n };
    LEVELS.forEach((l, i) => {
      const g = base ? level(base, i, { num: 0n, den: 1n }) : null;
      out[l] = g && { ...g, time: averageBlockMs };
    });
    return out;
  }
  LEVELS.forEach((l, i) => {
    const priorities = blocks.filter((b) => b.priorities.length).map((b) => BigInt(b.priorities[i]!));
    const priority = mean(priorities);
    const paid = mean(blocks.map((b) => BigInt(b.prices[i]!)));
    out[l] = priority && nextBase !== null ? level(plus(priority, nextBase), i, priority) : level(paid, i, null);
  });
  return out;
}

/** Blocks behind the average block time (/stats' and the countdown's). */
export const AVERAGE_BLOCKS = 100;

export interface GasTracker {
  /** The newest stored block, or null on an empty store. */
  newest: BlockRead | null;
  /** The newest AVERAGE_BLOCKS blocks' span and gas (/stats reads its utilization from them too). */
  recent: RecentBlocks;
  /** Milliseconds between the newest blocks, or null without two. */
  averageBlockMs: number | null;
  nextBaseFee: bigint | null;
  prices: GasPricesJson | null;
}

/** The gas tracker now: three ClickHouse reads at once (percentiles, the newest block, the block times). */
export async function gasTracker(ctx: ApiContext): Promise<GasTracker> {
  const [fees, [newest], recent] = await Promise.all([
    feePercentiles(ctx.ch, GAS_ORACLE_BLOCKS, GAS_ORACLE_PERCENTILES),
    listBlocks(ctx.ch, undefined, 1),
    recentBlocks(ctx.ch, AVERAGE_BLOCKS),
  ]);
  const average = averageBlockMs(recent);
  const next = newest && newest.base_fee_per_gas !== null ? nextBaseFee(BigInt(newest.base_fee_per_gas), BigInt(newest.gas_used), BigInt(newest.gas_limit)) : null;
  return { newest: newest ?? null, recent, averageBlockMs: average, nextBaseFee: next, prices: newest ? gasPrices(fees, next, average) : null };
}
