// The indexer's main thread: plans block ranges, hands them to the worker pool, and commits the
// results strictly in chain order: ClickHouse rows first, then (one PostgreSQL transaction) the
// block hashes of the tail and the checkpoint. Rows above the checkpoint are never trusted: they
// are deleted before resuming, so a crash anywhere re-indexes the uncommitted range with no gap
// and no duplicate. Head following compares parent hashes; a mismatch rewinds to the common
// ancestor (reorg). A node that is behind is reported, not treated as a reorg.
// With INDEXER_CLAIM_RANGES > 0 several processes share the catch-up (shared-catchup.ts): one of
// them, the leader, does all of the above; every process (the leader too) claims ranges of the
// backlog below the head and stores them, and the leader commits them in chain order.
import { EventEmitter } from 'node:events';
import crypto from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore, PgTx } from '../storage/postgres/store.js';
import { deleteChainRowsFrom, insertChainRanges, storedBlockHashes } from '../storage/clickhouse/chain.js';
import { deletePointsFrom, insertPoints } from '../storage/postgres/points.js';
import { EMPTY_POINTS } from '../chain/point-rows.js';
import { PointBackfill, type PointBackfillState } from './point-backfill.js';
import { UserOperationsBackfill, type UserOperationsBackfillState } from './user-operations-backfill.js';
import {
  CHAIN_LANE,
  CheckpointMoved,
  commitBlocks,
  getCheckpoint,
  getFact,
  rewindTo,
  setFact,
  type Checkpoint,
} from '../storage/postgres/indexer.js';
import { deleteAllRanges, deleteRanges, type StoredRange } from '../storage/postgres/backfill-ranges.js';
import { createRpcClient, sumMethodStats, type MethodStats, type RpcClient, type RpcVariant } from '../rpc/client.js';
import { detectCapabilities, type Capabilities } from '../rpc/capabilities.js';
import { createLogger, type Logger } from '../log.js';
import type { IngestResult, IngestTask, RpcReport } from '../../workers/ingest.js';
import type { BlockInfo, IngestSummary } from '../chain/bundle.js';
import type { RangeNames } from '../chain/named-addresses.js';
import { createIngestPool, type IngestPool } from './pool.js';
import { PendingFollower } from './pending.js';
import { backoffMs, Sleeper } from '../retry.js';
import { ALONE_CHUNK_RANGES, SharedCatchup, isChain } from './shared-catchup.js';
import { StallReport } from './stall.js';
import { detectChainFamily, sawDeposits } from './chain-family.js';
import type { ChainFamilyFact, ChainFamilySetting } from '../chain/op-stack.js';
import { OpL1Follower, type OpL1Options } from './op-l1-follower.js';


export interface IndexerOptions {
  ch: ClickHouseStore;
  pg: PgStore;
  rpc: {
    url: string;
    traceUrl?: string;
    variant: RpcVariant;
    timeoutMs?: number;
    maxRetries?: number;
    concurrency?: number;
    batchSize?: number;
  };
  firstBlock?: number;
  /** Blocks per worker task during catch-up. */
  batchBlocks?: number;
  /** Worker threads (0 = CPUs). Ignored when `pool` is given. */
  workers?: number;
  pool?: IngestPool;
  /** Head poll interval. */
  pollMs?: number;
  /** Follow the node's pending pool. */
  pending?: boolean;
  /**
   * Catch-up: how long a completed range may wait for the ranges behind it to form a group
   * commit (default 3000 ms; see GROUP_MIN_RANGES).
   */
  groupWaitMs?: number;
  /**
   * Test hook: kill this process with SIGKILL right after the ClickHouse insert of the n-th
   * commit, before its checkpoint: the exact window a crash can hit.
   */
  crashAfterInsert?: number;
  /**
   * Ranges this process claims at once from the catch-up shared with other indexer processes
   * (INDEXER_CLAIM_RANGES); 0 or unset: this process indexes alone, as it always did.
   */
  claimRanges?: number;
  /** Test hook of the shared catch-up: wait this long between a claim's insert and its store. */
  claimPauseMs?: number;
  /** CHAIN_FAMILY: the chain family, or `auto` (found from the node and the chain: chain-family.ts). */
  chainFamily?: ChainFamilySetting;
  /** OP Stack: the L1 node and OptimismPortal whose logs the L1 follower reads (OP_L1_RPC_URL, OP_PORTAL_ADDRESS); unset: off. */
  opL1?: OpL1Options;
  /** Blocks per chunk of the user operations' upgrade backfill (default USER_OPERATIONS_BACKFILL_CHUNK); tests set it small. */
  userOpsBackfillChunk?: number;
  log?: Logger;
}

