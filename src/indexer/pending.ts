// Follows the node's pending pool: `txpool_content` where the node has it, otherwise a
// pending-transaction filter. The stored pool is made equal to the node's on each poll, so
// transactions that were mined or dropped disappear, and each keeps the time it was first seen.
import type { RpcClient } from '../rpc/client.js';
import { RpcError } from '../rpc/errors.js';
import type { PgStore } from '../storage/postgres/store.js';
import { replacePendingPool, setFact, type PendingTx } from '../storage/postgres/indexer.js';
import type { Logger } from '../log.js';

interface WireTx {
  hash: string;
  from: string;
  to: string | null;
  nonce: string;
  value: string;
  gas: string;
  gasPrice?: string | null;
  maxFeePerGas?: string | null;
  maxPriorityFeePerGas?: string | null;
  type?: string;
  input: string;
}

const dec = (hex: string | null | undefined): string | null => (hex == null ? null : BigInt(hex).toString());

export function toPendingTx(t: WireTx): PendingTx {
  return {
    hash: t.hash.toLowerCase(),
    from: t.from.toLowerCase(),
    to: t.to ? t.to.toLowerCase() : null,
    nonce: Number(t.nonce),
    value: dec(t.value) ?? '0',
    gas: dec(t.gas) ?? '0',
    gasPrice: dec(t.gasPrice),
    maxFeePerGas: dec(t.maxFeePerGas),
    maxPriorityFeePerGas: dec(t.maxPriorityFeePerGas),
    type: t.type ? Number(t.type) : 0,
    input: t.input ?? '0x',
  };
}

type Mode = 'txpool' | 'filter' | 'off';

export class PendingFollower {
  private mode: Mode | undefined;
  private filterId: string | undefined;
  private known = new Map<string, PendingTx>();

  constructor(
    private readonly rpc: RpcClient,
    private readonly pg: PgStore,
    private readonly log: Logger,
  ) {}

  async poll(): Promise<void> {
    if (this.mode === 'off') return;
    if (this.mode === undefined || this.mode === 'txpool') {
      try {
        const pool = await this.rpc.request<{ pending?: Record<string, Record<string, WireTx>>; queued?: unknown }>('txpool_content');
        this.mode = 'txpool';
        const txs: PendingTx[] = [];
        for (const byNonce of Object.values(pool?.pending ?? {})) for (const t of Object.values(byNonce)) txs.push(toPendingTx(t));
        await replacePendingPool(this.pg, txs);
        return;
      } catch (e) {
        if (this.mode === 'txpool' || !(e instanceof RpcError) || e.kind !== 'rpc') throw e;
        this.mode = 'filter';
      }
    }
    try {
      await this.pollFilter();
    } catch (e) {
      if (e instanceof RpcError && e.kind === 'rpc' && this.filterId === undefined) {
        this.mode = 'off';
        this.log.warn('the node offers neither txpool_content nor pending filters: pending transactions are off');
        await setFact(this.pg, 'pending', { mode: 'off' });
        return;
      }
      this.filterId = undefined; // filters expire: make a new one next time
      throw e;
    }
  }

  private async pollFilter(): Promise<void> {
    if (!this.filterId) {
      this.filterId = await this.rpc.request<string>('eth_newPendingTransactionFilter');
      await setFact(this.pg, 'pending', { mode: 'filter' });
    }
    const hashes = await this.rpc.request<string[]>('eth_getFilterChanges', [this.filterId]);
    const calls = [...new Set([...hashes.map((h) => h.toLowerCase()), ...this.known.keys()])].map((h) => ({
      method: 'eth_getTransactionByHash',
      params: [h],
    }));
    const outcomes = calls.length ? await this.rpc.batch<(WireTx & { blockNumber: string | null }) | null>(calls) : [];
    const next = new Map<string, PendingTx>();
    for (const o of outcomes) {
      // Still pending: known to the node and not in a block yet.
      if (o.ok && o.result && o.result.blockNumber == null) next.set(o.result.hash.toLowerCase(), toPendingTx(o.result));
    }
    this.known = next;
    await replacePendingPool(this.pg, [...next.values()]);
  }

  async stop(): Promise<void> {
    if (this.filterId) await this.rpc.request('eth_uninstallFilter', [this.filterId]).catch(() => undefined);
  }
}
