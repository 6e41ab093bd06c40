// The addresses a range of blocks names, collected from its rows as the worker decodes them: the
// same set src/storage/clickhouse/derived.ts rangeNamedAddresses reads back from ClickHouse
// (senders, receivers and created contracts of transactions, token transfers and internal
// transactions, token contracts, log emitters, withdrawal receivers, miners). The indexer hands
// it to the API with the block's event, so that while the accounting lane has not applied the
// block yet, the API knows which addresses' rows are stale without asking ClickHouse.
import type { RowSink } from './bundle.js';
import type { RowOf, TableName } from './clickhouse-rows.js';

/**
 * Ranges of at most this many blocks are named: the API trusts the lane's rows only up to 16
 * blocks behind the checkpoint (src/api/accounting-lag.ts), so a catch-up's larger ranges would
 * be named for nothing (and their names copied from the worker and held).
 */
export const NAMED_RANGE_BLOCKS_MAX = 16;

export class NamedAddresses implements RowSink {
  private readonly seen = new Set<string>();

  constructor(private readonly inner: RowSink) {}

  add<T extends TableName>(table: T, row: RowOf<T>): void {
    this.inner.add(table, row);
    switch (table) {
      case 'transactions': {
        const r = row as RowOf<'transactions'>;
        this.note(r.from);
        this.note(r.to);
        this.note(r.created_contract);
        break;
      }
      case 'token_transfers': {
        const r = row as RowOf<'token_transfers'>;
        this.note(r.from);
        this.note(r.to);
        this.note(r.token_address);
        break;
      }
      case 'internal_transactions': {
        const r = row as RowOf<'internal_transactions'>;
        this.note(r.from);
        this.note(r.to);
        this.note(r.created_contract_address);
        break;
      }
      case 'logs':
        this.note((row as RowOf<'logs'>).address);
        break;
      case 'withdrawals':
        this.note((row as RowOf<'withdrawals'>).address);
        break;
      case 'blocks':
        this.note((row as RowOf<'blocks'>).miner);
        break;
    }
  }

  /** One address (no array per row: this runs for every row the worker decodes). */
  private note(address: string): void {
    if (address) this.seen.add(address);
  }

  /** Every address named so far, each once. */
  addresses(): string[] {
    return [...this.seen];
  }
}
