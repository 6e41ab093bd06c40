// The PostgreSQL facts of ERC-4337 user operations (issue #32): from which block the indexer
// decoded them as it indexed (migration 0022: blocks an earlier release indexed hold none until
// the upgrade's backfill fills them), and that backfill's progress. Here so that the indexer and
// the API read the same names without importing each other.
import { setFactIn } from './indexer.js';
import type { PgStore } from './store.js';

/** `{ block }`: the first block whose user operations are stored; 0 once every stored block's are. */
export const USER_OPERATIONS_FROM = 'user_operations_from';
/** The backfill's progress (src/indexer/user-operations-backfill.ts). */
export const USER_OPERATIONS_BACKFILL = 'user_operations_backfill';

/** The backfill's last step: its progress says done, and every stored block's user operations are stored. */
export async function finishUserOperationsBackfill(pg: PgStore, state: unknown): Promise<void> {
  await pg.tx(async (c) => {
    await setFactIn(c, USER_OPERATIONS_BACKFILL, state);
    await setFactIn(c, USER_OPERATIONS_FROM, { block: 0 });
  });
}
