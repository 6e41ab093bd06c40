// What the websocket topics carry, built from the indexer's 'block'/'reorg' events, the derived
// lanes' 'derived' events and the pending pool, in Blockscout's payloads (its notifier.ex):
//
// - blocks:new_block, blocks:<miner>: `new_block` {average_block_time: "<ms>", block: <item of
//   /api/v2/blocks>} per new block, oldest first, at most maxBlocksPerEvent per event (a catch-up
//   range is not replayed block by block; Blockscout broadcasts only realtime blocks). After a
//   reorg the new branch's blocks come as new_block at the heights they replace, as Blockscout's.
// - transactions:new_transaction: `transaction` {transaction: <count in the event>}.
// - transactions:new_pending_transaction: `pending_transaction` {pending_transaction: <count>}
//   of transactions newly seen in the pending pool (polled from PostgreSQL while subscribed).
// - addresses:<hash>: `transaction` {transactions: [...]}, `token_transfer` {token_transfers:
//   [...]}, `internal_transaction` {internal_transactions: [...]} (Blockscout's v2 socket has
//   this one disabled; same shape as the others), `pending_transaction` {transactions: [...]}:
//   the address's items of the event's blocks as its list endpoints show them; `balance`
//   {balance, block_number, exchange_rate}, `current_coin_balance` {coin_balance, exchange_rate,
//   block_number} and `coin_balance` {coin_balance: <coin-balance-history item>} once the coin
//   lane has stored the new balance (checked on 'derived' events).
// - tokens:<hash>: `token_transfer` {token_transfer: <count>}, `total_supply` {total_supply}.
// - addresses:new_address: `count` {count} when the derived lanes' address counter moves.
//
// Payloads are read through the public API's own handler (the same bytes and cache as HTTP) and
// the existing storage reads; nothing is read or serialized for a topic without subscribers.
//
// Which subscribed addresses and tokens had token transfers or internal transactions comes from
// the event's value transfers when the indexer runs in this process. An event that crossed
// processes (split roles, src/bin/event-bridge.ts) has none (null: NOTIFY payloads stay small);
// for those the feed reads the range's transfers from the store itself, when it processes the
// event, and only those of the touched subscribed addresses and of subscribed tokens. It is read
// here rather than in the bridge because only the feed knows who is subscribed, a burst of events
// is merged into one read, and the read is ordered with the reorgs it processes: a reorg cuts the
// range back to its ancestor, and rows of a block stored under another hash than the event's are
// dropped, so an orphaned block's transfers are never announced (the new branch's come with its
// own event). The
// work waiting is bounded whatever the event rate: events that arrive while one is processed are
// merged (ranges joined, only subscribed addresses kept), and every per-address pass is capped.
import type { EventEmitter } from 'node:events';
import type { ApiReply, ApiRequest } from '../http.js';
import type { Logger } from '../../log.js';
import type { ClickHouseStore } from '../../storage/clickhouse/store.js';
import type { PgStore } from '../../storage/postgres/store.js';
import { recentBlocks } from '../../storage/clickhouse/reads/stats.js';
import { chainCounter } from '../../storage/postgres/reads/addresses.js';
import { tokensByAddress } from '../../storage/postgres/reads/tokens.js';
import { liveBalances } from '../../storage/postgres/reads/live-balances.js';
import { transfersInBlocks } from '../../storage/clickhouse/reads/block-transfers.js';
import type { Hub } from './hub.js';
import { TOPIC } from './topics.js';

/** The parts of the indexer's BlockEvent (src/indexer) the feed reads. */
export interface FeedBlockEvent {
  from: number;
  to: number;
  blocks: { number: number; hash: string }[];
  summary: {
    txs: number;
    touchedAddresses: string[];
    tokenContracts: { address: string }[];
    /** null: not carried (an event from another process); the feed reads them from the store. */
    valueTransfers: FeedTransfer[] | null;
  };
}

/** A value transfer of a block event (src/chain/bundle.ts ValueTransfer), as the feed reads it. */
export interface FeedTransfer {
  kind: string;
  from: string;
  to: string;
  tokenAddress: string | null;
  traceIndex: number | null;
  blockNumber: number;
  /** Transfers it stands for (1 unless read grouped from the store). */
  count?: number;
}

