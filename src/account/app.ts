// The Account API (../shared/spec/SERVICE.md, "Account API") as a plain function from ApiRequest
// to ApiReply, for every path under /account/api/v1: user info, API keys, watchlist, private
// address tags, custom ABIs, public-name submissions and their review by admins
// (src/account/public-names.ts), account deletion, and the sign-in endpoints under /auth.
// Success bodies are wrapped in `data`; errors are `{message}` (400, 401, 404, 405, 413, 429,
// 503; 500 only for a server fault, never for client input).
import crypto from 'node:crypto';
import type { PgStore } from '../storage/postgres/store.js';
import { countActiveApiKeys, insertApiKey, listApiKeys } from '../storage/postgres/account/api-keys.js';
import { countCustomAbis, customAbiExists, deleteCustomAbi, listCustomAbis, upsertCustomAbi } from '../storage/postgres/account/custom-abis.js';
import { purgeExpired } from '../storage/postgres/account/sign-in.js';
import { countTags, deleteTag, listTags, tagExists, upsertTag } from '../storage/postgres/account/tags.js';
import { getUser } from '../storage/postgres/account/users.js';
import { countWatchlist, deleteWatchlist, listWatchlist, updateWatchlist, upsertWatchlist, watchlistHas, type WatchlistRow } from '../storage/postgres/account/watchlist.js';
import { JSON_TYPE, type ApiReply, type ApiRequest } from '../api/http.js';
import { createLogger, type Logger } from '../log.js';
import { AbiError, parseAbiInput } from './abi.js';
import { Authenticator, bearerToken, requestToken, type Identity } from './auth.js';
import { createMailer, type Mailer, type MailSettings } from '../mail.js';
import { createSignIn } from './signin.js';
import { createPublicNames, ICON_UPLOAD_ROUTE, type PublicNamesOptions } from './public-names.js';
import { newToken, sha256Hex, tokenKind } from './tokens.js';
import { PathMatcher, pathSegments } from '../api/path-match.js';
import {
  DEFAULT_METHODS,
  Fields,
  HttpError,
  MAX_BODY_BYTES,
  badRequest,
  checksummed,
  defaultSettings,
  intParam,
  jsonObjectBody,
  methodsField,
  NAME_MAX,
  notFound,
  recordId,
  settingsField,
  uuidId,
  type NotificationMethods,
} from './validate.js';

export const ACCOUNT_PREFIX = '/account/api/v1';

/** Largest page of GET /user/watchlist (SERVICE.md leaves the maximum of `limit` open). */
export const WATCHLIST_MAX_LIMIT = 1000;
/** Per-account record caps (a 400 beyond them). */
export const LIMITS = { apiKeys: 100, watchlist: 10_000, tags: 10_000, customAbis: 1_000 } as const;

export const INVALID_KEY = 'Invalid API key';

export interface AccountDeps {
  pg: PgStore;
  log?: Logger;
  /** SMTP of the e-mailed sign-in codes; without it POST /auth/email/code answers 503. */
  smtp?: MailSettings;
  /** PUBLIC_URL: the origin Sign-In with Ethereum binds to (domain and URI); unset: the SIWE endpoints answer 503. */
  publicUrl?: string;
  /** The chain's id, which SIWE messages must name: a number, or how to ask the node (eth_chainId). */
  chainId?: number | (() => Promise<number>);
  /** Milliseconds since the epoch (tests move time). Default Date.now. */
  clock?: () => number;
  /** Tuning (defaults in parentheses): credential cache TTL (30 s), last_used_at flush (5 s), revocation ack wait (2 s). */
  cacheTtlMs?: number;
  usageFlushMs?: number;
  ackTimeoutMs?: number;
  /** A ready-made mailer instead of smtp (one shared with the notification routes; tests). */
  mailer?: Mailer;
  /**
   * More authenticated routes under /account/api/v1 (e.g. the notification settings): each gets
   * the caller's user id, body and query; a thrown error with a 4xx or 503 `status` becomes {message}
   * (with its `headers`, e.g. Retry-After).
   */
  extraRoutes?: ExtraRoute[];
  /** Public-name submissions and review: icon size, submission rate, the node's owner() (defaults in public-names.ts). */
  publicNames?: PublicNamesOptions;
}

