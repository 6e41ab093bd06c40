// The derived-data lanes' scheduler. Each lane (src/derived/lanes/*, the shape of lane.ts) runs on
// its own loop so none holds back block ingest or another; pending work lives in PostgreSQL (it
// survives a restart); RPC work is batched, bounded and retried with backoff.
//   accounting   committed ranges from ClickHouse -> balances, holders, NFT owners, counters,
//                first-seen addresses/tokens/instances, contracts; journaled for reorgs
//   coin         native balances by eth_getBalance at each block an address was touched
//   tokens       name/symbol/decimals/totalSupply/type by eth_call and ERC-165
//   supply       totalSupply again after mints and burns
//   nft          tokenURI/uri metadata (data:, http(s), ipfs via a gateway)
//   code         deployed bytecode of created contracts
//   checks       token balances compared with balanceOf, corrected where they differ
// The scheduler paces the lanes while the indexer catches up, wakes them on blocks, runs their
// unwinds in the indexer's rewind transaction, and after a step that changed something emits a
// 'derived' event (the API's responses showing derived figures are then stale), coalesced to at
// most one per DERIVED_EVENT_MS, the last change always followed by one.
import { EventEmitter } from 'node:events';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import type { RpcClient } from '../rpc/client.js';
import { createLogger, type Logger } from '../log.js';
import { backoffMs, Sleeper } from '../retry.js';
import type { Indexer } from '../indexer/indexer.js';
import type { Lane, LaneEnv, LaneFactory } from './lane.js';
import { NodeHistory } from './node-history.js';
import { accountingLane } from './lanes/accounting.js';
import { coinLane } from './lanes/coin.js';
import { tokensLane } from './lanes/tokens.js';
import { supplyLane } from './lanes/supply.js';
import { nftLane } from './lanes/nft.js';
import { codeLane } from './lanes/code.js';
import { checksLane } from './lanes/checks.js';

/** Every lane, in the order their unwinds run in a rewind transaction. */
export const LANES: readonly LaneFactory[] = [accountingLane, coinLane, tokensLane, supplyLane, nftLane, codeLane, checksLane];

export interface DerivedOptions {
  pg: PgStore;
  ch: ClickHouseStore;
  rpc: RpcClient;
  firstBlock?: number;
  /** Blocks per accounting step. */
  rangeBlocks?: number;
  pollMs?: number;
  ipfsGateway?: string;
  /** Let NFT metadata fetches reach private/loopback hosts (tests, private deployments). */
  allowPrivateMetadataHosts?: boolean;
  nftTimeoutMs?: number;
  nftMaxAttempts?: number;
  /** Balances per accounting step compared with balanceOf. */
  sampleSize?: number;
  /** Share of wall time the lanes together may work while the indexer catches up (0..1]. Default 0.1. */
  catchUpShare?: number;
  /** How long a bulk commit (more than BULK_BLOCKS blocks) keeps the lanes paced. Default 3 s. */
  bulkHoldMs?: number;
  log?: Logger;
}

/** A commit of more blocks than this is bulk ingest; it holds the lanes' pacing for bulkHoldMs. */
const BULK_BLOCKS = 4;
/** Blocks behind the node beyond which the indexer counts as catching up. */
const CATCH_UP_LAG = 64;
/** 'derived' events are at most this often (a burst of lane steps after a block makes one or two). */
export const DERIVED_EVENT_MS = 100;

export interface DerivedEvent {
  /** Lanes whose steps changed data since the previous event. */
  lanes: string[];
}

export declare interface Derived {
  on(event: 'derived', fn: (e: DerivedEvent) => void): this;
}

export class Derived extends EventEmitter {
  private readonly o: Required<Omit<DerivedOptions, 'log' | 'allowPrivateMetadataHosts'>> & { allowPrivate: boolean };
  private readonly log: Logger;
  private stopped = false;
  private indexer: Indexer | undefined;
  private pausedUntil = 0;
  private turnHeld = false;
  private turnWaiters: (() => void)[] = [];
  private loops: Promise<void>[] = [];
  private readonly sleeper = new Sleeper();
  /** Steps running now (settle()). */
  private busy = 0;
  /** Steps that did something or failed (settle()). */
  private generation = 0;
  /** Items processed per lane since start (observability, tests). */
  readonly counts: Record<string, number> = {};
  /** Height of the indexer's previous commit, and until when its commits count as bulk ingest. */
  private lastCommitted = -1;
  private bulkUntil = 0;
  /** Milliseconds spent in each lane's steps (wall time), and steps taken, for benchmarks and tests. */
  readonly stepMs: Record<string, number> = {};
  readonly steps: Record<string, number> = {};
  /** Lanes changed since the last 'derived' event, and the timer of the next one. */
  private changedLanes = new Set<string>();
  private eventTimer: NodeJS.Timeout | undefined;
  private lastEventAt = 0;
  private readonly history: NodeHistory;
  private readonly lanes: Lane[];

