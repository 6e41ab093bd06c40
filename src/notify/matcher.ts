// Watchlist matching, in memory: an index from watched address to its entries, so matching a
// range's value transfers costs one map lookup per side of each transfer, however many
// addresses are watched.
import type { ValueTransfer } from '../chain/bundle.js';

export type TransferKind = 'native' | 'ERC-20' | 'ERC-721' | 'ERC-1155';
export const KINDS: readonly TransferKind[] = ['native', 'ERC-20', 'ERC-721', 'ERC-1155'];

export interface WatchEntry {
  id: string;
  userId: string;
  address: string;
  name: string;
  settings: Record<TransferKind, { incoming: boolean; outgoing: boolean }>;
  methods: { email: boolean; webhook: boolean };
}

export interface Match {
  entry: WatchEntry;
  transfer: ValueTransfer;
  direction: 'incoming' | 'outgoing';
  /** Stable id of this event for this entry: deliveries are deduplicated on it. */
  eventId: string;
}

export class WatchIndex {
  private readonly byAddress = new Map<string, WatchEntry[]>();
  private readonly byId = new Map<string, WatchEntry>();

  get size(): number {
    return this.byId.size;
  }

  upsert(e: WatchEntry): void {
    this.remove(e.id);
    const a = e.address.toLowerCase();
    const entry = { ...e, address: a };
    this.byId.set(e.id, entry);
    const list = this.byAddress.get(a);
    if (list) list.push(entry);
    else this.byAddress.set(a, [entry]);
  }

  remove(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.byId.delete(id);
    const list = this.byAddress.get(old.address);
    if (!list) return;
    const rest = list.filter((x) => x.id !== id);
    if (rest.length) this.byAddress.set(old.address, rest);
    else this.byAddress.delete(old.address);
  }

  removeUser(userId: string): void {
    for (const e of [...this.byId.values()]) if (e.userId === userId) this.remove(e.id);
  }

  replaceAll(entries: Iterable<WatchEntry>): void {
    this.byAddress.clear();
    this.byId.clear();
    for (const e of entries) this.upsert(e);
  }

  /** The notifications a range's transfers cause, one per (entry, transfer, direction). */
  match(transfers: readonly ValueTransfer[]): Match[] {
    const out: Match[] = [];
    if (!this.byAddress.size) return out;
    for (const t of transfers) {
      if (t.kind === 'native' && t.value === '0') continue;
      const from = this.byAddress.get(t.from);
      const to = t.to === t.from ? undefined : this.byAddress.get(t.to);
      if (from) for (const e of from) if (e.settings[t.kind]?.outgoing) out.push(make(e, t, 'outgoing'));
      if (to) for (const e of to) if (e.settings[t.kind]?.incoming) out.push(make(e, t, 'incoming'));
      if (t.to === t.from && from) for (const e of from) if (e.settings[t.kind]?.incoming && !e.settings[t.kind]?.outgoing) out.push(make(e, t, 'incoming'));
    }
    return out;
  }
}

function make(entry: WatchEntry, t: ValueTransfer, direction: Match['direction']): Match {
  const where = t.logIndex != null ? `l${t.logIndex}` : t.traceIndex != null ? `i${t.traceIndex}` : 'tx';
  const id = t.tokenId != null ? `:${t.tokenId}` : '';
  return { entry, transfer: t, direction, eventId: `${entry.id}:${t.txHash}:${where}${id}:${direction}` };
}