export interface FeedOptions {
  hub: Hub;
  /** The public API v2 handler (not the gateway: no rate limits for the server's own reads). */
  handle(req: ApiRequest): Promise<ApiReply>;
  ch: ClickHouseStore;
  pg: PgStore;
  log: Logger;
  /** new_block messages per event at most (the newest). Default 8. */
  maxBlocksPerEvent?: number;
  /** Subscribed addresses whose lists are read per event at most. Default 256. */
  maxAddressesPerEvent?: number;
  /** Addresses (and tokens) waiting for the derived lanes at most; more are dropped oldest first. Default 10,000. */
  maxWatched?: number;
  /** How long an address waits for its balance to be stored before it is given up (ms). Default 5 min. */
  watchTtlMs?: number;
  /** Pending-pool poll while someone is subscribed (ms; 0: off). Default 2000. */
  pendingPollMs?: number;
}

/** Blocks behind average_block_time, as /api/v2/stats. */
const RECENT_BLOCKS = 100;
/** Reads in flight at once for per-address payloads. */
const CONCURRENCY = 4;
/** A token's total supply is re-read on derived events for this long after a block touched it. */
const SUPPLY_WATCH_MS = 60_000;

interface BlockWork {
  from: number;
  to: number;
  blocks: { number: number; hash: string }[];
  txs: number;
  /** Subscribed addresses the blocks touched, with the highest block that touched each. */
  touched: Map<string, number>;
  /** Of those: with token transfers, with internal value transfers. */
  tokenTransfers: Set<string>;
  internal: Set<string>;
  /** Subscribed tokens: transfers in the blocks, and the highest block. */
  tokens: Map<string, { count: number; block: number }>;
  /** Blocks of events that did not carry their value transfers (read when processed), with the hashes they announced. */
  unread?: { from: number; to: number; hashes: Map<number, string> };
}

interface Pending {
  reorgAncestor?: number;
  block?: BlockWork;
  lanes?: Set<string>;
}

const num = (v: unknown): string => (typeof v === 'number' ? String(v) : 'null');

/** Elixir's to_string of a float (Blockscout sends average_block_time as `to_string(milliseconds)`). */
export function elixirFloat(x: number): string {
  return Number.isInteger(x) ? `${x}.0` : String(x);
}

export class Feed {
  private readonly o: Required<Omit<FeedOptions, 'hub' | 'handle' | 'ch' | 'pg' | 'log'>> & FeedOptions;
  private pending: Pending = {};
  private running: Promise<void> | null = null;
  /** Addresses waiting for their stored balance: the block that touched them and since when. */
  private readonly balanceWatch = new Map<string, { block: number; since: number }>();
  /** What was last pushed per subscribed address (balance) and token (supply). */
  private readonly lastBalance = new Map<string, { balance: string; block: number }>();
  private readonly supplyWatch = new Map<string, number>();
  private readonly lastSupply = new Map<string, string>();
  private lastAddressCount: number | undefined;
  private pendingSeen: Set<string> | undefined;
  private pendingTimer: NodeJS.Timeout | undefined;
  private pendingPolling = false;
  private stopped = false;

  constructor(opts: FeedOptions) {
    this.o = {
      maxBlocksPerEvent: 8,
      maxAddressesPerEvent: 256,
      maxWatched: 10_000,
      watchTtlMs: 5 * 60_000,
      pendingPollMs: 2000,
      ...opts,
    };
  }

  /** Follows the indexer ('block', 'reorg') and the derived lanes ('derived'); returns a detach function. */
  attach(...sources: EventEmitter[]): () => void {
    const onBlock = (e: FeedBlockEvent) => this.onBlock(e);
    const onReorg = (e: { ancestor: number | null }) => this.onReorg(e.ancestor ?? -1);
    const onDerived = (e: { lanes?: string[] }) => this.onDerived(e?.lanes ?? []);
    for (const s of sources) {
      s.on('block', onBlock);
      s.on('reorg', onReorg);
      s.on('derived', onDerived);
    }
    if (this.o.pendingPollMs > 0) {
      this.pendingTimer = setInterval(() => void this.pollPending(), this.o.pendingPollMs);
      this.pendingTimer.unref();
    }
    return () => {
      for (const s of sources) {
        s.off('block', onBlock);
        s.off('reorg', onReorg);
        s.off('derived', onDerived);
      }
      clearInterval(this.pendingTimer);
      this.pendingTimer = undefined;
    };
  }

