// The watchlist.transaction event as SERVICE.md (Events) gives it, built from a match. The
// transaction fields describe the movement that matched (for a token transfer: its from, to and
// amount in the token's smallest unit); `transfer` adds what kind of movement it was.
import type { Match } from './matcher.js';

export interface WatchlistEvent {
  event: 'watchlist.transaction';
  watchlist_entry: { address_hash: string; name: string };
  transaction: {
    hash: string;
    from: string;
    to: string;
    value: string;
    block: number;
    timestamp: string;
  };
  transfer: {
    kind: string;
    direction: 'incoming' | 'outgoing';
    token_address: string | null;
    token_id: string | null;
  };
}

export function buildEvent(m: Match): WatchlistEvent {
  const t = m.transfer;
  return {
    event: 'watchlist.transaction',
    watchlist_entry: { address_hash: m.entry.address, name: m.entry.name },
    transaction: {
      hash: t.txHash,
      from: t.from,
      to: t.to,
      value: t.value,
      block: t.blockNumber,
      timestamp: new Date(t.timestamp * 1000).toISOString().replace('.000Z', 'Z'),
    },
    transfer: { kind: t.kind, direction: m.direction, token_address: t.tokenAddress, token_id: t.tokenId },
  };
}

export function emailText(e: WatchlistEvent, coin: string): { subject: string; text: string } {
  const what = e.transfer.kind === 'native' ? `${e.transaction.value} wei (${coin})` : `${e.transaction.value} of ${e.transfer.kind} token ${e.transfer.token_address}${e.transfer.token_id ? ` id ${e.transfer.token_id}` : ''}`;
  return {
    subject: `[${e.watchlist_entry.name}] ${e.transfer.direction} ${e.transfer.kind} transfer in block ${e.transaction.block}`,
    text: [
      `Watched address: ${e.watchlist_entry.address_hash} (${e.watchlist_entry.name})`,
      `Direction: ${e.transfer.direction}`,
      `Amount: ${what}`,
      `From: ${e.transaction.from}`,
      `To: ${e.transaction.to}`,
      `Transaction: ${e.transaction.hash}`,
      `Block: ${e.transaction.block} at ${e.transaction.timestamp}`,
    ].join('\n'),
  };
}
