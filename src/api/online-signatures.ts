// The optional online signature lookup (SIGNATURE_LOOKUP_URL; off by default): selectors no other
// source names are asked in the background, never on a request's path, in the openchain API format
// (`?function=0x..,0x..&event=0x..`) or 4byte.directory's (`/signatures/?hex_signature=`,
// `/event-signatures/?hex_signature=`), through the guarded outbound helper. Every name answered is
// hashed again and kept only when it gives the selector asked; answers (found or not) are stored,
// so a selector is asked once a month at most, by any process of the instance.
import { outbound } from '../net/outbound.js';
import type { PgStore } from '../storage/postgres/store.js';
import { addSignatures, askedOnline, recordOnlineAnswers, type SignatureRow } from '../storage/postgres/signatures.js';
import { parseSignature, selectorOf } from '../abi/item-text.js';
import type { Logger } from '../log.js';

export type LookupFormat = 'openchain' | '4byte';

export interface OnlineLookupOptions {
  url: string;
  format: LookupFormat;
  /** Tests: a stub server on loopback over http. */
  allowPrivate?: boolean;
  allowHttp?: boolean;
  log?: Logger;
  /** Called after answers were stored (the book then reads them). */
  onStored?: () => void;
}

/** Selectors asked per request to the service. */
const BATCH = 20;
/** Pending selectors at most (beyond it new ones wait for a later answer that shows them). */
const QUEUE_MAX = 10_000;
/** A selector is asked again after this long. */
export const ASK_AGAIN_MS = 30 * 24 * 3600_000;
const TIMEOUT_MS = 10_000;
const MAX_BYTES = 1024 * 1024;
/** Names kept per selector at most (dumps hold hundreds of spam names for some). */
const NAMES_MAX = 8;

export class OnlineSignatures {
  private readonly queue = new Set<string>();
  /** Asked by this process already (the table says it for the others). */
  private readonly asked = new Set<string>();
  private running: Promise<void> | null = null;
  private readonly host: string;

  constructor(
    private readonly pg: PgStore,
    private readonly o: OnlineLookupOptions,
  ) {
    this.host = new URL(o.url).host;
  }

  /** Asks for a selector (4-byte function, 32-byte event topic) in the background. */
  enqueue(selector: string): void {
    const s = selector.toLowerCase();
    if (this.asked.has(s) || this.queue.has(s) || this.queue.size >= QUEUE_MAX) return;
    this.queue.add(s);
    this.running ??= this.drain().finally(() => (this.running = null));
  }

  /** Resolves when the queue is empty (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.size) {
      const batch = [...this.queue].slice(0, BATCH);
      for (const s of batch) {
        this.queue.delete(s);
        this.asked.add(s);
      }
      if (this.asked.size > 200_000) this.asked.clear();
      try {
        const done = await askedOnline(this.pg, batch, new Date(Date.now() - ASK_AGAIN_MS));
        const ask = batch.filter((s) => !done.has(s));
        if (ask.length) await this.lookup(ask);
      } catch (e) {
        this.o.log?.warn('online signature lookup failed', { error: e instanceof Error ? e.message : String(e) });
        // Not recorded: asked again by a later answer that needs it (after a restart, or by another process).
      }
    }
  }

  private async lookup(selectors: string[]): Promise<void> {
    const names = new Map<string, string[]>(selectors.map((s) => [s, []]));
    if (this.o.format === 'openchain') {
      const fns = selectors.filter((s) => s.length === 10);
      const evs = selectors.filter((s) => s.length === 66);
      const u = new URL(this.o.url);
      if (fns.length) u.searchParams.set('function', fns.join(','));
      if (evs.length) u.searchParams.set('event', evs.join(','));
      u.searchParams.set('filter', 'true');
      const body = await this.get(u.toString());
      const result = (body as { result?: { function?: Record<string, unknown>; event?: Record<string, unknown> } } | null)?.result ?? {};
      for (const s of selectors) {
        const list = (s.length === 10 ? result.function : result.event)?.[s];
        if (Array.isArray(list)) for (const x of list) if (x && typeof (x as { name?: unknown }).name === 'string') names.get(s)!.push((x as { name: string }).name);
      }
    } else {
      for (const s of selectors) {
        const u = new URL(`${s.length === 10 ? 'signatures' : 'event-signatures'}/`, this.o.url.endsWith('/') ? this.o.url : this.o.url + '/');
        u.searchParams.set('hex_signature', s);
        const body = await this.get(u.toString());
        const results = (body as { results?: unknown[] } | null)?.results;
        if (Array.isArray(results)) {
          // 4byte.directory lists newest first; the oldest submission is the likeliest real one.
          for (const x of [...results].reverse()) {
            const t = (x as { text_signature?: unknown })?.text_signature;
            if (typeof t === 'string') names.get(s)!.push(t);
          }
        }
      }
    }
    const rows: SignatureRow[] = [];
    const found = new Map<string, number>();
    for (const [s, list] of names) {
      let n = 0;
      for (const sig of list) {
        if (n >= NAMES_MAX) break;
        const item = parseSignature(sig, s.length === 10 ? 'function' : 'event');
        // The answer must hash to what was asked: a lookup cannot name a selector with another's name.
        if (!item || selectorOf(item) !== s) continue;
        rows.push({ selector: s, source: 'online', item: `${item.type} ${sig.trim()}`, origin: this.host });
        n++;
      }
      found.set(s, n);
    }
    await addSignatures(this.pg, rows);
    await recordOnlineAnswers(this.pg, found);
    if (rows.length) this.o.onStored?.();
  }

  private async get(url: string): Promise<unknown> {
    const res = await outbound(url, {
      maxBytes: MAX_BYTES,
      timeoutMs: TIMEOUT_MS,
      headers: { accept: 'application/json' },
      allowHttp: this.o.allowHttp,
      allowPrivate: this.o.allowPrivate,
    });
    if (res.status !== 200) throw new Error(`the lookup answered HTTP ${res.status}`);
    return JSON.parse(res.body.toString('utf8')) as unknown;
  }
}
