// Logs: wire -> rows.

import { hexToNumber, lower } from './hex.js';
import type { LogRow } from './clickhouse-rows.js';
import type { LogContext } from './tokens.js';
import type { RpcLog } from './wire.js';

export function decodeLog(log: RpcLog, ctx: Omit<LogContext, 'method_id'>): LogRow {
  const t = log.topics ?? [];
  return {
    block_number: ctx.block_number,
    log_index: hexToNumber(log.logIndex),
    transaction_index: ctx.transaction_index,
    transaction_hash: ctx.transaction_hash,
    block_hash: ctx.block_hash,
    address: lower(log.address),
    topic0: t.length > 0 ? lower(t[0]) : '',
    topic1: t.length > 1 ? lower(t[1]) : '',
    topic2: t.length > 2 ? lower(t[2]) : '',
    topic3: t.length > 3 ? lower(t[3]) : '',
    data: log.data || '0x',
    timestamp: ctx.timestamp,
  };
}