  constructor(opts: DerivedOptions) {
    super();
    this.o = {
      pg: opts.pg,
      ch: opts.ch,
      rpc: opts.rpc,
      firstBlock: opts.firstBlock ?? 0,
      rangeBlocks: opts.rangeBlocks ?? 200,
      pollMs: opts.pollMs ?? 500,
      ipfsGateway: opts.ipfsGateway ?? 'https://ipfs.io/ipfs/',
      allowPrivate: opts.allowPrivateMetadataHosts ?? false,
      nftTimeoutMs: opts.nftTimeoutMs ?? 10_000,
      nftMaxAttempts: opts.nftMaxAttempts ?? 8,
      sampleSize: opts.sampleSize ?? 8,
      catchUpShare: Math.min(1, Math.max(0.01, opts.catchUpShare ?? 0.1)),
      bulkHoldMs: opts.bulkHoldMs ?? 3_000,
    };
    this.log = opts.log ?? createLogger('derived');
    this.history = new NodeHistory(this.o.pg, this.log, this.o.rpc.url);
    const env: LaneEnv = {
      pg: this.o.pg,
      ch: this.o.ch,
      // A method the node refuses is asked once, never again (NodeHistory says so and records it).
      rpc: this.history.methods.wrap(this.o.rpc),
      log: this.log,
      firstBlock: this.o.firstBlock,
      rangeBlocks: this.o.rangeBlocks,
      sampleSize: this.o.sampleSize,
      ipfsGateway: this.o.ipfsGateway,
      allowPrivateMetadataHosts: this.o.allowPrivate,
      nftTimeoutMs: this.o.nftTimeoutMs,
      nftMaxAttempts: this.o.nftMaxAttempts,
      catchingUp: () => this.catchingUp(),
      nodeHead: () => this.indexer?.stats.head ?? null,
      history: this.history,
      wake: () => this.wake(),
    };
    this.lanes = LANES.map((make) => make(env));
  }

  /** Registers the lanes' unwinds inside the indexer's rewind transaction and wakes on blocks. */
  attach(indexer: Indexer): void {
    indexer.addRewindHook(async (c, ancestor) => {
      for (const lane of this.lanes) await lane.unwind?.(c, ancestor?.blockNumber ?? -1, ancestor);
    });
    // Wake on blocks only when following the head: during catch-up the lanes keep their pace.
    indexer.on('block', () => {
      // Commits of several blocks at once are bulk ingest (at the head the indexer commits the
      // node's blocks one or two at a time), even within CATCH_UP_LAG of the head.
      const committed = indexer.stats.committed ?? -1;
      if (committed - this.lastCommitted > BULK_BLOCKS) this.bulkUntil = Date.now() + this.o.bulkHoldMs;
      this.lastCommitted = committed;
      if (!this.catchingUp()) this.wake();
    });
    indexer.on('reorg', () => this.wake());
    this.indexer = indexer;
  }

  /** The indexer is far behind the node: block ingest comes first (see loop()). */
  private catchingUp(): boolean {
    const s = this.indexer?.stats;
    if (!s || s.head === null) return false;
    return s.head - (s.committed ?? -1) > CATCH_UP_LAG || Date.now() < this.bulkUntil;
  }

  start(): void {
    if (this.o.firstBlock > 0) {
      // Once per start: the figures this leaves partial carry their own caveats (API `caveats`, the pages).
      this.log.warn(
        `history starts at block ${this.o.firstBlock} (FIRST_BLOCK): token holder counts and counters count only what is seen since then, and ` +
          "balances of tokens older than that count only transfers since then until the node answers their balanceOf checks; " +
          "the API's token and address answers say so in `caveats`, the indexing status in details.partial",
      );
    }
    // The lanes wait for what an earlier run learned of the node (a refused method is not asked again).
    const loaded = this.history.load().catch((e) => this.log.warn('could not read what the node refused before', { error: (e as Error).message }));
    for (const lane of this.lanes) this.loops.push(loaded.then(() => this.loop(lane)));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    for (const w of this.turnWaiters.splice(0)) w();
    await Promise.all(this.loops);
    clearTimeout(this.eventTimer);
    this.emitChanged();
  }