export interface ExtraRoute {
  /** e.g. 'user/notification-settings/webhook' (after /account/api/v1; ':name' for a parameter). */
  pattern: string;
  methods: Record<
    string,
    (c: { userId: string; body(): Record<string, unknown>; query: ApiRequest['query'] }) => Promise<{ status: number; data: unknown }>
  >;
}

export interface AccountApp {
  /** Answers every request whose path is under /account/api/v1 (404 for any other path). */
  handle(req: ApiRequest): Promise<ApiReply>;
  /**
   * The account behind a public API request's credential: `Authorization: Bearer <token>`,
   * `x-api-key: <token>` or `?apikey=<token>` (API key or session token). Null when none is sent
   * or it is unknown, revoked or expired. Records the key's use (last_used_at).
   */
  identify(req: Pick<ApiRequest, 'headers' | 'query'>): Promise<Identity | null>;
  /** Resolves when the revocation listener is connected (credentials are cached from then on). */
  ready(): Promise<void>;
  /** Writes buffered last_used_at times now. */
  flushUsage(): Promise<void>;
  /**
   * Hears every public-name decision taken through this app (the address whose shown name may
   * have changed): the API in the same process clears its caches at once. Returns a detacher.
   */
  onPublicNamesChanged(fn: (address: string) => void): () => void;
  /** The largest request body of a path: the icon upload takes an image, the others JSON. */
  maxBodyBytes(path: string): number;
  /** Flushes, stops timers and the listener, closes the mailer. Does not close pg. */
  close(): Promise<void>;
}

type Handler = (c: Ctx) => Promise<Reply>;

interface Ctx {
  req: ApiRequest;
  /** Path parameters by name (`:id` → params.id). */
  params: Record<string, string>;
  /** Set for authenticated routes. */
  who: Identity;
  body(): Record<string, unknown>;
}

interface Reply {
  status: number;
  data: unknown;
}

interface Route {
  pattern: string;
  methods: Record<string, { run: Handler; auth: boolean }>;
}

const ACCOUNT_CORS: Record<string, string> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '86400',
};

function reply(status: number, body: unknown, extra: Record<string, string> = {}): ApiReply {
  return {
    status,
    headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-store', ...ACCOUNT_CORS, ...extra },
    body: JSON.stringify(body),
  };
}

const ok = (data: unknown, status = 200): Reply => ({ status, data });

