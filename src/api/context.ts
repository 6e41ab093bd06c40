// What route handlers share: the stores, and small facts about the chain that many responses
// need (the stored head, whether traces are indexed), plus the batch lookups that turn a page of
// rows into Blockscout objects (address facts, base fees, failed internal frames...).
import type { Abi, Hex } from 'viem';
import { recoverAuthorizationAddress } from 'viem/utils';
import { LRUCache } from 'lru-cache';
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import { getFact } from '../storage/postgres/indexer.js';
import { latestBlockNumber, baseFees } from '../storage/clickhouse/reads/blocks.js';
import { addressFacts, tokenTypes, type AddressFacts } from '../storage/clickhouse/reads/addresses.js';
import type { TransactionRead } from '../storage/clickhouse/reads/transactions.js';
import { withBlobFields } from '../storage/clickhouse/reads/blobs.js';
import { topFramesAndFailures } from '../storage/clickhouse/reads/internal-transactions.js';
import type { TokenTransferRead } from '../storage/clickhouse/reads/token-transfers.js';
import { tokensByAddress, type TokenRow } from '../storage/postgres/reads/tokens.js';
import { accountingStanding, addressFactRows, contractsByAddress, type AccountingStanding, type AddressFactRows } from '../storage/postgres/reads/addresses.js';
import { AccountingLag, type LaneCoverage, type NamedRange, type UnappliedFacts } from './accounting-lag.js';
import { NAMED } from '../chain/named-addresses.js';
import { POINT_BACKFILL_FACT, type PointDirection, type PointTransaction } from '../storage/postgres/points.js';
import type { Logger } from '../log.js';
import { RefusedMethods, STATE_METHODS } from '../rpc/refused-methods.js';
import { historyFacts, type HistoryFacts } from '../storage/partial-history.js';
import { verifiedAbi, verifiedSince } from '../storage/postgres/verified.js';
import { publicNamesSince } from '../storage/postgres/public-names.js';
import { searchTokens, textIsBytes, type TokenCursor, type TokenSearchRow } from '../storage/postgres/reads/search.js';
import { RecentTransactions } from './recent-transactions.js';
import { TOKEN_SEARCH_MEMORY_MAX, TokenSearchIndex, TooManyTokens } from './token-search.js';
import { indexAbi, mergeAbis, type IndexedAbi } from '../abi/decode.js';
import { detectProxies, type CodeKind, type ProxyFact } from './proxies.js';
import { publicIconUrl, type ApiFacts, type PublicNameFact, type WithPublicIcon } from './serializers/address.js';
import { checksum } from './serializers/common.js';
import { txKey, type SignedAuthorizationJson, type TxLookups } from './serializers/transaction.js';
import { SignatureBook } from './signature-book.js';
import { curatedKnows } from '../abi/naming.js';
import { OnlineSignatures, type LookupFormat } from './online-signatures.js';
import { BeaconBlobs, type BeaconNodeOptions } from './beacon-blobs.js';
import { PriceBook } from './prices.js';
import { clock } from './routes/clock.js';

/**
 * What transactions' point rows say beside their fields, by "block:index": their block's base
 * fee and their frames' facts (src/storage/postgres/points.ts), so txLookups need not read them.
 */
export type KnownTxFacts = ReadonlyMap<string, { baseFee: string | null; revertOutput: string; failedInner: boolean; internalCount: number }>;

/** What these transactions' point rows say beside their fields, for txLookups. */
export function knownTxFacts(points: Iterable<PointTransaction>): KnownTxFacts {
  const out = new Map<string, { baseFee: string | null; revertOutput: string; failedInner: boolean; internalCount: number }>();
  for (const p of points) {
    out.set(txKey(p.tx.block_number, p.tx.transaction_index), { baseFee: p.baseFee, revertOutput: p.revertOutput, failedInner: p.failedInner, internalCount: p.tx.internal_count });
  }
  return out;
}

export interface ApiDeps {
  ch: ClickHouseStore;
  pg: PgStore;
  log: Logger;
  /** Native coin symbol (COIN). */
  coin?: string;
  /** PUBLIC_URL: the origin icon URLs are absolute under (else setIconOrigin's, else paths). */
  publicUrl?: string;
  /** TOKEN_SEARCH_MEMORY_MAX: most tokens held for the in-memory search (src/api/token-search.ts; default TOKEN_SEARCH_MEMORY_MAX there). */
  tokenSearchMemoryMax?: number;
  /** TOKEN_SEARCH_STALE_MS: how old the in-memory search may be (default TOKEN_SEARCH_STALE_MS there). */
  tokenSearchStaleMs?: number;
  /** The node, for current values (smart-contract read methods); optional. */
  rpc?: import('../rpc/client.js').RpcClient;
  /** Contract verification (src/verify), when this API verifies: its compilers and service. */
  verification?: { compilers: import('../verify/compilers.js').CompilerStore; service: import('../verify/service.js').VerificationService };
  /** SIGNATURE_LOOKUP_URL / _FORMAT: the online signature lookup (off when unset; src/api/online-signatures.ts). */
  signatureLookup?: { url: string; format: LookupFormat; allowHttp?: boolean; allowPrivate?: boolean };
  /**
   * Set when a price source is (EXCHANGE_RATES_URL): answers show the prices its fetcher stored
   * (src/api/prices.ts), those older than `staleMs` not, read again every `ttlMs` at most (tests:
   * 0). Unset: every price is null.
   */
  exchangeRates?: { staleMs?: number; ttlMs?: number };
  /** BEACON_NODE_URL: blob data from a consensus-layer node (off when unset; src/api/beacon-blobs.ts). */
  beaconNode?: BeaconNodeOptions;
}

