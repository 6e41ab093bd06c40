// The standard-interface table (ERC-20/721/1155, ownership, roles, proxies...: generated from
// OpenZeppelin's ABIs) indexed for decoding on first use: the first of the curated sources that
// name the methods and decode the inputs and logs of contracts without a verified ABI (src/abi/naming.ts).
import { indexAbi, type IndexedAbi } from './decode.js';
import { STANDARD_ABI } from './standard-abi.generated.js';

let indexed: IndexedAbi | undefined;

export function standardAbi(): IndexedAbi {
  return (indexed ??= indexAbi(STANDARD_ABI));
}

/** Inputs and log data longer than this (bytes) are named but not decoded (shared responses stay cheap). */
export const STANDARD_DECODE_MAX_BYTES = 32 * 1024;
