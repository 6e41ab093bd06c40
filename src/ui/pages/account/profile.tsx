// The signed-in visitor's account page: who they are (name, e-mail, nickname, wallet, since when),
// the account's sections, and deleting the account (typed confirmation). Pages under /account are
// for a signed-in visitor only: anyone else is sent to the sign-in page.
import { Row } from '../../components/common.js';
import { utcTime } from '../../format.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import { apiMessage } from './account-forms.js';

/** Sends a visitor who is not signed in to the sign-in page, back here afterwards. */
export function needSignIn(ctx: PageCtx): PageResult | null {
  if (ctx.viewer) return null;
  return { title: 'Sign in', redirect: `/account/sign-in?next=${encodeURIComponent(ctx.url.pathname + ctx.url.search)}`, cache: false };
}

export const ACCOUNT_SECTIONS = [
  { href: '/account', label: 'Profile' },
  { href: '/account/api-keys', label: 'API keys' },
  { href: '/account/watchlist', label: 'Watchlist' },
  { href: '/account/tags', label: 'Private tags' },
  { href: '/account/custom-abis', label: 'Custom ABIs' },
  { href: '/account/notifications', label: 'Notifications' },
  { href: '/account/public-names', label: 'Public names' },
];

/** The account's navigation, the current section marked. */
export function AccountNav({ current }: { current: string }) {
  return (
    <nav class="tabs" aria-label="Account">
      {ACCOUNT_SECTIONS.map((s) => (
        <a href={s.href} aria-current={s.href === current ? 'page' : undefined}>
          {s.label}
        </a>
      ))}
    </nav>
  );
}

const CONFIRM = 'delete my account';

function Profile({ u, csrf, error }: { u: { name: string; email: string | null; nickname: string | null; registered_at: string; address_hash?: string }; csrf: string; error?: string }) {
  return (
    <>
      <h1>Account</h1>
      <AccountNav current="/account" />
      <section class="card">
        <dl class="details">
          <Row label="Name">{u.name}</Row>
          <Row label="E-mail">{u.email ?? <span class="muted">none</span>}</Row>
          <Row label="Nickname">{u.nickname ?? <span class="muted">none</span>}</Row>
          {u.address_hash ? (
            <Row label="Wallet">
              <a href={`/address/${u.address_hash}`} class="mono">
                {u.address_hash}
              </a>
            </Row>
          ) : null}
          <Row label="Registered">{utcTime(u.registered_at)}</Row>
        </dl>
      </section>
      <section class="card danger" aria-labelledby="delete-h">
        <h2 id="delete-h">Delete the account</h2>
        <p>Its API keys stop working at once; its watchlist, private tags, custom ABIs and notification settings are deleted. This cannot be undone.</p>
        <form method="post" action="/account/delete" class="form">
          <input type="hidden" name="csrf" value={csrf} />
          <label for="confirm">
            Type <strong>{CONFIRM}</strong> to confirm
          </label>
          <input id="confirm" name="confirm" required autocomplete="off" aria-describedby={error ? 'confirm-error' : undefined} />
          {error ? (
            <p class="form-error" id="confirm-error" role="alert">
              {error}
            </p>
          ) : null}
          <button type="submit" class="button danger">
            Delete the account
          </button>
        </form>
      </section>
    </>
  );
}

async function me(ctx: PageCtx) {
  const r = await ctx.api.get<{ data: { name: string; email: string | null; nickname: string | null; registered_at: string; address_hash?: string } }>('/account/api/v1/user/info');
  return r.status === 200 ? r.body.data : null;
}

export async function profilePage(ctx: PageCtx): Promise<PageResult> {
  const out = needSignIn(ctx);
  if (out) return out;
  const u = await me(ctx);
  if (!u) return { title: 'Sign in', redirect: '/account/sign-in', cache: false };
  return { title: 'Account · Explorer', cache: false, body: <Profile u={u} csrf={ctx.viewer!.csrf} /> };
}

export const PROFILE_ACTIONS: ActionDef[] = [
  {
    pattern: '/account/delete',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      if ((ctx.form.confirm ?? '').trim().toLowerCase() !== CONFIRM) {
        const u = await me(ctx);
        if (!u) return { redirect: '/account/sign-in', session: null };
        return { page: { status: 400, title: 'Account · Explorer', body: <Profile u={u} csrf={ctx.viewer!.csrf} error={`Type "${CONFIRM}" exactly to delete the account.`} /> } };
      }
      const r = await ctx.api.send('DELETE', '/account/api/v1/user', undefined);
      if (r.status !== 200) {
        const u = await me(ctx);
        return { page: { status: r.status, title: 'Account · Explorer', body: u ? <Profile u={u} csrf={ctx.viewer!.csrf} error={apiMessage(r.body, `The account could not be deleted (${r.status}).`)} /> : <p>{apiMessage(r.body, 'Failed.')}</p> } };
      }
      return { redirect: '/', session: null };
    },
  },
];