/** How often the verified contracts are looked for (ms): a verification in another process shows within it. */
const VERIFIED_TTL_MS = 1000;
/**
 * How often approved public names are looked for (ms): a decision in another process (`explorer
 * admin`) shows within it; one taken through this process's Account API shows at once.
 */
const PUBLIC_NAMES_TTL_MS = 1000;
/** How long chain facts are trusted when no indexer events arrive (split roles). */
const FACT_TTL_MS = 1000;
/**
 * How long the node's "no code here" is trusted when no indexer events arrive: with events, it
 * holds until a block creates a contract at that address (a counterfactual deployment).
 */
const NODE_FACT_TTL_MS = 60_000;
/** Longest wait for the node's eth_getCode answers; without one the fact stays unknown (null). */
const NODE_CODE_TIMEOUT_MS = 2_000;
/** At most this many addresses are asked of the node for one response. */
const NODE_CODE_MAX = 500;
/**
 * How long a token's derived record is reused. The derived lanes move it after the block that
 * changed it (never in the indexer's commit), so a block event alone does not say it is fresh.
 */
const TOKEN_TTL_MS = 1000;

/** Most approved public names held in memory (far beyond what an operator reviews). */
const PUBLIC_NAMES_MAX = 1_000_000;

/** A detected proxy as responses carry it; withVerified() names its verified implementations. */
function proxyOf(fact: ProxyFact): NonNullable<ApiFacts['proxy']> {
  return { type: fact.type, implementations: fact.implementations.map((address) => ({ address, name: null, verified: false })) };
}

export class ApiContext {
  readonly ch: ClickHouseStore;
  readonly pg: PgStore;
  readonly log: Logger;
  readonly rpc: ApiDeps['rpc'];
  readonly verification: ApiDeps['verification'];
  /** Names for selectors and topics from the instance (other verified contracts, imports, online answers). */
  readonly signatures: SignatureBook;
  /** The online signature lookup, when set. */
  readonly onlineSignatures: OnlineSignatures | undefined;
  /** The stored prices of the coin and the tokens (empty when no price source is set). */
  readonly prices: PriceBook;
  /** Blob data from the beacon node, when one is set. */
  readonly beaconBlobs: BeaconBlobs | undefined;
  private headValue: { at: number; value: bigint | null } | undefined;
  /** The stored head's read in flight: requests that need it meanwhile share it. */
  private headRead: Promise<bigint | null> | undefined;
  private tracesValue: { at: number; value: boolean | null } | undefined;
  /**
   * Address facts. Proven ones (contract or not) are kept until a reorg; an unknown one only
   * until the next block (new evidence arrives only with blocks), or FACT_TTL_MS when no indexer
   * events reach this process.
   */
  private readonly facts = new LRUCache<string, { f: AddressFacts; gen: number; at: number; node?: boolean }>({ max: 200_000 });
  /** Derived token records (null: not a derived token yet), reused for TOKEN_TTL_MS at most. */
  private readonly tokenRows = new LRUCache<string, { row: TokenRow | null; gen: number; at: number }>({ max: 50_000 });
  /**
   * Base fee per stored block number (null before London): a block's header changes only by a
   * reorg, which clears this; kept FACT_TTL_MS when no indexer events reach this process.
   */
  private readonly blockBaseFees = new LRUCache<string, { fee: string | null; at: number }>({ max: 100_000 });
  /**
   * What a contract's code says by itself (ordinary code, a minimal proxy...): code changes only by
   * a reorg (cleared then) or an EIP-7702 delegation (never kept: read again each time).
   */
  private readonly codeKinds = new LRUCache<string, CodeKind>({ max: 200_000 });
  /**
   * Proxy facts read from the node's storage: an upgrade takes a transaction, so a fact holds until
   * the next block, or FACT_TTL_MS when no indexer events reach this process.
   */
  private readonly proxyFacts = new LRUCache<string, { fact: ProxyFact | null; gen: number; at: number }>({ max: 50_000 });
  /** What is partial about the indexed history and the node, read again after FACT_TTL_MS or a derived change. */
  private historyValue: { at: number; value: Promise<HistoryFacts> } | undefined;
  /** Methods the node refuses: after the first refusal this process answers them as unknown without asking. */
  private readonly refusedMethods = new RefusedMethods(STATE_METHODS, (e) =>
    this.log.warn(`the node refuses ${e.method}: what it would tell is answered as unknown, and it is not asked again`, { code: e.code, error: e.detail.slice(0, 200) }),
  );
  /** Which addresses the accounting lane's rows answer for while it is a few blocks behind. */
  private readonly lag: AccountingLag;
  /** Bumped by every block and reorg. */
  private chainGen = 0;
  private eventsAttached = false;

  constructor(deps: ApiDeps) {
    this.ch = deps.ch;
    this.pg = deps.pg;
    this.log = deps.log;
    this.rpc = deps.rpc && this.refusedMethods.wrap(deps.rpc);
    this.tokenSearchMemoryMax = deps.tokenSearchMemoryMax ?? TOKEN_SEARCH_MEMORY_MAX;
    this.tokenSearchStaleMs = deps.tokenSearchStaleMs;
    this.recent = new RecentTransactions(this.pg);
    this.lag = new AccountingLag(this.ch);
    this.verification = deps.verification;
    // Answers stored by the lookup are read at once (not at the next timed look).
    this.onlineSignatures = deps.signatureLookup && new OnlineSignatures(this.pg, { ...deps.signatureLookup, log: this.log, onStored: () => void this.signatures.refresh(true).catch(() => undefined) });
    this.signatures = new SignatureBook(this.pg, this.onlineSignatures);
    this.prices = new PriceBook(deps.exchangeRates ? this.pg : null, deps.exchangeRates, this.log);
    this.beaconBlobs = deps.beaconNode && new BeaconBlobs(deps.beaconNode, this.log);
    // The catalogue's index (~50 ms of hashing) is built now rather than on the first answer that names a call.
    setImmediate(() => curatedKnows('0x00000000')).unref();
    if (deps.publicUrl) {
      this.iconOrigin = new URL(deps.publicUrl).origin;
      this.iconOriginFromSettings = true;
    }
  }

