// Methods the node refuses for good ("-32601 method does not exist" and its usual wordings): the
// first refusal of a watched method is remembered, and from then on its calls are answered here
// with that refusal, never sent again. Until the node has answered a watched method once, one call
// of it goes alone before the rest (the others wait for it), so a refusal costs one call, not a
// batch of hundreds. One per consumer of the node (the derived lanes, the API); the consumer says
// it once (onRefused: log, and the lanes' PostgreSQL fact) and shows what the method would have
// told as unknown. No database, no global state.
import { clientOver, type CallOptions, type CallOutcome, type RpcCall, type RpcClient } from './client.js';
import { RpcError, isMethodNotFound } from './errors.js';

/** The state reads a node may refuse while the rest works (the ones that exist but are switched off, or not proxied). */
export const STATE_METHODS = ['eth_getBalance', 'eth_getCode', 'eth_getStorageAt', 'eth_call'] as const;

export class RefusedMethods {
  private readonly refused = new Map<string, RpcError>();
  /** Watched methods the node has answered (a result, or an error that is not a refusal). */
  private readonly answered = new Set<string>();
  /** The lone first call of a method, while it runs. */
  private readonly probes = new Map<string, Promise<void>>();

  constructor(
    private readonly watched: readonly string[] = STATE_METHODS,
    /** Called once per method, at its first refusal (not for one taken over by `remember`). */
    private readonly onRefused: (e: RpcError) => void = () => undefined,
  ) {}

  /** Whether the node refuses `method`. */
  has(method: string): boolean {
    return this.refused.has(method);
  }

  /** The refusals known, by method. */
  all(): ReadonlyMap<string, RpcError> {
    return this.refused;
  }

  /** Takes over a refusal learned earlier (an earlier run), without calling onRefused. */
  remember(method: string, message: string, code = -32601): void {
    if (!this.refused.has(method)) this.refused.set(method, new RpcError({ method, url: '', kind: 'rpc', code, message }));
  }

  /** Records `e` when it refuses a watched method; true when it is that method's first refusal. */
  note(e: unknown): boolean {
    if (!(e instanceof RpcError) || !this.watched.includes(e.method) || this.refused.has(e.method) || !isMethodNotFound(e)) return false;
    this.refused.set(e.method, e);
    this.onRefused(e);
    return true;
  }

  /** `rpc` with every call of a refused method answered with its refusal, without a request. */
  wrap(rpc: RpcClient): RpcClient {
    /** Learns from one outcome of a watched method. */
    const learn = (method: string, o: CallOutcome<unknown>) => {
      if (!this.watched.includes(method) || this.answered.has(method)) return;
      if (o.ok || (!this.note(o.error) && o.error.kind === 'rpc')) this.answered.add(method);
    };
    const batch = async <T>(calls: readonly RpcCall[], opts?: CallOptions): Promise<CallOutcome<T>[]> => {
      const out = new Array<CallOutcome<T>>(calls.length);
      // A watched method not answered yet: its first call alone (or the wait for another's).
      const firsts = new Map<string, number>();
      calls.forEach((c, i) => {
        if (this.watched.includes(c.method) && !this.answered.has(c.method) && !this.refused.has(c.method) && !firsts.has(c.method)) firsts.set(c.method, i);
      });
      await Promise.all(
        [...firsts].map(async ([method, i]) => {
          const running = this.probes.get(method);
          if (running) return running.catch(() => undefined);
          const probe = rpc.batch<T>([calls[i]!], opts).then(([o]) => {
            out[i] = o!;
            learn(method, o!);
          });
          this.probes.set(method, probe);
          try {
            await probe;
          } finally {
            this.probes.delete(method);
          }
        }),
      );
      const ask: number[] = [];
      calls.forEach((c, i) => {
        if (out[i]) return;
        const no = this.refused.get(c.method);
        if (no) out[i] = { ok: false, error: no };
        else ask.push(i);
      });
      if (ask.length) {
        const got = await rpc.batch<T>(ask.map((i) => calls[i]!), opts);
        ask.forEach((i, k) => {
          out[i] = got[k]!;
          learn(calls[i]!.method, got[k]!);
        });
      }
      return out;
    };
    return clientOver({ url: rpc.url, traceUrl: rpc.traceUrl, variant: rpc.variant, options: rpc.options, stats: () => rpc.stats(), methods: () => rpc.methods() }, batch);
  }
}
