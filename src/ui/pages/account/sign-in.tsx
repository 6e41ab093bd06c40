// Signing in and out of the web UI: with a browser wallet (Sign-In with Ethereum: the wallet island
// asks the server for the EIP-4361 message of this instance's origin and chain, the wallet signs it
// with personal_sign, the Account API checks it), or with a code e-mailed to an address. Both end
// in the Account API's session token, kept in an HttpOnly cookie (src/ui/session.ts).
import { createSiweMessage } from 'viem/siwe';
import { getAddress, isAddress } from 'viem';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import { apiMessage } from './account-forms.js';

const AUTH = '/account/api/v1/auth';


/** Where to go after signing in: a path of this UI only (never another site). */
function nextOf(v: string | null | undefined): string {
  return v && /^\/(?!\/)[^\s\\]*$/.test(v) ? v : '/account';
}

function SignInForms({ email, error, next, ctx }: { email?: string; error?: string; next: string; ctx: PageCtx }) {
  return (
    <>
      <h1>Sign in</h1>
      <p class="muted">An account keeps API keys, a watchlist with notifications, private address tags and custom ABIs. The first sign-in creates it.</p>
      <div class="two-col">
        <section class="card" aria-labelledby="wallet-h" data-siwe-box data-next={next}>
          <h2 id="wallet-h">With a wallet</h2>
          <p>Sign a message with your browser wallet (Sign-In with Ethereum): nothing is sent to the chain and it costs nothing.</p>
          <p class="muted" data-siwe-need>This needs JavaScript and a browser wallet.</p>
          <button type="button" class="button" data-siwe hidden>
            Sign in with wallet
          </button>
          <p class="form-error" role="alert" data-siwe-error hidden />
        </section>
        <section class="card" aria-labelledby="email-h">
          <h2 id="email-h">With e-mail</h2>
          <form method="post" action="/account/sign-in/email" class="form">
            <input type="hidden" name="next" value={next} />
            {ctx.viewer ? <input type="hidden" name="csrf" value={ctx.viewer.csrf} /> : null}
            <label for="email">E-mail address</label>
            <input id="email" name="email" type="email" required maxLength={254} autocomplete="email" value={email ?? ''} aria-describedby={error ? 'email-error' : undefined} />
            {error ? (
              <p class="form-error" id="email-error" role="alert">
                {error}
              </p>
            ) : null}
            <button type="submit" class="button">
              Send me a code
            </button>
          </form>
        </section>
      </div>
    </>
  );
}

export async function signInPage(ctx: PageCtx): Promise<PageResult> {
  const next = nextOf(ctx.url.searchParams.get('next'));
  if (ctx.viewer) return { title: 'Signed in', redirect: next, cache: false };
  return { title: 'Sign in · Explorer', cache: false, islands: ['wallet'], body: <SignInForms next={next} ctx={ctx} /> };
}

function CodeForm({ email, next, error }: { email: string; next: string; error?: string }) {
  return (
    <>
      <h1>Enter your code</h1>
      <section class="card">
        <p>
          A 6-digit code was sent to <strong>{email}</strong>. It is valid for 10 minutes.
        </p>
        <form method="post" action="/account/sign-in/email/verify" class="form">
          <input type="hidden" name="email" value={email} />
          <input type="hidden" name="next" value={next} />
          <label for="code">Code</label>
          <input id="code" name="code" inputMode="numeric" pattern="[0-9]{6}" maxLength={6} required autocomplete="one-time-code" aria-describedby={error ? 'code-error' : undefined} />
          {error ? (
            <p class="form-error" id="code-error" role="alert">
              {error}
            </p>
          ) : null}
          <button type="submit" class="button">
            Sign in
          </button>
        </form>
        <p>
          <a href={`/account/sign-in?next=${encodeURIComponent(next)}`}>Use another address or a wallet</a>
        </p>
      </section>
    </>
  );
}

