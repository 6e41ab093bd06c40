// Indexing status (/main-page/indexing-status) computed from what is really stored, here so that
// the API and the indexer can both use it without the API loading indexer code: committed blocks counted in ClickHouse
// against the node's head as last seen, never a guess. Internal transactions are indexed in the
// same pass as their blocks, so their ratio is the blocks' ratio when traces are on, and null
// (with the reason) when the node has no trace method.
// An indexer that follows the head is a few blocks behind the node now and then (the node's newest
// blocks are being fetched): within FOLLOWING_LAG_BLOCKS of the head, with no gap in what is
// stored, indexing counts as finished and the ratio as 1; beyond it the ratio is the stored share,
// floored, so a real backlog never looks finished.
import type { ClickHouseStore } from './clickhouse/store.js';
import type { PgStore } from './postgres/store.js';
import { storedBlockCounts } from './clickhouse/chain.js';
import { CHAIN_LANE, getCheckpoint, getFact } from './postgres/indexer.js';
import { POINT_BACKFILL_FACT } from './postgres/points.js';
import { USER_OPERATIONS_BACKFILL } from './postgres/user-operations.js';
import { REFUSED_METHOD_EFFECTS, historyFacts, uncheckedWhy, type HistoryFacts } from './partial-history.js';

/** indexer_facts name of the failure that keeps the index from moving (src/indexer/stall.ts). */
export const INDEXER_STALL_FACT = 'indexer_stall';

/**
 * Failures in a row of the same range before the health check counts the indexer as stuck
 * (with the indexer's backoff, about 7 s of retries): one transient failure is not an outage.
 */
export const STALL_UNHEALTHY_ATTEMPTS = 3;

/** Blocks the indexer has failed to fetch or store since its last commit, and why. */
export interface IndexerStall {
  /** The lowest range that failed: the index waits for it. */
  from: number;
  to: number;
  /** Most failures in a row of one range. */
  attempts: number;
  /** First failure since the last commit, and the latest (ISO). */
  since: string;
  at: string;
  /** The latest error, without the node's address (publicStallReason). */
  error: string;
}

/**
 * An error's message as the public status may show it: node URLs (which may name an internal
 * host) are replaced by "the node"; the log keeps the whole message.
 */
