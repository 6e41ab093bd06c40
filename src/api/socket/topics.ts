// The topics a client may join on /socket/v2, as Blockscout's V2.UserSocket routes them
// (channels/v2/*.ex): which are fed by this server, which are joinable but quiet, and the
// canonical key broadcasts are addressed to (address hashes lower-case, as Blockscout prints them).

export type TopicKind =
  /** blocks:new_block: `new_block` {average_block_time, block}. */
  | 'new_block'
  /** blocks:<miner hash>: `new_block` for the blocks that address mined. */
  | 'miner'
  /** transactions:new_transaction: `transaction` {transaction: count}. */
  | 'new_transaction'
  /** transactions:new_pending_transaction: `pending_transaction` {pending_transaction: count}. */
  | 'new_pending_transaction'
  /** addresses:new_address: `count` {count}. */
  | 'new_address'
  /** addresses:<hash>: balance, coin_balance, current_coin_balance, transaction, pending_transaction, token_transfer, internal_transaction. */
  | 'address'
  /** tokens:<hash>: `token_transfer` {token_transfer: count}, `total_supply` {total_supply}. */
  | 'token'
  /**
   * Joinable as on Blockscout, but nothing this server has feeds them yet: blocks:indexing*,
   * transactions:stats, transactions:<hash>, exchange_rate:new_rate (prices are not pushed yet),
   * rewards:<hash>, token_instances:<hash>.
   */
  | 'quiet';

export type ParsedTopic = { ok: true; kind: TopicKind; canonical: string; address?: string } | { ok: false; reason: string };

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Blockscout's reason for a topic naming a malformed address (AccessHelper). */
export const INVALID_ADDRESS_HASH = 'Invalid address hash';
/** Phoenix's reason for a topic no channel is routed for. */
export const UNMATCHED_TOPIC = 'unmatched topic';

const QUIET_EXACT = new Set(['blocks:indexing', 'blocks:indexing_internal_transactions', 'transactions:stats', 'exchange_rate:new_rate']);

export function parseTopic(topic: string): ParsedTopic {
  const colon = topic.indexOf(':');
  if (colon <= 0) return { ok: false, reason: UNMATCHED_TOPIC };
  const prefix = topic.slice(0, colon);
  const rest = topic.slice(colon + 1);
  if (QUIET_EXACT.has(topic)) return { ok: true, kind: 'quiet', canonical: topic };
  switch (prefix) {
    case 'blocks':
      if (rest === 'new_block') return { ok: true, kind: 'new_block', canonical: topic };
      return addressTopic('miner', prefix, rest);
    case 'transactions':
      if (rest === 'new_transaction') return { ok: true, kind: 'new_transaction', canonical: topic };
      if (rest === 'new_pending_transaction') return { ok: true, kind: 'new_pending_transaction', canonical: topic };
      // transactions:<hash> (Blockscout joins anything here; it pushes raw_trace on demand).
      return { ok: true, kind: 'quiet', canonical: topic };
    case 'addresses':
      if (rest === 'new_address') return { ok: true, kind: 'new_address', canonical: topic };
      return addressTopic('address', prefix, rest);
    case 'tokens':
      return addressTopic('token', prefix, rest);
    case 'rewards':
    case 'token_instances':
      return addressTopic('quiet', prefix, rest);
    default:
      return { ok: false, reason: UNMATCHED_TOPIC };
  }
}

function addressTopic(kind: TopicKind, prefix: string, rest: string): ParsedTopic {
  if (!ADDRESS.test(rest)) return { ok: false, reason: INVALID_ADDRESS_HASH };
  const address = rest.toLowerCase();
  return { ok: true, kind, canonical: `${prefix}:${address}`, address };
}

/** Canonical keys of the topics the feed publishes to. */
export const TOPIC = {
  newBlock: 'blocks:new_block',
  newTransaction: 'transactions:new_transaction',
  newPendingTransaction: 'transactions:new_pending_transaction',
  newAddress: 'addresses:new_address',
  miner: (a: string) => `blocks:${a}`,
  address: (a: string) => `addresses:${a}`,
  token: (a: string) => `tokens:${a}`,
} as const;
