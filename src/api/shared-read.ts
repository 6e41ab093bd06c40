// A read of the stores that callers arriving together share, and that a caller can trust to have
// begun after it asked (so it sees every commit made before): the in-memory token search and the
// newest blocks read their changes through it.
export class SharedRead {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly read: () => Promise<void>) {}

  /**
   * Resolves when a read that began after this call has ended. With none running one starts now;
   * otherwise the callers share the read that starts when the running one ends.
   */
  fresh(): Promise<void> {
    if (!this.running && !this.next) return this.start();
    this.next ??= (this.running ?? Promise.resolve()).catch(() => undefined).then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<void> {
    const r = this.read().finally(() => {
      if (this.running === r) this.running = null;
    });
    this.running = r;
    return r;
  }
}
