// Value encodings of Blockscout's API v2 (../shared/spec/blockscout-api-v2.md §1.2): amounts as
// digit strings, heights integers, timestamps ISO-8601 UTC with 6 fractional digits and Z,
// addresses inside Address objects EIP-55 checksummed.
import { getAddress } from 'viem';
import { LRUCache } from 'lru-cache';

const checksums = new LRUCache<string, string>({ max: 100_000 });

/** EIP-55 form of a lower-case 0x address (memoized: the same addresses recur on every page). */
export function checksum(address: string): string {
  let c = checksums.get(address);
  if (c === undefined) {
    c = getAddress(address);
    checksums.set(address, c);
  }
  return c;
}

let lastSeconds = NaN;
let lastIso = '';
/** Unix seconds → "2022-10-10T14:34:30.000000Z" (the last one kept: a page's rows mostly share their block's time). */
export function isoTimestamp(seconds: number): string {
  if (seconds !== lastSeconds) {
    lastIso = isoDate(new Date(seconds * 1000));
    lastSeconds = seconds;
  }
  return lastIso;
}

/** A Date → Blockscout's ISO-8601 UTC with 6 fractional digits ("2022-10-10T14:34:30.123000Z"). */
export function isoDate(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** '' → null, otherwise the value. */
export function orNull(s: string | null | undefined): string | null {
  return s ? s : null;
}

/** A digit string as a bigint (null/'' → null). */
export function big(s: string | number | null | undefined): bigint | null {
  return s === null || s === undefined || s === '' ? null : BigInt(s);
}

/** Integer for a UInt64 column that holds heights/counters (always far below 2^53 on real chains). */
export function int(s: string | number): number {
  return typeof s === 'number' ? s : Number(s);
}

/** Percentage as Blockscout computes it with Decimals, returned as a float. */
export function percent(part: bigint, whole: bigint): number {
  if (whole === 0n) return 0;
  // 1e12 fixed point keeps precision for any realistic gas figures.
  return Number((part * 100n * 1_000_000_000_000n) / whole) / 1_000_000_000_000;
}