export function createAccountApp(deps: AccountDeps): AccountApp {
  const pg = deps.pg;
  const log = deps.log ?? createLogger('account');
  const clock = deps.clock ?? Date.now;
  const now = () => new Date(clock());
  const auth = new Authenticator(pg, {
    clock,
    log,
    cacheTtlMs: deps.cacheTtlMs,
    usageFlushMs: deps.usageFlushMs,
    ackTimeoutMs: deps.ackTimeoutMs,
  });
  const mailer = deps.mailer ?? (deps.smtp ? createMailer(deps.smtp) : undefined);
  const signIn = createSignIn({ pg, clock, mailer, publicUrl: deps.publicUrl, chainId: deps.chainId, log });
  const publicNames = createPublicNames(pg, {
    ...deps.publicNames,
    // The signed message names this explorer by PUBLIC_URL's host.
    instance: deps.publicUrl ? new URL(deps.publicUrl).host : 'this explorer',
    origin: deps.publicUrl ? new URL(deps.publicUrl).origin : '',
    clock,
  });
  const iconUploadPath = `${ACCOUNT_PREFIX}/${ICON_UPLOAD_ROUTE}`;
  const maxBodyBytes = (path: string) => (path === iconUploadPath ? Math.max(MAX_BODY_BYTES, publicNames.iconMaxBytes) : MAX_BODY_BYTES);
  let closed = false;

  // Expired sessions, nonces and codes are removed now and then.
  const janitor = setInterval(() => {
    purgeExpired(pg, now()).catch((e) => log.warn('could not purge expired sign-in records', { error: String(e) }));
  }, 10 * 60 * 1000);
  janitor.unref();

  // ---- serializers --------------------------------------------------------------------------

  const watchItem = (r: WatchlistRow) => ({
    id: r.id,
    address_hash: checksummed(r.address_hash),
    name: r.name,
    notification_settings: r.notification_settings,
    notification_methods: r.notification_methods,
  });

  /**
   * The channels notification_methods names, validated (README, "Watchlist notifications"): only
   * they change; the others keep their stored value (a new entry: DEFAULT_METHODS). methodsField
   * fills unnamed channels with defaults, which would turn on a channel the request did not name.
   */
  const namedMethods = (f: Fields): Partial<NotificationMethods> | undefined => {
    const full = methodsField(f);
    if (!full) return undefined;
    const named = f.body.notification_methods as Record<string, unknown>;
    return Object.fromEntries((['email', 'webhook'] as const).filter((k) => k in named).map((k) => [k, full[k]]));
  };

  // ---- handlers -----------------------------------------------------------------------------

  const userInfo: Handler = async ({ who }) => {
    const u = await getUser(pg, who.userId);
    if (!u) throw new HttpError(401, INVALID_KEY);
    return ok({
      name: u.name,
      email: u.email,
      nickname: u.nickname,
      registered_at: u.registered_at.toISOString(),
      ...(u.address ? { address_hash: checksummed(u.address) } : {}),
    });
  };

  const deleteAccount: Handler = async ({ who }) => {
    if (!(await auth.deleteAccount(who.userId))) throw new HttpError(401, INVALID_KEY);
    return ok({ deleted: true });
  };

  const listKeys: Handler = async ({ who }) => {
    const rows = await listApiKeys(pg, who.userId);
    return ok(
      rows.map((k) => {
        const pending = auth.pendingUse(k.id);
        const last = pending && (!k.last_used_at || pending > k.last_used_at) ? pending : k.last_used_at;
        return { id: k.id, name: k.name, created_at: k.created_at.toISOString(), last_used_at: last ? last.toISOString() : null };
      }),
    );
  };

  const createKey: Handler = async ({ who, body }) => {
    const f = new Fields(body(), ['name']);
    const name = f.name('name', NAME_MAX.other, true);
    f.done();
    if ((await countActiveApiKeys(pg, who.userId)) >= LIMITS.apiKeys) {
      throw badRequest(`an account has at most ${LIMITS.apiKeys} active API keys; revoke one first`);
    }
    const secret = newToken('api_key');
    const row = await insertApiKey(pg, { id: crypto.randomUUID(), userId: who.userId, name: name!, secretHash: sha256Hex(secret), at: now() });
    return ok({ id: row.id, name: row.name, api_key: secret, created_at: row.created_at.toISOString() }, 201);
  };

  const revokeKey: Handler = async ({ who, params }) => {
    const id = uuidId(params.id);
    if (!(await auth.revokeKey(who.userId, id))) throw notFound('API key not found');
    return ok({ id, revoked: true });
  };

  const getWatchlist: Handler = async ({ who, req }) => {
    const skip = intParam(req.query.get('skip'), 'skip', 0, 0, 2_147_483_647);
    const limit = intParam(req.query.get('limit'), 'limit', 100, 1, WATCHLIST_MAX_LIMIT);
    const { total, rows } = await listWatchlist(pg, who.userId, skip, limit);
    return ok({
      items: rows.map(watchItem),
      pagination: { total, skip, limit, hasMore: skip + rows.length < total },
    });
  };

  const addWatch: Handler = async ({ who, body }) => {
    const f = new Fields(body(), ['address_hash', 'name', 'notification_settings', 'notification_methods']);
    const address = f.address('address_hash');
    const name = f.name('name', NAME_MAX.other, true);
    const settings = settingsField(f);
    const methods = namedMethods(f);
    f.done();
    if (!(await watchlistHas(pg, who.userId, address!)) && (await countWatchlist(pg, who.userId)) >= LIMITS.watchlist) {
      throw badRequest(`an account watches at most ${LIMITS.watchlist} addresses`);
    }
    const { row } = await upsertWatchlist(
      pg,
      { userId: who.userId, address: address!, name: name!, settings: settings ?? null, methods: methods ?? null, at: now() },
      { settings: defaultSettings(), methods: DEFAULT_METHODS },
    );
    return ok(watchItem(row), 201);
  };

  const patchWatch: Handler = async ({ who, params, body }) => {
    const id = recordId(params.id);
    const b = body();
    const f = new Fields(b, ['name', 'notification_settings', 'notification_methods', 'address_hash']);
    if (f.has('address_hash')) f.fail('address_hash cannot be changed: delete the entry and add the new address');
    const name = f.name('name', NAME_MAX.other, false);
    const settings = settingsField(f);
    const methods = namedMethods(f);
    f.done();
    const row = await updateWatchlist(pg, who.userId, id, { name: name ?? null, settings: settings ?? null, methods: methods ?? null, at: now() });
    if (!row) throw notFound('Watchlist entry not found');
    return ok(watchItem(row));
  };

  const removeWatch: Handler = async ({ who, params }) => {
    const id = recordId(params.id);
    if (!(await deleteWatchlist(pg, who.userId, id))) throw notFound('Watchlist entry not found');
    return ok({ id, deleted: true });
  };

  const getTags: Handler = async ({ who }) => {
    const rows = await listTags(pg, who.userId);
    return ok(rows.map((r) => ({ id: r.id, address_hash: checksummed(r.address_hash), name: r.name })));
  };

  const addTag: Handler = async ({ who, body }) => {
    const f = new Fields(body(), ['address_hash', 'name']);
    const address = f.address('address_hash');
    const name = f.name('name', NAME_MAX.tag, true);
    f.done();
    if (!(await tagExists(pg, who.userId, address!)) && (await countTags(pg, who.userId)) >= LIMITS.tags) {
      throw badRequest(`an account has at most ${LIMITS.tags} address tags`);
    }
    const { row } = await upsertTag(pg, { userId: who.userId, address: address!, name: name!, at: now() });
    return ok({ id: row.id, address_hash: checksummed(row.address_hash), name: row.name }, 201);
  };

  const removeTag: Handler = async ({ who, params }) => {
    const id = recordId(params.id);
    if (!(await deleteTag(pg, who.userId, id))) throw notFound('Address tag not found');
    return ok({ id, deleted: true });
  };

  const getAbis: Handler = async ({ who }) => {
    const rows = await listCustomAbis(pg, who.userId);
    return ok(rows.map((r) => ({ id: r.id, contract_address_hash: checksummed(r.contract_address_hash), name: r.name, abi: r.abi })));
  };

  const addAbi: Handler = async ({ who, body }) => {
    const b = body();
    const f = new Fields(b, ['contract_address_hash', 'name', 'abi']);
    const address = f.address('contract_address_hash');
    const name = f.name('name', NAME_MAX.other, true);
    let abi: unknown[] | undefined;
    if (!f.has('abi')) f.fail('abi is required');
    else {
      try {
        abi = parseAbiInput(b.abi);
      } catch (e) {
        if (!(e instanceof AbiError)) throw e;
        f.fail(e.message);
      }
    }
    f.done();
    if (!(await customAbiExists(pg, who.userId, address!)) && (await countCustomAbis(pg, who.userId)) >= LIMITS.customAbis) {
      throw badRequest(`an account has at most ${LIMITS.customAbis} custom ABIs`);
    }
    const { row } = await upsertCustomAbi(pg, { userId: who.userId, address: address!, name: name!, abi: abi!, at: now() });
    return ok({ id: row.id, contract_address_hash: checksummed(row.contract_address_hash), name: row.name }, 201);
  };

  const removeAbi: Handler = async ({ who, params }) => {
    const id = recordId(params.id);
    if (!(await deleteCustomAbi(pg, who.userId, id))) throw notFound('Custom ABI not found');
    return ok({ id, deleted: true });
  };

  // ---- public names (#19) ----

  const submitName: Handler = async ({ who, body }) => ok(await publicNames.submit(who.userId, body()), 201);
  const ownNames: Handler = async ({ who }) => ok(await publicNames.mine(who.userId));
  const nameMessage: Handler = async ({ req }) => {
    const f = new Fields(Object.fromEntries(req.query.entries()), ['address_hash', 'name']);
    const address = f.address('address_hash');
    const name = f.name('name', 255, true);
    f.done();
    return ok({ message: publicNames.message(address!, name!) });
  };
  const uploadIcon: Handler = async ({ who, req }) => ok(await publicNames.uploadIcon(who.userId, req.body), 201);
  /** Admin routes answer 404 to other accounts, as for a path that does not exist. */
  const admin =
    (run: Handler): Handler =>
    async (c) => {
      if (!(await publicNames.isAdmin(c.who.userId))) throw notFound(`Unknown Account API path: ${c.req.path.slice(0, 200)}`);
      return run(c);
    };
  const actor = (c: Ctx) => `account:${c.who.userId}`;
  const optionalBody = (c: Ctx) => (c.req.body?.length ? c.body() : {});
  const listForReview = admin(async ({ req }) => ok(await publicNames.list(req.query.get('status'))));
  const review = admin(async ({ params }) => ok(await publicNames.review(recordId(params.id))));
  const approve = admin(async (c) => ok(await publicNames.decide(c.params.id, 'approve', actor(c), optionalBody(c))));
  const reject = admin(async (c) => ok(await publicNames.decide(c.params.id, 'reject', actor(c), optionalBody(c))));
  const edit = admin(async (c) => ok(await publicNames.decide(c.params.id, 'edit', actor(c), c.body())));
  const decisions = admin(async ({ req }) => ok(await publicNames.decisions(req.query.get('submission_id'))));
  const revert = admin(async (c) => ok(await publicNames.revert(c.params.id, actor(c), optionalBody(c))));

  const siweNonce: Handler = async () => ok(await signIn.siweNonce());
  const siweVerify: Handler = async ({ body }) => {
    const g = await signIn.siweVerify(body());
    return ok({ token: g.token, expires_at: g.expires_at });
  };
  const emailCode: Handler = async ({ body }) => ok(await signIn.emailCode(body()));
  const emailVerify: Handler = async ({ body }) => {
    const g = await signIn.emailVerify(body());
    return ok({ token: g.token, expires_at: g.expires_at });
  };
  const logout: Handler = async ({ req, who }) => {
    const token = bearerToken(req.headers)!;
    if (who.kind !== 'session') throw badRequest('sign-out ends a session token; revoke an API key with DELETE /user/api-keys/{id}');
    await auth.endSession(token);
    return ok({ signed_out: true });
  };

  const A = (run: Handler) => ({ run, auth: true });
  const P = (run: Handler) => ({ run, auth: false });
  const routes: Route[] = [
    { pattern: 'user/info', methods: { GET: A(userInfo) } },
    { pattern: 'user', methods: { DELETE: A(deleteAccount) } },
    { pattern: 'user/api-keys', methods: { GET: A(listKeys), POST: A(createKey) } },
    { pattern: 'user/api-keys/:id', methods: { DELETE: A(revokeKey) } },
    { pattern: 'user/watchlist', methods: { GET: A(getWatchlist), POST: A(addWatch) } },
    { pattern: 'user/watchlist/:id', methods: { PATCH: A(patchWatch), DELETE: A(removeWatch) } },
    { pattern: 'user/tags/address', methods: { GET: A(getTags), POST: A(addTag) } },
    { pattern: 'user/tags/address/:id', methods: { DELETE: A(removeTag) } },
    { pattern: 'user/custom-abis', methods: { GET: A(getAbis), POST: A(addAbi) } },
    { pattern: 'user/custom-abis/:id', methods: { DELETE: A(removeAbi) } },
    { pattern: 'user/public-names', methods: { GET: A(ownNames), POST: A(submitName) } },
    { pattern: 'user/public-names/message', methods: { GET: A(nameMessage) } },
    { pattern: ICON_UPLOAD_ROUTE, methods: { POST: A(uploadIcon) } },
    { pattern: 'admin/public-names', methods: { GET: A(listForReview) } },
    { pattern: 'admin/public-names/:id', methods: { GET: A(review), PATCH: A(edit) } },
    { pattern: 'admin/public-names/:id/approve', methods: { POST: A(approve) } },
    { pattern: 'admin/public-names/:id/reject', methods: { POST: A(reject) } },
    { pattern: 'admin/public-name-decisions', methods: { GET: A(decisions) } },
    { pattern: 'admin/public-name-decisions/:id/revert', methods: { POST: A(revert) } },
    { pattern: 'auth/siwe/nonce', methods: { GET: P(siweNonce) } },
    { pattern: 'auth/siwe/verify', methods: { POST: P(siweVerify) } },
    { pattern: 'auth/email/code', methods: { POST: P(emailCode) } },
    { pattern: 'auth/email/verify', methods: { POST: P(emailVerify) } },
    { pattern: 'auth/logout', methods: { POST: A(logout) } },
    ...(deps.extraRoutes ?? []).map((r) => ({
      pattern: r.pattern,
      methods: Object.fromEntries(
        Object.entries(r.methods).map(([m, run]) => [
          m,
          A(async (c: Ctx) => {
            try {
              return await run({ userId: c.who.userId, body: c.body, query: c.req.query });
            } catch (e) {
              const { status, headers } = e as { status?: unknown; headers?: Record<string, string> };
              if (typeof status === 'number' && ((status >= 400 && status < 500) || status === 503)) {
                throw new HttpError(status, (e as Error).message, headers ?? {});
              }
              throw e;
            }
          }),
        ]),
      ),
    })),
  ];

  const matcher = new PathMatcher(routes.map((route) => ({ pattern: route.pattern, value: route })));

  async function handle(req: ApiRequest): Promise<ApiReply> {
    const method = (req.method || '').toUpperCase();
    const path = req.path || '/';
    try {
      if (path !== ACCOUNT_PREFIX && !path.startsWith(ACCOUNT_PREFIX + '/')) return reply(404, { message: 'Not found' });
      const m = matcher.match(pathSegments(path, ACCOUNT_PREFIX));
      if (!m) return reply(404, { message: `Unknown Account API path: ${path.slice(0, 200)}` });
      const route = m.value;
      const allow = [...Object.keys(route.methods), 'OPTIONS'].join(', ');
      if (method === 'OPTIONS') return { status: 204, headers: { ...ACCOUNT_CORS, allow }, body: '' };
      const def = route.methods[method];
      if (!def) return reply(405, { message: `Method ${method.slice(0, 20)} is not allowed here; allowed: ${allow}` }, { allow });
      if (closed) return reply(503, { message: 'The Account API is shutting down' });
      const cap = maxBodyBytes(path);
      if (req.body && req.body.length > cap) {
        return reply(413, { message: `The request body is larger than ${cap} bytes` });
      }
      let who: Identity | null = null;
      if (def.auth) {
        // SERVICE.md: the Account API's credential is `Authorization: Bearer`; sessions are accepted too.
        who = await auth.lookup(bearerToken(req.headers));
        if (!who) return reply(401, { message: INVALID_KEY }, { 'www-authenticate': 'Bearer' });
      }
      let parsed: Record<string, unknown> | undefined;
      const r = await def.run({
        req,
        params: m.params,
        who: who as Identity,
        body: () => (parsed ??= jsonObjectBody(req.body)),
      });
      return reply(r.status, { data: r.data });
    } catch (e) {
      if (e instanceof HttpError) return reply(e.status, { message: e.message }, e.headers);
      log.error('account request failed', { method, path: path.slice(0, 200), error: e instanceof Error ? e.message : String(e) });
      return reply(500, { message: 'Internal server error' });
    }
  }

  return {
    handle,
    async identify(req) {
      const token = requestToken(req);
      if (!token || !tokenKind(token)) return null;
      try {
        return await auth.lookup(token);
      } catch (e) {
        log.warn('could not identify a credential', { error: e instanceof Error ? e.message : String(e) });
        return null;
      }
    },
    ready: () => auth.ready(),
    onPublicNamesChanged: (fn) => publicNames.onChange(fn),
    maxBodyBytes,
    flushUsage: () => auth.flushUsage(),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(janitor);
      await auth.close();
      mailer?.close();
    },
  };
}
