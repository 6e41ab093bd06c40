// The upgrade to ERC-4337 user operations (issue #32): blocks an earlier release indexed hold none
// (migration 0022 records the first block this release decoded as it indexed). Their operations
// are decoded here from what is stored (the transactions that opened a bundle, their logs and call
// frames in ClickHouse, calldata the ClickHouse row leaves in its PostgreSQL point row put back),
// by the same decoder the ingest runs, a chunk of blocks at a time, by the process that commits,
// between its own steps (as the point rows' backfill, point-backfill.ts), so a rewind never runs
// beside it. Progress is the fact `user_operations_backfill`: a restart goes on where it stopped,
// first removing what a kill between a chunk's insert and its progress left. When every block is
// filled, `user_operations_from` becomes 0 and /proxy/account-abstraction/status says the past is
// indexed.
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import { getFact, setFact, setFactIn } from '../storage/postgres/indexer.js';
import { withPointInputs } from '../storage/postgres/points.js';
import { finishUserOperationsBackfill, USER_OPERATIONS_BACKFILL, USER_OPERATIONS_FROM } from '../storage/postgres/user-operations.js';
import { bundleTransactions, deleteUserOperationsIn, insertUserOperations, type BundleTxSource } from '../storage/clickhouse/user-operations-backfill.js';
import { ROOT_INPUT_FROM_TX, type UserOperationRow } from '../chain/clickhouse-rows.js';
import { TOPIC } from '../chain/entry-point-abi.js';
import { decodeUserOperations, txChainId, type UserOpFrame } from '../chain/user-operations.js';
import type { RpcLog } from '../chain/wire.js';
import type { Hex } from 'viem';
import type { Logger } from '../log.js';

/** Blocks per chunk: only the transactions with a BeforeExecution log are read in full. */
export const USER_OPERATIONS_BACKFILL_CHUNK = 2000;

export interface UserOperationsBackfillState {
  done: boolean;
  /** Next height to fill. */
  next: number;
  /** Last height to fill: below the first block this release decoded as it indexed. */
  to: number;
  /** Bundles read and user operations stored so far. */
  bundles: number;
  ops: number;
}

/** A stored transaction's user operations, decoded as the ingest decodes them. */
export function decodeStoredBundle(s: BundleTxSource): UserOperationRow[] {
  const logs: RpcLog[] = s.logs.map((l) => ({ address: l.address as Hex, topics: l.topics as Hex[], data: l.data as Hex, logIndex: `0x${l.log_index.toString(16)}` as Hex }));
  // The frames as the ingest flattened them (traces.ts): reverted when it or a frame above it failed.
  let frames: UserOpFrame[] | null = null;
  if (s.frames.length) {
    const failed = new Set(s.frames.filter((f) => f.error !== '').map((f) => f.trace_address.join(',')));
    frames = s.frames.map((f) => {
      let reverted = false;
      for (let d = 0; d <= f.trace_address.length && !reverted; d++) reverted = failed.has(f.trace_address.slice(0, d).join(','));
      return { to: f.to, input: f.input === ROOT_INPUT_FROM_TX ? s.input : f.input, type: f.type, error: f.error, reverted };
    });
  }
  return decodeUserOperations(
    {
      block_number: s.block_number,
      block_hash: s.block_hash,
      timestamp: s.timestamp,
      transaction_index: s.transaction_index,
      transaction_hash: s.hash,
      from: s.from,
      to: s.to,
      input: s.input,
      chain_id: txChainId(s.chain_id, s.v || null),
    },
    logs,
    frames,
  );
}

export class UserOperationsBackfill {
  private state: UserOperationsBackfillState | undefined;
  private started = 0;
  /** The height this process's first chunk began at (its rate counts its own blocks). */
  private startedAt = 0;

  constructor(private readonly o: { ch: ClickHouseStore; pg: PgStore; log: Logger; firstBlock: number; chunk?: number }) {}

  /** Nothing left to fill (as far as this process knows). */
  get done(): boolean {
    return this.state?.done === true;
  }

