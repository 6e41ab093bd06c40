// PATCH /tokens/{t}/instances/{id}/refetch-metadata (anyone, once per instance per cooldown) and
// PATCH /tokens/{t}/instances/refetch-metadata (a whole collection; an admin account only, as
// Blockscout keeps it behind its sensitive-endpoints key). Both only put the instances back in
// the NFT metadata lane's queue (src/derived/nft-metadata.ts fetches them through the outbound
// guard, in the background): a request never fetches anything itself, so the API is no proxy.
import type { ApiContext } from '../context.js';
import { ApiError, NotFoundError } from '../errors.js';
import { CORS_HEADERS, JSON_TYPE, type ApiReply, type ApiRequest } from '../http.js';
import { castParams } from '../params.js';
import { ADDRESS_PATH } from './common.js';
import { isAdmin } from '../../storage/postgres/public-names.js';
import { queueCollectionRefetch, queueInstanceRefetch } from '../../storage/postgres/lanes.js';
import { tokenInstance } from '../../storage/postgres/reads/tokens.js';

const INSTANCE_RE = /^\/api\/v2\/tokens\/([^/]+)\/instances\/([^/]+)\/refetch-metadata\/*$/;
const COLLECTION_RE = /^\/api\/v2\/tokens\/([^/]+)\/instances\/refetch-metadata\/*$/;
/** An instance's metadata is fetched again on request at most this often (seconds). */
export const REFETCH_COOLDOWN_S = 600;
/** What a refetch request's body may hold (Blockscout's frontend sends a reCAPTCHA token). */
export const REFETCH_BODY_BYTES = 4096;

/** Whether `path` is one of the two refetch paths (the gateway lets their small bodies through). */
export function isRefetchPath(path: string): boolean {
  return INSTANCE_RE.test(path) || COLLECTION_RE.test(path);
}

const reply = (status: number, body: unknown): ApiReply => ({
  status,
  headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...CORS_HEADERS },
  body: JSON.stringify(body),
});

/** The reply to a PATCH of a refetch path, else null. */
export async function refetchMetadata(ctx: ApiContext, req: ApiRequest): Promise<ApiReply | null> {
  const one = INSTANCE_RE.exec(req.path);
  const all = one ? null : COLLECTION_RE.exec(req.path);
  if (!one && !all) return null;
  try {
    const specs = one ? { ...ADDRESS_PATH, token_id_param: { kind: 'digits' } as const } : ADDRESS_PATH;
    const values: Record<string, string> = one ? { address_hash_param: one[1]!, token_id_param: one[2]! } : { address_hash_param: all![1]! };
    const p = castParams(values, specs, req.query, { recaptcha_response: { kind: 'string' }, apikey: { kind: 'string' }, api_key: { kind: 'string' } });
    const token = p.path.address_hash_param as string;
    const record = (await ctx.tokens([token])).get(token);
    if (!record || (record.type !== 'ERC-721' && record.type !== 'ERC-1155')) throw new NotFoundError();
    if (one) {
      const id = p.path.token_id_param as string;
      if (!(await tokenInstance(ctx.pg, token, id))) throw new NotFoundError();
      const queued = await queueInstanceRefetch(ctx.pg, token, id, REFETCH_COOLDOWN_S);
      // Asked again soon after: already queued or fetched moments ago; nothing more is done.
      return reply(200, { message: queued ? 'OK' : 'Metadata refetch was requested recently' });
    }
    if (!req.viewer || !(await isAdmin(ctx.pg, req.viewer))) return reply(401, { message: 'Unauthorized' });
    const n = await queueCollectionRefetch(ctx.pg, token);
    return reply(200, { message: `OK: ${n} instances queued` });
  } catch (e) {
    if (e instanceof ApiError) return reply(e.status, e.body);
    throw e;
  }
}
