// Point reads of concurrent requests answered together: one query for the keys that arrived
// while earlier ones were being read. A ClickHouse point read costs mostly per query, not per key
// (bench-api's 5,000,000-transaction store: a transaction by hash 13 ms of CPU alone, 35 ms for 8
// in one query, 4.3 ms each), so under load fewer, larger reads serve more requests on the same
// cores. A key alone is never delayed: while fewer than `maxInFlight` reads run, a key is read at
// once; only keys that arrive while they run wait, and go together in the next one.

export interface CoalescerOptions {
  /** Reads running at once (about the cores the engine has). */
  maxInFlight: number;
  /** At most this many keys in one read. */
  maxKeys: number;
}

interface Waiter<V> {
  resolve(v: V | undefined): void;
  reject(e: unknown): void;
}

export class Coalescer<V> {
  private readonly queue = new Map<string, Waiter<V>[]>();
  private inFlight = 0;

  constructor(
    /** Reads the keys; a key missing from the map has no value. */
    private readonly read: (keys: string[]) => Promise<Map<string, V>>,
    private readonly o: CoalescerOptions = { maxInFlight: 2, maxKeys: 32 },
  ) {
    if (!(o.maxInFlight >= 1 && o.maxKeys >= 1)) throw new RangeError('maxInFlight and maxKeys must be at least 1');
  }

  /** The key's value, or undefined when there is none; rejects when its read fails. */
  get(key: string): Promise<V | undefined> {
    const p = this.enqueue(key);
    this.pump();
    return p;
  }

  /** Each key's value, in order; the keys of one call go in the same read (up to maxKeys). */
  getMany(keys: readonly string[]): Promise<(V | undefined)[]> {
    const ps = keys.map((k) => this.enqueue(k));
    this.pump();
    return Promise.all(ps);
  }

  private enqueue(key: string): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiting = this.queue.get(key);
      if (waiting) waiting.push({ resolve, reject });
      else this.queue.set(key, [{ resolve, reject }]);
    });
  }

  private pump(): void {
    while (this.inFlight < this.o.maxInFlight && this.queue.size) {
      const batch = new Map<string, Waiter<V>[]>();
      for (const [k, w] of this.queue) {
        if (batch.size >= this.o.maxKeys) break;
        batch.set(k, w);
      }
      for (const k of batch.keys()) this.queue.delete(k);
      this.inFlight++;
      let read: Promise<Map<string, V>>;
      try {
        read = this.read([...batch.keys()]);
      } catch (e) {
        read = Promise.reject(e);
      }
      read
        .then(
          (found) => {
            for (const [k, ws] of batch) for (const w of ws) w.resolve(found.get(k));
          },
          (e: unknown) => {
            for (const ws of batch.values()) for (const w of ws) w.reject(e);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }
}

/**
 * A Coalescer per store, made on first use: reads of one store batch together, and each store
 * (a test's, a replica's) has its own.
 */
export function coalescerPerStore<S extends object, V>(
  read: (store: S, keys: string[]) => Promise<Map<string, V>>,
  o?: CoalescerOptions,
): (store: S) => Coalescer<V> {
  const made = new WeakMap<S, Coalescer<V>>();
  return (store) => {
    let c = made.get(store);
    if (!c) {
      c = new Coalescer((keys) => read(store, keys), o);
      made.set(store, c);
    }
    return c;
  };
}
