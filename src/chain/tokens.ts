// Token transfers decoded from logs, told apart by the log's shape:
// - Transfer(address,address,uint256), 3 topics + 32-byte data: ERC-20 (value = amount).
// - Transfer, 4 topics + empty data: ERC-721 (token_id = topic3, value = 1).
// - Transfer, 1 topic + 96-byte data (from, to, id all unindexed, e.g. CryptoKitties): ERC-721,
//   as Blockscout does.
// - ERC-1155 TransferSingle (4 topics + 64-byte data) and TransferBatch (4 topics + ABI-encoded
//   uint256[] ids, uint256[] values): one row per id, batch_index = position in the batch.
// kind: token_minting when from is the zero address, token_burning when to is, else
// token_transfer. Malformed logs (other shapes, bad lengths or offsets) yield no row.

import { ZERO_ADDRESS, isHexBody, wordToAddress, wordToDec } from './hex.js';
import type { TokenTransferRow, TokenType, TransferKind } from './clickhouse-rows.js';
import type { RpcLog } from './wire.js';

export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const TRANSFER_SINGLE_TOPIC = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
export const TRANSFER_BATCH_TOPIC = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

/** Block/transaction context of a log. */
export interface LogContext {
  block_number: number;
  block_hash: string;
  timestamp: number;
  transaction_index: number;
  transaction_hash: string;
  /** Selector of the transaction that emitted the log ('' if none). */
  method_id: string;
}

export function transferKind(from: string, to: string): TransferKind {
  if (from === ZERO_ADDRESS) return 'token_minting';
  if (to === ZERO_ADDRESS) return 'token_burning';
  return 'token_transfer';
}

/** True if `topic0` may start a token transfer (cheap pre-filter). */
export function isTokenTopic(topic0: string | undefined): boolean {
  if (!topic0 || topic0.length !== 66) return false;
  const t = topic0.toLowerCase();
  return t === TRANSFER_TOPIC || t === TRANSFER_SINGLE_TOPIC || t === TRANSFER_BATCH_TOPIC;
}

function isTopic(t: string | undefined): t is string {
  return typeof t === 'string' && t.length === 66 && isHexBody(t);
}

function row(
  ctx: LogContext,
  logIndex: number,
  batchIndex: number,
  token: string,
  type: TokenType,
  from: string,
  to: string,
  value: string,
  tokenId: string | null,
): TokenTransferRow {
  return {
    block_number: ctx.block_number,
    log_index: logIndex,
    batch_index: batchIndex,
    transaction_index: ctx.transaction_index,
    transaction_hash: ctx.transaction_hash,
    block_hash: ctx.block_hash,
    timestamp: ctx.timestamp,
    token_address: token,
    token_type: type,
    from,
    to,
    value,
    token_id: tokenId,
    kind: transferKind(from, to),
    method_id: ctx.method_id,
  };
}

/**
 * Token transfer rows of one log (none, one, or one per id of an ERC-1155 batch), appended to
 * `out`. `logIndex` is the log's index in the block. Never throws on malformed data.
 */
export function decodeTokenTransfers(
  log: RpcLog,
  logIndex: number,
  ctx: LogContext,
  out: TokenTransferRow[] = [],
): TokenTransferRow[] {
  const topics = log.topics;
  if (!topics || topics.length === 0) return out;
  const t0 = topics[0];
  if (!isTokenTopic(t0)) return out;
  const sig = t0!.toLowerCase();
  const data = log.data ?? '0x';
  if (!data.startsWith('0x') || !isHexBody(data)) return out;
  const token = log.address.toLowerCase();
  try {
    if (sig === TRANSFER_TOPIC) {
      if (topics.length === 3 && data.length === 66 && isTopic(topics[1]) && isTopic(topics[2])) {
        out.push(row(ctx, logIndex, 0, token, 'ERC-20', wordToAddress(topics[1]), wordToAddress(topics[2]), wordToDec(data, 2), null));
      } else if (topics.length === 4 && data.length === 2 && isTopic(topics[1]) && isTopic(topics[2]) && isTopic(topics[3])) {
        out.push(row(ctx, logIndex, 0, token, 'ERC-721', wordToAddress(topics[1]), wordToAddress(topics[2]), '1', wordToDec(topics[3], 2)));
      } else if (topics.length === 1 && data.length === 2 + 192) {
        out.push(row(ctx, logIndex, 0, token, 'ERC-721', wordToAddress(data, 2), wordToAddress(data, 66), '1', wordToDec(data, 130)));
      }
      return out;
    }
    if (topics.length !== 4 || !isTopic(topics[2]) || !isTopic(topics[3])) return out;
    const from = wordToAddress(topics[2]);
    const to = wordToAddress(topics[3]);
    if (sig === TRANSFER_SINGLE_TOPIC) {
      if (data.length !== 2 + 128) return out;
      out.push(row(ctx, logIndex, 0, token, 'ERC-1155', from, to, wordToDec(data, 66), wordToDec(data, 2)));
      return out;
    }
    // TransferBatch(address operator, address from, address to, uint256[] ids, uint256[] values)
    const pairs = decodeBatch(data);
    if (!pairs) return out;
    const [ids, values] = pairs;
    for (let i = 0; i < ids.length; i++) {
      out.push(row(ctx, logIndex, i, token, 'ERC-1155', from, to, values[i]!, ids[i]!));
    }
  } catch {
    // Non-hex garbage in a word: not a transfer.
  }
  return out;
}

/** ABI-decode (uint256[], uint256[]) from log data; null when malformed. */
export function decodeBatch(data: string): [string[], string[]] | null {
  const hexLen = data.length - 2;
  if (hexLen < 256 || hexLen % 64 !== 0) return null;
  const words = hexLen / 64;
  const wordNum = (w: number): number => {
    // A word as a (small) number; Infinity when it does not fit in 32 bits.
    const s = data.slice(2 + w * 64, 2 + w * 64 + 64);
    if (!/^0{56}[0-9a-fA-F]{8}$/.test(s)) return Infinity;
    return parseInt(s.slice(56), 16);
  };
  const offIds = wordNum(0);
  const offValues = wordNum(1);
  if (offIds % 32 !== 0 || offValues % 32 !== 0) return null;
  const idsAt = offIds / 32;
  const valuesAt = offValues / 32;
  if (idsAt >= words || valuesAt >= words) return null;
  const nIds = wordNum(idsAt);
  const nValues = wordNum(valuesAt);
  if (nIds !== nValues || idsAt + 1 + nIds > words || valuesAt + 1 + nValues > words) return null;
  const ids = new Array<string>(nIds);
  const values = new Array<string>(nIds);
  for (let i = 0; i < nIds; i++) {
    ids[i] = wordToDec(data, 2 + (idsAt + 1 + i) * 64);
    values[i] = wordToDec(data, 2 + (valuesAt + 1 + i) * 64);
  }
  return [ids, values];
}
