// Blob data from the operator's consensus-layer node (BEACON_NODE_URL; off by default) for the blob
// paths (src/api/routes/blobs.ts), asked when an answer needs it, through the guarded outbound helper.
// The beacon block carrying an execution block is found by its slot, which the consensus spec ties to
// the payload's timestamp exactly (timestamp = genesis_time + slot * SECONDS_PER_SLOT): one request
// per block, for any age, where `headers?parent_root=` is not served for finalized history by every
// client. The sidecars answered are used only if their block header's parent_root is the execution
// block's parentBeaconBlockRoot (EIP-4788; the same beacon block, not a fork's or another chain's),
// and a sidecar only for the versioned hash its commitment hashes to (kzg_to_versioned_hash): an
// index or order is never trusted. The KZG proof is passed on as the node gives it, not verified.
// Answers are kept in an LRU by slot; a failure or a pruned blob (nodes keep them ~18 days) leaves
// the fields null, is asked again after a minute, and is logged once per kind of failure.
import { LRUCache } from 'lru-cache';
import { outbound, OutboundError } from '../net/outbound.js';
import { kzgToVersionedHash } from '../chain/kzg.js';
import type { Logger } from '../log.js';

/** A blob's fields as Blockscout's BlobView shows them (0x-hex, lowercase). */
export interface BeaconBlob {
  blob_data: string;
  kzg_commitment: string;
  kzg_proof: string;
}

/** What names an execution block's beacon block (src/storage/clickhouse/reads/blobs.ts beaconKeys). */
export interface BeaconBlockKey {
  /** Unix seconds. */
  ts: number;
  parentBeaconBlockRoot: string | null;
}

export interface BeaconNodeOptions {
  /** BEACON_NODE_URL: the operator's own node, so http and private addresses are allowed (as RPC_URL). */
  url: string;
  /** Per request (default 3 s): an answer waits on it. */
  timeoutMs?: number;
  /** How long a failure is remembered before the node is asked again (default a minute; tests 0). */
  retryMs?: number;
}

const TIMEOUT_MS = 3000;
/**
 * A block's sidecars as JSON: a blob is 128 KiB, 256 KiB as hex; 21 a block after the BPO2 fork
 * (EIP-7892) is ~5.5 MB. Beyond this the answer is refused.
 */
const MAX_BYTES = 8 * 1024 * 1024;
/** The sidecars kept (bytes of their hex): ~250 blobs. */
const CACHE_BYTES = 64 * 1024 * 1024;
/** A slot without usable sidecars (down, slow, pruned, not yet seen) is asked again after this long. */
const RETRY_MS = 60_000;
/** Slots a /blobs/{hash} answer tries (the newest transactions carrying the blob first). */
export const BLOCKS_TRIED = 3;

const BLOB_RE = /^0x[0-9a-f]{262144}$/;
const POINT_RE = /^0x[0-9a-f]{96}$/;
const ROOT_RE = /^0x[0-9a-f]{64}$/;

/** One beacon block's sidecars, checked: by versioned hash, and the parent root its header names. */
interface SlotBlobs {
  parentRoot: string;
  byHash: Map<string, BeaconBlob>;
}

/** A failure of one kind (logged once): why the fields stay null. */
class BeaconFailure extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

