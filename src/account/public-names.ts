// Public names (#19), the Account API's side: a signed-in account submits a public name, tags,
// website, description, icon and (for a token) official links for an address, optionally with
// proof of control (an EIP-191 signature by the contract's deployer or owner); admins approve,
// edit, reject and revert (the same operations back `explorer admin`). Every decision is recorded
// by src/storage/postgres/public-names.ts; listeners hear of each one at once (the API in this
// process clears its caches).
import { getAddress, recoverMessageAddress, type Hex } from 'viem';
import type { PgStore } from '../storage/postgres/store.js';
import {
  DecisionRefused,
  addressStanding,
  decide,
  getSubmission,
  iconExists,
  insertSubmission,
  isAdmin,
  listDecisions,
  listOwnSubmissions,
  listSubmissions,
  putIcon,
  revertDecision,
  type DecisionRow,
  type NameFields,
  type SubmissionRow,
  type SubmissionStatus,
} from '../storage/postgres/public-names.js';
import { TokenBuckets } from '../ratelimit/rate-limiter.js';
import { outbound, OutboundError } from '../net/outbound.js';
import { createLogger, type Logger } from '../log.js';
import { checkIcon, ICON_ID, IconError } from './icons.js';
import { CONTROL, Fields, HttpError, badRequest, notFound } from './validate.js';
import { publicIconUrl } from '../api/serializers/address.js';

/** The raw-body icon upload, relative to /account/api/v1. */
export const ICON_UPLOAD_ROUTE = 'user/public-icons';

export const PUBLIC_NAME_LIMITS = { name: 64, tags: 8, tag: 35, website: 255, description: 1000, link: 255 } as const;
/** Official links a token submission may name. */
export const TOKEN_LINK_KEYS = ['website', 'docs', 'github', 'twitter', 'telegram', 'discord', 'reddit', 'whitepaper', 'coingecko', 'coinmarketcap'] as const;

export interface PublicNamesOptions {
  /** PUBLIC_ICON_MAX_BYTES: the largest icon accepted (default 1 MiB). */
  iconMaxBytes?: number;
  /** PUBLIC_NAME_SUBMISSIONS_PER_HOUR: submissions and icon uploads per account (default 10; 0: no limit). */
  submissionsPerHour?: number;
  /** The node's owner() of a contract (eth_call), for reviewers; unset: unknown. */
  ownerOf?: (address: string) => Promise<string | null>;
  /** Tests only: icon URLs on private hosts are fetched. */
  allowPrivateIconHosts?: boolean;
  /** Longest wait for an icon URL (default 10 s). */
  iconFetchTimeoutMs?: number;
  /** Where the detail of a refused icon URL goes (the submitter is told only that it was refused). */
  log?: Logger;
}

const DEFAULT_ICON_MAX_BYTES = 1024 * 1024;

/** The text an owner signs (EIP-191 personal_sign) to prove control of the address submitted for. */
export function submissionMessage(instance: string, address: string, name: string): string {
  return `Public name submission to ${instance}\nAddress: ${getAddress(address)}\nName: ${name}`;
}

const ANGLE = /[<>]/;
/** Ids of submissions and decisions (bigint identities). */
const RECORD_ID = /^[1-9][0-9]{0,17}$/;
const HEX_SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

function httpUrl(f: Fields, key: string, v: unknown, max: number): string | undefined {
  if (typeof v !== 'string' || v.length === 0) return f.fail(`${key} must be a non-empty string`);
  if (v.length > max) return f.fail(`${key} must be at most ${max} characters`);
  // The URL parser drops CR, LF and tab: what is stored would not be what is used.
  if (CONTROL.test(v)) return f.fail(`${key} must not contain control characters`);
  try {
    const u = new URL(v);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return f.fail(`${key} must be an http or https URL`);
    if (u.username || u.password) return f.fail(`${key} must not carry credentials`);
  } catch {
    return f.fail(`${key} must be an http or https URL`);
  }
  return v;
}

/** A label without markup: `<` and `>` are refused (names and tags are shown in pages everywhere). */
function label(f: Fields, key: string, max: number, required: boolean): string | undefined {
  const v = f.name(key, max, required);
  if (v !== undefined && ANGLE.test(v)) return f.fail(`${key} must not contain < or >`);
  return v;
}

