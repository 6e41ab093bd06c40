// Chain events across processes (split roles): the process running the indexer publishes its
// 'block', 'reorg' and 'derived' events, and an API process its successful verifications, over
// PostgreSQL NOTIFY (src/storage/postgres/events.ts); an API process that does not run the indexer
// listens and re-emits them as the same events, so its response cache, address facts and websocket
// feed follow the chain as they do in one process.
//
// What crosses: a block event's range, its last blocks, its transaction count, the contracts it
// created and the addresses it touched (those two in chunks before the block itself, whatever
// their number: NOTIFY payloads stay under 8,000 bytes). Its value transfers do not (there may be
// thousands): the re-emitted event says so (valueTransfers null), and the websocket feed reads
// the range's token transfers and internal transactions from the store itself, only for the
// touched addresses and the tokens someone is subscribed to (src/api/socket/feed.ts), so the
// per-address notices (token_transfer, internal_transaction, a token's transfer count) are sent
// by every API process.
// A notification missed while the listening connection was down is caught by the checkpoint: it
// is read every CHECK_MS, and a move no notification announced is re-emitted as a block (or, when
// the head went back or its hash changed, as a reorg); a lost connection is re-opened and treated
// as a reorg (everything cached is dropped: what was missed is unknown).
import { EventEmitter } from 'node:events';
import type { Logger } from '../log.js';
import type { PgStore } from '../storage/postgres/store.js';
import { EVENTS_CHANNEL, MAX_PAYLOAD_BYTES, notifyEvent } from '../storage/postgres/events.js';
import { listen } from '../storage/postgres/listen.js';
import { CHAIN_LANE, getCheckpoint } from '../storage/postgres/indexer.js';

/** How often a listener compares the checkpoint with what it was told. */
const CHECK_MS = 2000;
/** Addresses per chunk notification (42 characters and quotes each: well under the payload limit). */
const CHUNK = 150;

type Wire =
  | { k: 'created' | 'touched'; a: string[] }
  | { k: 'block'; from: number; to: number; blocks: { number: number; hash: string }[]; txs: number }
  | { k: 'reorg'; ancestor: number | null; orphanedTo: number }
  | { k: 'derived'; lanes: string[] }
  | { k: 'verified'; address: string };

interface BlockLike {
  from: number;
  to: number;
  blocks: { number: number; hash: string }[];
  summary: { txs: number; createdContracts: { address: string }[]; touchedAddresses: string[] };
}

/** Publishes the events of these sources; returns a function that stops (after what is queued is sent). */
export function publishEvents(pg: PgStore, sources: EventEmitter[], log: Logger): () => Promise<void> {
  // One after the other: a listener must see a block's chunks before the block, and events in order.
  let queue: Promise<void> = Promise.resolve();
  const send = (messages: Wire[]) => {
    queue = queue.then(async () => {
      for (const m of messages) {
        const payload = JSON.stringify(m);
        if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new Error(`event too large to notify (${m.k})`);
        await notifyEvent(pg, payload);
      }
    }).catch((e) => log.warn('publishing an event failed (listeners catch up from the checkpoint)', { error: e instanceof Error ? e.message : String(e) }));
  };
  const chunks = (k: 'created' | 'touched', all: string[]): Wire[] => {
    const out: Wire[] = [];
    for (let i = 0; i < all.length; i += CHUNK) out.push({ k, a: all.slice(i, i + CHUNK) });
    return out;
  };
  const onBlock = (e: BlockLike) =>
    send([
      ...chunks('created', e.summary.createdContracts.map((c) => c.address)),
      ...chunks('touched', e.summary.touchedAddresses),
      { k: 'block', from: e.from, to: e.to, blocks: e.blocks.slice(-8).map((b) => ({ number: b.number, hash: b.hash })), txs: e.summary.txs },
    ]);
  const onReorg = (e: { ancestor: number | null; orphanedTo: number }) => send([{ k: 'reorg', ancestor: e.ancestor, orphanedTo: e.orphanedTo }]);
  const onDerived = (e: { lanes?: string[] }) => send([{ k: 'derived', lanes: e?.lanes ?? [] }]);
  const onVerified = (e: { ok: boolean; address: string }) => e.ok && send([{ k: 'verified', address: e.address }]);
  for (const s of sources) {
    s.on('block', onBlock);
    s.on('reorg', onReorg);
    s.on('derived', onDerived);
    s.on('verified', onVerified);
  }
  return async () => {
    for (const s of sources) {
      s.off('block', onBlock);
      s.off('reorg', onReorg);
      s.off('derived', onDerived);
      s.off('verified', onVerified);
    }
    await queue;
  };
}

