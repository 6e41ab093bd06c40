// The queue in front of the one compile process: who may wait for it, and in what order. Each client
// (an API key, else an IP) has at most one verification waiting or running, each network of
// clients (an IPv4 /24, an IPv6 /64: many addresses of one holder) at most `perNetwork`, and at
// most `maxWaiting` wait in all. Networks are served in turn: the next job comes from the
// network served longest ago (a network new to the queue first), so a flood from one network
// delays another network's job by at most one of its compiles. A job refused a place gets an
// estimate of when one frees, from the jobs ahead and the compile timeout (an upper bound: every
// job ahead is taken to run its whole timeout). Pure, with an injected clock.

export interface QueueLimits {
  /** Jobs waiting at most (beyond the running one). */
  maxWaiting: number;
  /** Jobs of one network, waiting or running, at most. */
  perNetwork: number;
  /** Longest compile (ms): what each job ahead is taken to last. */
  timeoutMs: number;
}

/** A refused place: why, and in how many seconds a retry may get one. */
export class QueueRefused extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A job's place: `turn` resolves when it may run; `leave` gives the place back (run or not). */
export interface Ticket {
  readonly client: string;
  readonly network: string;
  readonly turn: Promise<void>;
}

interface Place extends Ticket {
  startedAt?: number;
  begin(): void;
}

interface Network {
  waiting: Place[];
  /** Its jobs waiting or running. */
  jobs: number;
  /** When it was last served (a sequence number; 0: not since it came). */
  served: number;
}

export class VerificationQueue {
  private readonly networks = new Map<string, Network>();
  private readonly clients = new Map<string, Place>();
  private running: Place | null = null;
  private waiting = 0;
  private seq = 0;

  constructor(
    readonly limits: QueueLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a place for `client` of `network`, or throws QueueRefused. */
  enter(client: string, network: string): Ticket {
    const mine = this.clients.get(client);
    if (mine) throw new QueueRefused('a verification of yours is still waiting or running: wait for its result', this.secondsUntilDone([mine]));
    const net = this.networks.get(network);
    if (net && net.jobs >= this.limits.perNetwork) {
      const theirs = [...this.clients.values()].filter((p) => p.network === network);
      throw new QueueRefused(
        `verifications from your network (${network}) hold ${net.jobs} places of the queue, its share: retry when one has finished`,
        this.secondsUntilDone(theirs),
      );
    }
    if (this.running && this.waiting >= this.limits.maxWaiting) {
      throw new QueueRefused(`the verification queue is full (${this.waiting} waiting): retry when a place frees`, this.secondsUntilDone([this.running]));
    }
    let begin = () => {};
    const turn = new Promise<void>((resolve) => (begin = resolve));
    const place: Place = { client, network, turn, begin };
    this.clients.set(client, place);
    const n = net ?? { waiting: [], jobs: 0, served: 0 };
    if (!net) this.networks.set(network, n);
    n.jobs++;
    n.waiting.push(place);
    this.waiting++;
    this.next();
    return place;
  }

  /** The job is over (or will not run): its place goes to the next one. */
  leave(ticket: Ticket): void {
    const place = ticket as Place;
    if (this.clients.get(place.client) !== place) return;
    this.clients.delete(place.client);
    const net = this.networks.get(place.network)!;
    const at = net.waiting.indexOf(place);
    if (at >= 0) {
      net.waiting.splice(at, 1);
      this.waiting--;
    }
    if (--net.jobs === 0) this.networks.delete(place.network);
    if (this.running === place) this.running = null;
    this.next();
  }

  /** Jobs waiting, and whether one runs. */
  get size(): { waiting: number; running: boolean } {
    return { waiting: this.waiting, running: this.running !== null };
  }

  private next(): void {
    if (this.running) return;
    const net = this.pick(this.networks);
    if (!net) return;
    const place = net.waiting.shift()!;
    this.waiting--;
    net.served = ++this.seq;
    place.startedAt = this.now();
    this.running = place;
    place.begin();
  }

  /** The network to serve next: waiting jobs, served longest ago (the oldest in the queue on a tie). */
  private pick(networks: ReadonlyMap<string, Pick<Network, 'waiting' | 'served'>>): Pick<Network, 'waiting' | 'served'> | undefined {
    let best: Pick<Network, 'waiting' | 'served'> | undefined;
    for (const n of networks.values()) if (n.waiting.length && (!best || n.served < best.served)) best = n;
    return best;
  }

  /** Seconds until the first of `places` is done at the latest (at least 1). */
  private secondsUntilDone(places: Place[]): number {
    const t = this.limits.timeoutMs;
    const left = this.running ? Math.max(0, t - (this.now() - (this.running.startedAt ?? this.now()))) : 0;
    // The order the waiting jobs will run in, served as `next` would serve them.
    const copy = new Map([...this.networks].map(([k, n]) => [k, { waiting: [...n.waiting], served: n.served }]));
    let seq = this.seq;
    const order: Place[] = [];
    for (let net = this.pick(copy); net; net = this.pick(copy)) {
      order.push(net.waiting.shift()!);
      net.served = ++seq;
    }
    let soonest = Infinity;
    for (const p of places) soonest = Math.min(soonest, p === this.running ? left : left + (order.indexOf(p) + 1) * t);
    return Math.max(1, Math.ceil((Number.isFinite(soonest) ? soonest : t) / 1000));
  }
}
