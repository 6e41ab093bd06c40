// TokenTransfer JSON (Blockscout's token_transfer_view prepare_token_transfer).
import type { TokenTransferRead } from '../../storage/clickhouse/reads/token-transfers.js';
import { requiredAddress, type AddressJson, type FactsLookup, type TokenJson } from './address.js';
import { int, isoTimestamp } from './common.js';
import { tokenJsonOr } from './token.js';
import { methodName } from '../../abi/naming.js';

export type TotalJson =
  | { value: string; decimals: string | null }
  | { token_id: string | null; token_instance: null }
  | { token_id: string | null; value: string; decimals: string | null; token_instance: null };

export interface TokenTransferJson {
  transaction_hash: string;
  block_hash: string;
  block_number: number;
  log_index: number;
  timestamp: string | null;
  from: AddressJson;
  to: AddressJson;
  token: TokenJson;
  token_type: string;
  type: string;
  method: string | null;
  total: TotalJson;
}

/**
 * `decimals` from the token's derived record (null until its metadata is read, and for tokens
 * without decimals). NFT instances are not embedded in transfers (null).
 */
export function totalJson(t: Pick<TokenTransferRead, 'token_type' | 'value' | 'token_id' | 'token_meta'>): TotalJson {
  const d = t.token_meta?.decimals;
  const decimals = d === null || d === undefined ? null : String(d);
  switch (t.token_type) {
    case 'ERC-721':
      return { token_id: t.token_id, token_instance: null };
    case 'ERC-1155':
      return { token_id: t.token_id, value: t.value, decimals, token_instance: null };
    default:
      return { value: t.value, decimals };
  }
}

export function tokenTransferJson(t: TokenTransferRead, facts: FactsLookup): TokenTransferJson {
  return {
    transaction_hash: t.transaction_hash,
    block_hash: t.block_hash,
    block_number: int(t.block_number),
    log_index: t.log_index,
    timestamp: isoTimestamp(t.ts),
    from: requiredAddress(t.from, facts),
    to: requiredAddress(t.to, facts),
    token: tokenJsonOr(t.token_address, t.token_type, t.token_meta),
    token_type: t.token_type,
    type: t.kind,
    method: t.method_id ? (methodName(t.method_id) ?? t.method_id) : null,
    total: totalJson(t),
  };
}
