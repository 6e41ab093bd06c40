// Blockscout's optimism paths, answered from the L2 side on an OP Stack chain (the chain family,
// src/indexer/chain-family.ts, stored as the indexer fact `chain_family`):
//   GET /optimism/deposits[/count]     the deposit transactions (type 0x7e)
//   GET /optimism/withdrawals[/count]  the MessagePassed logs of the L2ToL1MessagePasser predeploy
// in the shapes of Blockscout's OptimismView. What only the L1 side knows (a deposit's L1
// transaction, block and origin; a withdrawal's proof, finalization and status) comes from the
// OptimismPortal's logs the indexer's L1 follower stored (OP_L1_RPC_URL; op_l1_* tables), joined
// here by key; null where none is stored (the follower off, or not yet that far on L1), and a
// status only where those logs prove it (src/chain/op-l1.ts withdrawalStatus). Batches, output roots, dispute games and interop messages are not
// built: their paths say so with a 404 rather than answer empty. On other chains every
// /optimism path is Blockscout's 404, as a build without the optimism chain type answers.
import { decodeAbiParameters, type Hex } from 'viem';
import {
  countDeposits,
  countWithdrawalLogs,
  l1DepositsBySourceHash,
  l1WithdrawalEvents,
  listDeposits,
  listWithdrawalLogs,
  transactionWithdrawalLogs,
  type L1DepositRead,
  type L1WithdrawalEventRead,
  type WithdrawalLogRead,
} from '../../storage/clickhouse/reads/op-stack.js';
import { challengePeriodEnd, OP_L1_FACT, withdrawalStatus, type OpL1Fact, type WithdrawalL1Facts } from '../../chain/op-l1.js';
import type { TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import { getFact, getFactsWithTime } from '../../storage/postgres/indexer.js';
import type { PgStore } from '../../storage/postgres/store.js';
import { CHAIN_FAMILY_FACT, L2_TO_L1_MESSAGE_PASSER, MESSAGE_PASSED_TOPIC, parseOp, type ChainFamilyFact } from '../../chain/op-stack.js';
import { ApiError, NotFoundError } from '../errors.js';
import type { ApiContext } from '../context.js';
import type { RouteDef } from '../router.js';
import { key2, makePage, pageSize } from '../paging.js';
import { addressObject } from '../serializers/address.js';
import { int, isoTimestamp } from '../serializers/common.js';
import { BLOCK_NUMBER, INDEX, ITEMS_COUNT } from './common.js';

/** The family fact, read at most every few seconds per store (it changes at a deposit or a restart). */
const FAMILY_TTL_MS = 5000;
const families = new WeakMap<PgStore, { at: number; optimism: Promise<boolean> }>();

export function isOptimism(pg: PgStore): Promise<boolean> {
  const now = Date.now();
  const c = families.get(pg);
  if (c && now - c.at < FAMILY_TTL_MS) return c.optimism;
  const optimism = getFact<ChainFamilyFact>(pg, CHAIN_FAMILY_FACT).then((f) => f?.family === 'optimism');
  families.set(pg, { at: now, optimism });
  return optimism;
}

/** The L1 follower's fact (its portal and L1 head) and when it was written, read at most every few seconds per store. */
type OpL1State = OpL1Fact & { written_at: number };
const l1States = new WeakMap<PgStore, { at: number; fact: Promise<OpL1State | undefined> }>();
function opL1State(pg: PgStore): Promise<OpL1State | undefined> {
  const now = Date.now();
  const c = l1States.get(pg);
  if (c && now - c.at < FAMILY_TTL_MS) return c.fact;
  const fact = getFactsWithTime(pg, [OP_L1_FACT]).then((m) => {
    const f = m.get(OP_L1_FACT);
    return f ? { ...(f.value as OpL1Fact), written_at: f.updatedAt.getTime() } : undefined;
  });
  l1States.set(pg, { at: now, fact });
  return fact;
}

/**
 * L1 "now" (unix seconds): the newest L1 block's time the follower saw, plus the wall time since
 * it wrote it, so a follower that stopped (or was turned off) never keeps a withdrawal "In
 * challenge period" past its end.
 */
function l1Now(state: OpL1State | undefined): number | null {
  if (!state) return null;
  return state.l1_head_timestamp + Math.max(0, Math.floor((Date.now() - state.written_at) / 1000));
}

/** Blockscout's deposit fields of the L1 side, from the stored TransactionDeposited log (nulls without one). */
function depositL1Json(l1: L1DepositRead | undefined) {
  return {
    l1_block_number: l1 ? int(l1.l1_block_number) : null,
    l1_block_timestamp: l1 ? isoTimestamp(l1.l1_timestamp) : null,
    l1_transaction_hash: l1?.l1_transaction_hash ?? null,
    l1_transaction_origin: l1?.l1_transaction_origin ?? null,
  };
}

/** The withdrawal hash MessagePassed carries (its data's last word), or ''. */
function withdrawalHashOf(data: string): string {
  try {
    const [, , , h] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes32' }], data as Hex);
    return h.toLowerCase();
  } catch {
    return '';
  }
}

/** A withdrawal's L1 fields (status, finalizing transaction, challenge period end, portal) from its stored portal events. */
function withdrawalL1Json(events: readonly L1WithdrawalEventRead[], state: OpL1State | undefined) {
  const f: WithdrawalL1Facts = {};
  // Oldest first: the last proof and the finalization win.
  for (const e of events) {
    if (e.kind === 'finalized') f.finalized = { l1_transaction_hash: e.l1_transaction_hash, l1_timestamp: e.l1_timestamp, success: e.success === 1 };
    else f.proven = { l1_transaction_hash: e.l1_transaction_hash, l1_timestamp: e.l1_timestamp, proof_maturity_delay: e.proof_maturity_delay == null ? null : Number(e.proof_maturity_delay) };
  }
  const end = challengePeriodEnd(f);
  const portal = events.at(-1)?.portal ?? state?.portal ?? null;
  return {
    status: withdrawalStatus(f, l1Now(state)),
    l1_transaction_hash: f.finalized?.l1_transaction_hash ?? null,
    challenge_period_end: end == null ? null : isoTimestamp(end),
    portal_contract_address_hash: portal,
  };
}

/** The L1 events of these MessagePassed logs' withdrawals, by withdrawal hash. */
async function withdrawalEventsOf(ctx: ApiContext, logs: readonly { data: string }[]): Promise<{ hashes: string[]; byHash: Map<string, L1WithdrawalEventRead[]> }> {
  const hashes = logs.map((l) => withdrawalHashOf(l.data));
  const byHash = new Map<string, L1WithdrawalEventRead[]>();
  for (const e of await l1WithdrawalEvents(ctx.ch, hashes)) {
    const list = byHash.get(e.withdrawal_hash) ?? [];
    list.push(e);
    byHash.set(e.withdrawal_hash, list);
  }
  return { hashes, byHash };
}

async function requireOptimism(ctx: ApiContext): Promise<void> {
  if (!(await isOptimism(ctx.pg))) throw new NotFoundError();
}

const PAGE_QUERY = { block_number: BLOCK_NUMBER, index: INDEX, items_count: ITEMS_COUNT };
const NONCE_MASK = (1n << 240n) - 1n;
const wordToAddress = (w: string) => (w && w.length === 66 ? `0x${w.slice(26)}` : null);

/** Blockscout's OptimismView withdrawal item: the L2 side's log and the L1 side's stored events. */
function withdrawalJson(w: WithdrawalLogRead, facts: Parameters<typeof addressObject>[1], l1: ReturnType<typeof withdrawalL1Json>) {
  const nonce = BigInt(w.topic1);
  let value: string | null = null;
  let gasLimit: string | null = null;
  let data: string | null = null;
  try {
    const [v, g, d] = decodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes32' }], w.data as Hex);
    value = v.toString();
    gasLimit = g.toString();
    data = d;
  } catch {
    // Not MessagePassed's data after all: its fields unknown (null), as Blockscout leaves them without the log's data.
  }
  return {
    msg_nonce_raw: nonce.toString(),
    msg_nonce: Number(nonce & NONCE_MASK),
    msg_nonce_version: Number(nonce >> 240n),
    from: w.tx_from ? addressObject(w.tx_from, facts) : null,
    l2_transaction_hash: w.transaction_hash,
    l2_timestamp: isoTimestamp(w.ts),
    ...l1,
    msg_sender_address_hash: wordToAddress(w.topic2),
    msg_target_address_hash: wordToAddress(w.topic3),
    msg_value: value,
    msg_gas_limit: gasLimit,
    msg_data: data,
  };
}

/**
 * Blockscout's `op_withdrawals` of a transaction on an OP Stack chain (OptimismView
 * add_optimism_fields): the withdrawals it started, from its MessagePassed logs; undefined on
 * other chains (the field is absent there). The L1 side's fields are null (not built).
 */
export async function opWithdrawalsOf(ctx: ApiContext, tx: TransactionRead): Promise<Record<string, unknown>[] | undefined> {
  if (!(await isOptimism(ctx.pg))) return undefined;
  // The ingest counted them: a transaction that started none reads nothing more (the point row answers alone).
  if (!parseOp(tx.op)?.message_passed) return [];
  const logs = await transactionWithdrawalLogs(ctx.ch, L2_TO_L1_MESSAGE_PASSER, MESSAGE_PASSED_TOPIC, BigInt(tx.block_number), tx.transaction_index);
  const [{ hashes, byHash }, state] = await Promise.all([withdrawalEventsOf(ctx, logs), opL1State(ctx.pg)]);
  return logs.map((l, i) => {
    const w = withdrawalJson({ ...l, tx_from: '' }, new Map(), withdrawalL1Json(byHash.get(hashes[i]!) ?? [], state));
    return {
      nonce: w.msg_nonce,
      status: w.status,
      l1_transaction_hash: w.l1_transaction_hash,
      portal_contract_address_hash: w.portal_contract_address_hash,
      msg_nonce_raw: w.msg_nonce_raw,
      msg_sender_address_hash: w.msg_sender_address_hash,
      msg_target_address_hash: w.msg_target_address_hash,
      msg_value: w.msg_value,
      msg_gas_limit: w.msg_gas_limit,
      msg_data: w.msg_data,
    };
  });
}

/**
 * This explorer's `op_deposit` of a deposit transaction on an OP Stack chain: its L1 side, as
 * Blockscout's deposit list names it (nulls where no L1 log is stored); undefined for every other
 * transaction.
 */
export async function opDepositOf(ctx: ApiContext, tx: TransactionRead): Promise<ReturnType<typeof depositL1Json> | undefined> {
  const source = parseOp(tx.op)?.source_hash;
  if (!source || tx.type !== 126 || !(await isOptimism(ctx.pg))) return undefined;
  return depositL1Json((await l1DepositsBySourceHash(ctx.ch, [source])).get(source.toLowerCase()));
}

/** Paths of Blockscout's optimism build whose data lives on L1 or in the batcher's frames: not built. */
const NOT_BUILT = [
  '/optimism/batches',
  '/optimism/batches/count',
  '/optimism/batches/:id',
  '/optimism/batches/da/celestia/:height/:commitment',
  '/optimism/txn-batches',
  '/optimism/txn-batches/count',
  '/optimism/output-roots',
  '/optimism/output-roots/count',
  '/optimism/games',
  '/optimism/games/count',
  '/optimism/interop/messages',
  '/optimism/interop/messages/count',
  '/optimism/interop/messages/:id',
  '/optimism/interop/public-key',
  '/main-page/optimism-deposits',
];
const NOT_BUILT_BODY = {
  message: 'Not built: this explorer answers OP Stack deposits and withdrawals (from the L2 side, and from the OptimismPortal\'s logs on L1 where OP_L1_RPC_URL is set); batches, output roots, dispute games and interop messages are not indexed (README.md, "OP Stack")',
};

export const optimismRoutes: RouteDef[] = [
  {
    pattern: '/optimism/deposits',
    query: PAGE_QUERY,
    async handler({ query, ctx }) {
      await requireOptimism(ctx);
      const size = pageSize(query);
      const rows = await listDeposits(ctx.ch, { before: key2(query), limit: size + 1 });
      const l1 = await l1DepositsBySourceHash(ctx.ch, rows.slice(0, size).map((d) => d.source_hash));
      const body = makePage(
        rows,
        size,
        (rs) =>
          rs.map((d) => ({
            ...depositL1Json(l1.get(d.source_hash.toLowerCase())),
            l2_transaction_hash: d.hash,
            l2_transaction_gas_limit: d.gas,
            // This explorer's additions: where on L2 the deposit landed.
            l2_block_number: int(d.block_number),
            l2_timestamp: isoTimestamp(d.ts),
          })),
        (d) => ({ block_number: int(d.block_number), index: d.transaction_index }),
      );
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/optimism/deposits/count',
    async handler({ ctx }) {
      await requireOptimism(ctx);
      return { body: await countDeposits(ctx.ch), policy: 'volatile' };
    },
  },
  {
    pattern: '/optimism/withdrawals',
    query: PAGE_QUERY,
    async handler({ query, ctx }) {
      await requireOptimism(ctx);
      const size = pageSize(query);
      const rows = await listWithdrawalLogs(ctx.ch, L2_TO_L1_MESSAGE_PASSER, MESSAGE_PASSED_TOPIC, { before: key2(query), limit: size + 1 });
      const [facts, { hashes, byHash }, state] = await Promise.all([
        ctx.addressFacts(rows.slice(0, size).map((r) => r.tx_from).filter(Boolean)),
        withdrawalEventsOf(ctx, rows.slice(0, size)),
        opL1State(ctx.pg),
      ]);
      const body = makePage(
        rows,
        size,
        (rs) => rs.map((w, i) => withdrawalJson(w, facts, withdrawalL1Json(byHash.get(hashes[i]!) ?? [], state))),
        (w) => ({ block_number: int(w.block_number), index: w.log_index }),
      );
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/optimism/withdrawals/count',
    async handler({ ctx }) {
      await requireOptimism(ctx);
      return { body: await countWithdrawalLogs(ctx.ch, L2_TO_L1_MESSAGE_PASSER, MESSAGE_PASSED_TOPIC), policy: 'volatile' };
    },
  },
  ...NOT_BUILT.map(
    (pattern): RouteDef => ({
      pattern,
      async handler({ ctx }) {
        await requireOptimism(ctx);
        throw new ApiError(404, NOT_BUILT_BODY);
      },
    }),
  ),
];
