// HTTP caching of the public API's answers for browsers and edge caches (the shipped nginx
// configuration): Cache-Control by how long an answer stays true, a strong ETag of its bytes, and
// 304 Not Modified for a client that already has them.
//
// By the response cache's policy (src/cache/response-cache.ts):
//   stable    a stored block's or transaction's own data, changed only by a reorg (or by a
//             verification or public-name decision naming what it shows): fresh a minute, then
//             revalidated by ETag, once its block is SETTLED_DEPTH deep; a newer block's data is
//             headed as volatile, since an edge cannot be told of a reorg and would serve an
//             orphaned block for its whole minute. Not `immutable`: those decisions change old
//             blocks' answers too.
//   derived   figures the derived lanes move after the block: fresh 5 s.
//   volatile  head lists and counters, new with every block: fresh 2 s, served stale while an
//             edge revalidates.
//   none      computed for this request only (a node that did not answer): never stored.
// Answers personalised for a signed-in viewer are `private, no-store` without an ETag (the
// gateway), and `Vary` names the credential headers so a shared cache never serves one viewer's
// answer to another.
import { createHash } from 'node:crypto';
import type { CachePolicy } from '../cache/response-cache.js';

export const CACHE_CONTROL: Record<CachePolicy, string> = {
  stable: 'public, max-age=60, stale-while-revalidate=600',
  derived: 'public, max-age=5, stale-while-revalidate=30',
  volatile: 'public, max-age=2, stale-while-revalidate=10',
  none: 'no-store',
};

/**
 * Blocks below the stored head after which a block's data is kept a minute by edges: Ethereum
 * finalizes after two epochs (64 slots), and reorgs on the chains we index stay far shallower.
 */
export const SETTLED_DEPTH = 64n;

/** The Cache-Control of an answer: its policy's, a stable answer on a block too new for it headed as volatile. */
export function cacheControlOf(policy: CachePolicy, block: bigint | undefined, head: bigint | null): string {
  if (policy === 'stable' && block !== undefined && (head === null || head - block < SETTLED_DEPTH)) return CACHE_CONTROL.volatile;
  return CACHE_CONTROL[policy];
}

/** The request headers that make an answer someone's own (src/account/auth.ts reads them). */
export const VARY = 'Authorization, X-Api-Key';

/** ETags by body: a cached answer's bytes are hashed once, however often they are served. */
const etags = new WeakMap<Buffer, string>();

/** A strong validator of these exact bytes. */
export function etagOf(body: Buffer): string {
  let e = etags.get(body);
  if (!e) {
    e = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    etags.set(body, e);
  }
  return e;
}

/** Whether the request's If-None-Match names `etag` (or `*`): the client's copy is current. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  // Weak comparison, as RFC 9110 wants for If-None-Match: W/"x" matches "x".
  return ifNoneMatch.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === etag;
  });
}
