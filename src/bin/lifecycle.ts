// Running parts of a process and stopping them in reverse order on SIGINT/SIGTERM (a second
// signal exits at once).
import { createLogger } from '../log.js';

const log = createLogger('lifecycle');

export interface Running {
  name: string;
  stop(): Promise<void>;
}

export class Lifecycle {
  private readonly parts: Running[] = [];
  private stopping: Promise<void> | undefined;
  private markStopped!: () => void;
  /** Resolves once every part has been stopped. */
  readonly stopped = new Promise<void>((resolve) => (this.markStopped = resolve));
  signalled: string | undefined;

  constructor() {
    const onSignal = (sig: string) => {
      if (this.signalled) {
        log.warn('second signal: exiting now');
        process.exit(130);
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
      for (const r of this.parts.reverse()) {
        try {
          await r.stop();
          log.info('stopped', { part: r.name });
        } catch (e) {
          log.warn('stop failed', { part: r.name, error: e });
        }
      }
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
