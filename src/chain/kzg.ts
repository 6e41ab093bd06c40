// EIP-4844's kzg_to_versioned_hash: the versioned hash a blob transaction names for a KZG commitment,
// the one link from the execution chain to a blob's data on the consensus layer.
import { createHash } from 'node:crypto';

/** VERSIONED_HASH_VERSION_KZG: the first byte of every KZG versioned hash. */
const VERSION_KZG = '01';

/** `0x01 || sha256(commitment)[1:]` of a 48-byte commitment given as 0x-hex; lowercase. */
export function kzgToVersionedHash(commitment: string): string {
  const bytes = Buffer.from(commitment.slice(2), 'hex');
  if (bytes.length !== 48 || !/^0x[0-9a-fA-F]{96}$/.test(commitment)) throw new TypeError('a KZG commitment is 48 bytes of 0x-hex');
  return `0x${VERSION_KZG}${createHash('sha256').update(bytes).digest('hex').slice(2)}`;
}