export interface BlockEvent {
  from: number;
  to: number;
  blocks: BlockInfo[];
  summary: IngestSummary;
  /** Every address the range's rows name, and what they say of them (absent for ranges another process committed). */
  named?: RangeNames;
}

export interface ReorgEvent {
  /** Last block both branches share (null: none within the stored chain). */
  ancestor: number | null;
  /** Highest orphaned block that had been committed. */
  orphanedTo: number;
}

export interface IndexerStats {
  head: number | null;
  committed: number | null;
  blocks: number;
  txs: number;
  reorgs: number;
  startedAt: number;
}

export declare interface Indexer {
  on(event: 'block', fn: (e: BlockEvent) => void): this;
  on(event: 'reorg', fn: (e: ReorgEvent) => void): this;
  on(event: 'error', fn: (e: Error) => void): this;
}

class ReorgDetected extends Error {}

/** A range handed to the pool, and its result once it is there. */
interface InFlight {
  p: Promise<IngestResult | undefined>;
  done: boolean;
  result: IngestResult | undefined;
}

// Group commit (commitGroup): consecutive completed ranges are inserted together, up to these
// bounds. Measured with the benchmark's chain: 4 to 8 ranges of 20 blocks (about 100-200 MB of
// rows) per insert cost chDB about a third less CPU than one insert per range (fewer parts to
// write, fewer merges); one 400 MB insert cost more again.
const GROUP_MAX_RANGES = 8;
const GROUP_MAX_BYTES = 128 * 1024 * 1024;
/** Extra completed ranges the catch-up window may hold so that a group can form. */
const GROUP_EXTRA_WINDOW = 4;
// During catch-up a completed range waits (while the workers go on) for the ranges behind it
// until the group has this many ranges or bytes, or nothing more is coming, or for at most
// GROUP_MAX_WAIT_MS: committing as soon as the oldest range was done made groups of 1-2 ranges
// (9 inserts per table for the benchmark's 16 ranges), and chDB spent about a third more CPU
// on those inserts and their merges than on 4 groups of 4 (bench/README.md, "Fewer, larger
// inserts").
export const GROUP_MIN_RANGES = 4;
const GROUP_MIN_BYTES = 64 * 1024 * 1024;
const GROUP_MAX_WAIT_MS = 3000;

function tableBytes(r: IngestResult): number {
  let n = 0;
  for (const k in r.tables) n += r.tables[k as keyof IngestResult['tables']].byteLength;
  return n;
}

/** While a standby has nothing to claim, it tries again (and tries to lead) this often. */
const STANDBY_POLL_MS = 1000;

export class Indexer extends EventEmitter {
  readonly ch: ClickHouseStore;
  readonly pg: PgStore;
  readonly rpc: RpcClient;
  /** The ingest workers' node-call figures, by client (workers/ingest.ts posts them on statsChannel). */
  private readonly workerCalls = new Map<string, RpcReport>();
  private readonly statsChannel = `explorer-rpc-stats-${crypto.randomUUID()}`;
  private readonly statsListener: BroadcastChannel;
  readonly firstBlock: number;
  readonly batchBlocks: number;
  readonly pollMs: number;
  caps: Capabilities | undefined;
  /** The chain family as found at the start and by the ranges since (chain-family.ts). */
  family: ChainFamilyFact | undefined;
  readonly stats: IndexerStats = { head: null, committed: null, blocks: 0, txs: 0, reorgs: 0, startedAt: Date.now() };
  private readonly opts: IndexerOptions;
  private readonly log: Logger;
  private pool: IngestPool | undefined;
  private ownsPool: boolean;
  private cp: Checkpoint | null = null;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private readonly groupWaitMs: number;
  /** Ends every pending sleep or group wait (stop()). */
  private readonly sleeper = new Sleeper();
  private lagReported = false;
  private commits = 0;
  /** Failures since the last commit, for the status and the health check. */
  private readonly stall: StallReport;
  /** Indexing steps failed in a row (run()). */
  private stepFailures = 0;
  private pendingFollower: PendingFollower | undefined;
  private opL1: OpL1Follower | undefined;
  /** Point rows of blocks indexed before them (init: the upgrade's backfill). */
  private pointBackfill: PointBackfill | undefined;
  private userOpsBackfill: UserOperationsBackfill | undefined;
  private readonly rewindHooks: ((c: PgTx, ancestor: Checkpoint | null) => Promise<void>)[] = [];
  private readonly commitHooks: ((c: PgTx, result: IngestResult) => Promise<void>)[] = [];
  /** The catch-up shared with other processes (undefined: this process indexes alone). */
  readonly shared: SharedCatchup | undefined;

