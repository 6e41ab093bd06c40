// Pages that say what went wrong: not found, bad input, the API unavailable; and the way page
// code reads the API (its 404 and 422 become those pages).
import type { PageCtx, PageResult } from '../page.js';

/** A page that cannot be shown: its status, a title and what was asked. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
  ) {
    super(title);
  }
}

export function errorPage(status: number, title: string, detail: string): PageResult {
  return {
    status,
    title: `${title} · Explorer`,
    body: (
      <section class="error-page">
        <p class="error-code">{status}</p>
        <h1>{title}</h1>
        <p>{detail}</p>
        <p>
          <a href="/">Back to the home page</a>
        </p>
      </section>
    ),
  };
}

/** Blockscout's 422 body: the first error's detail, for the bad-input page. */
function invalidDetail(body: unknown): string | null {
  const errors = (body as { errors?: { detail?: string; source?: { pointer?: string } }[] } | null)?.errors;
  const e = errors?.[0];
  return e ? `${e.source?.pointer?.replace(/^\//, '') ?? 'value'}: ${e.detail ?? 'invalid'}` : null;
}

/**
 * The API's answer to `path` when it is 200; its 404 becomes a "not found" page naming `what`,
 * its 422 a bad-input page with the API's reason.
 */
export async function apiGet<T = any>(ctx: PageCtx, path: string, what: string): Promise<T> {
  const r = await ctx.api.get<T>(path);
  if (r.status === 200) return r.body;
  if (r.status === 404) throw new PageError(404, `${what} not found`, `${what} was not found on this chain (yet).`);
  if (r.status === 422 || r.status === 400) {
    throw new PageError(400, `Invalid ${what.toLowerCase()}`, invalidDetail(r.body) ?? `The request for ${what.toLowerCase()} is not valid.`);
  }
  throw new PageError(502, 'The data service failed', `It answered ${r.status} for ${what.toLowerCase()}.`);
}

/** Like apiGet, but null instead of a not-found page (optional parts of a page). */
export async function apiGetOptional<T = any>(ctx: PageCtx, path: string): Promise<T | null> {
  const r = await ctx.api.get<T>(path);
  return r.status === 200 ? r.body : null;
}
