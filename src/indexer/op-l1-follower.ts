// The indexer's L1 follower on an OP Stack chain (README.md, "OP Stack"; OP_L1_RPC_URL and
// OP_PORTAL_ADDRESS, off when unset): one loop that reads the OptimismPortal's logs on L1 in ranges,
// only up to the L1 node's `finalized` block (or OP_L1_CONFIRMATIONS below its head), so a range
// once read never changes and an L1 reorg cannot leave a wrong row. Each range's deposits
// (TransactionDeposited, keyed by the L2 deposit's source hash) and withdrawal proofs and
// finalizations (keyed by the withdrawal hash) go to ClickHouse with the L1 block's time and the
// L1 transaction's sender, then the follower's own checkpoint (the indexer fact `op_l1`) moves
// past the range: a crash between the two re-reads the range, whose rows replace themselves.
// Nothing here depends on the L2 tables, so an L2 reorg needs nothing from it.
import type { ClickHouseStore } from '../storage/clickhouse/store.js';
import type { PgStore } from '../storage/postgres/store.js';
import { getFact, setFact } from '../storage/postgres/indexer.js';
import { insertL1Deposits, insertL1WithdrawalEvents } from '../storage/clickhouse/op-l1.js';
import { createRpcClient, type RpcClient } from '../rpc/client.js';
import { redactUrl } from '../rpc/url.js';
import { backoffMs, Sleeper } from '../retry.js';
import type { Logger } from '../log.js';
import { OP_L1_FACT, PORTAL_TOPICS, PROOF_MATURITY_DELAY_SELECTOR, portalEvents, type OpL1Fact, type L1DepositRow, type L1Log, type L1WithdrawalEventRow } from '../chain/op-l1.js';

export interface OpL1Options {
  url: string;
  portal: string;
  startBlock?: number;
  /** Blocks below the L1 head read; undefined: up to the node's `finalized` block. */
  confirmations?: number;
  /** L1 blocks per eth_getLogs. */
  rangeBlocks?: number;
  pollMs?: number;
  timeoutMs?: number;
  maxRetries?: number;
}

const RANGE_BLOCKS = 2000;
const POLL_MS = 12_000;

interface L1Block {
  number: string;
  hash: string;
  timestamp: string;
}

export class OpL1Follower {
  readonly rpc: RpcClient;
  private readonly portal: string;
  private readonly sleeper = new Sleeper();
  private stopped = false;
  private loop: Promise<void> | undefined;
  private failures = 0;

  constructor(
    private readonly ch: ClickHouseStore,
    private readonly pg: PgStore,
    private readonly opts: OpL1Options,
    private readonly log: Logger,
  ) {
    this.portal = opts.portal.toLowerCase();
    this.rpc = createRpcClient({ url: opts.url, timeoutMs: opts.timeoutMs ?? 30_000, maxRetries: opts.maxRetries ?? 5 });
  }

