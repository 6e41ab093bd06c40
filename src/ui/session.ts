// A visitor's sign-in on the web UI: the Account API's session token in an HttpOnly, SameSite=Lax
// cookie (Secure when the UI is served over https), and what keeps a signed-in visitor's browser
// from being made to change things by another site: the form must come from this UI's own origin
// (Origin, else Referer) and carry a token derived from the session that other sites cannot read.
import crypto from 'node:crypto';
import type { ApiRequest } from '../api/http.js';

export const SESSION_COOKIE = 'explorer_session';

/** The cookies of a request (the first value of each name). */
export function cookies(req: Pick<ApiRequest, 'headers'>): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (req.headers['cookie'] ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    if (k && !out.has(k)) out.set(k, part.slice(i + 1).trim());
  }
  return out;
}

/** The session token of the visitor, or null (only the Account API's session tokens are kept). */
export function sessionOf(req: Pick<ApiRequest, 'headers'>): string | null {
  const v = cookies(req).get(SESSION_COOKIE);
  return v && /^es_[A-Za-z0-9_-]{20,200}$/.test(v) ? v : null;
}

/** Whether the visitor reached the UI over https (directly, or through a proxy that says so). */
export function secure(req: Pick<ApiRequest, 'headers'>, publicUrl?: string): boolean {
  if (publicUrl) return publicUrl.startsWith('https:');
  return req.headers['x-forwarded-proto'] === 'https';
}

export function sessionCookie(token: string, expiresAt: string, isSecure: boolean): string {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - Date.now()) / 1000));
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${isSecure ? '; Secure' : ''}`;
}

export function clearSessionCookie(isSecure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${isSecure ? '; Secure' : ''}`;
}

/** The token a signed-in page puts in its forms: derived from the session, unknowable to other sites. */
export function csrfToken(session: string): string {
  return crypto.createHmac('sha256', session).update('explorer ui form').digest('base64url');
}

/**
 * Why a state-changing request must be refused, or null: it must come from a page of this UI
 * (its Origin, or without one its Referer, names the request's own host) and, when signed in,
 * carry the session's form token.
 */
export function refuseCrossSite(req: Pick<ApiRequest, 'headers'>, form: URLSearchParams | Record<string, unknown>, session: string | null): string | null {
  const host = req.headers['x-forwarded-host'] ?? req.headers['host'];
  const from = req.headers['origin'] ?? req.headers['referer'];
  if (!from || from === 'null') return 'the request does not say which page it came from';
  let fromHost: string;
  try {
    fromHost = new URL(from).host;
  } catch {
    return 'the request names an unreadable origin';
  }
  if (!host || fromHost !== host) return 'the request came from another site';
  if (session) {
    const sent = form instanceof URLSearchParams ? form.get('csrf') : typeof form.csrf === 'string' ? form.csrf : null;
    const want = csrfToken(session);
    if (!sent || sent.length !== want.length || !crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(want))) return 'the form has expired: reload the page and try again';
  }
  return null;
}

/** What the header calls a signed-in visitor, from the Account API's `/user/info`. */
export function viewerName(d: { name?: string; nickname?: string | null; email?: string | null; address_hash?: string }): string {
  return d.nickname || d.name || d.email || d.address_hash || 'Account';
}
