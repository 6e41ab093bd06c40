// What the node refuses for good, shared by the lanes: the state of past blocks (a full node
// rather than an archive) and whole methods ("-32601 method does not exist" to eth_getBalance,
// eth_getCode, eth_getStorageAt or eth_call). Each is learned from the first refusal, said once in
// the log, recorded in PostgreSQL (facts 'state_history' and 'refused_methods', read by the
// indexing status and the API's caveats) and taken over by the next run; a refused method is
// never asked again (src/rpc/refused-methods.ts), and what it would have told stays unknown.
import type { PgStore } from '../storage/postgres/store.js';
import { getFact, setFact } from '../storage/postgres/indexer.js';
import { REFUSED_METHOD_EFFECTS, type RefusedMethodsFact } from '../storage/partial-history.js';
import { RpcError } from '../rpc/errors.js';
import { RefusedMethods, STATE_METHODS } from '../rpc/refused-methods.js';
import type { Logger } from '../log.js';

/** Blocks behind the node's head within which a node without historical state still answers state reads. */
export const STATE_WINDOW_BLOCKS = 64;

export class NodeHistory {
  /** The node refused a state read for want of historical state. */
  missing = false;
  /** Methods the node refuses; wrap the lanes' client with it (methods.wrap). */
  readonly methods: RefusedMethods;
  private readonly since = new Map<string, string>();
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly pg: PgStore,
    private readonly log: Logger,
    /** The node's (redacted) URL: a refusal learned from another node is not taken over. */
    private readonly url: string,
  ) {
    this.methods = new RefusedMethods(STATE_METHODS, (e) => this.methodRefused(e));
  }

  /** Takes what an earlier run learned (and says once what the node refuses). */
  async load(): Promise<void> {
    const [f, r] = await Promise.all([getFact<{ available: boolean }>(this.pg, 'state_history'), getFact<RefusedMethodsFact>(this.pg, 'refused_methods')]);
    if (f?.available === false) this.missing = true;
    if (!r) return;
    // Learned from another node: that one's refusals say nothing of this one.
    if (r.url !== this.url) return setFact(this.pg, 'refused_methods', { url: this.url, methods: {} } satisfies RefusedMethodsFact);
    for (const [method, x] of Object.entries(r.methods)) {
      if (this.methods.has(method)) continue;
      this.methods.remember(method, x.error, x.code);
      this.since.set(method, x.since);
      this.log.warn(`the node refuses ${method} (learned ${x.since}): ${effectOf(method)}; it is not asked`, { error: x.error });
    }
  }

  /** Whether the node refuses `method` (a lane that needs it has nothing it can do). */
  refuses(method: string): boolean {
    return this.methods.has(method);
  }

  /** Resolves once the refusals learned so far are recorded. */
  saved(): Promise<void> {
    return this.saving;
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

  private methodRefused(e: RpcError): void {
    this.since.set(e.method, new Date().toISOString());
    this.log.warn(`the node refuses ${e.method}: ${effectOf(e.method)}; it is not asked again`, { code: e.code, error: e.detail.slice(0, 200) });
    // The whole set each time, in order: the last write holds every refusal.
    const methods: RefusedMethodsFact['methods'] = {};
    for (const [m, x] of this.methods.all()) methods[m] = { code: x.code ?? -32601, error: x.detail.slice(0, 200), since: this.since.get(m) ?? '' };
    this.saving = this.saving
      .then(() => setFact(this.pg, 'refused_methods', { url: this.url, methods } satisfies RefusedMethodsFact))
      .catch((err) => this.log.warn('could not record the refused methods', { error: (err as Error).message }));
  }
}

const effectOf = (method: string): string => REFUSED_METHOD_EFFECTS[method] ?? 'what it tells is unknown';