  /** Whether indexer events reach this process (then cached chain facts live until the next event). */
  setAttached(attached: boolean): void {
    this.eventsAttached = attached;
    this.headValue = undefined;
    this.headRead = undefined;
  }

  /**
   * Called by the app when the indexer reports new blocks or a reorg. `created`: contracts the
   * new blocks created, whose "no code" answers from the node are no longer true. `to`: the last
   * block a block event's range committed.
   */
  onChainChange(kind: 'block' | 'reorg', created: Iterable<string> = [], range?: NamedRange, to?: number): void {
    // The stored head after a commit is the higher of the one known and the range's last block
    // (a range filled below the head, a claimed one of a shared catch-up, leaves it): no read.
    // Every request that needs the head (a transaction's confirmations) asked ClickHouse for it
    // right after each block, while the commit and the lane's step load the cores.
    const known = this.headValue;
    this.headValue = kind === 'block' && to !== undefined && known ? { at: Date.now(), value: known.value !== null && known.value > BigInt(to) ? known.value : BigInt(to) } : undefined;
    this.headRead = undefined;
    this.chainGen++;
    this.tokenRows.clear();
    for (const a of created) this.facts.delete(a);
    if (range) this.lag.learn(range);
    if (kind === 'reorg') {
      this.lag.forget();
      this.facts.clear();
      this.codeKinds.clear();
      this.blockBaseFees.clear();
      this.tracesValue = undefined;
    }
  }

  /**
   * Called by the app when the derived-data lanes changed something: token records, and contract
   * records of the code lane, are read again.
   */
  onDerivedChange(): void {
    this.tokenRows.clear();
    this.historyValue = undefined;
    for (const [a, k] of this.facts.entries()) if (k.f.isContract === null) this.facts.delete(a);
  }

  private fresh(at: number): boolean {
    return this.eventsAttached || Date.now() - at < FACT_TTL_MS;
  }

  /** Highest stored block number (null on an empty store). */
  async head(): Promise<bigint | null> {
    if (this.headValue && this.fresh(this.headValue.at)) return this.headValue.value;
    if (!this.headRead) {
      const read: Promise<bigint | null> = latestBlockNumber(this.ch).then(
        (value) => {
          // Not kept when a block or a reorg came meanwhile: the value may be older than it.
          if (this.headRead === read) {
            this.headValue = { at: Date.now(), value };
            this.headRead = undefined;
          }
          return value;
        },
        (e: unknown) => {
          if (this.headRead === read) this.headRead = undefined;
          throw e;
        },
      );
      this.headRead = read;
    }
    return this.headRead;
  }

  /** What is partial about the indexed history and the node (src/storage/partial-history.ts), for the answers' caveats. */
  historyFacts(): Promise<HistoryFacts> {
    if (this.historyValue && Date.now() - this.historyValue.at < FACT_TTL_MS) return this.historyValue.value;
    const value = historyFacts(this.pg);
    this.historyValue = { at: Date.now(), value };
    // A failed read is not kept.
    value.catch(() => {
      if (this.historyValue?.value === value) this.historyValue = undefined;
    });
    return value;
  }

  /**
   * Whether every stored block has its point rows (PostgreSQL; the upgrade's backfill is done,
   * src/indexer/point-backfill.ts): a transaction or block missing there is then missing. Until
   * then a miss is looked up in ClickHouse. Once done, done.
   */
  async pointsComplete(): Promise<boolean> {
    if (this.pointsDone) return true;
    if (this.pointsCheckedAt && Date.now() - this.pointsCheckedAt < 10_000) return false;
    const f = await getFact<{ done?: boolean }>(this.pg, POINT_BACKFILL_FACT);
    this.pointsCheckedAt = Date.now();
    this.pointsDone = f?.done === true;
    return this.pointsDone;
  }
  private pointsDone = false;
  private pointsCheckedAt = 0;

  /** Whether internal transactions are indexed (null: the indexer has not said yet). */
  async tracesOn(): Promise<boolean | null> {
    if (this.tracesValue && Date.now() - this.tracesValue.at < 10_000) return this.tracesValue.value;
    const caps = await getFact<{ traces: string }>(this.pg, 'capabilities');
    const value = caps ? caps.traces !== 'off' : null;
    this.tracesValue = { at: Date.now(), value };
    return value;
  }