  /** Resolves when nothing is waiting or being processed (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.pendingTimer);
  }

  onBlock(e: FeedBlockEvent): void {
    const hub = this.o.hub;
    const addresses = hub.subscribed('address');
    const tokens = hub.subscribed('token');
    const w: BlockWork = this.pending.block ?? {
      from: e.from,
      to: e.to,
      blocks: [],
      txs: 0,
      touched: new Map(),
      tokenTransfers: new Set(),
      internal: new Set(),
      tokens: new Map(),
    };
    w.from = Math.min(w.from, e.from);
    w.to = Math.max(w.to, e.to);
    w.blocks.push(...e.blocks.slice(-this.o.maxBlocksPerEvent).map((b) => ({ number: b.number, hash: b.hash })));
    if (w.blocks.length > this.o.maxBlocksPerEvent) w.blocks.splice(0, w.blocks.length - this.o.maxBlocksPerEvent);
    w.txs += e.summary.txs;
    if (addresses.size) {
      // The smaller side is walked: the cost follows subscriptions or traffic, whichever is less.
      const touched = e.summary.touchedAddresses;
      if (touched.length <= addresses.size) {
        for (const a of touched) if (addresses.has(a)) w.touched.set(a, Math.max(w.touched.get(a) ?? -1, e.to));
      } else {
        const set = new Set(touched);
        for (const a of addresses) if (set.has(a)) w.touched.set(a, Math.max(w.touched.get(a) ?? -1, e.to));
      }
    }
    if (addresses.size || tokens.size) {
      if (e.summary.valueTransfers) addTransfers(w, e.summary.valueTransfers, addresses, tokens);
      else {
        const u = w.unread ?? { from: e.from, to: e.to, hashes: new Map<number, string>() };
        u.from = Math.min(u.from, e.from);
        u.to = Math.max(u.to, e.to);
        for (const b of e.blocks) u.hashes.set(b.number, b.hash.toLowerCase());
        w.unread = u;
      }
    }
    this.pending.block = w;
    this.kick();
  }

  onReorg(ancestor: number): void {
    this.pending.reorgAncestor = Math.min(this.pending.reorgAncestor ?? ancestor, ancestor);
    // Blocks of the old branch not yet announced are not announced at all.
    const w = this.pending.block;
    if (w) w.blocks = w.blocks.filter((b) => b.number <= ancestor);
    // Transfers not yet read are read only below the ancestor: the new branch's come with its own event.
    const u = w?.unread;
    if (u) {
      u.to = Math.min(u.to, ancestor);
      for (const n of u.hashes.keys()) if (n > ancestor) u.hashes.delete(n);
      if (u.to < u.from) w!.unread = undefined;
    }
    this.kick();
  }

  onDerived(lanes: string[]): void {
    const set = this.pending.lanes ?? new Set<string>();
    for (const l of lanes) set.add(l);
    this.pending.lanes = set;
    this.kick();
  }

  private kick(): void {
    if (this.running || this.stopped) return;
    // Started on the next turn: the app's own listeners (cache invalidation) run first, whatever
    // the order they were attached in, so the API reads below see the new block.
    this.running = new Promise<void>((r) => setImmediate(r)).then(async () => {
      while (!this.stopped && (this.pending.block || this.pending.lanes || this.pending.reorgAncestor !== undefined)) {
        const p = this.pending;
        this.pending = {};
        // One failing read must not stop the feed: it is logged and the next event goes on.
        await this.step('reorg', async () => p.reorgAncestor !== undefined && this.reorg(p.reorgAncestor));
        await this.step('block', async () => p.block && (await this.block(p.block)));
        await this.step('derived', async () => p.lanes && (await this.derived(p.lanes)));
      }
    }).finally(() => {
      this.running = null;
    });
  }

  private async step(what: string, fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.o.log.error('websocket feed failed', { step: what, error: e instanceof Error ? e.message : String(e) });
    }
  }

  /** GET on the public API; the parsed body of a 200, else null. */
  private async get(path: string, query: Record<string, string> = {}): Promise<any> {
    const r = await this.o.handle({ method: 'GET', path, query: new URLSearchParams(query), headers: {}, ip: '127.0.0.1' });
    if (r.status !== 200) return null;
    return JSON.parse(typeof r.body === 'string' ? r.body : r.body.toString('utf8'));
  }

