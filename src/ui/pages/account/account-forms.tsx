// What every account form shares: the hidden form token, the API's refusal put into words for the
// form it belongs to (400 with the API's message, 401 session over, 404 gone, 429 with how long to
// wait), and the answer to a refused change: the page again with the error, or sign-in when the
// session has ended.
import type { ApiResponse } from '../../api-client.js';
import type { ActionResult, PageCtx, PageResult } from '../../page.js';

/** The API's message for a refused request ({message} of the Account API), or a fallback. */
export function apiMessage(body: unknown, fallback: string): string {
  const m = (body as { message?: unknown } | null)?.message;
  return typeof m === 'string' && m ? m : fallback;
}

/** A refused API answer in words a form can show; `what` names the attempt ("The key could not be created"). */
export function apiProblem(r: ApiResponse, what: string): string {
  switch (r.status) {
    case 400:
    case 409:
    case 413:
    case 422:
      return apiMessage(r.body, `${what}.`);
    case 401:
      return 'Your session has ended. Sign in again.';
    case 403:
      return apiMessage(r.body, `${what}: not allowed.`);
    case 404:
      return `${what}: it no longer exists (removed elsewhere?). Reload the page.`;
    case 429: {
      const s = Number(r.headers?.['retry-after']);
      return `Too many requests. Try again in ${Number.isFinite(s) && s > 0 ? `${Math.ceil(s)} second${Math.ceil(s) === 1 ? '' : 's'}` : 'a moment'}.`;
    }
    default:
      return `${what} (the explorer answered ${r.status}). Try again in a moment.`;
  }
}

/** The status a form page with this API refusal is answered with (the API's own for 4xx, else 502). */
export function formStatus(r: ApiResponse): number {
  return r.status >= 400 && r.status < 500 ? r.status : 502;
}

/**
 * The answer to a change the API refused: sign-in again (session cleared) when the session has
 * ended, else `page` (the form again, showing the error from apiProblem) with the API's status.
 */
export function refused(ctx: PageCtx, r: ApiResponse, page: PageResult): ActionResult {
  if (r.status === 401) return { redirect: `/account/sign-in?next=${encodeURIComponent(ctx.url.pathname)}`, session: null };
  return { page: { ...page, status: formStatus(r), cache: false } };
}

/** The form token every form of a signed-in page carries (checked by src/ui/actions.ts). */
export function Csrf({ ctx }: { ctx: PageCtx }) {
  return <input type="hidden" name="csrf" value={ctx.viewer?.csrf ?? ''} />;
}

/** A form's error, announced to screen readers; `id` lets inputs point at it (aria-describedby). */
export function FormError({ error, id }: { error?: string | null; id?: string }) {
  if (!error) return null;
  return (
    <p class="form-error" id={id} role="alert">
      {error}
    </p>
  );
}

/** A form's success line (after a redirect: ?done=...). */
export function FormOk({ text }: { text?: string | null }) {
  if (!text) return null;
  return (
    <p class="form-ok" role="status">
      {text}
    </p>
  );
}