  /**
   * Whether each address is a contract, and (`withCreation`, an address page; not cached) how it
   * was created. Contracts the derived lanes recorded (PostgreSQL `contracts`: creator, creating
   * transaction, self-destruct, empty code) come first; the others are proven from stored chain
   * data (src/storage/clickhouse/reads/addresses.ts), which also covers the lanes' lag.
   */
  async addressFacts(
    addresses: Iterable<string>,
    opts: {
      withCreation?: boolean;
      senders?: Iterable<string>;
      /** Their PostgreSQL rows, read already (the address overview reads them with its own). */
      rows?: AddressFactRows;
    } = {},
  ): Promise<Map<string, ApiFacts>> {
    const out = new Map<string, ApiFacts>();
    const ask: string[] = [];
    // Senders of stored transactions are proven externally owned by the rows at hand (only such
    // accounts sign transactions): the same proof as the store's sent-a-transaction probe.
    if (!opts.withCreation) for (const a of opts.senders ?? []) if (a) out.set(a, { isContract: false, creation: null });
    for (const a of addresses) {
      if (!a || out.has(a)) continue;
      const known = opts.withCreation ? undefined : this.facts.get(a);
      const usable = known && this.usableFact(known);
      if (known && usable) out.set(a, known.f);
      else {
        out.set(a, { isContract: null, creation: null });
        ask.push(a);
      }
    }
    if (ask.length) {
      const gen = this.chainGen;
      const found = new Map<string, AddressFacts>();
      // Point reads (issue #30): contracts and activity counters in one PostgreSQL read.
      const pointRows = opts.rows ?? ((await this.pointsComplete()) ? await addressFactRows(this.pg, ask) : null);
      const lane = pointRows ? await this.accountingCoverage(pointRows.standing) : null;
      // The addresses the blocks the lane has not applied yet name: its rows and what those
      // blocks say of them (the indexer's events), when known; else ClickHouse's rows.
      const unapplied = lane?.unapplied ?? null;
      for (const [a, c] of pointRows?.contracts ?? (await contractsByAddress(this.pg, ask))) {
        found.set(a, {
          // Code read and empty: nothing is deployed there (Blockscout's is_contract is "has code").
          isContract: c.code_empty !== true,
          creation: { transactionHash: c.creation_tx, creator: c.creator, blockNumber: String(c.creation_block) },
          // Or a contract of the lane's rows the unapplied blocks destroyed.
          selfDestructed: c.self_destructed_block !== null || (unapplied?.selfDestructed.has(a) ?? false),
        });
      }
      const rest = ask.filter((a) => !found.has(a));
      const current = lane?.current ?? (() => false);
      const fromLane = rest.filter(current);
      let fromChain = rest.filter((a) => !current(a));
      if (pointRows) for (const [a, f] of this.uncreatedFacts(fromLane, pointRows)) found.set(a, f);
      if (pointRows && unapplied) {
        for (const [a, f] of this.uncreatedFacts(fromChain, pointRows, unapplied)) found.set(a, f);
        fromChain = [];
      }
      if (fromChain.length) for (const [a, f] of await addressFacts(this.ch, fromChain, opts)) found.set(a, f);
      // Nothing stored proves it either way (an account that only received, a miner, a contract
      // from before the first indexed block that never logged, an unknown address): the node's
      // code at its head says, as Blockscout's is_contract does ("has code").
      const fromNode = await this.nodeHasCode([...found].filter(([, f]) => f.isContract === null).map(([a]) => a));
      for (const [a, f] of found) {
        const code = fromNode.get(a);
        if (code !== undefined) f.isContract = code;
        out.set(a, f);
        // Contract-ness, once proven, does not change but by a reorg (which clears this cache).
        if (gen === this.chainGen) this.facts.set(a, { f, gen, at: Date.now(), node: code === false });
      }
    }
    return this.withPublicNames(await this.withVerified(await this.withProxies(out)));
  }

  /**
   * Which addresses the accounting lane's rows answer for at this standing (read with them): all
   * when it stands at the checkpoint; a few blocks behind, those the unapplied blocks do not name
   * (src/api/accounting-lag.ts); the others are proven from ClickHouse's rows, or, when the
   * indexer's events told what those blocks say of them (`unapplied`), answered from the rows and
   * that.
   */
  accountingCoverage(standing: AccountingStanding): Promise<LaneCoverage> {
    return this.lag.coverage(standing);
  }

  /**
   * Facts of addresses the contracts table does not hold, from the accounting lane's counters
   * (for addresses they are current for: a log emitted proves a contract, a transaction sent an
   * account; a creation in the indexed range would be in `contracts`), and, for those the
   * unapplied blocks name, from what those blocks add to them (`unapplied`): what the lane's rows
   * will say once it applies them.
   */
  private uncreatedFacts(addresses: string[], p: AddressFactRows, unapplied?: UnappliedFacts): Map<string, AddressFacts> {
    const out = new Map<string, AddressFacts>();
    for (const a of addresses) {
      if (!/^0x[0-9a-f]{40}$/.test(a)) continue;
      const c = unapplied?.created.get(a);
      if (c) {
        out.set(a, { isContract: true, creation: { transactionHash: c.tx, creator: c.creator, blockNumber: String(c.block) }, selfDestructed: unapplied!.selfDestructed.has(a) });
        continue;
      }
      const r = p.rows.get(a);
      const k = unapplied?.kinds.get(a) ?? 0;
      const logged = (r && r.log_count !== '0') || (k & NAMED.LOGGED) !== 0;
      const sent = (r && r.sent_count !== '0') || (k & NAMED.SENT) !== 0;
      out.set(a, { isContract: logged ? true : sent ? false : null, creation: null });
    }
    return out;
  }

  /**
   * Which of these addresses are token contracts seen in transfers: the tokens table (the
   * accounting lane records each one the first time a transfer names it) for the addresses its
   * rows are current for, ClickHouse's transfers for the others.
   */
  private async tokenContracts(addresses: string[]): Promise<Set<string>> {
    const standing = (await this.pointsComplete()) ? await accountingStanding(this.pg) : null;
    const { current, unapplied } = standing ? await this.accountingCoverage(standing) : { current: () => false, unapplied: null };
    // The unapplied blocks' first transfers of a token (the events) and the tokens rows of the
    // lane together say what the rows will once it applies them.
    const fromLane = unapplied ? addresses : addresses.filter(current);
    const fromChain = unapplied ? [] : addresses.filter((a) => !current(a));
    const [lane, chain] = await Promise.all([
      fromLane.length ? this.tokenRecords(fromLane) : new Map<string, TokenRow>(),
      fromChain.length ? tokenTypes(this.ch, fromChain) : new Map<string, string>(),
    ]);
    const out = new Set([...lane.keys(), ...chain.keys()]);
    for (const a of addresses) if (unapplied?.tokens.has(a)) out.add(a);
    return out;
  }

