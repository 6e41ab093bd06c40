// A withdrawal as Blockscout's API v2 renders it (WithdrawalView.prepare_withdrawal): the chain's
// list names its block and receiver, a block's omits the block, an address's omits the receiver.
import type { WithdrawalRead } from '../../storage/clickhouse/reads/withdrawals.js';
import { requiredAddress, type AddressJson, type FactsLookup } from './address.js';
import { int, isoTimestamp } from './common.js';

export interface WithdrawalJson {
  index: number;
  validator_index: number;
  block_number?: number;
  receiver?: AddressJson;
  amount: string;
  timestamp?: string;
}

/** `receivers`: the receivers' facts (absent: the receiver is the page's address); `withBlock`: false on a block's page. */
export function withdrawalJson(w: WithdrawalRead, o: { receivers?: FactsLookup; withBlock: boolean }): WithdrawalJson {
  const index = int(w.withdrawal_index);
  const validator_index = int(w.validator_index);
  const receiver = o.receivers ? requiredAddress(w.address, o.receivers) : undefined;
  if (!o.withBlock) return { index, validator_index, receiver, amount: w.amount };
  return { index, validator_index, block_number: int(w.block_number), receiver, amount: w.amount, timestamp: isoTimestamp(w.ts) };
}

/** A withdrawals page's next_page_params: the last item's index (Blockscout's paging key). */
export const withdrawalCursor = (w: WithdrawalRead) => ({ index: int(w.withdrawal_index) });