export interface EventListener extends EventEmitter {
  close(): Promise<void>;
}

/**
 * Listens for the published events and emits them as the indexer, the derived lanes and the
 * verification service emit theirs ('block', 'reorg', 'derived', 'verified').
 */
export async function subscribeEvents(pg: PgStore, log: Logger, opts: { checkMs?: number } = {}): Promise<EventListener> {
  const out = new EventEmitter() as EventListener;
  let created: string[] = [];
  let touched: string[] = [];
  /** The checkpoint as last announced or seen: what a missed notification is measured against. */
  let seen = await getCheckpoint(pg, CHAIN_LANE);
  let closed = false;
  const onPayload = (payload: string) => {
    let m: Wire;
    try {
      m = JSON.parse(payload) as Wire;
    } catch {
      return;
    }
    switch (m.k) {
      case 'created':
        created.push(...m.a);
        return;
      case 'touched':
        touched.push(...m.a);
        return;
      case 'block': {
        const last = m.blocks[m.blocks.length - 1];
        if (last) seen = { blockNumber: last.number, blockHash: last.hash };
        const summary = {
          txs: m.txs,
          logs: 0,
          tokenTransfers: 0,
          internalTxs: 0,
          rows: {},
          touchedAddresses: touched,
          tokenContracts: [],
          createdContracts: created.map((address) => ({ address, txHash: '', blockNumber: m.to })),
          // Not carried: the websocket feed reads them from the store when someone follows them.
          valueTransfers: null,
        };
        created = [];
        touched = [];
        out.emit('block', { from: m.from, to: m.to, blocks: m.blocks.map((b) => ({ ...b, parentHash: '', timestamp: 0, txCount: 0 })), summary });
        return;
      }
      case 'reorg':
        seen = null;
        out.emit('reorg', { ancestor: m.ancestor, orphanedTo: m.orphanedTo });
        return;
      case 'derived':
        out.emit('derived', { lanes: m.lanes });
        return;
      case 'verified':
        out.emit('verified', { ok: true, address: m.address });
    }
  };

  // listen.ts re-opens a lost connection itself; what was missed meanwhile is unknown, so a loss
  // counts as a reorg (everything cached goes).
  let opened: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (opened = resolve));
  const listener = listen(pg, {
    channels: [EVENTS_CHANNEL],
    onNotify: (_channel, payload) => onPayload(payload),
    onState: (up) => {
      if (up) return opened();
      if (closed) return;
      out.emit('reorg', { ancestor: null, orphanedTo: seen?.blockNumber ?? 0 });
      created = [];
      touched = [];
    },
    applicationName: 'explorer-events',
    log,
    name: 'event listener',
  });
  // The first connection, before the caller relies on it (a slow database: the checkpoint covers it).
  await Promise.race([ready, new Promise((r) => setTimeout(r, 10_000).unref())]);

  const check = async () => {
    if (closed) return;
    try {
      const now = await getCheckpoint(pg, CHAIN_LANE);
      if (!now || (seen && now.blockNumber === seen.blockNumber && now.blockHash === seen.blockHash)) return;
      if (seen && now.blockNumber > seen.blockNumber) {
        // A block event never came (or is still on its way: a repeat is harmless, it only invalidates).
        out.emit('block', {
          from: seen.blockNumber + 1,
          to: now.blockNumber,
          blocks: [{ number: now.blockNumber, hash: now.blockHash, parentHash: '', timestamp: 0, txCount: 0 }],
          summary: { txs: 0, logs: 0, tokenTransfers: 0, internalTxs: 0, rows: {}, touchedAddresses: [], tokenContracts: [], createdContracts: [], valueTransfers: null },
        });
      } else if (seen) {
        out.emit('reorg', { ancestor: null, orphanedTo: seen.blockNumber });
      }
      seen = now;
    } catch (e) {
      log.warn('event listener check failed', { error: e instanceof Error ? e.message : String(e) });
    }
  };
  const timer = setInterval(() => void check(), opts.checkMs ?? CHECK_MS);
  timer.unref();
  out.close = async () => {
    closed = true;
    clearInterval(timer);
    await listener.close();
  };
  return out;
}