  // ---- public names (#19) ----

  /**
   * The names the operator approved, by address. Every one is an operator's decision, so the map
   * is as large as the review work done (bounded by PUBLIC_NAMES_MAX all the same); removals
   * arrive as rows of their own (active false) by version, like every change.
   */
  private readonly publicNameMap = new Map<string, { name: string; tags: string[]; icon: string | null }>();
  /** The origin of icon URLs: PUBLIC_URL's, or the API's own address (setIconOrigin). */
  private iconOrigin = '';
  private iconOriginFromSettings = false;

  /** Where this API is reached when PUBLIC_URL does not say (startApi, once it listens). */
  setIconOrigin(origin: string): void {
    if (!this.iconOriginFromSettings) this.iconOrigin = origin;
  }
  private publicNamesVersion = '0';
  private publicNamesAt = 0;
  private publicNamesRefresh: Promise<boolean> | null = null;

  /** A decision was taken in this process: the next request reads the names again. */
  onPublicNamesChanged(): void {
    this.publicNamesAt = 0;
  }

  /**
   * Picks up decisions (by version) at most every PUBLIC_NAMES_TTL_MS; true when a shown name
   * changed since the last look (the app then drops its cached responses, which may show it).
   */
  /** Whether refreshPublicNames() would read now (a request checks this without awaiting anything). */
  publicNamesDue(now = Date.now()): boolean {
    return now - this.publicNamesAt > PUBLIC_NAMES_TTL_MS;
  }

  async refreshPublicNames(): Promise<boolean> {
    if (!this.publicNamesDue()) return false;
    this.publicNamesRefresh ??= (async () => {
      const at = Date.now();
      let changed = false;
      for (;;) {
        const rows = await publicNamesSince(this.pg, this.publicNamesVersion, 10_000);
        for (const r of rows) {
          changed = true;
          if (!r.active) this.publicNameMap.delete(r.address);
          else if (this.publicNameMap.has(r.address) || this.publicNameMap.size < PUBLIC_NAMES_MAX) {
            this.publicNameMap.set(r.address, { name: r.name, tags: r.tags, icon: r.icon });
          }
          this.publicNamesVersion = r.version;
        }
        if (rows.length < 10_000) break;
      }
      this.publicNamesAt = at;
      return changed;
    })().finally(() => (this.publicNamesRefresh = null));
    return this.publicNamesRefresh;
  }

  /** The approved public name of an address (after refreshPublicNames). */
  publicName(address: string): PublicNameFact | undefined {
    const p = this.publicNameMap.get(address);
    return p && { name: p.name, tags: p.tags, iconUrl: publicIconUrl(this.iconOrigin, p.icon) };
  }

  /**
   * Addresses whose approved name or one of its tags contains `q` (`substring`) or equals it,
   * case-insensitive; at most `limit`, in address order.
   */
  async searchPublicNames(q: string, substring: boolean, limit: number): Promise<string[]> {
    await this.refreshPublicNames();
    const needle = q.toLowerCase();
    const hit = (s: string) => (substring ? s.toLowerCase().includes(needle) : s.toLowerCase() === needle);
    const out: string[] = [];
    for (const [a, p] of this.publicNameMap) if (hit(p.name) || p.tags.some(hit)) out.push(a);
    return out.sort().slice(0, limit);
  }

  // ---- the newest blocks' transactions ----

  private readonly recent: RecentTransactions;

  /**
   * A page of an address's transactions (newest first) from the newest blocks held in memory
   * (src/api/recent-transactions.ts), or null when they do not hold a whole page of it.
   */
  async recentAddressPage(
    address: string,
    o: { direction: PointDirection; order: 'asc' | 'desc'; after?: { block: bigint; index: bigint }; limit: number },
  ): Promise<PointTransaction[] | null> {
    if (o.order !== 'desc') return null;
    await this.recent.sync(this.chainGen, this.eventsAttached ? null : FACT_TTL_MS);
    return this.recent.page(address, o);
  }

  // ---- token search ----

  private readonly tokenSearchMemoryMax: number;
  private readonly tokenSearchStaleMs: number | undefined;
  /** The in-memory token search, once PostgreSQL is known to compare text as bytes (null: it does not; it is asked). */
  private tokenSearchValue: Promise<TokenSearchIndex | null> | undefined;

  /**
   * Tokens matching `q` (searchTokens' contract): from memory where that gives PostgreSQL's own
   * answer (src/api/token-search.ts), else from PostgreSQL.
   */
  async searchTokens(q: string, o: { after?: TokenCursor; limit: number }): Promise<TokenSearchRow[]> {
    const max = this.tokenSearchMemoryMax;
    this.tokenSearchValue ??= (max > 0 ? textIsBytes(this.pg) : Promise.resolve(false)).then(
      (bytes) => (bytes ? new TokenSearchIndex(this.pg, max, { staleMs: this.tokenSearchStaleMs }) : null),
      (e: unknown) => {
        this.tokenSearchValue = undefined;
        throw e;
      },
    );
    const index = await this.tokenSearchValue;
    if (!index) return searchTokens(this.pg, q, o);
    try {
      return await index.search(q, o);
    } catch (e) {
      if (!(e instanceof TooManyTokens)) throw e;
      this.log.warn(`more tokens than TOKEN_SEARCH_MEMORY_MAX (${max}): token search asks PostgreSQL from now on`);
      this.tokenSearchValue = Promise.resolve(null);
      return searchTokens(this.pg, q, o);
    }
  }

