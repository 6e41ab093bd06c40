// The addresses a range of blocks names, and what its rows say of them, collected from its rows
// as the worker decodes them: the same set src/storage/clickhouse/derived.ts rangeNamedAddresses
// reads back from ClickHouse (senders, receivers and created contracts of transactions, token
// transfers and internal transactions, token contracts, log emitters, withdrawal receivers,
// miners), and what the accounting lane will record of them from that range (readRangeFacts and
// src/derived/accounting.ts: which counters move, the contracts created and self-destructed, the
// tokens first seen). The indexer hands them to the API with the block's event, so that while the
// lane has not applied the block yet the API knows which addresses' rows are stale, and what
// they will say once applied, without asking ClickHouse.
import type { RowSink } from './bundle.js';
import type { RowOf, TableName } from './clickhouse-rows.js';

/**
 * Ranges of at most this many blocks are named: the API trusts the lane's rows only up to 16
 * blocks behind the checkpoint (src/api/accounting-lag.ts), so a catch-up's larger ranges would
 * be named for nothing (and their names copied from the worker and held).
 */
export const NAMED_RANGE_BLOCKS_MAX = 16;

/** What a range's rows did for an address, as the lane's counters and first-seen rows take it. */
export const NAMED = {
  /** Emitted a log (`addresses.log_count`). */
  LOGGED: 1,
  /** Sent a transaction (`sent_count`). */
  SENT: 2,
  /** Sent or received a token transfer (`token_transfer_count`). */
  TRANSFERRED: 4,
  /** Mined a block (`mined_count`). */
  MINED: 8,
  /** Received a withdrawal (`withdrawal_count`). */
  WITHDREW: 16,
  /** Appears where the lane records addresses first seen (its `addresses` row). */
  SEEN: 32,
} as const;

/** A contract the range created, as the lane records it (`contracts`). */
export interface NamedCreation {
  address: string;
  creator: string;
  tx: string;
  block: number;
}

/** What a range names, in plain arrays (it crosses threads in the block event). */
export interface RangeNames {
  /** Every address the range's rows name, each once. */
  addresses: string[];
  /** For each of `addresses`, its NAMED bits (0: only named, e.g. a token contract's address). */
  kinds: number[];
  /** Contracts created (a successful top-level creation, or a successful create frame below it). */
  created: NamedCreation[];
  /** Contracts that self-destructed (a successful selfdestruct frame). */
  selfDestructed: string[];
  /** Token contracts seen in transfers, with the standard of the first one. */
  tokens: [address: string, type: string][];
}

export class NamedAddresses implements RowSink {
  private readonly kinds = new Map<string, number>();
  private readonly created: NamedCreation[] = [];
  private readonly selfDestructed = new Set<string>();
  private readonly tokens = new Map<string, string>();

  constructor(private readonly inner: RowSink) {}

  private name(a: string, kind: number): void {
    if (a) this.kinds.set(a, (this.kinds.get(a) ?? 0) | kind);
  }

  add<T extends TableName>(table: T, row: RowOf<T>): void {
    this.inner.add(table, row);
    const { SEEN, SENT, TRANSFERRED, LOGGED, WITHDREW, MINED } = NAMED;
    // Each table's address columns, as rangeNamedAddresses and the lane's range reads take them.
    switch (table) {
      case 'transactions': {
        const r = row as RowOf<'transactions'>;
        this.name(r.from, SENT | SEEN);
        this.name(r.to, SEEN);
        this.name(r.created_contract, SEEN);
        if (r.created_contract && r.status === 1) this.created.push({ address: r.created_contract, creator: r.from, tx: r.hash, block: Number(r.block_number) });
        break;
      }
      case 'token_transfers': {
        const r = row as RowOf<'token_transfers'>;
        this.name(r.from, TRANSFERRED | SEEN);
        this.name(r.to, TRANSFERRED | SEEN);
        this.name(r.token_address, 0);
        if (!this.tokens.has(r.token_address)) this.tokens.set(r.token_address, r.token_type);
        break;
      }
      case 'internal_transactions': {
        const r = row as RowOf<'internal_transactions'>;
        // The top-level frame repeats its transaction's addresses; the lane sees those there.
        const below = r.trace_index > 0 ? SEEN : 0;
        this.name(r.from, below);
        this.name(r.to, below);
        this.name(r.created_contract_address, 0);
        if (below && !r.error) {
          if ((r.type === 'create' || r.type === 'create2') && r.created_contract_address) {
            this.created.push({ address: r.created_contract_address, creator: r.from, tx: r.transaction_hash, block: Number(r.block_number) });
          } else if (r.type === 'selfdestruct') this.selfDestructed.add(r.from);
        }
        break;
      }
      case 'logs':
        this.name((row as RowOf<'logs'>).address, LOGGED | SEEN);
        break;
      case 'withdrawals':
        this.name((row as RowOf<'withdrawals'>).address, WITHDREW | SEEN);
        break;
      case 'blocks':
        this.name((row as RowOf<'blocks'>).miner, MINED | SEEN);
        break;
    }
  }

  /** What the rows so far name. */
  names(): RangeNames {
    return {
      addresses: [...this.kinds.keys()],
      kinds: [...this.kinds.values()],
      created: this.created,
      selfDestructed: [...this.selfDestructed],
      tokens: [...this.tokens],
    };
  }
}
