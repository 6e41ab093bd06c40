// Every verified contract's functions, events and errors into the signatures table (Blockscout's
// contract_methods), so a selector or topic any verified contract knows names it for contracts
// nobody verified (src/abi/naming.ts). Run after each verification, and when the service starts
// for contracts verified before this table existed.
import type { PgStore } from '../storage/postgres/store.js';
import { addVerifiedSignatures, verifiedWithoutSignatures } from '../storage/postgres/signatures.js';
import { abiSignatures } from '../abi/naming.js';
import type { Logger } from '../log.js';

const BATCH = 200;

/** Adds the methods of every verified contract not done yet; how many contracts were done. */
export async function indexContractMethods(pg: PgStore, log?: Logger): Promise<number> {
  let done = 0;
  for (;;) {
    const rows = await verifiedWithoutSignatures(pg, BATCH);
    for (const r of rows) {
      const sigs = Array.isArray(r.abi) ? abiSignatures(r.abi) : [];
      await addVerifiedSignatures(pg, r.address_hash, r.id, sigs.map((s) => ({ ...s, source: 'verified' as const, origin: r.address_hash })));
    }
    done += rows.length;
    if (rows.length < BATCH) break;
    log?.info('verified contracts\' methods added to the signatures', { done });
  }
  return done;
}