  private reorg(ancestor: number): void {
    // Balances pushed from the orphaned blocks are re-read once the lanes have unwound them.
    const now = Date.now();
    for (const [a, last] of this.lastBalance) {
      if (last.block > ancestor && this.o.hub.has(TOPIC.address(a))) this.watchBalance(a, ancestor + 1, now);
    }
    for (const t of this.lastSupply.keys()) this.supplyWatch.set(t, now);
    this.lastAddressCount = undefined;
  }

  private async block(w: BlockWork): Promise<void> {
    const hub = this.o.hub;
    if (w.unread) await this.readTransfers(w, w.unread);
    if (w.blocks.length && (hub.has(TOPIC.newBlock) || hub.subscribed('miner').size)) await this.newBlocks(w.blocks);
    if (w.txs > 0) hub.broadcast(TOPIC.newTransaction, 'transaction', `{"transaction":${w.txs}}`);
    const now = Date.now();
    for (const [t, c] of w.tokens) {
      hub.broadcast(TOPIC.token(t), 'token_transfer', `{"token_transfer":${c.count}}`);
      this.supplyWatch.set(t, now);
      this.bound(this.supplyWatch);
    }
    const addresses = [...w.touched.keys()].slice(0, this.o.maxAddressesPerEvent);
    if (w.touched.size > addresses.length) {
      this.o.log.warn('websocket feed: more subscribed addresses in one event than it reads', { touched: w.touched.size, read: addresses.length });
    }
    const inRange = (items: any[] | undefined) => (items ?? []).filter((x) => typeof x?.block_number === 'number' && x.block_number >= w.from && x.block_number <= w.to);
    await eachLimited(addresses, CONCURRENCY, async (a) => {
      const topic = TOPIC.address(a);
      if (!hub.has(topic)) return;
      const base = `/api/v2/addresses/${a}`;
      const [txs, transfers, internal] = await Promise.all([
        this.get(`${base}/transactions`),
        w.tokenTransfers.has(a) ? this.get(`${base}/token-transfers`) : null,
        w.internal.has(a) ? this.get(`${base}/internal-transactions`) : null,
      ]);
      const t = inRange(txs?.items);
      if (t.length) hub.broadcast(topic, 'transaction', JSON.stringify({ transactions: t }));
      const tt = inRange(transfers?.items);
      if (tt.length) hub.broadcast(topic, 'token_transfer', JSON.stringify({ token_transfers: tt }));
      const it = inRange(internal?.items);
      if (it.length) hub.broadcast(topic, 'internal_transaction', JSON.stringify({ internal_transactions: it }));
    });
    for (const [a, b] of w.touched) this.watchBalance(a, b, now);
  }

  /**
   * The value transfers of blocks whose events did not carry them: every party of a transfer is
   * among the event's touched addresses, so only the touched subscribed addresses are asked for
   * (an event found from the checkpoint names none: only subscribed tokens are), and tokens only
   * when subscribed. Rows of a block the events announced under another hash are of a branch
   * that replaced it since (its own event follows) and are left out.
   */
  private async readTransfers(w: BlockWork, u: NonNullable<BlockWork['unread']>): Promise<void> {
    const hub = this.o.hub;
    const addresses = [...w.touched.keys()].filter((a) => hub.has(TOPIC.address(a)));
    const tokens = [...hub.subscribed('token')];
    if (!addresses.length && !tokens.length) return;
    const rows = await transfersInBlocks(this.o.ch, { from: u.from, to: u.to, addresses, tokens });
    const current = rows.filter((r) => {
      const hash = u.hashes.get(r.blockNumber);
      return hash === undefined || hash === r.blockHash.toLowerCase();
    });
    addTransfers(w, current, hub.subscribed('address'), hub.subscribed('token'));
  }

