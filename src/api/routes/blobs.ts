// EIP-4844 blobs as Blockscout's Ethereum build answers them: /transactions/{hash}/blobs (a blob
// transaction's blobs, in its order) and /blobs/{hash} (a blob and the transactions carrying it).
// What the chain tells is answered: the versioned hashes and the transactions. The blobs' data,
// KZG commitments and proofs live on the consensus layer (a beacon node, pruned after ~18 days):
// with BEACON_NODE_URL they are asked of it (src/api/beacon-blobs.ts), else, or when it has not got
// them, they are null, as Blockscout answers a blob whose data it has not got.
import { transactionByHash, type TransactionRead } from '../../storage/clickhouse/reads/transactions.js';
import { beaconKeys, blobTransactions, withBlobFields } from '../../storage/clickhouse/reads/blobs.js';
import { BLOCKS_TRIED, type BeaconBlob } from '../beacon-blobs.js';
import { pendingByHash } from '../../storage/postgres/pending.js';
import { pointTransaction } from '../../storage/postgres/points.js';
import { ApiError, NotFoundError } from '../errors.js';
import type { ApiContext } from '../context.js';
import { FULL_HASH_RE } from '../params.js';
import type { RouteDef } from '../router.js';
import { int, isoTimestamp } from '../serializers/common.js';
import { TX_PATH } from './common.js';

/** Blockscout's Reader.blob_hash_to_transactions: at most 10. */
const BLOB_TRANSACTIONS = 10;

/** A blob as Blockscout's BlobView.prepare_blob shapes it: its data where the beacon node gave it, else null. */
const blobJson = (hash: string, b?: BeaconBlob) => ({ hash, blob_data: b?.blob_data ?? null, kzg_commitment: b?.kzg_commitment ?? null, kzg_proof: b?.kzg_proof ?? null });

/**
 * The beacon node's blobs among `hashes`, from the beacon blocks carrying these execution blocks
 * (tried in order until every hash is found); empty without a beacon node.
 */
async function fromBeacon(ctx: ApiContext, blocks: readonly bigint[], hashes: readonly string[]): Promise<Map<string, BeaconBlob>> {
  const found = new Map<string, BeaconBlob>();
  if (!ctx.beaconBlobs || !blocks.length || !hashes.length) return found;
  const keys = await beaconKeys(ctx.ch, blocks);
  for (const n of blocks) {
    const k = keys.get(String(n));
    if (!k) continue;
    const want = hashes.filter((h) => !found.has(h));
    for (const [h, b] of await ctx.beaconBlobs.blobs({ ts: k.ts, parentBeaconBlockRoot: k.parent_beacon_block_root }, want)) found.set(h, b);
    if (found.size === hashes.length) break;
  }
  return found;
}

/**
 * With a beacon node, an answer lacking a blob's data may have it later (the node was down, slow or
 * behind): kept until the next block only. Pruned blobs stay missing, at a read per block.
 */
const partial = (ctx: ApiContext, hashes: readonly string[], found: Map<string, BeaconBlob>) => !!ctx.beaconBlobs && hashes.some((h) => !found.has(h));

/**
 * A collated transaction's blob fields (its point row, ClickHouse's row while the upgrade's fill
 * has not reached it), [] for a pending one (its blobs are recorded when it is mined), or 404.
 */
async function versionedHashes(ctx: ApiContext, hash: string): Promise<{ hashes: string[]; block: bigint | null }> {
  const p = await pointTransaction(ctx.pg, hash);
  let tx: TransactionRead | null = p?.tx ?? null;
  if (!tx && !(await ctx.pointsComplete())) tx = await transactionByHash(ctx.ch, hash);
  if (tx) {
    if (tx.type === 3 && tx.max_fee_per_blob_gas === undefined) await withBlobFields(ctx.ch, [tx]);
    return { hashes: tx.blob_versioned_hashes, block: BigInt(tx.block_number) };
  }
  if (await pendingByHash(ctx.pg, hash)) return { hashes: [], block: null };
  // It may enter the pending pool at any moment, without a block: not cached.
  throw new NotFoundError('none');
}

export const blobRoutes: RouteDef[] = [
  {
    pattern: '/transactions/:transaction_hash_param/blobs',
    path: TX_PATH,
    async handler({ path, ctx }) {
      const { hashes, block } = await versionedHashes(ctx, path.transaction_hash_param as string);
      const found = block === null ? new Map<string, BeaconBlob>() : await fromBeacon(ctx, [block], hashes);
      const body = { items: hashes.map((h) => blobJson(h, found.get(h))) };
      if (block === null) return { body, policy: 'none' };
      return partial(ctx, hashes, found) ? { body, policy: 'volatile' } : { body, policy: 'stable', block };
    },
  },
  {
    pattern: '/blobs/:blob_hash_param',
    path: { blob_hash_param: { kind: 'string' } },
    async handler({ path, ctx }) {
      const raw = path.blob_hash_param as string;
      // Blockscout's BlobController casts the hash itself (no OpenAPI validation there): a bad one is its {:format, _}.
      if (!FULL_HASH_RE.test(raw)) throw new ApiError(422, { message: 'Invalid parameter(s)' });
      const hash = raw.toLowerCase();
      const txs = await blobTransactions(ctx.ch, hash, BLOB_TRANSACTIONS);
      // Neither a transaction carrying it nor its data: Blockscout's 404.
      if (!txs.length) throw new NotFoundError();
      // The newest blocks carrying it first: the likeliest the node has not pruned.
      const blocks = [...new Set(txs.map((t) => t.block_number))].slice(0, BLOCKS_TRIED).map(BigInt);
      const found = await fromBeacon(ctx, blocks, [hash]);
      const body = {
        ...blobJson(hash, found.get(hash)),
        // Blockscout's items are {block_consensus, transaction_hash}; only the chain's own blocks are
        // stored here, so always in consensus. block_number and timestamp are this project's additions.
        transaction_hashes: txs.map((t) => ({ block_consensus: true, transaction_hash: t.transaction_hash, block_number: int(t.block_number), timestamp: isoTimestamp(t.ts) })),
      };
      // A later block may carry the same blob again.
      return { body, policy: 'volatile' };
    },
  },
];