  private async withPublicNames(out: Map<string, ApiFacts>): Promise<Map<string, ApiFacts>> {
    await this.refreshPublicNames();
    if (!this.publicNameMap.size) return out;
    for (const [a, f] of out) {
      const p = this.publicName(a);
      if (p) out.set(a, { ...f, publicName: p });
    }
    return out;
  }

  /** Picks up new verifications (by id) at most every VERIFIED_TTL_MS. */
  private async refreshVerified(): Promise<void> {
    if (Date.now() - this.verifiedAt <= VERIFIED_TTL_MS) return;
    this.verifiedRefresh ??= (async () => {
      const at = Date.now();
      for (const r of await verifiedSince(this.pg, this.verifiedMaxId)) {
        this.verifiedIds.set(r.address_hash, { id: r.id, name: r.name });
        if (BigInt(r.id) > BigInt(this.verifiedMaxId)) this.verifiedMaxId = r.id;
      }
      this.verifiedAt = at;
    })().finally(() => (this.verifiedRefresh = null));
    await this.verifiedRefresh;
  }

  /**
   * The verified ABIs of those of `addresses` that are verified, without the other address facts
   * (no node, no chain reads): for the CSV export, whose chunks hold thousands of addresses.
   */
  async verifiedAbisOf(addresses: Iterable<string>): Promise<Map<string, IndexedAbi>> {
    await this.refreshVerified();
    const out = new Map<string, IndexedAbi>();
    for (const a of addresses) {
      const v = a && !out.has(a) ? this.verifiedIds.get(a) : undefined;
      const abi = v ? await this.indexedAbi(a, v.id) : null;
      if (abi) out.set(a, abi);
    }
    return out;
  }

  /** A verified ABI indexed for decoding, by address and row version (cached). */
  private async indexedAbi(address: string, id: string): Promise<IndexedAbi | null> {
    const key = `${address}:${id}`;
    let abi = this.verifiedAbis.get(key) ?? null;
    if (!abi) {
      const raw = await verifiedAbi(this.pg, address, id);
      if (raw) {
        abi = indexAbi(raw as Abi);
        this.verifiedAbis.set(key, abi);
      }
    }
    return abi;
  }

  // ---- proxies ----

