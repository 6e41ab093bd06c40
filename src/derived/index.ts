// Derived data lanes. Each runs on its own loop so none holds back block ingest or another lane;
// pending work lives in PostgreSQL (it survives a restart); RPC work is batched, bounded and
// retried with backoff.
//   accounting   committed ranges from ClickHouse -> balances, holders, NFT owners, counters,
//                first-seen addresses/tokens/instances, contracts; journaled for reorgs
//   tokens       name/symbol/decimals/totalSupply/type by eth_call and ERC-165
//   supply       totalSupply again after mints and burns
//   nft          tokenURI/uri metadata (data:, http(s), ipfs via a gateway)
//   code         deployed bytecode of created contracts
//   coin         native balances by eth_getBalance at each block an address was touched
//   checks       a sample of token balances compared with balanceOf, corrected where they differ
// After a step that changed something, a 'derived' event tells the API that responses showing
// derived figures (balances, holders, token records...) are stale; events are coalesced to at
// most one per DERIVED_EVENT_MS, the last change always followed by one.
import { EventEmitter } from 'node:events';
import { encodeFunctionData, decodeAbiParameters, parseAbi, type Hex } from 'viem';
import type { ClickHouseStore } from '../storage/clickhouse/index.js';
import type { PgStore } from '../storage/postgres/index.js';
import type { RpcClient } from '../rpc/client.js';
import { RpcError, isStateUnavailable } from '../rpc/errors.js';
import { createLogger, type Logger } from '../log.js';
import { blockTimestamps, deleteCoinBalances, insertCoinBalances, latestCoinBalances, readRangeFacts, type CoinBalanceEntry } from '../storage/clickhouse/derived.js';
import { storedBlockHashes } from '../storage/clickhouse/chain.js';
import { ACCOUNTING, applyAccounting, applyBalanceCheck, getLaneCursor, unwindAccounting } from '../storage/postgres/derived.js';
import { CHAIN_LANE, getCheckpoint, getFact, setFact, TAIL_LENGTH } from '../storage/postgres/indexer.js';
import * as lanes from '../storage/postgres/lanes.js';
import { accountingChanges } from './accounting.js';
import { backoffMs } from '../retry.js';
import { fetchTokenMetadata, fetchTotalSupply } from './token-metadata.js';
import { fetchNftMetadata } from './nft-metadata.js';
import type { Indexer } from '../indexer/index.js';

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
  log?: Logger;
}

type Step = () => Promise<number>;

