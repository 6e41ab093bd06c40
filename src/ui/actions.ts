// The web UI's POSTs: a form of a page (URL-encoded) or an island (JSON) asks to change something
// (sign in or out, create a key, add a tag...). Each is checked to come from a page of this UI
// (Origin and, when signed in, the session's form token: src/ui/session.ts) before its action
// (src/ui/routes.ts ACTIONS) runs; the answer is a redirect (303), a page with the form's errors,
// or JSON, setting or clearing the session cookie as the action says. Never cached.
import type { ApiReply, ApiRequest } from '../api/http.js';
import { PathMatcher, pathSegments } from '../api/path-match.js';
import type { Logger } from '../log.js';
import { ApiUnavailable, asCaller, type ApiClient } from './api-client.js';
import { ACTIONS } from './routes.js';
import type { ActionResult, FormFile, PageCtx, PageResult, SessionChange, Viewer } from './page.js';
import { PageError, errorPage } from './pages/errors.js';
import { clearSessionCookie, csrfToken, refuseCrossSite, secure, sessionCookie, sessionOf, viewerName } from './session.js';

/** Largest form body (a custom ABI pasted or uploaded: the Account API takes 256 KiB). */
export const MAX_FORM_BYTES = 300 * 1024;

export interface ActionsOptions {
  api: ApiClient;
  log: Logger;
  coin: string;
  /** The instance's public origin (PUBLIC_URL): https there means Secure cookies. */
  publicUrl?: string;
  clock: () => number;
  /** Renders a page result as the UI does (layout, assets) into HTML bytes. */
  render(r: PageResult, viewer: Viewer | undefined): Buffer;
  /** The visitor's address for the API's rate limits (X-Forwarded-For behind trusted proxies). */
  clientIp(req: ApiRequest): string;
  /** Security headers every answer carries. */
  headers: Record<string, string>;
  /** Drops the cached pages (an action changed what everyone sees: a public-name decision). */
  pagesChanged?: () => void;
}

const actionMatcher = new PathMatcher(ACTIONS.map((a) => ({ pattern: a.pattern, value: a })));

/** The largest body the action at `path` takes (its own limit, else MAX_FORM_BYTES); 0 when there is no action there. */
export function actionBodyLimit(path: string): number {
  const m = actionMatcher.match(pathSegments(path || '/'));
  return m ? m.value.maxBytes ?? MAX_FORM_BYTES : 0;
}

/**
 * The fields of a form or JSON body, as strings (nested JSON values stay JSON text; a multipart
 * form's files as their text: the contract verification form sends its standard JSON input so),
 * and a multipart form's non-empty files as bytes (an image must not go through text).
 */
export async function formParts(req: ApiRequest): Promise<{ fields: Record<string, string>; files: Record<string, FormFile> } | null> {
  const body = req.body?.toString('utf8') ?? '';
  const type = req.headers['content-type'] ?? '';
  if (/^application\/json\b/i.test(type)) {
    try {
      const v = JSON.parse(body || '{}') as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
      return { fields: Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? x : JSON.stringify(x)])), files: {} };
    } catch {
      return null;
    }
  }
  if (/^multipart\/form-data\b/i.test(type)) {
    try {
      // The platform's own multipart parser (undici's, behind Response), as the API reads its forms.
      const form = await new Response(new Uint8Array(req.body ?? Buffer.alloc(0)), { headers: { 'content-type': type } }).formData();
      const out: Record<string, string> = {};
      const files: Record<string, FormFile> = {};
      for (const [k, v] of form as unknown as Iterable<[string, string | File]>) {
        if (k in out) continue;
        if (typeof v === 'string') {
          out[k] = v;
          continue;
        }
        const bytes = Buffer.from(await v.arrayBuffer());
        out[k] = bytes.toString('utf8');
        if (bytes.length) files[k] = { bytes, type: v.type || 'application/octet-stream', name: v.name ?? '' };
      }
      return { fields: out, files };
    } catch {
      return null;
    }
  }
  if (type && !/^application\/x-www-form-urlencoded\b/i.test(type)) return null;
  return { fields: Object.fromEntries(new URLSearchParams(body)), files: {} };
}

