// Waiting between attempts, the one way: exponential backoff with jitter, a sleep, and a timeout
// around a promise. Every retry loop of the project (JSON-RPC calls, indexer ranges, derived
// lanes and their queued work, notification deliveries) takes its delays from backoffMs.

export interface BackoffOptions {
  /** Delay of the first retry, before jitter. */
  baseMs: number;
  /** Largest delay, before jitter. */
  maxMs: number;
  /**
   * Share of the delay taken off at random: the delay lies in [d * (1 - jitter), d], so retries
   * of many failures spread out while every delay stays within its step. 0: none.
   */
  jitter?: number;
}

/** Delay before retry number `attempt` (1 for the first): base * 2^(attempt-1), capped, jittered. */
export function backoffMs(attempt: number, o: BackoffOptions): number {
  const exponent = Math.min(Math.max(0, attempt - 1), 52);
  const d = Math.min(o.maxMs, o.baseMs * 2 ** exponent);
  const jitter = Math.min(1, Math.max(0, o.jitter ?? 0.5));
  return Math.round(d * (1 - jitter * Math.random()));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `p`, or a rejection with "no answer within <ms> ms" when it takes longer (the timer never holds the process). */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/**
 * Sleeps that can be ended early: wake() ends every pending one at once (a loop's stop(), or new
 * work for it); `until` ends one when it settles. The timer is cleared either way.
 */
export class Sleeper {
  private readonly wakers = new Set<() => void>();

  sleep(ms: number, until?: Promise<unknown>): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
      until?.then(done, done);
    });
  }

  wake(): void {
    for (const w of [...this.wakers]) w();
  }
}
