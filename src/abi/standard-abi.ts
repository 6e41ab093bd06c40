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
 * A call's method name (by its selector, as the CSV export and token transfers name it too, which
 * do not read inputs) and Blockscout's `decoded_input` by the table; null when the selector is not
 * in it. The input is decoded only when it fits the function and is not too long.
 */
export function standardInput(input: string): { method: string; decoded: Obj | null } | null {
  if (input.length < 10) return null;
  const fn = standardAbi().functions.get(input.slice(0, 10).toLowerCase());
  if (!fn) return null;
  return { method: fn.name, decoded: tooLong(input) ? null : decodeInput(standardAbi(), input as Hex) };
}

/** Blockscout's `decoded` of a log by the table, or null. */
export function standardLog(topics: readonly (string | null)[], data: string): Obj | null {
  const t = topics.filter((x): x is string => !!x) as Hex[];
  if (!t.length || tooLong(data)) return null;
  return decodeLog(standardAbi(), t, (data || '0x') as Hex);
}

/**
 * A call named and decoded as responses show it to everyone: by the contract's verified ABI when
 * it has the selector, else by the standard-interface table; null: neither knows it.
 */
export function describeCall(input: string, verified: IndexedAbi | null | undefined): { method: string; decoded: Obj | null } | null {
  const fn = verified && input.length >= 10 ? verified.functions.get(input.slice(0, 10).toLowerCase()) : undefined;
  if (fn) return { method: fn.name, decoded: tooLong(input) ? null : decodeInput(verified!, input as Hex) };
  return standardInput(input);
}

/** A log decoded by its emitter's verified ABI, else by the table; null when neither fits. */
export function describeLog(topics: readonly (string | null)[], data: string, verified: IndexedAbi | null | undefined): Obj | null {
  if (verified) {
    const t = topics.filter((x): x is string => !!x) as Hex[];
    const own = t.length && !tooLong(data) ? decodeLog(verified, t, (data || '0x') as Hex) : null;
    if (own) return own;
  }
  return standardLog(topics, data);
}