/** A commit of more blocks than this is bulk ingest; it holds the lanes' pacing BULK_HOLD_MS. */
const BULK_BLOCKS = 4;
const BULK_HOLD_MS = 3_000;
/** Blocks behind the node beyond which the indexer counts as catching up. */
const CATCH_UP_LAG = 64;
/** Blocks behind the node's head within which a node without historical state still answers state reads. */
const STATE_WINDOW_BLOCKS = 64;
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
  private wakers = new Set<() => void>();
  /** Steps running now, and a counter bumped whenever one starts or ends (for settle()). */
  private busy = 0;
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
  /** The node refused a state read for want of historical state (kept in PostgreSQL fact 'state_history'). */
  private noStateHistory = false;

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
    };
    this.log = opts.log ?? createLogger('derived');
  }

  /** Registers the accounting unwind inside the indexer's rewind transaction and wakes on blocks. */
  attach(indexer: Indexer): void {
    indexer.addRewindHook((c, ancestor) => unwindAccounting(c, ancestor));
    // Wake on blocks only when following the head: during catch-up the lanes keep their pace.
    indexer.on('block', () => {
      // Commits of several blocks at once are bulk ingest (at the head the indexer commits the
      // node's blocks one or two at a time), even within CATCH_UP_LAG of the head.
      const committed = indexer.stats.committed ?? -1;
      if (committed - this.lastCommitted > BULK_BLOCKS) this.bulkUntil = Date.now() + BULK_HOLD_MS;
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
    void getFact<{ available: boolean }>(this.o.pg, 'state_history').then(
      (f) => {
        if (f?.available === false) this.noStateHistory = true;
      },
      () => undefined,
    );
    const run = (name: string, step: Step) => this.loops.push(this.loop(name, step));
    run('accounting', () => this.accountingStep());
    run('coin', () => this.coinStep());
    run('tokens', () => this.tokenStep());
    run('supply', () => this.supplyStep());
    run('nft', () => this.nftStep());
    run('code', () => this.codeStep());
    run('checks', () => this.checkStep());
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
    for (const w of this.wakers) w();
  }

  /** Resolves once every lane has nothing due (for tests and tools). */
  async settle(timeoutMs = 60_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const gen = this.generation;
      const [cp, cur] = await Promise.all([getCheckpoint(this.o.pg, CHAIN_LANE), getLaneCursor(this.o.pg.pool, ACCOUNTING)]);
      const [due] = await this.o.pg.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM tokens WHERE metadata_next_at <= now() OR supply_stale AND metadata_fetched_at IS NOT NULL)
              + (SELECT count(*) FROM nft_instances WHERE metadata_next_at <= now())
              + (SELECT count(*) FROM contracts WHERE code_next_at <= now())
              + (SELECT count(*) FROM coin_balance_pending WHERE next_at <= now())
              + (SELECT count(*) FROM balance_checks WHERE next_at <= now())
              + (SELECT count(*) FROM addresses WHERE coin_balance_block = -1) AS n`,
      );
      // Claimed work is leased (not due) while a step runs: settled only if no step ran meanwhile.
      // ...and once the last change has been announced ('derived' event).
      if ((cp?.blockNumber ?? -1) === (cur?.blockNumber ?? -1) && Number(due.n) === 0 && this.busy === 0 && gen === this.generation && !this.eventTimer) return;
      if (Date.now() > end) throw new Error(`derived lanes did not settle (cursor ${cur?.blockNumber}, checkpoint ${cp?.blockNumber}, due ${due.n})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  private async loop(name: string, step: Step): Promise<void> {
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
      this.busy++;
      this.generation++;
      const started = performance.now();
      try {
        n = await step();
        failures = 0;
        this.counts[name] = (this.counts[name] ?? 0) + n;
        if (n > 0) this.changed(name);
      } catch (e) {
        failures++;
        // A step may have written part of its work before it failed.
        this.changed(name);
        this.log.warn(`${name} lane step failed`, { error: (e as Error).message, failures });
      } finally {
        this.stepMs[name] = (this.stepMs[name] ?? 0) + performance.now() - started;
        this.steps[name] = (this.steps[name] ?? 0) + 1;
        this.busy--;
        this.generation++;
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
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  // ---- accounting ---------------------------------------------------------------------------

  private async accountingStep(): Promise<number> {
    const { pg, ch } = this.o;
    // Coin balances a reorg invalidated come back from the surviving history first.
    await this.restoreCoinBalances();
    const [cp, cur] = await Promise.all([getCheckpoint(pg, CHAIN_LANE), getLaneCursor(pg.pool, ACCOUNTING)]);
    const next = cur ? cur.blockNumber + 1 : this.o.firstBlock;
    if (!cp || cp.blockNumber < next) return 0;
    // Small steps during catch-up, so the shared budget can pace them.
    const range = this.catchingUp() ? Math.min(this.o.rangeBlocks, 10) : this.o.rangeBlocks;
    const to = Math.min(cp.blockNumber, next + range - 1);
    const facts = await readRangeFacts(ch, next, to);
    const hashes = await storedBlockHashes(ch, to, to);
    const toHash = hashes.get(to);
    if (facts.blocks.length !== to - next + 1 || !toHash) return 0; // being rewritten by a reorg: later
    const changes = accountingChanges(facts, { blockNumber: to, blockHash: toHash }, this.o.sampleSize);
    // History after genesis only: balances that may predate it are checked with balanceOf.
    changes.checkUnseenHolders = this.o.firstBlock > 0;
    const applied = await pg.tx(async (c) => {
      // Serialize with a rewind: it must update this row, so it waits for us (or we see it).
      const chk = await c.query<{ block_number: string }>(
        'SELECT block_number FROM indexer_checkpoints WHERE lane = $1 FOR SHARE',
        [CHAIN_LANE],
      );
      if (!chk.rows[0] || Number(chk.rows[0].block_number) < to) return false;
      const tail = await c.query<{ hash: string }>('SELECT hash FROM recent_blocks WHERE number = $1', [to]);
      if (tail.rows[0] && tail.rows[0].hash !== toHash) return false;
      const now = await getLaneCursor(c, ACCOUNTING, true);
      if ((now?.blockNumber ?? -1) !== (cur?.blockNumber ?? -1)) return false;
      await applyAccounting(c, changes, TAIL_LENGTH);
      return true;
    });
    if (applied) this.wake();
    return applied ? to - next + 1 : 0;
  }

  // ---- coin balances ------------------------------------------------------------------------

  private async restoreCoinBalances(): Promise<void> {
    const { pg, ch } = this.o;
    const tried = new Set<string>();
    for (;;) {
      // An address whose balance could not be read at the head stays marked: next step.
      const list = (await lanes.coinBalancesToRestore(pg, 500)).filter((a) => !tried.has(a));
      if (!list.length) return;
      for (const a of list) tried.add(a);
      const cur = await getLaneCursor(pg.pool, ACCOUNTING);
      const latest = await latestCoinBalances(ch, list, cur?.blockNumber ?? 0);
      // Without historical state a balance may have been read at the head, with no entry to
      // restore from: read it at the head again.
      const fromHead = this.noStateHistory ? list.filter((a) => !latest.has(a)) : [];
      if (fromHead.length) await this.coinAtHead(fromHead);
      await lanes.restoreCoinBalances(
        pg,
        // No entry at or below the cursor: it was read and never changed from zero.
        list.filter((a) => !fromHead.includes(a)).map((a) => ({ address: a, value: latest.get(a)?.value ?? '0', block: latest.get(a)?.block_number ?? null })),
      );
    }
  }

  private async coinStep(): Promise<number> {
    const { pg, ch, rpc } = this.o;
    const cur = await getLaneCursor(pg.pool, ACCOUNTING);
    if (!cur) return 0;
    const due = await lanes.claimCoinBalances(pg, cur.blockNumber, 200);
    if (!due.length) return 0;
    try {
      return await this.coinReadings(due);
    } catch (e) {
      // Not finished (a node or store error): the claimed pairs are due again at once rather
      // than when their lease runs out, so the lane's own backoff is the only wait.
      await lanes.releaseCoinBalances(pg, due).catch(() => undefined);
      throw e;
    }
  }

  private async coinReadings(claimed: { address: string; block_number: number; attempts: number }[]): Promise<number> {
    const { pg, ch, rpc } = this.o;
    const prev = await lanes.currentCoinBalances(pg, [...new Set(claimed.map((d) => d.address))]);
    // A balance already read at a later block (at the node's head, see coinAtHead) covers these.
    const covered = claimed.filter((d) => (prev.get(d.address)?.block ?? -1) >= Number(d.block_number));
    await lanes.dropCoinPending(pg, covered);
    const due = claimed.filter((d) => !covered.includes(d));
    const outcomes = await rpc.batch<string>(
      due.map((d) => ({ method: 'eth_getBalance', params: [d.address, `0x${Number(d.block_number).toString(16)}`] })),
    );
    const ts = await blockTimestamps(ch, due.map((d) => Number(d.block_number)));
    const entries: CoinBalanceEntry[] = [];
    const done: { address: string; block: number; value: string; changed: boolean }[] = [];
    const atHead = new Set<string>();
    for (let i = 0; i < due.length; i++) {
      const d = due[i];
      const o = outcomes[i];
      const block = Number(d.block_number);
      if (!o.ok) {
        if (o.error.kind !== 'rpc') throw o.error;
        if (isStateUnavailable(o.error)) {
          // The node keeps no state for that block: asking again will not help.
          await this.stateRefused(o.error, block);
          atHead.add(d.address);
        } else await lanes.failCoinBalance(pg, d.address, block, d.attempts);
        continue;
      }
      const value = BigInt(o.result).toString();
      // The current balance is the value after its last change; a first reading of zero is no change.
      const before = prev.get(d.address)?.value ?? '0';
      const changed = value !== before;
      if (changed) {
        entries.push({ address: d.address, block_number: block, value, delta: (BigInt(value) - BigInt(before)).toString(), timestamp: ts.get(block) ?? 0 });
      }
      done.push({ address: d.address, block, value, changed });
    }
    await insertCoinBalances(ch, entries);
    const kept = await lanes.saveCoinBalances(pg, done);
    // A reorg that removed the pending row meanwhile orphaned the entry just written: take it back.
    const orphaned = entries.filter((e) => !kept.has(`${e.address}|${e.block_number}`));
    if (orphaned.length) await deleteCoinBalances(ch, orphaned);
    if (atHead.size) await this.coinAtHead([...atHead]);
    return done.length + atHead.size + covered.length;
  }

  /**
   * Current balances from the node's head for addresses whose balance at a past block the node
   * cannot give (no historical state): right now, with no history entry for the blocks between.
   */
  private async coinAtHead(addresses: string[]): Promise<void> {
    const { pg, rpc } = this.o;
    // The head first: each balance is then at least as new as the block it is recorded at.
    const head = Number(await rpc.request<string>('eth_blockNumber'));
    const outcomes = await rpc.batch<string>(addresses.map((a) => ({ method: 'eth_getBalance', params: [a, `0x${head.toString(16)}`] })));
    const rows: { address: string; value: string }[] = [];
    outcomes.forEach((o, i) => {
      if (o.ok) rows.push({ address: addresses[i], value: BigInt(o.result).toString() });
      else if (o.error.kind !== 'rpc') throw o.error;
    });
    await lanes.saveCoinBalancesAtHead(pg, rows, head);
  }

  /**
   * The node refused a state read at a past block for want of that block's state: said once in
   * the log and in the indexing status (fact 'state_history'); callers stop asking for it.
   */
  private async stateRefused(e: RpcError, block: number): Promise<void> {
    if (this.noStateHistory) return;
    this.noStateHistory = true;
    this.log.warn('the node keeps no historical state: coin balances are read at its head (no history before), token balances are checked when the lanes are near the head', {
      method: e.method,
      block,
      error: e.detail.slice(0, 200),
    });
    await setFact(this.o.pg, 'state_history', { available: false, method: e.method, block, error: e.detail.slice(0, 200), since: new Date().toISOString() });
  }

  // ---- tokens -------------------------------------------------------------------------------

  private async tokenStep(): Promise<number> {
    const { pg, rpc } = this.o;
    const due = await lanes.claimTokensForMetadata(pg, 16);
    await Promise.all(
      due.map(async (t) => {
        try {
          const m = await fetchTokenMetadata(rpc, t.address, { shapeType: t.type as 'ERC-20' });
          await lanes.saveTokenMetadata(pg, t.address, m);
        } catch (e) {
          await lanes.failTokenMetadata(pg, t.address, t.attempts, (e as Error).message);
        }
      }),
    );
    return due.length;
  }

  private async supplyStep(): Promise<number> {
    const { pg, rpc } = this.o;
    const due = await lanes.claimStaleSupplies(pg, 32);
    await Promise.all(
      due.map(async (a) => {
        try {
          await lanes.saveSupply(pg, a, await fetchTotalSupply(rpc, a), false);
        } catch {
          await lanes.saveSupply(pg, a, null, true);
        }
      }),
    );
    return due.length;
  }

  private async nftStep(): Promise<number> {
    const { pg, rpc } = this.o;
    const due = await lanes.claimNftsForMetadata(pg, 8);
    await Promise.all(
      due.map(async (n) => {
        try {
          const r = await fetchNftMetadata(rpc, { address: n.token, type: n.type as 'ERC-721' }, n.token_id, {
            ipfsGateway: this.o.ipfsGateway,
            timeoutMs: this.o.nftTimeoutMs,
            allowPrivate: this.o.allowPrivate,
          });
          await lanes.saveNftMetadata(pg, n.token, n.token_id, r, n.attempts, this.o.nftMaxAttempts);
        } catch (e) {
          const error = (e as Error).message;
          await lanes.saveNftMetadata(pg, n.token, n.token_id, { tokenUri: null, metadata: null, image: null, error, retryable: true }, n.attempts, this.o.nftMaxAttempts);
        }
      }),
    );
    return due.length;
  }

  private async codeStep(): Promise<number> {
    const { pg, rpc } = this.o;
    const due = await lanes.claimContractsForCode(pg, 50);
    if (!due.length) return 0;
    const outcomes = await rpc.batch<string>(due.map((d) => ({ method: 'eth_getCode', params: [d.address, 'latest'] })));
    for (let i = 0; i < due.length; i++) {
      const o = outcomes[i];
      await lanes.saveContractCode(pg, due[i].address, o.ok ? String(o.result).toLowerCase() : null, due[i].attempts);
    }
    return due.length;
  }

  // ---- balance checks -----------------------------------------------------------------------

  private async checkStep(): Promise<number> {
    const { pg, rpc } = this.o;
    const cur = await getLaneCursor(pg.pool, ACCOUNTING);
    if (!cur) return 0;
    // Without historical state the node answers balanceOf only near its head: wait for it there.
    const nodeHead = this.indexer?.stats.head;
    if (this.noStateHistory && nodeHead != null && nodeHead - cur.blockNumber > STATE_WINDOW_BLOCKS) return 0;
    const due = await lanes.claimBalanceChecks(pg, 32);
    let corrected = 0;
    for (const d of due) {
      const tag = `0x${cur.blockNumber.toString(16)}`;
      let value: string | null;
      try {
        value = await balanceAt(rpc, d.token, d.holder, d.type === 'ERC-1155' ? d.token_id : null, tag);
      } catch (e) {
        if (!(e instanceof RpcError)) throw e;
        if (isStateUnavailable(e)) {
          await this.stateRefused(e, cur.blockNumber);
          await lanes.postponeBalanceCheck(pg, d.token, d.holder, d.token_id, 30);
        } else await lanes.failBalanceCheck(pg, d.token, d.holder, d.token_id, d.attempts);
        continue;
      }
      if (value === null) {
        // The contract does not answer balanceOf: nothing to compare with.
        await pg.query('DELETE FROM balance_checks WHERE token = $1 AND holder = $2 AND token_id = $3', [d.token, d.holder, d.token_id]);
        continue;
      }
      const delta = await pg.tx((c) => applyBalanceCheck(c, { token: d.token, holder: d.holder, tokenId: d.token_id }, cur.blockNumber, BigInt(value!)));
      if (delta === null) {
        // The cursor moved on while we asked: ask again at the new height.
        await lanes.retryBalanceCheckNow(pg, d.token, d.holder, d.token_id);
        continue;
      }
      if (delta !== 0n) {
        corrected++;
        this.log.warn('token balance corrected by balanceOf', { token: d.token, holder: d.holder, token_id: d.token_id || undefined, delta: delta.toString() });
      }
    }
    this.counts.corrections = (this.counts.corrections ?? 0) + corrected;
    return due.length;
  }
}

const BALANCE_OF = parseAbi(['function balanceOf(address account) view returns (uint256)']);
const BALANCE_OF_ID = parseAbi(['function balanceOf(address account, uint256 id) view returns (uint256)']);

/**
 * balanceOf(holder) (or balanceOf(holder, id) of an ERC-1155) at `tag`; null when the contract
 * does not answer it (a revert, garbage). Throws the RpcError of a transport failure and of a
 * state the node does not keep (isStateUnavailable), which say nothing about the contract.
 */
async function balanceAt(rpc: RpcClient, token: string, holder: string, id: string | null, tag: string): Promise<string | null> {
  const data =
    id === null
      ? encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [holder as Hex] })
      : encodeFunctionData({ abi: BALANCE_OF_ID, functionName: 'balanceOf', args: [holder as Hex, BigInt(id)] });
  const [o] = await rpc.batch<string>([{ method: 'eth_call', params: [{ to: token, data }, tag] }]);
  if (!o.ok) {
    if (o.error.kind !== 'rpc' || isStateUnavailable(o.error)) throw o.error;
    return null;
  }
  try {
    return (decodeAbiParameters([{ type: 'uint256' }], o.result as Hex)[0] as bigint).toString();
  } catch {
    return null;
  }
}

export function createDerived(opts: DerivedOptions): Derived {
  return new Derived(opts);
}
