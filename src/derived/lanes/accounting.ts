// The accounting lane: committed block ranges read from ClickHouse become token balances and
// exact holder counts, NFT owners, counters, first-seen addresses/tokens/NFT instances and
// contracts, in one PostgreSQL transaction per range, journaled per block so a reorg can reverse
// them; it also queues the other lanes' work (coin readings, metadata, code, balance checks).
import { readRangeFacts } from '../../storage/clickhouse/derived.js';
import { storedBlockHashes } from '../../storage/clickhouse/chain.js';
import { ACCOUNTING, applyAccountingIfCurrent, getLaneCursor, journalCut, unwindAccounting } from '../../storage/postgres/derived.js';
import { CHAIN_LANE, getCheckpoint, TAIL_LENGTH } from '../../storage/postgres/indexer.js';
import { accountingChanges } from '../accounting.js';
import type { LaneFactory } from '../lane.js';

/** Blocks per step while the indexer catches up, so the shared budget can pace the steps. */
const CATCH_UP_RANGE = 10;

export const accountingLane: LaneFactory = (env) => {
  // The journal cut of this process's last applied step: later steps delete only above it (the
  // first one deletes everything below its cut, whatever an earlier process left).
  let journalFloor: number | null = null;
  return {
    name: 'accounting',
    // Blocks between the chain checkpoint and this lane's cursor.
    dueUnit: 'blocks',

    async due() {
      const [cp, cur] = await Promise.all([getCheckpoint(env.pg, CHAIN_LANE), getLaneCursor(env.pg.pool, ACCOUNTING)]);
      return Math.max(0, (cp?.blockNumber ?? -1) - (cur?.blockNumber ?? env.firstBlock - 1));
    },

    async run() {
      const { pg, ch } = env;
      const [cp, cur] = await Promise.all([getCheckpoint(pg, CHAIN_LANE), getLaneCursor(pg.pool, ACCOUNTING)]);
      const next = cur ? cur.blockNumber + 1 : env.firstBlock;
      if (!cp || cp.blockNumber < next) return 0;
      const range = env.catchingUp() ? Math.min(env.rangeBlocks, CATCH_UP_RANGE) : env.rangeBlocks;
      const to = Math.min(cp.blockNumber, next + range - 1);
      const facts = await readRangeFacts(ch, next, to);
      const hashes = await storedBlockHashes(ch, to, to);
      const toHash = hashes.get(to);
      if (facts.blocks.length !== to - next + 1 || !toHash) return 0; // being rewritten by a reorg: later
      const changes = accountingChanges(facts, { blockNumber: to, blockHash: toHash }, env.sampleSize);
      // History after genesis only: balances that may predate it are checked with balanceOf.
      changes.checkUnseenHolders = env.firstBlock > 0;
      const applied = await applyAccountingIfCurrent(pg, changes, cur?.blockNumber ?? null, TAIL_LENGTH, journalFloor);
      if (applied) {
        journalFloor = Math.max(journalFloor ?? -Infinity, journalCut(to, TAIL_LENGTH));
        env.wake();
      }
      return applied ? to - next + 1 : 0;
    },

    unwind: (tx, _above, ancestor) => unwindAccounting(tx, ancestor),
  };
};
