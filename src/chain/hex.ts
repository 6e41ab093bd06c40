// Fast hex helpers for the ingest hot path. JSON-RPC quantities are '0x'-prefixed hex strings.
// Values of up to 13 hex digits (< 2^52) fit a double exactly and are converted with Number();
// larger ones go through BigInt only when needed.

/** Hex quantity -> JS number. Only for values known to be small (indexes, block numbers, gas). */
export function hexToNumber(hex: string | null | undefined): number {
  if (!hex) return 0;
  const n = Number(hex);
  if (Number.isNaN(n)) throw new TypeError(`not a hex quantity: ${String(hex).slice(0, 80)}`);
  return n;
}

/** Hex quantity -> decimal string (any size). Null/undefined/'0x' -> '0'. */
export function hexToDec(hex: string | null | undefined): string {
  if (!hex || hex.length <= 2) return '0';
  if (hex.length <= 15) {
    const n = Number(hex);
    if (Number.isNaN(n)) throw new TypeError(`not a hex quantity: ${hex.slice(0, 80)}`);
    return '' + n;
  }
  return BigInt(hex).toString();
}

/** Hex quantity -> decimal string, or null when absent. */
export function hexToDecOrNull(hex: string | null | undefined): string | null {
  return hex == null ? null : hexToDec(hex);
}

/** Hex quantity -> number when it fits 2^52, else decimal string (for UInt64 columns). */
export function hexToU64(hex: string | null | undefined): number | string {
  if (!hex || hex.length <= 2) return 0;
  if (hex.length <= 15) {
    const n = Number(hex);
    if (Number.isNaN(n)) throw new TypeError(`not a hex quantity: ${hex.slice(0, 80)}`);
    return n;
  }
  return BigInt(hex).toString();
}

export function hexToU64OrNull(hex: string | null | undefined): number | string | null {
  return hex == null ? null : hexToU64(hex);
}

/** Hex quantity -> bigint (0n when absent). */
export function hexToBigInt(hex: string | null | undefined): bigint {
  if (!hex || hex.length <= 2) return 0n;
  return BigInt(hex);
}

/** Lower-case a hex string (hashes, addresses); null/undefined -> ''. */
export function lower(s: string | null | undefined): string {
  return s ? s.toLowerCase() : '';
}

/** A 32-byte topic or ABI word ('0x' + 64 hex, or 64 hex) -> lower-case 20-byte address. */
export function wordToAddress(word: string, offset = 2): string {
  return '0x' + word.slice(offset + 24, offset + 64).toLowerCase();
}

/** 64 hex digits (no prefix) at `offset` of `hex` -> decimal string. */
export function wordToDec(hex: string, offset: number): string {
  // Skip leading zeros so small values stay on the Number path.
  let i = offset;
  const end = offset + 64;
  while (i < end && hex.charCodeAt(i) === 48 /* '0' */) i++;
  if (i === end) return '0';
  if (end - i <= 13) return '' + parseInt(hex.slice(i, end), 16);
  return BigInt('0x' + hex.slice(i, end)).toString();
}

/** True when every char of `s` from `from` on is a hex digit. */
export function isHexBody(s: string, from = 2): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) return false;
  }
  return true;
}

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

export function toHex(n: number | bigint): string {
  return '0x' + n.toString(16);
}