  /**
   * The facts with the proxy kind and implementations of their contracts (src/api/proxies.ts), from
   * the cache or one batch to the node. Without a node, or when it does not answer in time, a
   * contract's proxy kind stays unknown (proxy_type null), never guessed.
   */
  private async withProxies(out: Map<string, ApiFacts>): Promise<Map<string, ApiFacts>> {
    const ask: string[] = [];
    for (const [a, f] of out) {
      if (f.isContract !== true) continue;
      const known = this.proxyFacts.get(a);
      if (known && (this.eventsAttached ? known.gen === this.chainGen : Date.now() - known.at < FACT_TTL_MS)) {
        if (known.fact) out.set(a, { ...f, proxy: proxyOf(known.fact) });
      } else ask.push(a);
    }
    if (!ask.length || !this.rpc) return out;
    const gen = this.chainGen;
    const at = Date.now();
    const rpc = this.rpc;
    const codes = new Map<string, CodeKind>();
    for (const a of ask) {
      const k = this.codeKinds.get(a);
      if (k !== undefined) codes.set(a, k);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), NODE_CODE_TIMEOUT_MS);
      timer.unref();
    });
    try {
      const found = await Promise.race([detectProxies(rpc, ask.slice(0, NODE_CODE_MAX), codes), timeout]);
      if (!found) return out;
      for (const [a, k] of found.kinds) if (typeof k === 'string' || k.type !== 'eip7702') this.codeKinds.set(a, k);
      for (const [a, fact] of found.facts) {
        if (gen === this.chainGen) this.proxyFacts.set(a, { fact, gen, at });
        const f = out.get(a);
        if (fact && f) out.set(a, { ...f, proxy: proxyOf(fact) });
      }
    } catch (e) {
      this.log.warn('proxy detection failed', { error: e instanceof Error ? e.message : String(e) });
    } finally {
      clearTimeout(timer);
    }
    return out;
  }

  // ---- verified contracts ----

  /** Verified addresses -> their row version (id) and contract name; refreshed by withVerified(). */
  private readonly verifiedIds = new Map<string, { id: string; name: string }>();
  private verifiedMaxId = '0';
  private verifiedAt = 0;
  private verifiedRefresh: Promise<void> | null = null;
  /** Verified ABIs indexed for decoding, by address and row version. */
  private readonly verifiedAbis = new LRUCache<string, IndexedAbi>({ max: 1000 });

  /** A verification finished in this process: the next response sees it. */
  onVerified(): void {
    this.verifiedAt = 0;
  }

  /**
   * The facts with what is verified among their addresses: the contract's name and its ABI
   * indexed for decoding (names and decodes methods and logs for everyone). Verifications are
   * picked up by id (a new one, or a replacement, has a higher id) at most every
   * VERIFIED_TTL_MS, or at once after one in this process.
   */
  private async withVerified(out: Map<string, ApiFacts>): Promise<Map<string, ApiFacts>> {
    await this.refreshVerified();
    if (!this.verifiedIds.size) return out;
    for (const [a, f] of out) {
      const v = this.verifiedIds.get(a);
      const own = v ? await this.indexedAbi(a, v.id) : null;
      const impls = f.proxy?.implementations.map((i) => ({ ...i, v: this.verifiedIds.get(i.address) })) ?? [];
      if (!v && !impls.some((i) => i.v)) continue;
      // A proxy's calls are the implementation's: its ABI decodes what the proxy's own does not.
      const implAbis: IndexedAbi[] = [];
      for (const i of impls) {
        const abi = i.v ? await this.indexedAbi(i.address, i.v.id) : null;
        if (abi) implAbis.push(abi);
      }
      const proxy = f.proxy ? { ...f.proxy, implementations: impls.map((i) => ({ address: i.address, name: i.v?.name ?? null, verified: !!i.v })) } : undefined;
      out.set(a, {
        ...f,
        ...(proxy ? { proxy } : {}),
        ...(v ? { verified: { name: v.name, abi: own } } : {}),
        abi: mergeAbis(own, implAbis),
      });
    }
    return out;
  }

  /**
   * Whether a cached fact may be used: proven ones until a reorg; the node's "no code" until a
   * block creates a contract there (or NODE_FACT_TTL_MS without indexer events); unknown ones
   * until the next block (new evidence arrives only with blocks), or FACT_TTL_MS without events.
   */
  private usableFact(k: { f: AddressFacts; gen: number; at: number; node?: boolean }): boolean {
    if (k.node) return this.eventsAttached || Date.now() - k.at < NODE_FACT_TTL_MS;
    if (k.f.isContract !== null) return true;
    return this.eventsAttached ? k.gen === this.chainGen : Date.now() - k.at < FACT_TTL_MS;
  }

  /**
   * eth_getCode of each address at the node's head, in one batch: true when it has code (an
   * EIP-7702 delegation included), false when none. An address the node did not answer for (no
   * node configured, an error, a timeout) is left out: unknown stays null, never a guess.
   */
  private async nodeHasCode(addresses: readonly string[]): Promise<Map<string, boolean>> {
    const out = new Map<string, boolean>();
    const ask = addresses.filter((a) => /^0x[0-9a-f]{40}$/.test(a)).slice(0, NODE_CODE_MAX);
    if (!this.rpc || !ask.length) return out;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), NODE_CODE_TIMEOUT_MS);
      timer.unref();
    });
    try {
      const outcomes = await Promise.race([this.rpc.batch<string>(ask.map((a) => ({ method: 'eth_getCode', params: [a, 'latest'] }))), timeout]);
      if (!outcomes) return out;
      ask.forEach((a, i) => {
        const o = outcomes[i];
        if (o?.ok && typeof o.result === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(o.result)) out.set(a, o.result.length > 2);
      });
    } catch (e) {
      this.log.warn('eth_getCode for address facts failed', { error: e instanceof Error ? e.message : String(e) });
    } finally {
      clearTimeout(timer);
    }
    return out;
  }

  /** Base fees of these blocks (stored ones only), from the cache or one read. */
  async baseFees(numbers: readonly bigint[]): Promise<Map<string, string | null>> {
    const out = new Map<string, string | null>();
    const ask: bigint[] = [];
    for (const n of numbers) {
      const k = n.toString();
      if (out.has(k)) continue;
      const known = this.blockBaseFees.get(k);
      if (known && this.fresh(known.at)) out.set(k, known.fee);
      else ask.push(n);
    }
    if (ask.length) {
      const gen = this.chainGen;
      for (const [k, fee] of await baseFees(this.ch, ask)) {
        out.set(k, fee);
        if (gen === this.chainGen) this.blockBaseFees.set(k, { fee, at: Date.now() });
      }
    }
    return out;
  }

  /**
   * Derived token records of these addresses (lower-case); addresses that are none are left out.
   * Each carries the URL of its approved icon (`public_icon_url`), if any.
   */
  async tokens(addresses: Iterable<string>): Promise<Map<string, TokenRow & WithPublicIcon>> {
    const out = await this.tokenRecords(addresses);
    return new Map((await this.withPublicIcons([...out.values()])).map((r) => [r.address, r]));
  }

  /**
   * Rows of tokens with what this instance adds to their records: the URL of their approved icon
   * (`public_icon_url`), where one is approved, and their price (`market`), where the price
   * source knows them.
   */
  async withPublicIcons<T extends { address: string }>(rows: readonly T[]): Promise<(T & WithPublicIcon)[]> {
    await this.refreshPublicNames();
    if (!this.publicNameMap.size && !this.prices.hasTokens) return rows as (T & WithPublicIcon)[];
    return rows.map((r) => {
      const url = this.publicNameMap.size ? publicIconUrl(this.iconOrigin, this.publicNameMap.get(r.address)?.icon) : null;
      const market = this.prices.token(r.address);
      return url || market ? { ...r, ...(url ? { public_icon_url: url } : {}), ...(market ? { market } : {}) } : r;
    });
  }

  private async tokenRecords(addresses: Iterable<string>): Promise<Map<string, TokenRow>> {
    const out = new Map<string, TokenRow>();
    const ask = new Set<string>();
    const now = Date.now();
    for (const a of addresses) {
      if (!a || out.has(a) || ask.has(a)) continue;
      const known = this.tokenRows.get(a);
      if (known && known.gen === this.chainGen && now - known.at < TOKEN_TTL_MS) {
        if (known.row) out.set(a, known.row);
      } else ask.add(a);
    }
    if (ask.size) {
      const gen = this.chainGen;
      const rows = await tokensByAddress(this.pg, [...ask]);
      for (const a of ask) {
        const row = rows.get(a) ?? null;
        if (row) out.set(a, row);
        if (gen === this.chainGen) this.tokenRows.set(a, { row, gen, at: Date.now() });
      }
    }
    return out;
  }

  /**
   * Gives token-transfer rows their token's derived record (`token_meta`, from PostgreSQL), so a
   * page of transfers shows the token's name, symbol, decimals, holders and supply.
   */
  async withTokenRecords(rows: TokenTransferRead[]): Promise<void> {
    const tokens = await this.tokens(rows.map((r) => r.token_address));
    for (const r of rows) r.token_meta = tokens.get(r.token_address) ?? null;
  }

  /** The coin's prices as transactions show them (Blockscout's exchange_rate and historic_exchange_rate). */
  txPrices(): TxLookups['prices'] {
    const now = clock.now();
    return { current: this.prices.coinPrice(), historic: (ms) => this.prices.historicRate(ms, now) };
  }

  /** Everything transactionJson needs for these rows. */
  async txLookups(rows: readonly TransactionRead[], extraAddresses: Iterable<string> = [], known?: KnownTxFacts): Promise<TxLookups> {
    const addrs = new Set<string>(extraAddresses);
    for (const r of rows) {
      addrs.add(r.from);
      if (r.to) addrs.add(r.to);
      if (r.created_contract) addrs.add(r.created_contract);
    }
    // What a point row already says (its block's base fee, its frames' facts) is not read again.
    const unknown = known ? rows.filter((r) => !known.has(txKey(r.block_number, r.transaction_index))) : rows;
    const keys = unknown.filter((r) => r.internal_count > 0).map((r) => ({ block: BigInt(r.block_number), index: BigInt(r.transaction_index) }));
    const reverted = unknown.filter((r) => r.status === 0);
    const creations = rows.filter((r) => r.created_contract && r.status === 1).map((r) => r.created_contract);
    const withAuth = rows.filter((r) => r.authorization_list && r.authorization_list !== '[]');
    // All at once: embedded chDB runs them on separate sessions in parallel.
    const selectors: string[] = [];
    for (const r of rows) if (r.to && r.input.length >= 10) selectors.push(r.input.slice(0, 10));
    // A blob transaction's point row written before the point rows held its blob fields leaves them out: ClickHouse has them.
    const blobsLeftOut = rows.filter((r) => r.type === 3 && r.max_fee_per_blob_gas === undefined);
    const [facts, fees, traces, head, tokenSet, frames, authorizations] = await Promise.all([
      this.addressFacts(addrs, { senders: rows.map((r) => r.from) }),
      this.baseFees(unknown.map((r) => BigInt(r.block_number))),
      this.tracesOn(),
      this.head(),
      creations.length ? this.tokenContracts(creations) : Promise.resolve(new Set<string>()),
      this.frameFacts(reverted, keys),
      this.authorizations(withAuth),
      this.signatures.prefetch(selectors),
      blobsLeftOut.length ? withBlobFields(this.ch, blobsLeftOut) : undefined,
    ]);
    for (const [k, f] of known ?? []) {
      fees.set(k.slice(0, k.indexOf(':')), f.baseFee);
      if (f.revertOutput) frames.revertOutputs.set(k, f.revertOutput);
      if (f.failedInner && f.internalCount > 0) frames.internalErrors.add(k);
    }
    const internalErrors = traces === false ? null : frames.internalErrors;
    return { facts, baseFees: fees, internalErrors, revertOutputs: frames.revertOutputs, tokens: tokenSet, authorizations, head, names: this.signatures, prices: this.txPrices() };
  }

  /**
   * From the stored traces, in one read: the output of the top-level frame of each reverted
   * transaction (its revert data), and which of `nested` have a failed frame below the top level.
   */
  private async frameFacts(
    reverted: readonly TransactionRead[],
    nested: readonly { block: bigint; index: bigint }[],
  ): Promise<{ revertOutputs: Map<string, string>; internalErrors: Set<string> }> {
    const revertOutputs = new Map<string, string>();
    const internalErrors = new Set<string>();
    if (!reverted.length && !nested.length) return { revertOutputs, internalErrors };
    const found = await topFramesAndFailures(
      this.ch,
      reverted.map((r) => ({ block: BigInt(r.block_number), index: r.transaction_index })),
      nested.map((k) => ({ block: k.block, index: Number(k.index) })),
    );
    for (const f of found) {
      const k = txKey(f.block_number, f.transaction_index);
      if (Number(f.top)) {
        if (f.output && f.output !== '0x') revertOutputs.set(k, f.output);
      } else internalErrors.add(k);
    }
    return { revertOutputs, internalErrors };
  }

  /** EIP-7702 authorizations with their signer recovered (an unrecoverable one is left out). */
  private async authorizations(rows: readonly TransactionRead[]): Promise<Map<string, SignedAuthorizationJson[]>> {
    const out = new Map<string, SignedAuthorizationJson[]>();
    for (const r of rows) {
      let list: { chainId: string; address: string; nonce: string; yParity?: string; v?: string; r: string; s: string }[];
      try {
        list = JSON.parse(r.authorization_list);
      } catch {
        continue;
      }
      if (!Array.isArray(list)) continue;
      const items: SignedAuthorizationJson[] = [];
      for (const a of list) {
        try {
          const yParity = Number(BigInt(a.yParity ?? a.v ?? '0'));
          const authority = await recoverAuthorizationAddress({
            authorization: { chainId: Number(BigInt(a.chainId)), address: a.address as Hex, nonce: Number(BigInt(a.nonce)), r: a.r as Hex, s: a.s as Hex, yParity },
          });
          items.push({
            address_hash: checksum(a.address.toLowerCase()),
            authority: checksum(authority.toLowerCase()),
            chain_id: Number(BigInt(a.chainId)),
            nonce: BigInt(a.nonce).toString(),
            r: BigInt(a.r).toString(),
            s: BigInt(a.s).toString(),
            v: yParity,
            // Validity against the chain state at the time is not checked yet.
            status: null,
          });
        } catch {
          // unrecoverable signature: not shown
        }
      }
      out.set(txKey(r.block_number, r.transaction_index), items);
    }
    return out;
  }
}