export function publicStallReason(message: string): string {
  return message.replace(/\b(?:https?|wss?):\/\/[^\s)'"]+/gi, 'the node').slice(0, 500);
}

/** The recorded failure, or null while the index moves. */
export async function indexerStall(pg: PgStore): Promise<IndexerStall | null> {
  return (await getFact<IndexerStall | null>(pg, INDEXER_STALL_FACT)) ?? null;
}

/** Blocks behind the node's head that still count as following it (not a backlog). */
export const FOLLOWING_LAG_BLOCKS = 4;

export interface IndexingStatus {
  finished_indexing_blocks: boolean;
  finished_indexing: boolean;
  /** Decimal string, as Blockscout encodes it. */
  indexed_blocks_ratio: string;
  /** Decimal string; null while traces are off or unknown. */
  indexed_internal_transactions_ratio: string | null;
  /** Ours: the figures behind the ratios. */
  details: {
    first_block: number;
    committed_block: number | null;
    node_head: number | null;
    node_head_seen_at: string | null;
    stored_blocks: number;
    /** Blocks between the node's head and the committed block (null until both are known). */
    lag_blocks: number | null;
    internal_transactions: 'on' | 'off' | 'unknown';
    notes: string[];
    /** Blocks the indexer fails to fetch or store since its last commit, and why; null while it moves. */
    indexer_error: IndexerStall | null;
    /**
     * The upgrade's filling of point rows (PostgreSQL's copy of each block and transaction for
     * reads by hash or number) for blocks indexed before them: `next` is the next height to fill,
     * `to` the last; null until the indexer first started on this release.
     */
    point_rows: { done: boolean; next: number; to: number } | null;
    /**
     * The upgrade's decoding of ERC-4337 user operations for blocks indexed before them (from the
     * stored blocks): as point_rows; null when there was none to do or it has not begun.
     */
    user_operations: { done: boolean; next: number; to: number } | null;
    /**
     * Derived figures that are partial, and why (history starting after genesis, a node without
     * historical state); empty when they are complete.
     */
    partial: string[];
  };
}

/** A ratio as a decimal string, floored (never rounded up to look finished). */
export function ratio(done: number, total: number): string {
  if (total <= 0) return '1.00';
  const r = Math.min(1, Math.max(0, done / total));
  return (Math.floor(r * 10000) / 10000).toFixed(4).replace(/0{1,2}$/, '');
}

export async function indexingStatus(pg: PgStore, ch: ClickHouseStore): Promise<IndexingStatus> {
  const [cp, head, caps, history, stall, points, ops] = await Promise.all([
    getCheckpoint(pg, CHAIN_LANE),
    getFact<{ number: number; at: string }>(pg, 'head'),
    getFact<{ traces: string; notes: string[]; firstBlock: number }>(pg, 'capabilities'),
    historyFacts(pg),
    indexerStall(pg),
    getFact<{ done: boolean; next: number; to: number }>(pg, POINT_BACKFILL_FACT),
    getFact<{ done: boolean; next: number; to: number } | null>(pg, USER_OPERATIONS_BACKFILL),
  ]);
  const firstBlock = caps?.firstBlock ?? 0;
  const committed = cp?.blockNumber ?? null;
  const counts = await storedBlockCounts(ch, committed ?? 0);
  const stored = committed == null ? 0 : counts.blocks;
  const total = head ? Math.max(0, head.number - firstBlock + 1) : 0;
  const lag = head && committed !== null ? Math.max(0, head.number - committed) : null;
  // Following: close to the head and every block from the first to the committed one stored.
  const following = lag !== null && lag <= FOLLOWING_LAG_BLOCKS && stored >= committed! - firstBlock + 1;
  const finishedBlocks = !!head && (stored >= total || following);
  const blocksRatio = !head ? '0.00' : finishedBlocks ? ratio(1, 1) : ratio(stored, total);
  const traces = caps ? (caps.traces === 'off' ? 'off' : 'on') : 'unknown';
  return {
    finished_indexing_blocks: finishedBlocks,
    finished_indexing: finishedBlocks,
    indexed_blocks_ratio: blocksRatio,
    indexed_internal_transactions_ratio: traces === 'on' ? blocksRatio : null,
    details: {
      first_block: firstBlock,
      committed_block: committed,
      node_head: head?.number ?? null,
      node_head_seen_at: head?.at ?? null,
      stored_blocks: stored,
      lag_blocks: lag,
      internal_transactions: traces,
      notes: caps?.notes ?? [],
      indexer_error: stall,
      point_rows: points ? { done: points.done, next: points.next, to: points.to } : null,
      user_operations: ops ? { done: ops.done, next: ops.next, to: ops.to } : null,
      partial: partialNotes(history),
    },
  };
}

/**
 * What the derived figures lack, in words for the status (and the UI's banner), from what the
 * node really did: balances are called checked only when it answered the checks.
 */
function partialNotes(f: HistoryFacts): string[] {
  const out: string[] = [];
  if (f.firstBlock > 0) {
    const { answered, queued } = f.checks;
    const checks =
      queued > 0
        ? `${queued} token balances that may predate it are not checked with the node (balanceOf) yet${uncheckedWhy(f)}${answered > 0 ? ` (${answered} checks answered so far)` : ''}`
        : answered > 0
          ? `token balances that may predate it were checked with the node (balanceOf) and corrected where they differed (${answered} checks answered)`
          : 'no token balance that may predate it was checked with the node (balanceOf)';
    out.push(`history starts at block ${f.firstBlock}: token holder counts count only holders seen since then, and transaction and transfer counters start there; ${checks}`);
  }
  if (f.noState) {
    out.push(
      `the node keeps no historical state (since ${f.noState.since}: ${f.noState.error}): ` +
        (f.refused.eth_getBalance ? '' : 'coin balances are read at its head, so coin balance history is missing where it could not answer, and ') +
        'token balance checks wait until the derived data is near the head',
    );
  }
  for (const [method, r] of Object.entries(f.refused)) {
    out.push(`the node refuses ${method} (since ${r.since}: ${r.error}): ${REFUSED_METHOD_EFFECTS[method] ?? 'what it tells is unknown'}; it is not asked again`);
  }
  return out;
}