  private async newBlocks(blocks: { number: number; hash: string }[]): Promise<void> {
    const hub = this.o.hub;
    const [list, recent] = await Promise.all([this.get('/api/v2/blocks'), recentBlocks(this.o.ch, RECENT_BLOCKS)]);
    const byHash = new Map<string, unknown>();
    for (const item of list?.items ?? []) if (typeof item?.hash === 'string') byHash.set(item.hash.toLowerCase(), item);
    // As /api/v2/stats: milliseconds between consecutive recent blocks; null with fewer than two.
    const avg =
      recent.count >= 2 && recent.firstTs !== null && recent.lastTs !== null
        ? JSON.stringify(elixirFloat(((recent.lastTs - recent.firstTs) * 1000) / (recent.count - 1)))
        : 'null';
    for (const b of [...blocks].sort((x, y) => x.number - y.number)) {
      const item = byHash.get(b.hash.toLowerCase()) as { miner?: { hash?: string } } | undefined;
      // Not among the newest: orphaned since, or far behind the head; nothing to announce.
      if (!item) continue;
      const payload = `{"average_block_time":${avg},"block":${JSON.stringify(item)}}`;
      hub.broadcast(TOPIC.newBlock, 'new_block', payload);
      const miner = typeof item.miner?.hash === 'string' ? item.miner.hash.toLowerCase() : null;
      if (miner) hub.broadcast(TOPIC.miner(miner), 'new_block', payload);
    }
  }

  private watchBalance(a: string, block: number, now: number): void {
    const w = this.balanceWatch.get(a);
    this.balanceWatch.delete(a);
    this.balanceWatch.set(a, { block: Math.max(block, w?.block ?? -1), since: w?.since ?? now });
    this.bound(this.balanceWatch);
  }

  /** Drops the oldest entries past maxWatched (Maps iterate in insertion order). */
  private bound(m: Map<string, unknown>): void {
    while (m.size > this.o.maxWatched) m.delete(m.keys().next().value as string);
  }

  private async derived(lanes: Set<string>): Promise<void> {
    this.sweep();
    if (this.balanceWatch.size) await this.balances();
    if (this.supplyWatch.size) await this.supplies();
    if (this.o.hub.has(TOPIC.newAddress) && (lanes.has('accounting') || this.lastAddressCount === undefined)) {
      const v = await chainCounter(this.o.pg, 'addresses');
      const n = v === null ? 0 : Number(v);
      if (n !== this.lastAddressCount) {
        this.lastAddressCount = n;
        this.o.hub.broadcast(TOPIC.newAddress, 'count', `{"count":${n}}`);
      }
    }
  }

  /**
   * What was last pushed is kept only for topics that still have subscribers (an address nobody
   * follows any more would otherwise stay for ever), and never for more than maxWatched of each.
   */
  private sweep(): void {
    const hub = this.o.hub;
    for (const [m, topic] of [
      [this.lastBalance, TOPIC.address],
      [this.lastSupply, TOPIC.token],
    ] as const) {
      if (m.size <= hub.subscribed(topic === TOPIC.address ? 'address' : 'token').size) continue;
      for (const k of m.keys()) if (!hub.has(topic(k))) m.delete(k);
      this.bound(m);
    }
  }

  private async balances(): Promise<void> {
    const hub = this.o.hub;
    const now = Date.now();
    const pairs: { address: string; block: number }[] = [];
    for (const [a, w] of this.balanceWatch) {
      if (!hub.has(TOPIC.address(a))) {
        this.balanceWatch.delete(a);
        this.lastBalance.delete(a);
      } else if (now - w.since > this.o.watchTtlMs) {
        this.balanceWatch.delete(a);
      } else pairs.push({ address: a, block: w.block });
      if (pairs.length >= 1000) break;
    }
    if (!pairs.length) return;
    const { accountedTo, balances } = await liveBalances(this.o.pg, pairs);
    const settled: { address: string; balance: string; block: number; previous?: { balance: string; block: number } }[] = [];
    for (const { address, block } of pairs) {
      const row = balances.get(address);
      // Settled: no reading at or below the block is queued, none is being restored, and either the
      // stored value is from that block on or the accounting lane has passed it (nothing changed).
      const lanesDone = !!row && !row.queued && row.block !== -1 && (accountedTo ?? -1) >= block;
      if (!row || !lanesDone) continue;
      this.balanceWatch.delete(address);
      if (row.balance === null || row.block === null) continue;
      const previous = this.lastBalance.get(address);
      if (previous && previous.balance === row.balance && previous.block === row.block) continue;
      settled.push({ address, balance: row.balance, block: row.block, previous });
    }
    await eachLimited(settled, CONCURRENCY, async (s) => {
      const topic = TOPIC.address(s.address);
      this.lastBalance.set(s.address, { balance: s.balance, block: s.block });
      hub.broadcast(topic, 'balance', `{"balance":${JSON.stringify(s.balance)},"block_number":${num(s.block)},"exchange_rate":null}`);
      hub.broadcast(topic, 'current_coin_balance', `{"coin_balance":${JSON.stringify(s.balance)},"exchange_rate":null,"block_number":${num(s.block)}}`);
      // The history entries since the last push (the newest alone for a first push), oldest first.
      const history = await this.get(`/api/v2/addresses/${s.address}/coin-balance-history`);
      const since = s.previous && s.previous.block < s.block ? s.previous.block : s.block - 1;
      const items = (history?.items ?? []).filter((x: any) => typeof x?.block_number === 'number' && x.block_number > since && x.block_number <= s.block);
      for (const item of items.reverse()) hub.broadcast(topic, 'coin_balance', JSON.stringify({ coin_balance: item }));
    });
  }