export async function codePage(ctx: PageCtx): Promise<PageResult> {
  const email = ctx.url.searchParams.get('email') ?? '';
  if (!email) return { title: 'Sign in', redirect: '/account/sign-in', cache: false };
  return { title: 'Enter your code · Explorer', cache: false, body: <CodeForm email={email.slice(0, 254)} next={nextOf(ctx.url.searchParams.get('next'))} /> };
}

const session = (data: { token?: string; expires_at?: string } | undefined) => (data?.token && data.expires_at ? { token: data.token, expiresAt: data.expires_at } : undefined);

export const SIGN_IN_ACTIONS: ActionDef[] = [
  {
    pattern: '/account/sign-in/email',
    signedIn: false,
    async run(ctx): Promise<ActionResult> {
      const email = (ctx.form.email ?? '').trim();
      const next = nextOf(ctx.form.next);
      const r = await ctx.api.send('POST', `${AUTH}/email/code`, { email });
      if (r.status === 200) return { redirect: `/account/sign-in/code?email=${encodeURIComponent(email)}&next=${encodeURIComponent(next)}` };
      const error = apiMessage(r.body, `The code could not be sent (${r.status}).`);
      return { page: { status: r.status === 429 ? 429 : 400, title: 'Sign in · Explorer', islands: ['wallet'], body: <SignInForms email={email} error={error} next={next} ctx={ctx} /> } };
    },
  },
  {
    pattern: '/account/sign-in/email/verify',
    signedIn: false,
    async run(ctx): Promise<ActionResult> {
      const email = (ctx.form.email ?? '').trim();
      const next = nextOf(ctx.form.next);
      const r = await ctx.api.send<{ data?: { token: string; expires_at: string } }>('POST', `${AUTH}/email/verify`, { email, code: (ctx.form.code ?? '').trim() });
      const s = r.status === 200 ? session(r.body.data) : undefined;
      if (s) return { redirect: next, session: s };
      return { page: { status: 401, title: 'Enter your code · Explorer', body: <CodeForm email={email} next={next} error={apiMessage(r.body, 'The code was not accepted.')} /> } };
    },
  },
  {
    // The wallet island: the EIP-4361 message for this address, this instance's origin and chain.
    pattern: '/account/sign-in/siwe/message',
    signedIn: false,
    async run(ctx): Promise<ActionResult> {
      const address = ctx.form.address ?? '';
      if (!isAddress(address, { strict: false })) return { json: { message: 'address must be 0x and 40 hex digits' }, status: 400 };
      const r = await ctx.api.get<{ data?: { nonce: string; domain: string; uri: string; chain_id: number; expires_at: string } }>(`${AUTH}/siwe/nonce`);
      const d = r.body?.data;
      if (r.status !== 200 || !d) return { json: { message: apiMessage(r.body, `Sign-in with a wallet is not available (${r.status}).`) }, status: r.status === 200 ? 502 : r.status };
      const message = createSiweMessage({
        domain: d.domain,
        address: getAddress(address),
        statement: 'Sign in to the explorer.',
        uri: d.uri,
        version: '1',
        chainId: d.chain_id,
        nonce: d.nonce,
        issuedAt: new Date(ctx.now),
        expirationTime: new Date(d.expires_at),
      });
      return { json: { message } };
    },
  },
  {
    pattern: '/account/sign-in/siwe',
    signedIn: false,
    async run(ctx): Promise<ActionResult> {
      const r = await ctx.api.send<{ data?: { token: string; expires_at: string } }>('POST', `${AUTH}/siwe/verify`, { message: ctx.form.message ?? '', signature: ctx.form.signature ?? '' });
      const s = r.status === 200 ? session(r.body.data) : undefined;
      if (s) return { json: { redirect: nextOf(ctx.form.next) }, session: s };
      return { json: { message: apiMessage(r.body, `The signature was not accepted (${r.status}).`) }, status: r.status === 200 ? 502 : r.status };
    },
  },
  {
    pattern: '/account/sign-out',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      await ctx.api.send('POST', `${AUTH}/logout`, {});
      return { redirect: '/', session: null };
    },
  },
];
