// module=logs of the Etherscan-compatible API: getLogs by block range, address and topics, with
// the required-parameter rules and messages of Blockscout's API.RPC.LogsController and the field
// formats of its LogsView (numbers as "0x" hex).
import type { ApiContext } from '../context.js';
import { etherscanLogs } from '../../storage/clickhouse/reads/etherscan.js';
import { parseAddress, parseInteger, type Params } from './params.js';
import { fail, hex, notFound, ok, txFields, type ActionReply, type ActionTable } from './actions.js';

/** At most this many logs per answer (Etherscan's getLogs limit). */
export const LOGS_MAX = 1000;

const TOPICS = ['topic0', 'topic1', 'topic2', 'topic3'] as const;
/** The operator between two filtered topics, in the order Blockscout reports missing ones. */
const OPERATORS: readonly [number, number][] = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]];
const opName = ([a, b]: readonly [number, number]) => `topic${a}_${b}_opr`;

/** Which required parameters are missing, in Blockscout's words; null when none. */
export function missingLogParams(p: Params): string | null {
  const allOf = ['fromBlock', 'toBlock'].filter((n) => !p.has(n));
  const oneOf = p.has('address') || TOPICS.some((t) => p.has(t));
  if (allOf.length || !oneOf) return [...allOf, ...(oneOf ? [] : ['address and/or topic{x}'])].join(', ');
  const ops = OPERATORS.filter(([a, b]) => p.has(TOPICS[a]) && p.has(TOPICS[b]) && !p.has(opName([a, b]))).map(opName);
  return ops.length ? ops.join(', ') : null;
}

async function getLogs(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const missing = missingLogParams(p);
  if (missing) return fail(`Required query parameters missing: ${missing}`);
  const bound = async (name: string): Promise<bigint | null | 'empty'> => {
    const v = p.get(name)!;
    if (v === 'latest') return (await ctx.head()) ?? 'empty';
    return parseInteger(v);
  };
  const from = await bound('fromBlock');
  if (from === null) return fail('Invalid fromBlock format');
  const to = await bound('toBlock');
  if (to === null) return fail('Invalid toBlock format');
  const rawAddress = p.get('address');
  const address = rawAddress === undefined ? undefined : parseAddress(rawAddress);
  if (address === null) return fail('Invalid address format');
  const badOp = OPERATORS.map(opName).find((n) => p.has(n) && p.get(n) !== 'and' && p.get(n) !== 'or');
  if (badOp) return fail(`Invalid ${badOp} format`);
  if (from === 'empty' || to === 'empty' || to < 0n || to < from) return notFound('No logs found');
  const topics = TOPICS.map((t) => p.get(t)?.toLowerCase());
  // Each filtered topic after the first joins by its operator with the filtered topic before it.
  const given = topics.flatMap((t, i) => (t === undefined ? [] : [i]));
  const ops = given.slice(1).map((b, k) => (p.get(opName([given[k], b])) === 'or' ? 'or' : 'and') as 'and' | 'or');
  const rows = await etherscanLogs(ctx.ch, { from: from < 0n ? 0n : from, to, address, filter: { topics, ops }, limit: LOGS_MAX });
  if (!rows.length) return notFound('No logs found');
  const txs = await txFields(ctx, [...new Map(rows.map((r) => [`${r.block_number}:${r.transaction_index}`, { block: r.block_number, index: r.transaction_index }])).values()]);
  return ok(
    rows.map((l) => {
      const tx = txs.get(`${l.block_number}:${l.transaction_index}`);
      return {
        address: l.address,
        topics: [l.topic0, l.topic1, l.topic2, l.topic3].map((t) => t || null),
        data: l.data || '0x',
        blockNumber: hex(l.block_number),
        // Etherscan's field; Blockscout's view has no block hash.
        blockHash: l.block_hash,
        timeStamp: hex(l.ts),
        gasPrice: tx ? hex(tx.effective_gas_price) : null,
        gasUsed: tx ? hex(tx.gas_used) : null,
        logIndex: hex(l.log_index),
        transactionHash: l.transaction_hash,
        transactionIndex: hex(l.transaction_index),
      };
    }),
  );
}

export const logsActions: ActionTable = { getlogs: getLogs };