  constructor(opts: IndexerOptions) {
    super();
    this.opts = opts;
    this.ch = opts.ch;
    this.pg = opts.pg;
    this.firstBlock = opts.firstBlock ?? 0;
    this.batchBlocks = opts.batchBlocks ?? 20;
    const gw = opts.groupWaitMs ?? GROUP_MAX_WAIT_MS;
    if (!Number.isFinite(gw) || gw < 0 || gw > 600_000) throw new RangeError(`groupWaitMs must be 0 to 600000, got ${gw}`);
    this.groupWaitMs = gw;
    this.pollMs = opts.pollMs ?? 1000;
    this.log = opts.log ?? createLogger('indexer');
    this.stall = new StallReport(this.pg, this.log);
    this.rpc = createRpcClient({
      url: opts.rpc.url,
      traceUrl: opts.rpc.traceUrl,
      variant: opts.rpc.variant,
      timeoutMs: opts.rpc.timeoutMs,
      maxRetries: opts.rpc.maxRetries,
      concurrency: opts.rpc.concurrency,
      onRetry: (i) => this.log.warn('rpc retry', { method: i.method, attempt: i.attempt, delay_ms: i.delayMs, reason: i.reason }),
    });
    this.pool = opts.pool;
    this.ownsPool = !opts.pool;
    this.statsListener = new BroadcastChannel(this.statsChannel);
    this.statsListener.onmessage = (m) => {
      const r = (m as { data: RpcReport }).data;
      if (r && typeof r.id === 'string') this.workerCalls.set(r.id, r);
    };
    this.statsListener.unref();
    if (opts.claimRanges) {
      this.shared = new SharedCatchup({
        pg: this.pg,
        ch: this.ch,
        log: this.log,
        claimRanges: opts.claimRanges,
        batchBlocks: this.batchBlocks,
        // One attempt: SharedCatchup.work gives failed claims back and backs off itself.
        runRange: async (a, b) => (this.stopped ? undefined : this.pool!.run(this.task(a, b))),
        stopped: () => this.stopped,
        pauseAfterInsertMs: opts.claimPauseMs,
      });
      // A rewind orphans whatever was planned above the ancestor (handleReorg holds every
      // range's lock meanwhile, so no claimer writes into them).
      this.rewindHooks.push((c) => deleteAllRanges(c));
    }
  }

  /**
   * Node calls made for this indexer, its ingest workers' (most of them: blocks, receipts, traces)
   * with its own (head, reorg checks, capabilities, pending pool, and the derived lanes sharing
   * `rpc`): calls, HTTP requests, retries and the figures per JSON-RPC method.
   */
  nodeCalls(): { calls: number; httpRequests: number; retries: number; methods: Record<string, MethodStats> } {
    const own = this.rpc.stats();
    const out = { calls: own.calls, httpRequests: own.httpRequests, retries: own.retries, methods: {} as Record<string, MethodStats> };
    const methods = [this.rpc.methods()];
    for (const r of this.workerCalls.values()) {
      out.calls += r.stats.calls;
      out.httpRequests += r.stats.httpRequests;
      out.retries += r.stats.retries;
      methods.push(r.methods);
    }
    out.methods = sumMethodStats(methods);
    return out;
  }

  /**
   * Work that must be undone in the same PostgreSQL transaction as a rewind (derived lanes whose
   * cursors may stand above the ancestor).
   */
  addRewindHook(fn: (c: PgTx, ancestor: Checkpoint | null) => Promise<void>): void {
    this.rewindHooks.push(fn);
  }

  /**
   * Work that must commit atomically with a range's checkpoint (the watchlist outbox): it runs
   * inside the checkpoint's PostgreSQL transaction, so an event is never lost nor enqueued twice.
   */
  addCommitHook(fn: (c: PgTx, result: IngestResult) => Promise<void>): void {
    this.commitHooks.push(fn);
  }

  /** Committed height (null before the first commit). */
  get committed(): number | null {
    return this.cp?.blockNumber ?? null;
  }