  /**
   * Reads what is left to fill: the blocks below `user_operations_from` (migration 0022), from
   * the first stored block. A fill that was under way goes on; what a killed chunk left above its
   * progress is removed first.
   */
  async begin(): Promise<void> {
    const first = this.o.firstBlock;
    const from = await getFact<{ block: number }>(this.o.pg, USER_OPERATIONS_FROM);
    const fact = await getFact<UserOperationsBackfillState>(this.o.pg, USER_OPERATIONS_BACKFILL);
    if (!from || from.block === 0 || fact?.done) {
      this.state = fact?.done ? fact : { done: true, next: first, to: first - 1, bundles: 0, ops: 0 };
      return;
    }
    const s: UserOperationsBackfillState = fact ?? { done: false, next: first, to: from.block - 1, bundles: 0, ops: 0 };
    s.next = Math.max(s.next, first); // nothing is stored below FIRST_BLOCK
    this.state = s;
    if (s.next > s.to) {
      await this.finish();
      return;
    }
    const stray = await deleteUserOperationsIn(this.o.ch, s.next, s.to);
    this.o.log.info(`${fact ? 'going on decoding' : 'decoding'} the user operations of blocks indexed before them, from what is stored`, {
      from: s.next,
      to: s.to,
      ...(stray ? { removed_unfinished: stray } : {}),
    });
    if (!fact || fact.next !== s.next) await setFact(this.o.pg, USER_OPERATIONS_BACKFILL, s);
  }

  /** The user operations of blocks [from, to], decoded from what is stored. */
  async decodeRange(from: number, to: number): Promise<{ bundles: number; rows: UserOperationRow[] }> {
    const txs = await bundleTransactions(this.o.ch, from, to, TOPIC.beforeExecution);
    // Calldata kept only in the point rows (issue #30) is put back: each such row has one,
    // committed with it; one missing is a damaged store, not a bundle to skip.
    const withInput = await withPointInputs(this.o.pg, txs, (t) => t.hash);
    if (withInput.length !== txs.length) throw new Error(`user operations backfill: a transaction of blocks ${from}-${to} has no point row for its calldata`);
    return { bundles: txs.length, rows: txs.flatMap(decodeStoredBundle) };
  }

  /** Fills one chunk; true when one was filled (false: nothing left). */
  async step(): Promise<boolean> {
    if (!this.state || this.state.done) return false;
    // The stored progress, not this process's memory of it: with a shared catch-up another
    // process may have led, and filled, since this one began.
    const s = (await getFact<UserOperationsBackfillState>(this.o.pg, USER_OPERATIONS_BACKFILL)) ?? this.state;
    this.state = s;
    if (s.done) return false;
    if (s.next > s.to) {
      await this.finish();
      return false;
    }
    if (!this.started) {
      this.started = Date.now();
      this.startedAt = s.next;
    }
    const to = Math.min(s.to, s.next + (this.o.chunk ?? USER_OPERATIONS_BACKFILL_CHUNK) - 1);
    const { bundles, rows } = await this.decodeRange(s.next, to);
    // Whatever a process killed in this chunk left goes first, so no row is stored twice.
    await deleteUserOperationsIn(this.o.ch, s.next, to);
    await insertUserOperations(this.o.ch, rows);
    const next: UserOperationsBackfillState = { ...s, next: to + 1, bundles: s.bundles + bundles, ops: s.ops + rows.length };
    await setFact(this.o.pg, USER_OPERATIONS_BACKFILL, next);
    this.state = next;
    const secs = (Date.now() - this.started) / 1000;
    this.o.log.info('user operations decoded from stored blocks', {
      blocks: `${s.next}-${to}`,
      of: s.to,
      done_pct: Math.min(100, Math.round(((to - this.o.firstBlock + 1) / (s.to - this.o.firstBlock + 1)) * 1000) / 10),
      bundles: next.bundles,
      ops: next.ops,
      blocks_per_s: secs > 0 ? Math.round((to - this.startedAt + 1) / secs) : undefined,
    });
    if (next.next > next.to) await this.finish();
    return true;
  }

  /**
   * A rewind to `ancestor` deletes every row above it and the new branch is decoded as it is
   * committed: the fill stops at the ancestor. Written in the rewind's transaction `c`; `adopt`
   * the result once that transaction committed.
   */
  async rewind(c: { query(sql: string, params?: unknown[]): Promise<unknown> }, ancestor: number | null): Promise<UserOperationsBackfillState | undefined> {
    const s = this.state;
    if (!s || s.done) return undefined;
    const top = ancestor ?? this.o.firstBlock - 1;
    if (top >= s.to) return undefined;
    const next: UserOperationsBackfillState = { ...s, to: top, next: Math.min(s.next, top + 1) };
    await setFactIn(c, USER_OPERATIONS_BACKFILL, next);
    return next;
  }

  /** The state a committed rewind wrote (see rewind). */
  adopt(state: UserOperationsBackfillState | undefined): void {
    if (state) this.state = state;
  }

  private async finish(): Promise<void> {
    this.state = { ...this.state!, done: true };
    await finishUserOperationsBackfill(this.o.pg, this.state);
    this.o.log.info('user operations complete: every stored block\'s are decoded', { bundles: this.state.bundles, ops: this.state.ops });
  }
}
