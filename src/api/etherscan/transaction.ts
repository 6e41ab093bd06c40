// module=transaction of the Etherscan-compatible API: getstatus, gettxreceiptstatus and
// gettxinfo, with the messages of Blockscout's API.RPC.TransactionController and the fields of
// its TransactionView (gettxinfo in the form Blockscout's documentation shows).
import type { ApiContext } from '../context.js';
import { etherscanTransaction, etherscanTransactionLogs } from '../../storage/clickhouse/reads/etherscan.js';
import { withPointInputs } from '../../storage/postgres/points.js';
import { topFramesAndFailures } from '../../storage/clickhouse/reads/internal-transactions.js';
import { parseHash, RESULT_WINDOW, type Params } from './params.js';
import { confirmations, fail, flag, ok, succeeded, type ActionReply, type ActionTable } from './actions.js';
import { result } from '../serializers/transaction.js';

/** The txhash parameter, or the error reply. */
function txhash(p: Params): string | ActionReply {
  const raw = p.get('txhash');
  if (raw === undefined) return fail('Query parameter txhash is required');
  return parseHash(raw) ?? fail('Invalid txhash format');
}

/**
 * getstatus: isError "1" with the error of a failed transaction (the trace's error, else what its
 * receipt proves, as API v2's `result` says it: Blockscout's "awaiting internal transactions"
 * would never resolve here, no trace comes later), "0" and "" for a success and for an unknown
 * hash (as Blockscout answers it). A transaction whose outcome nobody knows (a pre-Byzantium
 * receipt, no traces) has isError "": Etherscan's word for an unknown status (its txlist's
 * txreceipt_status of such a transaction), neither "0" nor "1", so a client testing either is
 * not misled; errDescription "" as for any transaction without an error.
 */
async function getstatus(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const hash = txhash(p);
  if (typeof hash !== 'string') return hash;
  const t = await etherscanTransaction(ctx.ch, hash);
  if (!t) return ok({ isError: '0', errDescription: '' });
  const outcome = succeeded(t);
  return ok({ isError: flag(outcome, false), errDescription: outcome === false ? result(t) : '' }, 'stable');
}

/** gettxreceiptstatus: "1" success, "0" failure, "" for an unknown hash or a receipt without status. */
async function gettxreceiptstatus(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const hash = txhash(p);
  if (typeof hash !== 'string') return hash;
  const t = await etherscanTransaction(ctx.ch, hash);
  if (!t) return ok({ status: '' });
  return ok({ status: t.status === null ? '' : t.status === 1 ? '1' : '0' }, 'stable');
}

/** The output of a reverted transaction's top-level frame (its revert data), '' when not stored. */
async function revertOutput(ctx: ApiContext, block: bigint, index: number): Promise<string> {
  const rows = await topFramesAndFailures(ctx.ch, [{ block, index }], []);
  const out = rows.find((r) => Number(r.top))?.output;
  return out && out !== '0x' ? out : '';
}

/**
 * gettxinfo: the transaction with its logs; `success` null when its outcome is unknown. All of its logs are listed (Blockscout pages them by
 * 50), so next_page_params is null: there is no further page.
 */
async function gettxinfo(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const hash = txhash(p);
  if (typeof hash !== 'string') return hash;
  const [head, read] = await Promise.all([ctx.head(), etherscanTransaction(ctx.ch, hash)]);
  const [t] = read ? await withPointInputs(ctx.pg, [read], (x) => x.hash) : [];
  if (!t) return fail('Transaction not found', null, 'volatile');
  const [logs, lookups] = await Promise.all([
    etherscanTransactionLogs(ctx.ch, BigInt(t.block_number), t.transaction_index, RESULT_WINDOW),
    succeeded(t) === false ? revertOutput(ctx, BigInt(t.block_number), t.transaction_index) : null,
  ]);
  return ok({
    hash: t.hash,
    timeStamp: String(t.ts),
    blockNumber: t.block_number,
    confirmations: confirmations(head, t.block_number),
    // null: the outcome is not known (a pre-Byzantium receipt without traces), neither true nor false.
    success: succeeded(t),
    from: t.from,
    to: t.to,
    value: t.value,
    input: t.input,
    gasLimit: t.gas,
    gasUsed: t.gas_used,
    gasPrice: t.effective_gas_price,
    logs: logs.map((l) => ({ address: l.address, topics: [l.topic0, l.topic1, l.topic2, l.topic3].filter(Boolean), data: l.data || '0x', index: String(l.log_index) })),
    // The reverted call's output as stored from its trace ("" when there is none).
    revertReason: lookups ?? '',
    next_page_params: null,
  });
}

export const transactionActions: ActionTable = { getstatus, gettxreceiptstatus, gettxinfo };
