// /transactions/{hash}/summary: what the transaction did (src/api/tx-summary.ts), or with
// `just_request_body=true` what Blockscout would send its interpreter service (the transaction, its
// token transfers, internal transactions and logs), both from the stored chain.
import { transactionTokenTransfers } from '../../storage/clickhouse/reads/token-transfers.js';
import { transactionInternalTransactions } from '../../storage/clickhouse/reads/internal-transactions.js';
import { transactionLogs } from '../../storage/clickhouse/reads/logs.js';
import type { RouteDef } from '../router.js';
import type { ParamSpec } from '../params.js';
import { transactionJson } from '../serializers/transaction.js';
import { tokenTransferJson } from '../serializers/token-transfer.js';
import { internalTransactionJson } from '../serializers/internal-transaction.js';
import { logJson } from '../serializers/log.js';
import { requiredAddress } from '../serializers/address.js';
import { tokenJson } from '../serializers/token.js';
import { TX_PATH } from './common.js';
import { findTransaction } from './transactions.js';
import { namedInLogs, summarize } from '../tx-summary.js';

/** Items of each kind read for one summary (a transaction with more is summarised from its first ones, and says so). */
const MAX_ITEMS = 200;
const JUST_REQUEST_BODY: ParamSpec = { kind: 'enum', values: ['true', 'false'] };

export const txSummaryRoutes: RouteDef[] = [
  {
    pattern: '/transactions/:transaction_hash_param/summary',
    path: TX_PATH,
    query: { just_request_body: JUST_REQUEST_BODY },
    async handler({ path, query, ctx }) {
      const found = await findTransaction(ctx, path.transaction_hash_param as string);
      // A pending transaction has done nothing yet.
      if ('pending' in found) return { body: { success: true, data: { summaries: [] } }, policy: 'none' };
      const tx = found.tx;
      const block = BigInt(tx.block_number);
      const [transfers, logs, frames] = await Promise.all([
        tx.token_transfer_count > 0 ? transactionTokenTransfers(ctx.ch, block, tx.transaction_index, { limit: MAX_ITEMS + 1 }) : Promise.resolve([]),
        transactionLogs(ctx.ch, block, tx.transaction_index, undefined, MAX_ITEMS + 1),
        query.just_request_body === 'true' ? transactionInternalTransactions(ctx.ch, block, tx.transaction_index, undefined, MAX_ITEMS) : Promise.resolve([]),
      ]);
      const emitters = [...new Set(logs.map((l) => l.address))];
      const [lookups, facts, tokens] = await Promise.all([
        ctx.txLookups([tx], [], found.known),
        ctx.addressFacts([
          ...transfers.flatMap((t) => [t.from, t.to]),
          ...frames.flatMap((f) => [f.from, f.to, f.created_contract_address]),
          ...namedInLogs(logs),
        ]),
        ctx.tokens(emitters),
        ctx.withTokenRecords(transfers),
      ]);
      const all = new Map([...facts, ...lookups.facts]);
      const transferJson = transfers.slice(0, MAX_ITEMS).map((t) => tokenTransferJson(t, all));
      const txJson = transactionJson(tx, { ...lookups, facts: all }, { tokenTransfers: transferJson.slice(0, 10) });
      const logItems = logs.slice(0, MAX_ITEMS);
      if (query.just_request_body === 'true') {
        const body = {
          // The chain id is the node's; the API does not hold it (null, as the schema allows).
          chain_id: null,
          data: {
            hash: txJson.hash,
            from: txJson.from,
            to: txJson.to,
            method: txJson.method,
            status: txJson.status ?? txJson.result,
            type: txJson.type,
            value: txJson.value,
            token_transfers: transferJson,
            internal_transactions: frames.map((f) => internalTransactionJson(f, all)),
            transaction_types: txJson.transaction_types,
            decoded_input: txJson.decoded_input,
            raw_input: txJson.raw_input,
          },
          logs_data: { items: logItems.map((l) => logJson(l, all, ctx.signatures)) },
        };
        return { body, policy: 'derived' };
      }
      const summaries = summarize({
        status: txJson.status,
        value: txJson.value,
        to: txJson.to,
        created_contract: txJson.created_contract,
        transfers: transferJson,
        logs: logItems.map((l) => ({ address: l.address, topics: [l.topic0, l.topic1, l.topic2, l.topic3].filter((x) => !!x), data: l.data || '0x', index: l.log_index })),
        tokens: new Map([...tokens].map(([a, r]) => [a, tokenJson(r)])),
        address: (a) => requiredAddress(a, all),
      });
      if (transfers.length > MAX_ITEMS || logs.length > MAX_ITEMS) {
        summaries.push({ summary_template: '{note}', summary_template_variables: { note: { type: 'string', value: `Summarised from the first ${MAX_ITEMS} token transfers and logs only` } } });
      }
      // Token records (names, decimals) are derived data: dropped when the lanes change them.
      return { body: { success: true, data: { summaries } }, policy: 'derived' };
    },
  },
];