function tagsField(f: Fields): string[] {
  if (!f.has('tags')) return [];
  const v = f.body.tags;
  if (!Array.isArray(v)) return f.fail('tags must be an array of strings') ?? [];
  if (v.length > PUBLIC_NAME_LIMITS.tags) return f.fail(`tags: at most ${PUBLIC_NAME_LIMITS.tags}`) ?? [];
  const out: string[] = [];
  v.forEach((t, i) => {
    const sub = new Fields({ [`tags[${i}]`]: t }, [`tags[${i}]`]);
    const ok = label(sub, `tags[${i}]`, PUBLIC_NAME_LIMITS.tag, true);
    for (const issue of sub.issues) f.fail(issue);
    if (ok !== undefined && !out.includes(ok.trim())) out.push(ok.trim());
  });
  return out;
}

function linksField(f: Fields, isToken: boolean): Record<string, string> {
  if (!f.has('links')) return {};
  const v = f.body.links;
  if (!isToken) return f.fail('links are official links of a token; this address is not a token') ?? {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return f.fail(`links must be an object with keys among ${TOKEN_LINK_KEYS.join(', ')}`) ?? {};
  const out: Record<string, string> = {};
  for (const [k, url] of Object.entries(v)) {
    if (!(TOKEN_LINK_KEYS as readonly string[]).includes(k)) f.fail(`links: ${JSON.stringify(k.slice(0, 40))} is not one of ${TOKEN_LINK_KEYS.join(', ')}`);
    else {
      const ok = httpUrl(f, `links.${k}`, url, PUBLIC_NAME_LIMITS.link);
      if (ok) out[k] = ok;
    }
  }
  return out;
}

function optionalText(f: Fields, key: string, max: number): string | null {
  if (!f.has(key) || f.body[key] === null) return null;
  return f.name(key, max, false) ?? null;
}

/** A submission as its author and reviewers see it; icon URLs under `origin` (PUBLIC_URL's). */
export function submissionJson(s: SubmissionRow, origin = '') {
  return {
    id: s.id,
    address_hash: getAddress(s.address),
    kind: s.kind,
    name: s.name,
    tags: s.tags,
    website: s.website,
    description: s.description,
    icon_url: publicIconUrl(origin, s.icon),
    links: s.links,
    status: s.status,
    signer: s.signer ? getAddress(s.signer) : null,
    created_at: s.created_at.toISOString(),
    updated_at: s.updated_at.toISOString(),
  };
}

export function decisionJson(d: DecisionRow) {
  return {
    id: d.id,
    submission_id: d.submission_id,
    action: d.action,
    actor: d.actor,
    at: d.at.toISOString(),
    note: d.note,
    before: d.before,
    after: d.after,
    reverts: d.reverts,
    reverted_by: d.reverted_by,
  };
}

export type PublicNames = ReturnType<typeof createPublicNames>;

/**
 * The operations, shared by the Account API routes and `explorer admin`. `instance`: how the
 * signed message names this explorer (PUBLIC_URL's host); `origin`: PUBLIC_URL's origin, which
 * icon URLs are absolute under (paths without it).
 */
export function createPublicNames(pg: PgStore, o: PublicNamesOptions & { instance: string; origin?: string; clock?: () => number }) {
  const clock = o.clock ?? Date.now;
  const log = o.log ?? createLogger('account:public-names');
  const origin = o.origin ?? '';
  const json = (s: SubmissionRow) => submissionJson(s, origin);
  const iconMaxBytes = o.iconMaxBytes ?? DEFAULT_ICON_MAX_BYTES;
  const perHour = o.submissionsPerHour ?? 10;
  const buckets = perHour > 0 ? new TokenBuckets({ ratePerSecond: perHour / 3600, burst: perHour }, { now: clock }) : null;
  const listeners = new Set<(address: string) => void>();

  const charge = (userId: string) => {
    const d = buckets?.take(`u:${userId}`);
    if (d && !d.allowed) {
      throw new HttpError(429, `at most ${perHour} public-name submissions and icon uploads per account per hour; try again in ${d.retryAfterSeconds} s`, {
        'retry-after': String(d.retryAfterSeconds),
      });
    }
  };

  async function storeIcon(bytes: Buffer): Promise<string> {
    let icon;
    try {
      icon = await checkIcon(bytes, iconMaxBytes);
    } catch (e) {
      if (e instanceof IconError) throw new HttpError(e.status, e.message);
      throw e;
    }
    await putIcon(pg, { sha256: icon.sha256, ext: icon.ext, contentType: icon.contentType, width: icon.width, height: icon.height, bytes: icon.bytes });
    return icon.id;
  }

  const changed = (address: string) => {
    for (const l of listeners) l(address);
  };

  const refused = (e: unknown): never => {
    if (e instanceof DecisionRefused) throw new HttpError(e.kind === 'not-found' ? 404 : 409, e.message);
    throw e;
  };

  return {
    iconMaxBytes,
    message: (address: string, name: string) => submissionMessage(o.instance, address, name),

    /** Hears every decision (the address whose shown name may have changed). */
    onChange(fn: (address: string) => void): () => void {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },

    /** A raw image body: checked, re-encoded where possible, stored; its id and URL. */
    async uploadIcon(userId: string, body: Buffer | undefined) {
      if (!body?.length) throw badRequest('the request body must be the image (PNG, JPEG, WebP or GIF)');
      charge(userId);
      const id = await storeIcon(body);
      return { icon: id, icon_url: publicIconUrl(origin, id) };
    },

    async submit(userId: string, body: Record<string, unknown>) {
      const f = new Fields(body, ['address_hash', 'name', 'tags', 'website', 'description', 'icon', 'icon_url', 'links', 'signature']);
      const address = f.address('address_hash');
      const name = label(f, 'name', PUBLIC_NAME_LIMITS.name, true);
      const tags = tagsField(f);
      const website = f.has('website') && f.body.website !== null ? (httpUrl(f, 'website', f.body.website, PUBLIC_NAME_LIMITS.website) ?? null) : null;
      const description = optionalText(f, 'description', PUBLIC_NAME_LIMITS.description);
      if (f.has('icon') && f.has('icon_url')) f.fail('give icon (an uploaded icon) or icon_url, not both');
      const iconId = f.has('icon') ? (typeof f.body.icon === 'string' && ICON_ID.test(f.body.icon) ? f.body.icon : f.fail('icon must be the id POST /user/public-icons returned')) : undefined;
      const iconUrl = f.has('icon_url') ? httpUrl(f, 'icon_url', f.body.icon_url, 2048) : undefined;
      const signature = f.has('signature') ? (typeof f.body.signature === 'string' && HEX_SIGNATURE.test(f.body.signature) ? f.body.signature : f.fail('signature must be a 65-byte 0x-prefixed hex signature')) : undefined;
      f.done();
      const standing = await addressStanding(pg, address!);
      if (!standing.known) throw new HttpError(422, `${getAddress(address!)} is not an address this explorer has seen (no transaction, contract or token)`);
      const links = linksField(f, standing.token);
      f.done();
      if (iconId && !(await iconExists(pg, iconId))) throw new HttpError(422, 'icon names no uploaded icon: upload it with POST /user/public-icons first');
      let signer: string | null = null;
      let message: string | null = null;
      if (signature) {
        message = submissionMessage(o.instance, address!, name!);
        try {
          signer = (await recoverMessageAddress({ message, signature: signature as Hex })).toLowerCase();
        } catch {
          throw badRequest('signature does not recover to an address');
        }
      }
      charge(userId);
      let icon: string | null = iconId ?? null;
      if (iconUrl) {
        let got;
        try {
          got = await outbound(iconUrl, {
            headers: { accept: 'image/*', 'user-agent': 'evm-explorer-icons/1' },
            maxBytes: iconMaxBytes,
            timeoutMs: o.iconFetchTimeoutMs ?? 10_000,
            maxRedirects: 3,
            allowHttp: true,
            allowPrivate: o.allowPrivateIconHosts,
          });
        } catch (e) {
          if (!(e instanceof OutboundError)) throw e;
          if (e.kind === 'too-large') throw new HttpError(422, `the icon is larger than ${iconMaxBytes} bytes`);
          log.info('an icon URL could not be fetched', { detail: e.detail });
          throw new HttpError(422, `icon_url could not be fetched: ${e.message}`);
        }
        if (got.status < 200 || got.status >= 300) throw new HttpError(422, `icon_url could not be fetched: HTTP ${got.status}`);
        icon = await storeIcon(got.body);
      }
      const fields: NameFields = { name: name!, tags, website, description, icon, links };
      const row = await insertSubmission(pg, {
        ...fields,
        userId,
        address: address!,
        kind: standing.token ? 'token' : 'address',
        signature: signature ?? null,
        signedMessage: message,
        signer,
        at: new Date(clock()),
      });
      return json(row);
    },

    async mine(userId: string) {
      return (await listOwnSubmissions(pg, userId, 1000)).map(json);
    },

    isAdmin: (userId: string) => isAdmin(pg, userId),

    async list(status: string | null) {
      if (status !== null && !['pending', 'approved', 'rejected'].includes(status)) throw badRequest('status must be pending, approved or rejected');
      return (await listSubmissions(pg, status as SubmissionStatus | null, 1000)).map((s) => ({ ...json(s), submitted_by: s.user_id }));
    },

    /**
     * One submission for review: with its proof, whether the signer deployed the contract
     * (contracts.creator) and whether it is the contract's current owner() (null: unknown), and
     * its decisions.
     */
    async review(id: string) {
      const s = RECORD_ID.test(id) ? await getSubmission(pg, id) : null;
      if (!s) throw notFound('Submission not found');
      const standing = await addressStanding(pg, s.address);
      let owner: string | null = null;
      if (s.signer && o.ownerOf) owner = await o.ownerOf(s.address).catch(() => null);
      return {
        ...json(s),
        submitted_by: s.user_id,
        proof: s.signer
          ? {
              signer: getAddress(s.signer),
              signed_message: s.signed_message,
              signature: s.signature,
              signer_is_deployer: standing.creator === null ? false : standing.creator === s.signer,
              signer_is_owner: owner === null ? null : owner.toLowerCase() === s.signer,
            }
          : null,
        decisions: (await listDecisions(pg, s.id, 100)).map(decisionJson),
      };
    },

    /** approve / reject / edit, by `actor` ('account:<id>' or 'cli:<user>'). */
    async decide(id: string, action: 'approve' | 'reject' | 'edit', actor: string, body: Record<string, unknown> = {}) {
      const allowed = action === 'edit' ? ['name', 'tags', 'website', 'description', 'links', 'note'] : ['note'];
      if (!RECORD_ID.test(id)) throw notFound('Submission not found');
      const f = new Fields(body, allowed);
      const note = optionalText(f, 'note', 1000);
      const edit: Partial<NameFields> = {};
      if (action === 'edit') {
        if (f.has('name')) edit.name = label(f, 'name', PUBLIC_NAME_LIMITS.name, true);
        if (f.has('tags')) edit.tags = tagsField(f);
        if (f.has('website')) edit.website = f.body.website === null ? null : (httpUrl(f, 'website', f.body.website, PUBLIC_NAME_LIMITS.website) ?? null);
        if (f.has('description')) edit.description = optionalText(f, 'description', PUBLIC_NAME_LIMITS.description);
        if (f.has('links')) edit.links = linksField(f, (await getSubmission(pg, id))?.kind === 'token');
        if (!Object.keys(edit).length) f.fail('an edit names at least one of name, tags, website, description, links');
      }
      f.done();
      const r = await decide(pg, { submissionId: id, action, actor, note, edit, at: new Date(clock()) }).catch(refused);
      changed(r.address);
      return decisionJson(r.decision);
    },

    async revert(decisionId: string, actor: string, body: Record<string, unknown> = {}) {
      const f = new Fields(body, ['note']);
      const note = optionalText(f, 'note', 1000);
      f.done();
      if (!RECORD_ID.test(decisionId)) throw notFound('Decision not found');
      const r = await revertDecision(pg, { decisionId, actor, note, at: new Date(clock()) }).catch(refused);
      changed(r.address);
      return decisionJson(r.decision);
    },

    async decisions(submissionId: string | null) {
      if (submissionId !== null && !RECORD_ID.test(submissionId)) throw badRequest('submission_id must be a submission id');
      return (await listDecisions(pg, submissionId, 1000)).map(decisionJson);
    },
  };
}