  start(): void {
    this.log.info('OP Stack L1 follower started', { l1: redactUrl(this.opts.url), portal: this.portal, safe: this.opts.confirmations === undefined ? 'finalized' : `${this.opts.confirmations} confirmations` });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeper.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let caughtUp = true;
      try {
        caughtUp = await this.step();
        this.failures = 0;
      } catch (e) {
        if (this.stopped) break;
        this.failures++;
        this.log.warn('OP Stack L1 follower step failed; retrying', { error: (e as Error).message, attempt: this.failures });
        await this.sleeper.sleep(backoffMs(this.failures, { baseMs: 1000, maxMs: 60_000 }));
        continue;
      }
      if (caughtUp) await this.sleeper.sleep(this.opts.pollMs ?? POLL_MS);
    }
  }

  /** The highest L1 block that is safe to read, and the head (its number and time). */
  private async safeBlock(): Promise<{ safe: number; head: L1Block }> {
    const head = await this.rpc.request<L1Block>('eth_getBlockByNumber', ['latest', false]);
    if (this.opts.confirmations !== undefined) return { safe: Number(BigInt(head.number)) - this.opts.confirmations, head };
    const fin = await this.rpc.request<L1Block | null>('eth_getBlockByNumber', ['finalized', false]);
    return { safe: fin ? Number(BigInt(fin.number)) : -1, head };
  }

  /** Reads one range of the portal's logs, or none when caught up; true when caught up. */
  async step(): Promise<boolean> {
    const before = await getFact<OpL1Fact>(this.pg, OP_L1_FACT);
    // Another portal than the checkpoint's: its logs are read from the start.
    const start = this.opts.startBlock ?? 0;
    const checkpoint = before && before.portal === this.portal ? before.checkpoint : start - 1;
    const { safe, head } = await this.safeBlock();
    const from = checkpoint + 1;
    const to = Math.min(safe, from + (this.opts.rangeBlocks ?? RANGE_BLOCKS) - 1);
    let delay = before && before.portal === this.portal ? before.proof_maturity_delay : null;
    if (to >= from) {
      const hex = (n: number) => `0x${n.toString(16)}`;
      const logs = await this.rpc.request<L1Log[]>('eth_getLogs', [{ address: this.portal, fromBlock: hex(from), toBlock: hex(to), topics: [PORTAL_TOPICS] }]);
      const ev = portalEvents(logs, this.portal);
      delay = await this.proofMaturityDelay(to);
      await this.store(ev.deposits, ev.withdrawals, delay);
    }
    const done = Math.max(checkpoint, to);
    const fact: OpL1Fact = {
      portal: this.portal,
      checkpoint: done,
      l1_head: Number(BigInt(head.number)),
      l1_head_timestamp: Number(BigInt(head.timestamp)),
      proof_maturity_delay: delay,
    };
    await setFact(this.pg, OP_L1_FACT, fact);
    return done >= safe;
  }

  /** proofMaturityDelaySeconds() at `block` (null: the portal has no such function, or refuses it). */
  private async proofMaturityDelay(block: number): Promise<number | null> {
    try {
      const r = await this.rpc.request<string>('eth_call', [{ to: this.portal, data: PROOF_MATURITY_DELAY_SELECTOR }, `0x${block.toString(16)}`]);
      return r && r.length === 66 ? Number(BigInt(r)) : null;
    } catch {
      return null;
    }
  }

  private async store(deposits: ReturnType<typeof portalEvents>['deposits'], withdrawals: ReturnType<typeof portalEvents>['withdrawals'], delay: number | null): Promise<void> {
    if (!deposits.length && !withdrawals.length) return;
    // Each L1 block's time, asked by its hash so it is the block the log came from.
    const blockHashes = [...new Set([...deposits, ...withdrawals].map((e) => e.l1_block_hash))];
    const blocks = await this.rpc.batchOrThrow<L1Block | null>(blockHashes.map((h) => ({ method: 'eth_getBlockByHash', params: [h, false] })));
    const times = new Map<string, number>();
    blockHashes.forEach((h, i) => {
      const b = blocks[i];
      if (!b) throw new Error(`the L1 node has no block ${h} that its logs came from`);
      times.set(h, Number(BigInt(b.timestamp)));
    });
    // A deposit's origin: the sender of its L1 transaction.
    const txHashes = [...new Set(deposits.map((d) => d.l1_transaction_hash))];
    const txs = await this.rpc.batchOrThrow<{ from: string } | null>(txHashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })));
    const origins = new Map<string, string>();
    txHashes.forEach((h, i) => {
      const t = txs[i];
      if (!t) throw new Error(`the L1 node has no transaction ${h} that its logs came from`);
      origins.set(h, t.from.toLowerCase());
    });
    const depositRows: L1DepositRow[] = deposits.map((d) => ({ ...d, l1_timestamp: times.get(d.l1_block_hash)!, l1_transaction_origin: origins.get(d.l1_transaction_hash)! }));
    const withdrawalRows: L1WithdrawalEventRow[] = withdrawals.map((w) => ({
      ...w,
      l1_timestamp: times.get(w.l1_block_hash)!,
      proof_maturity_delay: w.kind === 'proven' ? delay : null,
    }));
    await insertL1Deposits(this.ch, depositRows);
    await insertL1WithdrawalEvents(this.ch, withdrawalRows);
    this.log.info('OP Stack L1 events stored', { deposits: depositRows.length, withdrawal_events: withdrawalRows.length });
  }
}
