// Blockscout's optimism paths, answered from the L2 side on an OP Stack chain (the chain family,
// src/indexer/chain-family.ts, stored as the indexer fact `chain_family`):
//   GET /optimism/deposits[/count]     the deposit transactions (type 0x7e)
//   GET /optimism/withdrawals[/count]  the MessagePassed logs of the L2ToL1MessagePasser predeploy
// in the shapes of Blockscout's OptimismView. What only the L1 side knows (a deposit's L1
// transaction, block and origin; a withdrawal's proof, finalization and status) is not built and
// null (README.md, "OP Stack"). Batches, output roots, dispute games and interop messages are not
// built: their paths say so with a 404 rather than answer empty. On other chains every
// /optimism path is Blockscout's 404, as a build without the optimism chain type answers.
import { decodeAbiParameters, type Hex } from 'viem';
import { countDeposits, countWithdrawalLogs, listDeposits, listWithdrawalLogs, transactionWithdrawalLogs, type WithdrawalLogRead } from '../../storage/clickhouse/reads/op-stack.js';
import type { TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import { getFact } from '../../storage/postgres/indexer.js';
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

async function requireOptimism(ctx: ApiContext): Promise<void> {
  if (!(await isOptimism(ctx.pg))) throw new NotFoundError();
}

const PAGE_QUERY = { block_number: BLOCK_NUMBER, index: INDEX, items_count: ITEMS_COUNT };
const NONCE_MASK = (1n << 240n) - 1n;
const wordToAddress = (w: string) => (w && w.length === 66 ? `0x${w.slice(26)}` : null);

/** Blockscout's OptimismView withdrawal item, from the L2 side (the L1 side's fields null). */
function withdrawalJson(w: WithdrawalLogRead, facts: Parameters<typeof addressObject>[1]) {
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
    // The L1 side (proof, finalization, the portal) is not built: unknown.
    status: null,
    l1_transaction_hash: null,
    challenge_period_end: null,
    portal_contract_address_hash: null,
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
  return logs.map((l) => {
    const w = withdrawalJson({ ...l, tx_from: '' }, new Map());
    return {
      nonce: w.msg_nonce,
      status: null,
      l1_transaction_hash: null,
      portal_contract_address_hash: null,
      msg_nonce_raw: w.msg_nonce_raw,
      msg_sender_address_hash: w.msg_sender_address_hash,
      msg_target_address_hash: w.msg_target_address_hash,
      msg_value: w.msg_value,
      msg_gas_limit: w.msg_gas_limit,
      msg_data: w.msg_data,
    };
  });
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
  message: 'Not built: this explorer answers OP Stack deposits and withdrawals from the L2 side only; batches, output roots, dispute games, interop messages and the L1 side are not indexed (README.md, "OP Stack")',
};

export const optimismRoutes: RouteDef[] = [
  {
    pattern: '/optimism/deposits',
    query: PAGE_QUERY,
    async handler({ query, ctx }) {
      await requireOptimism(ctx);
      const size = pageSize(query);
      const rows = await listDeposits(ctx.ch, { before: key2(query), limit: size + 1 });
      const body = makePage(
        rows,
        size,
        (rs) =>
          rs.map((d) => ({
            l1_block_number: null,
            l2_transaction_hash: d.hash,
            l1_block_timestamp: null,
            l1_transaction_hash: null,
            l1_transaction_origin: null,
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
      const facts = await ctx.addressFacts(rows.slice(0, size).map((r) => r.tx_from).filter(Boolean));
      const body = makePage(
        rows,
        size,
        (rs) => rs.map((w) => withdrawalJson(w, facts)),
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
