// Log JSON (Blockscout's transaction_view prepare_log). `decoded` by the emitter's verified ABI,
// else the curated tables, else the instance's names (src/abi/naming.ts; the viewer's custom ABI
// may override it); smart_contract is null on /transactions/{h}/logs in Blockscout too.
import type { LogRead } from '../../storage/clickhouse/reads/logs.js';
import { requiredAddress, type AddressJson, type FactsLookup } from './address.js';
import { int, isoTimestamp, orNull } from './common.js';
import type { Obj } from '../../abi/decode.js';
import { nameLog, type InstanceNames, type Naming } from '../../abi/naming.js';

export interface LogJson {
  transaction_hash: string;
  address: AddressJson;
  topics: (string | null)[];
  data: string;
  index: number;
  decoded: Obj | null;
  smart_contract: AddressJson | null;
  block_number: number;
  block_hash: string;
  block_timestamp: string | null;
  /** This project's addition: how `decoded` was named (src/abi/naming.ts); null when it was not. */
  decoded_naming: Naming | null;
}

export function logJson(l: LogRead, facts: FactsLookup, names?: InstanceNames): LogJson {
  const named = nameLog([l.topic0, l.topic1, l.topic2, l.topic3], l.data || '0x', facts.get(l.address)?.abi, names);
  return {
    transaction_hash: l.transaction_hash,
    address: requiredAddress(l.address, facts),
    topics: [orNull(l.topic0), orNull(l.topic1), orNull(l.topic2), orNull(l.topic3)],
    data: l.data || '0x',
    index: l.log_index,
    decoded: named?.decoded ?? null,
    smart_contract: null,
    block_number: int(l.block_number),
    block_hash: l.block_hash,
    block_timestamp: isoTimestamp(l.ts),
    decoded_naming: named?.naming ?? null,
  };
}