/** The fields of a form or JSON body, as strings (formParts without the files' bytes). */
export async function formFields(req: ApiRequest): Promise<Record<string, string> | null> {
  return (await formParts(req))?.fields ?? null;
}

export function createActions(o: ActionsOptions) {
  function answer(req: ApiRequest, r: ActionResult, viewer: Viewer | undefined): ApiReply {
    const headers: Record<string, string> = { 'cache-control': 'no-store', ...o.headers };
    const change: SessionChange | undefined = r.session;
    if (change !== undefined) headers['set-cookie'] = change ? sessionCookie(change.token, change.expiresAt, secure(req, o.publicUrl)) : clearSessionCookie(secure(req, o.publicUrl));
    if ('redirect' in r) return { status: 303, headers: { ...headers, location: r.redirect }, body: '' };
    if ('json' in r) return { status: r.status ?? 200, headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(r.json) };
    return { status: r.page.status ?? 200, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' }, body: o.render(r.page, viewer) };
  }

  return async function handle(req: ApiRequest): Promise<ApiReply> {
    const path = req.path || '/';
    const m = actionMatcher.match(pathSegments(path));
    if (!m) return answer(req, { page: errorPage(404, 'Nothing to send here', `There is no form at ${path.slice(0, 200)}.`) }, undefined);
    const limit = m.value.maxBytes ?? MAX_FORM_BYTES;
    if ((req.body?.length ?? 0) > limit) return answer(req, { page: errorPage(413, 'Too much sent', `This form may send at most ${Math.floor(limit / 1024)} KiB.`) }, undefined);
    const parts = await formParts(req);
    const form = parts?.fields;
    if (!parts || !form) return answer(req, { page: errorPage(400, 'Unreadable form', 'The form could not be read (send it from its page).') }, undefined);
    const session = sessionOf(req);
    const refused = refuseCrossSite(req, form, session);
    if (refused) return answer(req, { page: errorPage(403, 'Refused', `${refused}.`) }, undefined);
    const action = m.value;
    if (action.signedIn && !session) return answer(req, { redirect: `/account/sign-in?next=${encodeURIComponent(path)}` }, undefined);
    const ip = o.clientIp(req);
    const viewer: Viewer | undefined = session ? { name: 'Account', csrf: csrfToken(session) } : undefined;
    const ctx: PageCtx & { form: Record<string, string>; files: Record<string, FormFile>; session: string | null } = {
      api: session ? asCaller(o.api, { token: session, ip }) : asCaller(o.api, { ip }),
      url: new URL(`http://ui${path}`),
      params: m.params,
      coin: o.coin,
      now: o.clock(),
      viewer,
      form,
      files: parts.files,
      session,
    };
    try {
      const result = await action.run(ctx);
      if ('redirect' in result && result.pagesChanged) o.pagesChanged?.();
      // A page answered in place (a refusal, a secret shown once) names the visitor in its header
      // like every other page; a redirect needs no name.
      if (viewer && 'page' in result && !result.session) {
        const me = await ctx.api.get<{ data: Parameters<typeof viewerName>[0] }>('/account/api/v1/user/info');
        if (me.status === 200) viewer.name = viewerName(me.body.data);
      }
      return answer(req, result, viewer);
    } catch (e) {
      if (e instanceof PageError) return answer(req, { page: errorPage(e.status, e.title, e.detail) }, viewer);
      if (e instanceof ApiUnavailable) return answer(req, { page: errorPage(503, 'The explorer is unavailable', 'Its data service did not answer. Try again in a moment.') }, viewer);
      o.log.error('form failed', { path: path.slice(0, 200), error: e instanceof Error ? e.stack ?? e.message : String(e) });
      return answer(req, { page: errorPage(500, 'Something went wrong', 'The form could not be handled.') }, viewer);
    }
  };
}