  private async supplies(): Promise<void> {
    const hub = this.o.hub;
    const now = Date.now();
    const list: string[] = [];
    for (const [t, since] of this.supplyWatch) {
      if (!hub.has(TOPIC.token(t))) {
        this.supplyWatch.delete(t);
        this.lastSupply.delete(t);
      } else if (now - since > SUPPLY_WATCH_MS) this.supplyWatch.delete(t);
      else list.push(t);
      if (list.length >= 1000) break;
    }
    if (!list.length) return;
    const rows = await tokensByAddress(this.o.pg, list);
    for (const t of list) {
      const supply = rows.get(t)?.total_supply;
      if (supply == null || this.lastSupply.get(t) === supply) continue;
      this.lastSupply.set(t, supply);
      hub.broadcast(TOPIC.token(t), 'total_supply', `{"total_supply":${JSON.stringify(supply)}}`);
    }
  }

  /** New transactions in the pending pool since the last poll, counted and per subscribed address. */
  async pollPending(): Promise<void> {
    const hub = this.o.hub;
    const addresses = hub.subscribed('address');
    if (!hub.has(TOPIC.newPendingTransaction) && !addresses.size) {
      this.pendingSeen = undefined;
      return;
    }
    if (this.pendingPolling || this.stopped) return;
    this.pendingPolling = true;
    try {
      const page = await this.get('/api/v2/transactions', { filter: 'pending' });
      const items: any[] = page?.items ?? [];
      const seen = this.pendingSeen;
      this.pendingSeen = new Set(items.map((x) => x?.hash));
      // The first poll only learns what is already there.
      if (!seen) return;
      const fresh = items.filter((x) => typeof x?.hash === 'string' && !seen.has(x.hash));
      if (!fresh.length) return;
      hub.broadcast(TOPIC.newPendingTransaction, 'pending_transaction', `{"pending_transaction":${fresh.length}}`);
      const byAddress = new Map<string, any[]>();
      for (const x of fresh) {
        for (const side of new Set([x?.from?.hash, x?.to?.hash].filter((h): h is string => typeof h === 'string').map((h) => h.toLowerCase()))) {
          if (!addresses.has(side)) continue;
          const l = byAddress.get(side) ?? [];
          l.push(x);
          byAddress.set(side, l);
        }
      }
      for (const [a, l] of byAddress) hub.broadcast(TOPIC.address(a), 'pending_transaction', JSON.stringify({ transactions: l }));
    } catch (e) {
      this.o.log.error('websocket feed failed', { step: 'pending', error: e instanceof Error ? e.message : String(e) });
    } finally {
      this.pendingPolling = false;
    }
  }
}

/** Notes the subscribed addresses with token transfers or internal value transfers, and the subscribed tokens' transfers. */
function addTransfers(w: BlockWork, transfers: readonly FeedTransfer[], addresses: ReadonlySet<string>, tokens: ReadonlySet<string>): void {
  for (const v of transfers) {
    if (v.kind === 'native') {
      if (v.traceIndex === null) continue;
      if (addresses.has(v.from)) w.internal.add(v.from);
      if (addresses.has(v.to)) w.internal.add(v.to);
      continue;
    }
    if (addresses.has(v.from)) w.tokenTransfers.add(v.from);
    if (addresses.has(v.to)) w.tokenTransfers.add(v.to);
    const t = v.tokenAddress;
    if (t && tokens.has(t)) {
      const c = w.tokens.get(t) ?? { count: 0, block: -1 };
      c.count += v.count ?? 1;
      c.block = Math.max(c.block, v.blockNumber);
      w.tokens.set(t, c);
    }
  }
}

/** Runs fn over items with at most `limit` in flight. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
