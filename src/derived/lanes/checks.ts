// The checks lane: queued token balances (a sample of each accounting step, every balance that went
// negative, and with FIRST_BLOCK > 0 every first-seen one) compared with balanceOf at the accounting
// cursor and corrected (journaled) where they differ. A node without historical state is asked
// only once the cursor is near its head.
import { decodeAbiParameters, encodeFunctionData, parseAbi, type Hex } from 'viem';
import type { RpcClient } from '../../rpc/client.js';
import { RpcError, isMethodNotFound, isStateUnavailable } from '../../rpc/errors.js';
import { ACCOUNTING, applyBalanceCheck, getLaneCursor } from '../../storage/postgres/derived.js';
import { addToFact } from '../../storage/postgres/indexer.js';
import { olderTokens } from '../../storage/postgres/reads/balance-checks.js';
import * as lanes from '../../storage/postgres/lanes.js';
import { STATE_WINDOW_BLOCKS } from '../node-history.js';
import type { LaneFactory } from '../lane.js';

/** A check the node could not answer for want of state waits this long (no attempt counted). */
const POSTPONE_SECONDS = 30;

export const checksLane: LaneFactory = (env) => {
  /** Corrections made since start (observability, tests). */
  let corrections = 0;
  /** The node refuses eth_call: the checks stay queued (unchecked, and said so), never dropped. */
  const refused = () => env.history.refuses('eth_call');
  return {
    name: 'checks',
    due: async () => (refused() ? 0 : lanes.dueBalanceChecks(env.pg)),

    async run() {
      const { pg, rpc } = env;
      if (refused()) return 0;
      const cur = await getLaneCursor(pg.pool, ACCOUNTING);
      if (!cur) return 0;
      const nodeHead = env.nodeHead();
      if (env.history.missing && nodeHead !== null && nodeHead - cur.blockNumber > STATE_WINDOW_BLOCKS) return 0;
      const due = await lanes.claimBalanceChecks(pg, 32);
      /** Tokens whose checks the node answered in this step. */
      const answered: string[] = [];
      for (const d of due) {
        const tag = `0x${cur.blockNumber.toString(16)}`;
        let value: string | null;
        try {
          value = await balanceAt(rpc, d.token, d.holder, d.type === 'ERC-1155' ? d.token_id : null, tag);
        } catch (e) {
          if (!(e instanceof RpcError)) throw e;
          if (isStateUnavailable(e)) {
            await env.history.refused(e, cur.blockNumber);
            await lanes.postponeBalanceCheck(pg, d.token, d.holder, d.token_id, POSTPONE_SECONDS);
          } else if (refused()) await lanes.postponeBalanceCheck(pg, d.token, d.holder, d.token_id, POSTPONE_SECONDS);
          else await lanes.failBalanceCheck(pg, d.token, d.holder, d.token_id, d.attempts);
          continue;
        }
        if (value === null) {
          // The contract does not answer balanceOf: nothing to compare with.
          await lanes.dropBalanceCheck(pg, d.token, d.holder, d.token_id);
          continue;
        }
        const delta = await pg.tx((c) => applyBalanceCheck(c, { token: d.token, holder: d.holder, tokenId: d.token_id }, cur.blockNumber, BigInt(value!)));
        if (delta === null) {
          // The cursor moved on while we asked: ask again at the new height.
          await lanes.retryBalanceCheckNow(pg, d.token, d.holder, d.token_id);
          continue;
        }
        answered.push(d.token);
        if (delta !== 0n) {
          corrections++;
          env.log.warn('token balance corrected by balanceOf', { token: d.token, holder: d.holder, token_id: d.token_id || undefined, delta: delta.toString(), corrections });
        }
      }
      // Counted where history is partial, for balances that may predate it (of tokens older than
      // it): the indexing status and the caveats call such balances checked only when it answered.
      if (answered.length && env.firstBlock > 0) {
        const older = await olderTokens(pg, answered);
        const n = answered.filter((t) => older.has(t)).length;
        if (n) await addToFact(pg, 'balance_checks', 'answered', n);
      }
      return due.length;
    },

    unwind: (tx, above) => lanes.unwindBalanceChecks(tx, above),
  };
};

const BALANCE_OF = parseAbi(['function balanceOf(address account) view returns (uint256)']);
const BALANCE_OF_ID = parseAbi(['function balanceOf(address account, uint256 id) view returns (uint256)']);

/**
 * balanceOf(holder) (or balanceOf(holder, id) of an ERC-1155) at `tag`; null when the contract
 * does not answer it (a revert, garbage). Throws the RpcError of a transport failure, of a
 * state the node does not keep (isStateUnavailable) and of eth_call refused, which say nothing
 * about the contract.
 */
async function balanceAt(rpc: RpcClient, token: string, holder: string, id: string | null, tag: string): Promise<string | null> {
  const data =
    id === null
      ? encodeFunctionData({ abi: BALANCE_OF, functionName: 'balanceOf', args: [holder as Hex] })
      : encodeFunctionData({ abi: BALANCE_OF_ID, functionName: 'balanceOf', args: [holder as Hex, BigInt(id)] });
  const [o] = await rpc.batch<string>([{ method: 'eth_call', params: [{ to: token, data }, tag] }]);
  if (!o.ok) {
    if (o.error.kind !== 'rpc' || isStateUnavailable(o.error) || isMethodNotFound(o.error)) throw o.error;
    return null;
  }
  try {
    return (decodeAbiParameters([{ type: 'uint256' }], o.result as Hex)[0] as bigint).toString();
  } catch {
    return null;
  }
}
