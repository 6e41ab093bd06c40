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

/** The address columns of each table that names addresses (rangeNamedAddresses reads the same). */
const ADDRESS_COLUMNS: { readonly [T in TableName]?: readonly (keyof RowOf<T>)[] } = {
  transactions: ['from', 'to', 'created_contract'],
  token_transfers: ['from', 'to', 'token_address'],
  internal_transactions: ['from', 'to', 'created_contract_address'],
  logs: ['address'],
  withdrawals: ['address'],
  blocks: ['miner'],
};

export class NamedAddresses implements RowSink {
  private readonly seen = new Set<string>();

  constructor(private readonly inner: RowSink) {}

  add<T extends TableName>(table: T, row: RowOf<T>): void {
    this.inner.add(table, row);
    const columns = ADDRESS_COLUMNS[table];
    if (!columns) return;
    for (const c of columns) {
      const a = row[c] as string;
      if (a) this.seen.add(a);
    }
  }

  /** Every address named so far, each once. */
  addresses(): string[] {
    return [...this.seen];
  }
}
