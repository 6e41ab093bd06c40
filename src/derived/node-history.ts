// Whether the node keeps the state of past blocks (an archive) or only of its newest ones (a full
// node): learned from the first refusal, said once in the log and recorded in PostgreSQL (fact
// 'state_history', read by the indexing status), and shared by the lanes that read past state.
import type { PgStore } from '../storage/postgres/store.js';
import { getFact, setFact } from '../storage/postgres/indexer.js';
import type { RpcError } from '../rpc/errors.js';
import type { Logger } from '../log.js';

/** Blocks behind the node's head within which a node without historical state still answers state reads. */
export const STATE_WINDOW_BLOCKS = 64;

export class NodeHistory {
  /** The node refused a state read for want of historical state. */
  missing = false;

  constructor(
    private readonly pg: PgStore,
    private readonly log: Logger,
  ) {}

  /** Takes what an earlier run learned. */
  async load(): Promise<void> {
    const f = await getFact<{ available: boolean }>(this.pg, 'state_history');
    if (f?.available === false) this.missing = true;
  }

  /** The node refused a state read at `block` for want of that block's state. */
  async refused(e: RpcError, block: number): Promise<void> {
    if (this.missing) return;
    this.missing = true;
    this.log.warn('the node keeps no historical state: coin balances are read at its head (no history before), token balances are checked when the lanes are near the head', {
      method: e.method,
      block,
      error: e.detail.slice(0, 200),
    });
    await setFact(this.pg, 'state_history', { available: false, method: e.method, block, error: e.detail.slice(0, 200), since: new Date().toISOString() });
  }
}