  /** Prepares (capabilities, clean-up of uncommitted rows) and starts the loop in the background. */
  async start(): Promise<void> {
    await this.init();
    if (this.opts.opL1) {
      this.opL1 = new OpL1Follower(this.ch, this.pg, this.opts.opL1, this.log.child('op-l1'));
      this.opL1.start();
    }
    this.loop = this.run().catch((e: Error) => {
      this.log.error('indexer stopped on an error', { error: e.message });
      this.emit('error', e);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeper.wake();
    await this.loop;
    await this.opL1?.stop();
    await this.stall.flush();
    await this.pendingFollower?.stop();
    await this.shared?.close();
    if (this.ownsPool) await this.pool?.destroy();
    this.pool = undefined;
    this.statsListener.close();
  }

  /** Resolves when the committed height reaches `height` (for tests and tools). */
  waitFor(height: number, timeoutMs = 60_000): Promise<void> {
    if ((this.committed ?? -1) >= height) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off('block', onBlock);
        reject(new Error(`indexer did not reach block ${height} within ${timeoutMs} ms (at ${this.committed})`));
      }, timeoutMs);
      const onBlock = () => {
        if ((this.committed ?? -1) >= height) {
          clearTimeout(timer);
          this.off('block', onBlock);
          resolve();
        }
      };
      this.on('block', onBlock);
    });
  }

  private async init(): Promise<void> {
    this.caps = await detectCapabilities(this.rpc, this.opts.rpc.variant);
    for (const note of this.caps.notes) this.log.warn(note);
    if (this.caps.traces === 'off') {
      this.log.warn('internal transactions are OFF: the node answers no trace method', { trace_url: this.rpc.traceUrl });
    }
    await setFact(this.pg, 'capabilities', {
      traces: this.caps.traces,
      traceMethod: this.caps.traceMethod,
      receipts: this.caps.receipts,
      notes: this.caps.notes,
      firstBlock: this.firstBlock,
    });
    this.family = await detectChainFamily(this.pg, this.rpc, this.opts.chainFamily ?? 'auto');
    this.log.info('chain family', { ...this.family });
    this.cp = await getCheckpoint(this.pg, CHAIN_LANE);
    // Whatever lies above the checkpoint was never committed: remove it before resuming. With a
    // shared catch-up, stored ranges above it are kept: the leader removes the rest when it
    // takes the lead (SharedCatchup.takeOver), claimers their range's before inserting it.
    if (!this.shared) {
      await deleteChainRowsFrom(this.ch, this.nextHeight());
      // Point rows above it can only be a shared catch-up's (ranges stored, not committed).
      await deletePointsFrom(this.pg, this.nextHeight());
    }
    this.stats.committed = this.committed;
    this.pointBackfill = new PointBackfill({ ch: this.ch, pg: this.pg, log: this.log, firstBlock: this.firstBlock });
    await this.pointBackfill.begin(this.committed);
    this.userOpsBackfill = new UserOperationsBackfill({ ch: this.ch, pg: this.pg, log: this.log, firstBlock: this.firstBlock, chunk: this.opts.userOpsBackfillChunk });
    await this.userOpsBackfill.begin();
    if (!this.pool) this.pool = createIngestPool(this.opts.workers ?? 0);
    if (this.opts.pending !== false) this.pendingFollower = new PendingFollower(this.rpc, this.pg, this.log);
    this.log.info('indexer ready', {
      resume_from: this.nextHeight(),
      traces: this.caps.traces,
      receipts: this.caps.receipts,
      workers: this.pool.threads,
      shared_catchup: this.shared ? { owner: this.shared.owner, claim_ranges: this.opts.claimRanges } : 'off',
    });
  }

  private nextHeight(): number {
    return this.cp ? this.cp.blockNumber + 1 : this.firstBlock;
  }

  private async run(): Promise<void> {
    let lastProgress = Date.now();
    let lastBlocks = 0;
    while (!this.stopped) {
      try {
        if (this.shared) {
          const role = await this.shared.lead();
          if (role === 'standby') {
            await this.standbyStep();
            continue;
          }
          if (role === 'new') {
            this.cp = await getCheckpoint(this.pg, CHAIN_LANE);
            this.stats.committed = this.committed;
            await this.shared.takeOver(this.nextHeight());
          }
        }
        // Blocks indexed before point rows existed get theirs, a chunk per step.
        if (!this.pointBackfill!.done) await this.pointBackfill!.step();
        // And their user operations (issue #32), decoded from what is stored.
        if (!this.userOpsBackfill!.done) await this.userOpsBackfill!.step();
        const head = Number(await this.rpc.request<string>('eth_blockNumber'));
        this.stats.head = head;
        await setFact(this.pg, 'head', { number: head, at: new Date().toISOString() });
        const next = this.nextHeight();
        if (head >= next) {
          this.lagReported = false;
          // Shared: the backlog may go through the ranges table (null), else up to where.
          const upTo = this.shared ? await this.sharedCatchUp(next, head) : head;
          if (upTo !== null) await this.catchUp(next, upTo);
        } else {
          await this.checkTip(head);
          await this.pendingFollower?.poll().catch((e: Error) => this.log.warn('pending pool poll failed', { error: e.message }));
          await this.sleep(this.pollMs);
        }
        // A whole step went through: whatever failed before is over (also at the head, with no
        // new block to commit).
        this.stepFailures = 0;
        this.stall.progressed();
      } catch (e) {
        if (this.stopped) break;
        this.log.error('indexing step failed; retrying', { error: (e as Error).message });
        const at = this.nextHeight();
        this.stall.failed(at, at, ++this.stepFailures, e as Error);
        if (e instanceof CheckpointMoved && this.shared) {
          // Another process leads now: give everything up and start over as a standby.
          await this.shared.close();
          this.cp = await getCheckpoint(this.pg, CHAIN_LANE).catch(() => this.cp);
        }
        await this.sleep(Math.min(30_000, this.pollMs * 5));
      }
      if (Date.now() - lastProgress >= 10_000) {
        const secs = (Date.now() - lastProgress) / 1000;
        this.log.info('progress', {
          committed: this.committed,
          head: this.stats.head,
          lag: this.stats.head != null && this.committed != null ? this.stats.head - this.committed : undefined,
          blocks_per_s: ((this.stats.blocks - lastBlocks) / secs).toFixed(1),
        });
        lastProgress = Date.now();
        lastBlocks = this.stats.blocks;
      }
    }
  }

  /**
   * Leader with a shared catch-up: plans the backlog below the head, works on ranges like every
   * process and commits the stored ones in order (null). Otherwise the height up to which the
   * leader's own catch-up goes, as one process's does: the tip when nothing is planned, or a
   * chunk of the backlog while no other indexer process is connected (it looks again after it).
   */
  private async sharedCatchUp(next: number, head: number): Promise<number | null> {
    const shared = this.shared!;
    if (!(await shared.hasRanges()) && (await shared.alone())) return Math.min(head, next + ALONE_CHUNK_RANGES * this.batchBlocks - 1);
    await shared.plan(next, head);
    if (!(await shared.hasRanges())) return head;
    const stored = await shared.work();
    const r = await shared.advance(this.cp, this.nextHeight(), (ranges) => this.commitStored(ranges));
    if (r.kind === 'mismatch') {
      // Our checkpoint left the node's chain (a reorg deeper than the safety depth), or the
      // range was fetched from a branch that is gone.
      const nodeHash = this.cp ? await this.blockHash(this.cp.blockNumber) : null;
      if (this.cp && nodeHash !== this.cp.blockHash) await this.handleReorg();
      else await shared.reopen(r.from, 'its first parent is not the checkpoint');
    }
    if (!stored && r.kind === 'none') await this.sleep(250);
    return null;
  }

  /**
   * Commits ranges other processes (or this one) stored, as store() commits its own: recent
   * blocks, checkpoint, every commit hook once per range with the range's blocks and summary
   * (the watchlist outbox), and the removal of their rows from the plan, in one transaction.
   */
  private async commitStored(ranges: readonly StoredRange[]): Promise<void> {
    const results: IngestResult[] = ranges.map((s) => ({
      tables: {} as IngestResult['tables'],
      // Its point rows went in with its stored mark (SharedCatchup.work).
      points: EMPTY_POINTS,
      blocks: s.blocks,
      summary: s.summary,
      timings: { fetchMs: 0, decodeMs: 0 },
      receiptsFellBack: false,
    }));
    await commitBlocks(
      this.pg,
      CHAIN_LANE,
      ranges.flatMap((s) => s.blocks.map((b) => ({ number: b.number, hash: b.hash, parentHash: b.parentHash }))),
      async (c) => {
        for (const r of results) for (const h of this.commitHooks) await h(c, r);
        await deleteRanges(c, ranges.map((s) => s.from));
      },
      this.cp,
    );
    this.committedRanges(results);
  }

  /** Not the leader: claim and store ranges, follow the checkpoint, try to lead again soon. */
  private async standbyStep(): Promise<void> {
    const stored = await this.shared!.work();
    this.cp = await getCheckpoint(this.pg, CHAIN_LANE);
    this.stats.committed = this.committed;
    this.stats.head = (await getFact<{ number: number }>(this.pg, 'head'))?.number ?? this.stats.head;
    if (!stored) await this.sleep(STANDBY_POLL_MS);
  }

  /** Nothing new at the node: make sure our tip is still on its chain. */
  private async checkTip(head: number): Promise<void> {
    if (!this.cp) return;
    const h = Math.min(head, this.cp.blockNumber);
    if (h < this.firstBlock) return;
    const nodeHash = await this.blockHash(h);
    const stored = h === this.cp.blockNumber ? this.cp.blockHash : (await storedBlockHashes(this.ch, h, h)).get(h);
    if (nodeHash && stored && nodeHash !== stored) {
      await this.handleReorg();
      return;
    }
    if (head < this.cp.blockNumber && !this.lagReported) {
      this.lagReported = true;
      this.log.warn('node head is behind the indexed height: waiting for the node (syncing or lagging), not a reorg', {
        node_head: head,
        indexed: this.cp.blockNumber,
      });
    }
  }

  private task(from: number, to: number): IngestTask {
    const caps = this.caps!;
    return {
      from,
      to,
      rpc: this.opts.rpc,
      traces: caps.traces,
      receipts: caps.receipts,
      statsChannel: this.statsChannel,
    };
  }

  /** Runs a range until it succeeds; undefined once the indexer stops or the node's head falls below it. */
  private async runRange(from: number, to: number): Promise<IngestResult | undefined> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        return await this.pool!.run(this.task(from, to));
      } catch (e) {
        if (this.stopped) return undefined;
        // The node's chain is now shorter than the range (a reorg to a shorter branch, a node
        // rolled back, or a balancer's nodes that disagree on the head): the range cannot be
        // fetched yet, and that is no failure. The catch-up ends here; the next step reads the
        // head again and checks the tip (a reorg is found there or at the next commit).
        const head = await this.rpc.request<string>('eth_blockNumber').then(Number, () => null);
        if (head !== null && head < to) {
          this.log.warn('the node head moved back below a range being fetched: reading the head again', { from, to, node_head: head });
          this.stats.head = head;
          await this.sleep(this.pollMs); // a balancer may go on disagreeing: no hot loop
          return undefined;
        }
        attempt++;
        const delay = backoffMs(attempt, { baseMs: 1000, maxMs: 30_000 });
        this.log.error('range failed; retrying', { from, to, attempt, delay_ms: Math.round(delay), error: (e as Error).message });
        this.stall.failed(from, to, attempt, e as Error);
        await this.sleep(delay);
      }
    }
    return undefined;
  }

  private async catchUp(from: number, head: number): Promise<void> {
    const size = this.batchBlocks;
    // Room for a group of completed ranges beyond what the workers hold (see commitGroup).
    const window = Math.max(2, this.pool!.threads * 2) + GROUP_EXTRA_WINDOW;
    const ranges: [number, number][] = [];
    for (let a = from; a <= head; a += size) ranges.push([a, Math.min(head, a + size - 1)]);
    const inflight: InFlight[] = [];
    let started = 0;
    // At first one range per worker thread, so that the first ranges (which the first commit
    // waits for) are not slowed down by the ones behind them; the whole window after that.
    let limit = Math.min(window, this.pool!.threads);
    const fill = () => {
      while (started < ranges.length && inflight.length < limit) {
        const [a, b] = ranges[started++];
        const slot: InFlight = { p: this.runRange(a, b), done: false, result: undefined };
        slot.p.then(
          (r) => {
            slot.done = true;
            slot.result = r;
          },
          () => {
            slot.done = true;
          },
        );
        inflight.push(slot);
      }
    };
    fill();
    try {
      while (inflight.length && !this.stopped) {
        const result = await inflight.shift()!.p;
        limit = window;
        fill();
        if (!result || this.stopped) return;
        let bytes = tableBytes(result);
        await this.awaitGroup(inflight, bytes);
        if (this.stopped) return;
        // Ranges right behind it that are already done join its commit (in order).
        const group = [result];
        while (group.length < GROUP_MAX_RANGES && inflight[0]?.result) {
          const b = tableBytes(inflight[0].result);
          if (bytes + b > GROUP_MAX_BYTES) break;
          group.push(inflight.shift()!.result!);
          bytes += b;
        }
        fill();
        await this.commitGroup(group);
      }
    } catch (e) {
      if (e instanceof ReorgDetected) {
        await this.handleReorg();
        return;
      }
      throw e;
    } finally {
      // Results still on their way are dropped; their ranges are fetched again.
      this.stopInflight(inflight.map((x) => x.p));
    }
  }

  /**
   * Waits while the ranges right behind a completed one are still running, until they and it
   * would make a group of GROUP_MIN_RANGES or GROUP_MIN_BYTES, the next one failed, none is
   * left running, or GROUP_MAX_WAIT_MS passed (see GROUP_MIN_RANGES).
   */
  private async awaitGroup(inflight: readonly InFlight[], firstBytes: number): Promise<void> {
    const deadline = Date.now() + this.groupWaitMs;
    for (;;) {
      let n = 1;
      let bytes = firstBytes;
      let i = 0;
      for (; i < inflight.length && inflight[i]!.done; i++) {
        const r = inflight[i]!.result;
        if (!r) return; // failed: commit what is there first
        n++;
        bytes += tableBytes(r);
      }
      if (n >= GROUP_MIN_RANGES || bytes >= GROUP_MIN_BYTES || i >= inflight.length || this.stopped) return;
      const left = deadline - Date.now();
      if (left <= 0) return;
      await this.sleep(left, inflight[i]!.p); // until that range settles, the time is up, or stop()
    }
  }

  private stopInflight(inflight: Promise<unknown>[]): void {
    for (const p of inflight) p.catch(() => undefined);
  }

  /**
   * Commits consecutive ranges with one ClickHouse insert per table and one checkpoint
   * transaction (fewer, larger parts). Each range is checked exactly as commit() checks it
   * (it starts at the next height, its first parent is the tip, it is a chain); the ranges
   * before the first one that fails are committed together, then that one goes through
   * commit() alone, which raises the reorg or the error as it always did. Crash semantics are
   * those of one range: rows first, then the recent blocks and the checkpoint of the group's
   * last block in one PostgreSQL transaction, where every commit hook runs once per range, in
   * order; 'block' is emitted per range afterwards.
   */
  private async commitGroup(all_: IngestResult[]): Promise<void> {
    // A range without blocks commits nothing (as in commit()).
    const results = all_.filter((r) => r.blocks.length > 0);
    if (!results.length) return;
    const ok: IngestResult[] = [];
    let next = this.nextHeight();
    let tip: string | null = this.cp ? this.cp.blockHash : null;
    for (const r of results) {
      const blocks = r.blocks;
      if (blocks[0].number !== next || (tip !== null && blocks[0].parentHash !== tip) || !isChain(blocks)) break;
      ok.push(r);
      const last = blocks[blocks.length - 1];
      next = last.number + 1;
      tip = last.hash;
    }
    if (ok.length <= 1) {
      // One range (or none that continues the tip): exactly the single-range path.
      await this.commit(results[0]);
      if (results.length > 1) await this.commitGroup(results.slice(1));
      return;
    }
    await this.store(ok);
    this.committedRanges(ok);
    if (ok.length < results.length) await this.commitGroup(results.slice(ok.length));
  }

  private async commit(result: IngestResult): Promise<void> {
    const blocks = result.blocks;
    if (!blocks.length) return;
    const first = blocks[0];
    if (first.number !== this.nextHeight()) {
      throw new Error(`internal: range starts at ${first.number}, expected ${this.nextHeight()}`);
    }
    if (this.cp && first.parentHash !== this.cp.blockHash) throw new ReorgDetected();
    if (!isChain(blocks)) {
      // The node changed under the worker mid-range: fetch it again.
      throw new Error(`range ${first.number}-${blocks[blocks.length - 1].number} is not a chain (node reorganised while fetching)`);
    }
    await this.store([result]);
    this.committedRange(result);
  }

  /**
   * Stores checked, consecutive ranges: their ClickHouse rows (one insert per table), then one
   * PostgreSQL transaction with their blocks in the tail, the checkpoint of the last block and
   * every commit hook once per range, in order.
   */
  private async store(ranges: readonly IngestResult[]): Promise<void> {
    const blocks = ranges.flatMap((r) => r.blocks);
    try {
      await insertChainRanges(this.ch, ranges.map((r) => r.tables));
      if (this.opts.crashAfterInsert && ++this.commits === this.opts.crashAfterInsert) process.kill(process.pid, 'SIGKILL');
    } catch (e) {
      // Some tables may hold the rows now: remove them so the retry does not double them.
      await deleteChainRowsFrom(this.ch, blocks[0].number).catch(() => undefined);
      throw e;
    }
    await commitBlocks(
      this.pg,
      CHAIN_LANE,
      blocks.map((b) => ({ number: b.number, hash: b.hash, parentHash: b.parentHash })),
      async (c) => {
        // The point rows commit with the checkpoint: a crash leaves none above it.
        await insertPoints(c, ranges.map((r) => r.points));
        for (const r of ranges) for (const h of this.commitHooks) await h(c, r);
      },
      // Shared catch-up: only if no other process moved the checkpoint (lost lead).
      this.shared ? this.cp : undefined,
    );
  }

  /** committedRange for each range, in order: every one gets its event even if a listener throws for an earlier one. */
  private committedRanges(ranges: readonly IngestResult[]): void {
    let listenerError: unknown;
    for (const r of ranges) {
      try {
        this.committedRange(r);
      } catch (e) {
        listenerError ??= e;
      }
    }
    if (listenerError !== undefined) throw listenerError;
  }

  /** After a range's checkpoint is committed: the tip, the stats, the 'block' event. */
  private committedRange(result: IngestResult): void {
    const blocks = result.blocks;
    const first = blocks[0];
    const last = blocks[blocks.length - 1];
    this.cp = { blockNumber: last.number, blockHash: last.hash };
    this.stats.committed = last.number;
    this.stats.blocks += blocks.length;
    this.stats.txs += result.summary.txs;
    this.stall.progressed();
    this.log.debug('committed', { from: first.number, to: last.number, txs: result.summary.txs });
    if ((result.summary.deposits ?? 0) > 0 && this.family && this.family.family !== 'optimism') this.foundDeposits(this.family);
    this.emit('block', { from: first.number, to: last.number, blocks, summary: result.summary, named: result.named } satisfies BlockEvent);
  }

  /** A range held deposit transactions: the chain is an OP Stack chain (said once; a failed write is tried again at the next deposit). */
  private foundDeposits(before: ChainFamilyFact): void {
    sawDeposits(this.pg, before, this.opts.chainFamily ?? 'auto')
      .then((f) => {
        if (f !== before) this.log.info('chain family', { ...f });
        this.family = f;
      })
      .catch((e) => this.log.warn('chain family not stored', { error: String(e) }));
  }

  private async blockHash(n: number): Promise<string | null> {
    const b = await this.rpc.request<{ hash: string } | null>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
    return b?.hash?.toLowerCase() ?? null;
  }

  /**
   * Our tip is not on the node's chain: walk back to the last block both agree on, rewind the
   * checkpoint there (PostgreSQL first: a crash after it leaves only uncommitted rows, removed at
   * resume), delete the orphaned rows and emit `reorg`. Catch-up then indexes the new branch.
   */
  private async handleReorg(): Promise<void> {
    const orphanedTo = this.cp!.blockNumber;
    let ancestor: Checkpoint | null = null;
    const STEP = 64;
    for (let hi = orphanedTo; hi >= this.firstBlock && !ancestor; hi -= STEP) {
      const lo = Math.max(this.firstBlock, hi - STEP + 1);
      const stored = await storedBlockHashes(this.ch, lo, hi);
      const calls = [];
      for (let n = hi; n >= lo; n--) calls.push({ method: 'eth_getBlockByNumber', params: [`0x${n.toString(16)}`, false] });
      const nodeBlocks = await this.rpc.batchOrThrow<{ hash: string } | null>(calls);
      for (let i = 0; i < nodeBlocks.length; i++) {
        const n = hi - i;
        const nodeHash = nodeBlocks[i]?.hash?.toLowerCase();
        if (nodeHash && stored.get(n) === nodeHash) {
          ancestor = { blockNumber: n, blockHash: nodeHash };
          break;
        }
      }
    }
    this.log.warn('reorg: rewinding to the common ancestor', {
      ancestor: ancestor?.blockNumber ?? 'none',
      orphaned_to: orphanedTo,
      depth: orphanedTo - (ancestor?.blockNumber ?? this.firstBlock - 1),
    });
    let backfill: PointBackfillState | undefined;
    let opsBackfill: UserOperationsBackfillState | undefined;
    const rewind = async () => {
      await rewindTo(
        this.pg,
        CHAIN_LANE,
        ancestor,
        async (c) => {
          await deletePointsFrom(c, ancestor ? ancestor.blockNumber + 1 : this.firstBlock);
          backfill = await this.pointBackfill?.rewind(c, ancestor?.blockNumber ?? null);
          opsBackfill = await this.userOpsBackfill?.rewind(c, ancestor?.blockNumber ?? null);
          for (const h of this.rewindHooks) await h(c, ancestor);
        },
        this.shared ? this.cp : undefined,
      );
      this.cp = ancestor;
      await deleteChainRowsFrom(this.ch, this.nextHeight());
    };
    // Shared catch-up: no claimer may insert into a planned range while its rows are deleted.
    if (this.shared) await this.shared.invalidateAll(rewind);
    else await rewind();
    this.pointBackfill?.adopt(backfill);
    this.userOpsBackfill?.adopt(opsBackfill);
    this.stats.committed = this.committed;
    this.stats.reorgs++;
    this.emit('reorg', { ancestor: ancestor?.blockNumber ?? null, orphanedTo } satisfies ReorgEvent);
  }

  /**
   * Resolves after `ms`, when `until` settles (if given), or at once when the indexer stops;
   * the timer is cleared either way.
   */
  private sleep(ms: number, until?: Promise<unknown>): Promise<void> {
    return this.stopped ? Promise.resolve() : this.sleeper.sleep(ms, until);
  }
}

export function createIndexer(opts: IndexerOptions): Indexer {
  return new Indexer(opts);
}
