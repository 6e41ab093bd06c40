// What the account's record pages (API keys, private tags, custom ABIs) share: reading a list from
// the Account API, record ids checked before they go into an API path, a same-origin `next`, the
// "done" line after a redirect, and the confirmation page a revoke or remove goes through (a GET
// page with a POST form, so it works without JavaScript).
import type { ComponentChildren } from 'preact';
import type { PageCtx } from '../../page.js';
import { PageError } from '../errors.js';
import { AccountNav } from './profile.js';
import { Csrf, FormError, FormOk, apiProblem } from './account-forms.js';

/** A list of the Account API (tags, custom ABIs and API keys answer `data` as an array), or an error page. */
export async function listOf<T>(ctx: PageCtx, path: string, what: string): Promise<T[]> {
  const r = await ctx.api.get<{ data?: T[] }>(path);
  if (r.status === 200 && Array.isArray(r.body?.data)) return r.body.data;
  throw new PageError(r.status === 200 ? 502 : r.status >= 400 && r.status < 500 ? r.status : 502, `The ${what} could not be read`, apiProblem(r, `The ${what} could not be read`));
}

/** Ids of tags and custom ABIs (the Account API's record ids: positive integers). */
export const RECORD_ID = /^[1-9][0-9]{0,17}$/;
/** Ids of API keys. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The record `id` of `items`, or a 404 page (never sent to the API unchecked: it goes into a path). */
export function findRecord<T extends { id: string }>(items: T[], id: string, what: string, back: string): T {
  const item = items.find((i) => i.id === id);
  if (!item) throw new PageError(404, `No such ${what}`, `There is no ${what} ${id.slice(0, 40)} in your account (removed already?). Back to ${back}.`);
  return item;
}

/** A path of this UI to go back to (an address page's "add private tag"), or null: never another site. */
export function samePath(v: string | null | undefined): string | null {
  return v && v.length <= 500 && /^\/(?!\/)[^\s\\]*$/.test(v) ? v : null;
}

/** The line shown after a redirect with ?done=<code> (codes only: the URL never carries text to show). */
export function Done({ ctx, texts }: { ctx: PageCtx; texts: Record<string, string> }) {
  const code = ctx.url.searchParams.get('done');
  return <FormOk text={code && Object.hasOwn(texts, code) ? texts[code] : null} />;
}

/**
 * The confirmation of a revoke or remove: what goes, what it means, a POST form (its button the
 * only way to do it) and a way back. `error`: the API's refusal of an earlier attempt.
 */
export function ConfirmRemove(p: {
  ctx: PageCtx;
  section: string;
  title: string;
  /** What happens (one sentence or two). */
  consequence: string;
  action: string;
  verb: string;
  error?: string | null;
  children: ComponentChildren;
}) {
  return (
    <>
      <h1>{p.title}</h1>
      <AccountNav current={p.section} />
      <section class="card danger" aria-labelledby="confirm-h">
        <h2 id="confirm-h">Are you sure?</h2>
        {p.children}
        <p>{p.consequence}</p>
        <form method="post" action={p.action} class="form confirm-form">
          <Csrf ctx={p.ctx} />
          <FormError error={p.error} id="confirm-error" />
          <div class="form-buttons">
            <button type="submit" class="button danger" aria-describedby={p.error ? 'confirm-error' : undefined}>
              {p.verb}
            </button>
            <a href={p.section}>Cancel</a>
          </div>
        </form>
      </section>
    </>
  );
}
