/**
 * A URL safe to print: no user/password, query values masked, and path segments that look
 * like API keys (long alphanumeric tokens, e.g. /v3/<key>) masked.
 */
export function redactUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return '<invalid url>';
  }
  u.username = '';
  u.password = '';
  for (const k of [...u.searchParams.keys()]) u.searchParams.set(k, '***');
  u.pathname = u.pathname
    .split('/')
    .map((seg) => (looksLikeKey(seg) ? '***' : seg))
    .join('/');
  return u.toString();
}

function looksLikeKey(seg: string): boolean {
  if (seg.length < 16) return false;
  if (!/^[A-Za-z0-9_\-]+$/.test(seg)) return false;
  return /[0-9]/.test(seg) && /[A-Za-z]/.test(seg);
}