export class BeaconBlobs {
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly retryMs: number;
  private chain: { genesis: number; secondsPerSlot: number } | undefined;
  private chainFailedAt = -Infinity;
  private readonly slots = new LRUCache<number, SlotBlobs>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (s) => 64 + [...s.byHash.values()].reduce((n, b) => n + b.blob_data.length + 200, 0),
  });
  private readonly misses = new LRUCache<number, true>({ max: 100_000, ttl: RETRY_MS });
  private readonly inflight = new Map<number, Promise<SlotBlobs | null>>();
  private readonly logged = new Set<string>();

  constructor(
    o: BeaconNodeOptions,
    private readonly log?: Logger,
  ) {
    this.base = o.url.endsWith('/') ? o.url : `${o.url}/`;
    this.timeoutMs = o.timeoutMs ?? TIMEOUT_MS;
    this.retryMs = o.retryMs ?? RETRY_MS;
  }

  /**
   * The blobs among `hashes` that the beacon block carrying this execution block holds, by
   * versioned hash. Never throws: a failure answers what was found (often nothing).
   */
  async blobs(key: BeaconBlockKey, hashes: readonly string[]): Promise<Map<string, BeaconBlob>> {
    const out = new Map<string, BeaconBlob>();
    // Before Cancun a block has no blobs, and no beacon root to check the sidecars against.
    if (!hashes.length || !key.parentBeaconBlockRoot) return out;
    try {
      const chain = await this.chainParams();
      const offset = key.ts - chain.genesis;
      if (offset < 0 || offset % chain.secondsPerSlot !== 0) {
        throw new BeaconFailure('not-this-chain', `block time ${key.ts} is not a slot of the node's chain (genesis ${chain.genesis}, ${chain.secondsPerSlot} s slots)`);
      }
      const slot = offset / chain.secondsPerSlot;
      const found = await this.slot(slot);
      if (!found) return out;
      if (found.parentRoot !== key.parentBeaconBlockRoot.toLowerCase()) {
        throw new BeaconFailure('other-block', `slot ${slot}'s beacon block does not follow the block's parent beacon root`);
      }
      for (const h of hashes) {
        const b = found.byHash.get(h.toLowerCase());
        if (b) out.set(h, b);
      }
    } catch (e) {
      this.failed(e);
    }
    return out;
  }

  /** genesis_time and SECONDS_PER_SLOT, asked once (again a minute after a failure). */
  private async chainParams(): Promise<{ genesis: number; secondsPerSlot: number }> {
    if (this.chain) return this.chain;
    if (Date.now() - this.chainFailedAt < this.retryMs) throw new BeaconFailure('no-genesis', 'the node did not give its genesis time (asked again later)');
    try {
      const genesis = (await this.get('eth/v1/beacon/genesis')) as { data?: { genesis_time?: unknown } } | null;
      const spec = (await this.get('eth/v1/config/spec')) as { data?: { SECONDS_PER_SLOT?: unknown } } | null;
      const g = Number(genesis?.data?.genesis_time);
      const s = Number(spec?.data?.SECONDS_PER_SLOT);
      if (!Number.isSafeInteger(g) || g <= 0 || !Number.isSafeInteger(s) || s <= 0) throw new BeaconFailure('malformed', 'the genesis or spec answer lacks genesis_time or SECONDS_PER_SLOT');
      this.chain = { genesis: g, secondsPerSlot: s };
      return this.chain;
    } catch (e) {
      this.chainFailedAt = Date.now();
      throw e;
    }
  }

  /** A slot's checked sidecars (null: none usable now), one request at a time per slot. */
  private async slot(slot: number): Promise<SlotBlobs | null> {
    const cached = this.slots.get(slot);
    if (cached) return cached;
    if (this.misses.has(slot)) return null;
    let p = this.inflight.get(slot);
    if (!p) {
      p = this.fetchSlot(slot)
        .catch((e: unknown) => {
          this.failed(e);
          return null;
        })
        .then((r) => {
          if (r) this.slots.set(slot, r);
          else if (this.retryMs > 0) this.misses.set(slot, true, { ttl: this.retryMs });
          return r;
        })
        .finally(() => this.inflight.delete(slot));
      this.inflight.set(slot, p);
    }
    return p;
  }

  private async fetchSlot(slot: number): Promise<SlotBlobs | null> {
    const body = (await this.get(`eth/v1/beacon/blob_sidecars/${slot}`, true)) as { data?: unknown } | null;
    // 404: an empty slot, a block the node has not got, or (some clients) pruned blobs.
    if (body === null) throw new BeaconFailure('not-found', `no blob sidecars for slot ${slot} (empty slot, pruned or not yet seen)`);
    if (!Array.isArray(body.data)) throw new BeaconFailure('malformed', 'the blob_sidecars answer has no data array');
    // Pruned blobs: some clients answer an empty list.
    if (!body.data.length) throw new BeaconFailure('pruned', `no blob sidecars for slot ${slot} (pruned, or none)`);
    let parentRoot: string | undefined;
    const byHash = new Map<string, BeaconBlob>();
    for (const raw of body.data as unknown[]) {
      const s = raw as { blob?: unknown; kzg_commitment?: unknown; kzg_proof?: unknown; signed_block_header?: { message?: { parent_root?: unknown } } };
      const blob = typeof s?.blob === 'string' ? s.blob.toLowerCase() : '';
      const commitment = typeof s?.kzg_commitment === 'string' ? s.kzg_commitment.toLowerCase() : '';
      const proof = typeof s?.kzg_proof === 'string' ? s.kzg_proof.toLowerCase() : '';
      const root = s?.signed_block_header?.message?.parent_root;
      if (!BLOB_RE.test(blob) || !POINT_RE.test(commitment) || !POINT_RE.test(proof) || typeof root !== 'string' || !ROOT_RE.test(root.toLowerCase())) {
        throw new BeaconFailure('malformed', `a blob sidecar of slot ${slot} lacks a well-formed blob, commitment, proof or header`);
      }
      // Every sidecar of a block carries the same header: one that differs is not this block's.
      if (parentRoot !== undefined && root.toLowerCase() !== parentRoot) throw new BeaconFailure('malformed', `the blob sidecars of slot ${slot} name different blocks`);
      parentRoot = root.toLowerCase();
      byHash.set(kzgToVersionedHash(commitment), { blob_data: blob, kzg_commitment: commitment, kzg_proof: proof });
    }
    return { parentRoot: parentRoot!, byHash };
  }

  /** A JSON answer of the node; null for a 404 when `notFound` allows it. */
  private async get(path: string, notFound = false): Promise<unknown> {
    const res = await outbound(new URL(path, this.base).toString(), {
      maxBytes: MAX_BYTES,
      timeoutMs: this.timeoutMs,
      headers: { accept: 'application/json' },
      // The operator's own node, like RPC_URL: often http on a private address. No redirect is
      // followed, so nothing else is reached through this allowance.
      allowHttp: true,
      allowPrivate: true,
    });
    if (res.status === 404 && notFound) return null;
    if (res.status !== 200) throw new BeaconFailure(`http-${res.status}`, `the beacon node answered HTTP ${res.status} to /${path.replace(/\/\d+$/, '/…')}`);
    try {
      return JSON.parse(res.body.toString('utf8')) as unknown;
    } catch {
      throw new BeaconFailure('malformed', `the beacon node's answer to /${path.replace(/\/\d+$/, '/…')} is not JSON`);
    }
  }

  /** Logs a failure once per kind: a node down would otherwise log every request. */
  private failed(e: unknown): void {
    const kind = e instanceof BeaconFailure ? e.kind : e instanceof OutboundError ? e.kind : 'error';
    if (this.logged.has(kind)) return;
    this.logged.add(kind);
    const detail = e instanceof OutboundError ? e.detail : e instanceof Error ? e.message : String(e);
    this.log?.warn('blob data from the beacon node unavailable (this kind of failure is logged once)', { kind, detail });
  }
}
