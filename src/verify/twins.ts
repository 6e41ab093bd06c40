// Bytecode twins: contracts deployed from the same build as a verified one. What differs between
// two deployments of one build is masked out of the deployed code (immutables, linked library
// addresses, a library's call protection, the metadata hashes: lib-sourcify's runtime
// transformations say where), and the masked code hashed; a contract whose code, masked by the
// verified contract's ranges, has the same hash is its twin.
import { keccak256, type Hex } from 'viem';

/** Byte ranges [offset, length] of the deployed code that may differ between deployments. */
export type Mask = [number, number][];

export interface TwinKey {
  length: number;
  mask: Mask;
  hash: string;
}

interface RuntimeTransformation {
  reason: string;
  offset: number;
  id?: string;
  length?: number;
}

/**
 * The twin key of a verified contract's deployed code from lib-sourcify's runtime transformations
 * and their values (hex strings); null when the code is empty.
 */
export function twinKey(code: string, list: readonly RuntimeTransformation[], values: { immutables?: Record<string, string>; cborAuxdata?: Record<string, string> }): TwinKey | null {
  const bytes = (code.startsWith('0x') ? code.slice(2) : code).length / 2;
  if (!bytes) return null;
  const hexLen = (v: string | undefined) => (v ? (v.startsWith('0x') ? v.length - 2 : v.length) / 2 : 0);
  const mask: Mask = [];
  for (const t of list) {
    const len =
      t.reason === 'immutable'
        ? hexLen(values.immutables?.[t.id ?? '']) || 32
        : t.reason === 'library' || t.reason === 'callProtection'
          ? 20
          : t.reason === 'cborAuxdata'
            ? t.length ?? hexLen(values.cborAuxdata?.[t.id ?? ''])
            : 0;
    if (len > 0) mask.push([t.offset, len]);
  }
  mask.sort((a, b) => a[0] - b[0]);
  return { length: bytes, mask, hash: maskedHash(code, mask) };
}

/** The hash of `code` with the ranges of `mask` set to zero. */
export function maskedHash(code: string, mask: Mask): string {
  const hex = (code.startsWith('0x') ? code.slice(2) : code).toLowerCase().split('');
  for (const [offset, len] of mask) {
    for (let i = offset * 2; i < Math.min(hex.length, (offset + len) * 2); i++) hex[i] = '0';
  }
  return keccak256(`0x${hex.join('')}` as Hex);
}
