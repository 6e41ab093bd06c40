// The standard-interface table (ERC-20/721/1155, ownership, roles, proxies...: generated from
// OpenZeppelin's ABIs) indexed for decoding on first use: what names the methods and decodes the
// inputs and logs of contracts that have no verified or custom ABI.
import type { Hex } from 'viem';
import { decodeInput, decodeLog, indexAbi, type IndexedAbi, type Obj } from './decode.js';
import { STANDARD_ABI } from './standard-abi.generated.js';

let indexed: IndexedAbi | undefined;

export function standardAbi(): IndexedAbi {
  return (indexed ??= indexAbi(STANDARD_ABI));
}

/** The function name of a selector ("0xa9059cbb") in the table, or null. */
export function standardMethodName(selector: string): string | null {
  return standardAbi().functions.get(selector.toLowerCase())?.name ?? null;
}

/** Inputs and log data longer than this (bytes) are named but not decoded (shared responses stay cheap). */
export const STANDARD_DECODE_MAX_BYTES = 32 * 1024;

const tooLong = (hex: string) => (hex.length - 2) / 2 > STANDARD_DECODE_MAX_BYTES;

/**
 * A call's method name and Blockscout's `decoded_input` by the table, or null when its selector is
 * not in it or the input does not decode as that function (then it is some other function that
 * happens to share the selector). An input too long to decode is named only.
 */
export function standardInput(input: string): { method: string; decoded: Obj | null } | null {
  if (input.length < 10) return null;
  const fn = standardAbi().functions.get(input.slice(0, 10).toLowerCase());
  if (!fn) return null;
  if (tooLong(input)) return { method: fn.name, decoded: null };
  const decoded = decodeInput(standardAbi(), input as Hex);
  return decoded ? { method: fn.name, decoded } : null;
}

/** Blockscout's `decoded` of a log by the table, or null. */
export function standardLog(topics: readonly (string | null)[], data: string): Obj | null {
  const t = topics.filter((x): x is string => !!x) as Hex[];
  if (!t.length || tooLong(data)) return null;
  return decodeLog(standardAbi(), t, (data || '0x') as Hex);
}
