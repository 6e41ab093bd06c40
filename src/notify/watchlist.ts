// The watchlist of one process, matched in the indexer's commit transaction: outbox rows commit
// with the checkpoint, so an indexed event is never lost, and (event_id, channel) is unique, so it
// is never queued twice; a rewind cancels the rows of orphaned blocks.
import type { PgStore } from '../storage/postgres/store.js';
import * as store from '../storage/postgres/notify.js';
import type { Listener } from '../storage/postgres/listen.js';
import type { Indexer } from '../indexer/indexer.js';
import { createLogger, type Logger } from '../log.js';
import { KINDS, WatchIndex, type TransferKind, type WatchEntry } from './matcher.js';
import { buildEvent } from './payload.js';

export function toEntry(r: store.WatchRow): WatchEntry {
  const settings = {} as WatchEntry['settings'];
  for (const k of KINDS) {
    const s = r.notification_settings?.[k];
    settings[k as TransferKind] = { incoming: s?.incoming === true, outgoing: s?.outgoing === true };
  }
  return {
    id: r.id,
    userId: r.user_id,
    address: r.address_hash,
    name: r.name,
    settings,
    methods: { email: r.notification_methods?.email === true, webhook: r.notification_methods?.webhook === true },
  };
}

/**
 * The in-memory watchlist of one process, loaded at start and kept current through LISTEN on
 * `watchlist_changed` (a trigger on the table), and its hooks into an indexer.
 */
export class WatchlistMatcher {
  readonly index = new WatchIndex();
  private listener: Listener | undefined;
  private readonly log: Logger;
  /** Reloads in progress run one at a time (a later one sees every change before it). */
  private reloading: Promise<void> = Promise.resolve();
  /** Matches enqueued since start (observability). */
  enqueued = 0;

  constructor(private readonly pg: PgStore, log?: Logger) {
    this.log = log ?? createLogger('watchlist');
  }

  /** Resolves once the watchlist is loaded after LISTEN, so no change falls between the two. */
  async start(): Promise<void> {
    let first!: () => void;
    const loaded = new Promise<void>((r) => (first = r));
    this.listener = store.listenWatchlist(this.pg, {
      log: this.log,
      onChange: (e) => {
        this.reloading = this.reloading.then(() => this.onChange(e)).catch((err: Error) => this.log.warn('watchlist reload failed', { error: err.message }));
      },
      // Connected (again): changes may have been missed while down, so everything is reloaded.
      onState: (up) => {
        if (!up) return;
        this.reloading = this.reloading
          .then(async () => {
            this.index.replaceAll((await store.loadWatchlist(this.pg)).map(toEntry));
            this.log.info('watchlist loaded', { entries: this.index.size });
          })
          .catch((err: Error) => this.log.warn('watchlist reload failed', { error: err.message }))
          .finally(first);
      },
    });
    await loaded;
  }

  private async onChange(e: { op: string; id: string }): Promise<void> {
    if (e.op === 'DELETE') return this.index.remove(e.id);
    const [row] = await store.loadWatchlist(this.pg, { id: e.id });
    if (row) this.index.upsert(toEntry(row));
    else this.index.remove(e.id);
  }

  attach(indexer: Indexer): void {
    indexer.addCommitHook(async (c, result) => {
      const matches = this.index.match(result.summary.valueTransfers);
      if (!matches.length) return;
      const rows: store.OutboxInsert[] = [];
      for (const m of matches) {
        const payload = buildEvent(m);
        for (const channel of ['webhook', 'email'] as const) {
          if (!m.entry.methods[channel]) continue;
          rows.push({
            eventId: m.eventId,
            channel,
            userId: m.entry.userId,
            watchlistId: m.entry.id,
            kind: m.transfer.kind,
            direction: m.direction,
            blockNumber: m.transfer.blockNumber,
            payload,
          });
        }
      }
      this.enqueued += await store.enqueue(c, rows);
    });
    indexer.addRewindHook((c, ancestor) => store.cancelOrphaned(c, ancestor?.blockNumber ?? -1));
  }

  async stop(): Promise<void> {
    await this.listener?.close();
    this.listener = undefined;
  }
}
