// Running parts of a process and stopping them in reverse order on SIGINT/SIGTERM, within a bound
// (STOP_BOUND_MS); a second signal, or a stop past its bound, exits at once (forceExit).
import { createLogger } from '../log.js';

const log = createLogger('lifecycle');

export interface Running {
  name: string;
  stop(): Promise<void>;
}

/**
 * Longest orderly stop before the process exits anyway: below the 30 s a container gets between
 * SIGTERM and SIGKILL (deploy/compose.yml's stop_grace_period), so the exit is ours and logged.
 */
export const STOP_BOUND_MS = 20_000;

export interface LifecycleOptions {
  /** Longest orderly stop (default STOP_BOUND_MS). */
  stopBoundMs?: number;
}

/**
 * Exits now, whatever is still running. The 'exit' handlers run first (they kill the child
 * processes: embedded PostgreSQL, anvil); then the process kills itself, because process.exit()
 * waits for every worker thread to end, and a thread stuck in native code (a WebAssembly trap
 * caught by chDB's signal handler, say) never does. The exit status is then SIGKILL's.
 */
export function forceExit(code: number): never {
  process.on('exit', () => process.kill(process.pid, 'SIGKILL'));
  process.exit(code);
}

export class Lifecycle {
  private readonly parts: Running[] = [];
  private stopping: Promise<void> | undefined;
  private markStopped!: () => void;
  private readonly stopBoundMs: number;
  /** Resolves once every part has been stopped. */
  readonly stopped = new Promise<void>((resolve) => (this.markStopped = resolve));
  signalled: string | undefined;

  constructor(o: LifecycleOptions = {}) {
    this.stopBoundMs = o.stopBoundMs ?? STOP_BOUND_MS;
    const onSignal = (sig: string) => {
      if (this.signalled) {
        log.warn('second signal: exiting now');
        forceExit(130);
      }
      this.signalled = sig;
      void this.stopAll(sig);
    };
    process.on('SIGINT', () => onSignal('SIGINT'));
    process.on('SIGTERM', () => onSignal('SIGTERM'));
  }

  add(...parts: Running[]): void {
    this.parts.push(...parts);
  }

  stopAll(why: string): Promise<void> {
    return (this.stopping ??= (async () => {
      log.info('stopping', { reason: why });
      let current = '';
      const bound = setTimeout(() => {
        log.error(`the stop took longer than ${Math.round(this.stopBoundMs / 1000)} s: exiting now`, { stuck_at: current });
        forceExit(1);
      }, this.stopBoundMs);
      for (const r of this.parts.reverse()) {
        current = r.name;
        try {
          await r.stop();
          log.info('stopped', { part: r.name });
        } catch (e) {
          log.warn('stop failed', { part: r.name, error: e });
        }
      }
      clearTimeout(bound);
      this.markStopped();
    })());
  }

  /** Waits until stopped by a signal (or stopAll), then returns 0. */
  async untilStopped(): Promise<number> {
    await this.stopped;
    log.info('all stopped');
    return 0;
  }
}