  /** A lane's step changed data: a 'derived' event follows within DERIVED_EVENT_MS. */
  private changed(lane: string): void {
    this.changedLanes.add(lane);
    if (this.eventTimer) return;
    const wait = Math.max(0, this.lastEventAt + DERIVED_EVENT_MS - Date.now());
    this.eventTimer = setTimeout(() => this.emitChanged(), wait);
  }

  private emitChanged(): void {
    this.eventTimer = undefined;
    if (!this.changedLanes.size) return;
    const lanes = [...this.changedLanes];
    this.changedLanes.clear();
    this.lastEventAt = Date.now();
    this.emit('derived', { lanes } satisfies DerivedEvent);
  }

  wake(): void {
    this.sleeper.wake();
  }

  /**
   * Each lane's backlog now (metrics): blocks between the chain checkpoint and its cursor for a
   * lane that follows the chain, queued items due for the others.
   */
  async backlog(): Promise<{ lane: string; due: number; unit: 'blocks' | 'items' }[]> {
    return Promise.all(this.lanes.map(async (l) => ({ lane: l.name, due: await l.due(), unit: l.dueUnit ?? ('items' as const) })));
  }

  /** Resolves once every lane has nothing due (for tests and tools). */
  async settle(timeoutMs = 60_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const gen = this.generation;
      const due = await Promise.all(this.lanes.map(async (l) => [l.name, await l.due()] as const));
      const left = due.filter(([, n]) => n > 0);
      // Claimed work is leased (not due) while a step runs: settled only if no step is running and
      // none that did something (or failed) ended meanwhile, and once the last change has been
      // announced ('derived' event). Steps that found nothing do not count: idle lanes poll every
      // pollMs, and counting them kept a settle of tests' 50 ms polls waiting for seconds.
      if (!left.length && this.busy === 0 && gen === this.generation && !this.eventTimer) return;
      if (Date.now() > end) throw new Error(`derived lanes did not settle (due: ${left.map(([n, k]) => `${n} ${k}`).join(', ') || 'none; a step was running'})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async loop(lane: Lane): Promise<void> {
    const name = lane.name;
    let failures = 0;
    while (!this.stopped) {
      // During catch-up the lanes share one bounded budget: one step at a time, and after each
      // step every lane pauses long enough that together they work catchUpShare of the time.
      let release: (() => void) | undefined;
      if (this.catchingUp()) {
        release = await this.catchUpTurn();
        if (this.stopped) {
          release();
          break;
        }
      }
      let n = 0;
      let failed = false;
      this.busy++;
      const started = performance.now();
      try {
        n = await lane.run();
        failures = 0;
        this.counts[name] = (this.counts[name] ?? 0) + n;
        if (n > 0) this.changed(name);
      } catch (e) {
        failures++;
        failed = true;
        // A step may have written part of its work before it failed.
        this.changed(name);
        this.log.warn(`${name} lane step failed`, { error: (e as Error).message, failures });
      } finally {
        this.stepMs[name] = (this.stepMs[name] ?? 0) + performance.now() - started;
        this.steps[name] = (this.steps[name] ?? 0) + 1;
        this.busy--;
        if (n > 0 || failed) this.generation++;
        if (release) {
          const took = performance.now() - started;
          this.pausedUntil = Math.max(this.pausedUntil, Date.now() + Math.min(30_000, took * (1 / this.o.catchUpShare - 1)));
          release();
        }
      }
      if (n === 0 || failures) await this.sleep(failures ? backoffMs(failures, { baseMs: this.o.pollMs * 2, maxMs: 30_000, jitter: 0 }) : this.o.pollMs);
    }
  }

  /** Waits for the shared catch-up budget; resolves with the function that gives it back. */
  private async catchUpTurn(): Promise<() => void> {
    for (;;) {
      if (this.stopped) return () => undefined;
      if (!this.catchingUp()) {
        // At the head again: no budget. Lanes still queued for a turn must see that too.
        for (const w of this.turnWaiters.splice(0)) w();
        return () => undefined;
      }
      if (this.turnHeld) {
        await new Promise<void>((r) => this.turnWaiters.push(r));
        continue;
      }
      const wait = this.pausedUntil - Date.now();
      if (wait > 0) {
        await this.sleep(Math.min(wait, 1000));
        continue;
      }
      this.turnHeld = true;
      return () => {
        this.turnHeld = false;
        this.turnWaiters.shift()?.();
      };
    }
  }

  private sleep(ms: number): Promise<void> {
    return this.stopped ? Promise.resolve() : this.sleeper.sleep(ms);
  }
}

export function createDerived(opts: DerivedOptions): Derived {
  return new Derived(opts);
}
