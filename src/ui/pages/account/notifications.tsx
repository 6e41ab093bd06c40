// The notification settings pages: the account's webhook (set, test, rotate or remove; its signing
// secret is shown once, on the page that answers the change itself, never through a redirect, a
// URL or a cache), the e-mail address notifications go to (another address is confirmed with a
// mailed code), and the delivery log.
import { AddressLink, Copy, Empty, Row, Table, Time, TxLink } from '../../components/common.js';
import { utcTime } from '../../format.js';
import { PageError } from '../errors.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import { AccountNav, needSignIn } from './profile.js';
import { Csrf, FormError, FormOk, apiProblem, formStatus, refused } from './account-forms.js';

const API = '/account/api/v1/user';
const SETTINGS = `${API}/notification-settings`;
/** Deliveries on the settings page; the log page shows more. */
const RECENT = 10;
const LOG_SIZES = [50, 200, 500];

interface NotifySettings {
  webhook_url: string | null;
  webhook_set_at: string | null;
  email: string | null;
  email_is_account_address: boolean;
  email_confirmed: boolean;
  email_confirmation_expires_at: string | null;
}

interface Delivery {
  id: string;
  event_id: string;
  channel: string;
  status: string;
  attempts: number;
  last_error: string | null;
  last_http_status: number | null;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
  transaction_hash: string | null;
  event: string | null;
  address_hash: string | null;
  kind: string | null;
  direction: string | null;
}

/** Where a success note goes (the section whose form made the change) and what it says. */
const DONE: Record<string, { section: 'webhook' | 'email'; text: string }> = {
  'webhook-removed': { section: 'webhook', text: 'The webhook is removed: nothing more is sent to it.' },
  'test-queued': { section: 'webhook', text: 'A test delivery is queued: it reaches your receiver within seconds (see the deliveries below).' },
  'code-sent': { section: 'email', text: 'A confirmation code was sent to the address: enter it to confirm it.' },
  'email-saved': { section: 'email', text: 'Notifications go to this address.' },
  'email-confirmed': { section: 'email', text: 'The address is confirmed: notifications go to it.' },
};

/** A form's error and the values it was sent with, to show them again. */
interface Refusal {
  form: 'webhook' | 'email' | 'code' | 'test';
  error: string;
  value?: string;
}

async function accountData<T>(ctx: PageCtx, path: string, what: string): Promise<T> {
  const r = await ctx.api.get<{ data: T }>(path);
  if (r.status === 200) return r.body.data;
  throw new PageError(formStatus(r), what, apiProblem(r, what));
}

const kindLabel = (k: string, coin: string) => (k === 'native' ? coin : k);

function DeliveryStatus({ d }: { d: Delivery }) {
  if (d.status === 'delivered')
    return (
      <span class="status ok" title={d.delivered_at ? `Delivered ${utcTime(d.delivered_at)}` : undefined}>
        delivered
      </span>
    );
  if (d.status === 'failed') return <span class="status err">failed</span>;
  if (d.status === 'pending')
    return (
      <span class="status pending" title={d.next_attempt_at ? `Next attempt ${utcTime(d.next_attempt_at)}` : undefined}>
        pending
      </span>
    );
  return <span class="status pending">{d.status}</span>;
}

export function DeliveryLog({ ctx, items, caption }: { ctx: PageCtx; items: Delivery[]; caption: string }) {
  if (!items.length) return <Empty>Nothing was sent yet. Deliveries appear here when a watched address moves funds, or after a test delivery.</Empty>;
  return (
    <Table head={['Time', 'Event', 'Address', 'Transaction', 'Channel', 'Status', 'Attempts', 'Last error']} caption={caption}>
      {items.map((d) => {
        const test = d.event === 'watchlist.test';
        return (
          <tr>
            <td>
              <Time iso={d.created_at} />
            </td>
            <td>{test ? 'Test delivery' : d.kind ? `${kindLabel(d.kind, ctx.coin)} ${d.direction ?? ''}` : (d.event ?? '—')}</td>
            <td>{d.address_hash ? <AddressLink a={d.address_hash} /> : <span class="muted">—</span>}</td>
            <td>{d.transaction_hash && !test ? <TxLink hash={d.transaction_hash} /> : <span class="muted">—</span>}</td>
            <td>{d.channel === 'email' ? 'e-mail' : d.channel}</td>
            <td>
              <DeliveryStatus d={d} />
            </td>
            <td>{d.attempts}</td>
            <td class="delivery-error">
              {/* A delivered attempt's HTTP status is no error: shown only beside a failure. */}
              {d.last_error ? (
                <>
                  {d.last_error}
                  {d.last_http_status ? ` (HTTP ${d.last_http_status})` : null}
                </>
              ) : d.status !== 'delivered' && d.last_http_status ? (
                `HTTP ${d.last_http_status}`
              ) : (
                <span class="muted">—</span>
              )}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

function WebhookCard({ ctx, s, refusal, done }: { ctx: PageCtx; s: NotifySettings; refusal?: Refusal; done?: string }) {
  const urlError = refusal?.form === 'webhook' ? refusal.error : undefined;
  const testError = refusal?.form === 'test' ? refusal.error : undefined;
  return (
    <section class="card" id="webhook" aria-labelledby="webhook-h">
      <h2 id="webhook-h">Webhook</h2>
      <FormOk text={done} />
      <p class="muted">
        Each notification is a JSON POST to this URL, signed with the webhook's secret: <code>X-Service-Signature</code> is the hex HMAC-SHA256 of the raw body,{' '}
        <code>X-Service-Event-Id</code> names the event (deliveries are retried, so deduplicate on it).
      </p>
      {s.webhook_url ? (
        <>
          <dl class="details">
            <Row label="URL">
              <span class="mono">{s.webhook_url}</span>
            </Row>
            <Row label="Set">{s.webhook_set_at ? utcTime(s.webhook_set_at) : '—'}</Row>
          </dl>
          <div class="notify-buttons">
            <form method="post" action="/account/notifications/webhook/test">
              <Csrf ctx={ctx} />
              <button type="submit" class="button" aria-describedby={testError ? 'test-error' : undefined}>
                Send a test delivery
              </button>
            </form>
            <a href="/account/notifications/webhook/rotate">Rotate the secret</a>
            <a href="/account/notifications/webhook/remove">Remove the webhook</a>
          </div>
          <FormError id="test-error" error={testError} />
        </>
      ) : (
        <p>No webhook is set: watchlist entries that send by webhook deliver nothing until one is.</p>
      )}
      <form method="post" action="/account/notifications/webhook" class="form">
        <Csrf ctx={ctx} />
        <label for="webhook-url">{s.webhook_url ? 'Change the URL (a new secret is made)' : 'Webhook URL'}</label>
        <input
          id="webhook-url"
          name="url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://…"
          autocomplete="off"
          spellcheck={false}
          value={refusal?.form === 'webhook' ? refusal.value : ''}
          aria-describedby={urlError ? 'webhook-error' : undefined}
        />
        <FormError id="webhook-error" error={urlError} />
        <button type="submit" class="button">
          {s.webhook_url ? 'Change the URL' : 'Set the webhook'}
        </button>
      </form>
    </section>
  );
}

function EmailCard({ ctx, s, refusal, done }: { ctx: PageCtx; s: NotifySettings; refusal?: Refusal; done?: string }) {
  const emailError = refusal?.form === 'email' ? refusal.error : undefined;
  const codeError = refusal?.form === 'code' ? refusal.error : undefined;
  const waiting = !s.email_confirmed && !!s.email && !s.email_is_account_address;
  return (
    <section class="card" id="email" aria-labelledby="email-h">
      <h2 id="email-h">E-mail</h2>
      <FormOk text={done} />
      <dl class="details">
        <Row label="Notifications go to">{s.email ? <strong>{s.email}</strong> : <span class="muted">no address (the account has none: choose one)</span>}</Row>
        <Row label="State">
          {s.email_is_account_address ? (
            s.email ? (
              <span class="status ok">your account's address</span>
            ) : (
              <span class="status pending">none</span>
            )
          ) : s.email_confirmed ? (
            <span class="status ok">confirmed</span>
          ) : (
            <span class="status pending">waiting for confirmation: nothing is sent to it yet</span>
          )}
        </Row>
      </dl>
      {waiting ? (
        s.email_confirmation_expires_at ? (
          <form method="post" action="/account/notifications/email/confirm" class="form" aria-labelledby="code-h">
            <h3 id="code-h">Confirm the address</h3>
            <Csrf ctx={ctx} />
            <label for="email-code">The 6-digit code mailed to {s.email} (valid until {utcTime(s.email_confirmation_expires_at)})</label>
            <input id="email-code" name="code" inputMode="numeric" pattern="[0-9]{6}" maxLength={6} required autocomplete="one-time-code" aria-describedby={codeError ? 'code-error' : undefined} />
            <FormError id="code-error" error={codeError} />
            <button type="submit" class="button">
              Confirm
            </button>
          </form>
        ) : (
          <>
            <p>The confirmation code has expired or was used up: ask for a new one.</p>
            <FormError id="code-error" error={codeError} />
          </>
        )
      ) : null}
      <form method="post" action="/account/notifications/email" class="form" aria-labelledby="email-choose-h">
        <h3 id="email-choose-h">{waiting ? 'Send a new code, or choose another address' : 'Send notifications to another address'}</h3>
        <Csrf ctx={ctx} />
        <label for="notify-email">E-mail address (another than the account's is confirmed with a mailed code)</label>
        <input
          id="notify-email"
          name="email"
          type="email"
          required
          maxLength={320}
          autocomplete="email"
          value={refusal?.form === 'email' ? refusal.value : waiting ? (s.email ?? '') : ''}
          aria-describedby={emailError ? 'email-error' : undefined}
        />
        <FormError id="email-error" error={emailError} />
        <button type="submit" class="button">
          {waiting ? 'Send the code' : 'Use this address'}
        </button>
      </form>
      {s.email_is_account_address ? null : (
        <form method="post" action="/account/notifications/email" class="notify-buttons">
          <Csrf ctx={ctx} />
          <input type="hidden" name="account" value="1" />
          <button type="submit" class="button secondary">
            Use my account's address instead
          </button>
        </form>
      )}
    </section>
  );
}

async function settingsPage(ctx: PageCtx, refusal?: Refusal): Promise<PageResult> {
  const [s, log] = await Promise.all([
    accountData<NotifySettings>(ctx, SETTINGS, 'The notification settings could not be read'),
    accountData<Delivery[]>(ctx, `${API}/notifications?limit=${RECENT}`, 'The delivery log could not be read'),
  ]);
  const done = refusal ? undefined : DONE[ctx.url.searchParams.get('done') ?? ''];
  return {
    title: 'Notifications · Explorer',
    cache: false,
    body: (
      <>
        <h1>Notifications</h1>
        <AccountNav current="/account/notifications" />
        <p class="muted">
          Where the notifications of your <a href="/account/watchlist">watchlist</a> go. Each entry chooses e-mail, webhook or both.
        </p>
        <div class="two-col">
          <WebhookCard ctx={ctx} s={s} refusal={refusal} done={done?.section === 'webhook' ? done.text : undefined} />
          <EmailCard ctx={ctx} s={s} refusal={refusal} done={done?.section === 'email' ? done.text : undefined} />
        </div>
        <section class="card" aria-labelledby="log-h">
          <h2 id="log-h">Recent deliveries</h2>
          <DeliveryLog ctx={ctx} items={log} caption="Recent deliveries" />
          {log.length >= RECENT ? (
            <p>
              <a href="/account/notifications/log">All recent deliveries</a>
            </p>
          ) : null}
        </section>
      </>
    ),
  };
}

export async function notificationsPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? settingsPage(ctx);
}

export async function notificationLogPage(ctx: PageCtx): Promise<PageResult> {
  const out = needSignIn(ctx);
  if (out) return out;
  const asked = Number(ctx.url.searchParams.get('limit'));
  const limit = LOG_SIZES.includes(asked) ? asked : LOG_SIZES[0];
  const log = await accountData<Delivery[]>(ctx, `${API}/notifications?limit=${limit}`, 'The delivery log could not be read');
  return {
    title: 'Delivery log · Explorer',
    cache: false,
    body: (
      <>
        <h1>Delivery log</h1>
        <AccountNav current="/account/notifications" />
        <section class="card" aria-labelledby="log-h">
          <h2 id="log-h">The {limit} most recent deliveries</h2>
          <nav class="filters" aria-label="How many">
            {LOG_SIZES.map((n) => (
              <a href={`/account/notifications/log?limit=${n}`} aria-current={n === limit ? 'true' : undefined}>
                {n}
              </a>
            ))}
          </nav>
          <DeliveryLog ctx={ctx} items={log} caption="Deliveries, newest first" />
          <p>
            <a href="/account/notifications">Back to the notification settings</a>
          </p>
        </section>
      </>
    ),
  };
}

/** The answer to setting or rotating: the new secret, this once (the action's own answer, never stored or cached). */
function secretPage(secret: string, url: string | null, rotated: boolean): PageResult {
  return {
    title: 'Webhook secret · Explorer',
    cache: false,
    body: (
      <>
        <h1>{rotated ? 'The new signing secret' : 'The webhook is set'}</h1>
        <AccountNav current="/account/notifications" />
        <section class="card secret-card" aria-labelledby="secret-h">
          <h2 id="secret-h">Copy the signing secret now</h2>
          <p class="notice" role="note">
            It is shown only this once: it cannot be shown again. If it is lost, rotate it for a new one.
          </p>
          {url ? (
            <p>
              Deliveries go to <span class="mono">{url}</span>.
            </p>
          ) : null}
          <p class="secret">
            <code class="mono" id="webhook-secret">
              {secret}
            </code>
            <Copy text={secret} label="secret" />
          </p>
          <p>
            {rotated ? 'From now on every delivery is signed with this secret (the old one no longer verifies): put it in your receiver.' : 'Your receiver checks every delivery with it: X-Service-Signature is the hex HMAC-SHA256 of the raw body with this secret.'}
          </p>
          <p>
            <a href="/account/notifications#webhook">I have copied it: back to the notification settings</a>
          </p>
        </section>
      </>
    ),
  };
}

function ConfirmView({ ctx, what, error }: { ctx: PageCtx; what: 'rotate' | 'remove'; error?: string }) {
  const rotate = what === 'rotate';
  return (
    <>
      <h1>{rotate ? 'Rotate the webhook secret' : 'Remove the webhook'}</h1>
      <AccountNav current="/account/notifications" />
      <section class="card danger" aria-labelledby="confirm-h">
        <h2 id="confirm-h">{rotate ? 'Make a new signing secret?' : 'Stop webhook deliveries?'}</h2>
        <p>
          {rotate
            ? 'The current secret stops at once: deliveries from now on are signed with the new one, shown once on the next page. Your receiver rejects them until it has the new secret.'
            : 'Nothing more is sent by webhook, for any watchlist entry, until a webhook is set again (with a new secret). E-mail notifications go on.'}
        </p>
        <form method="post" action={`/account/notifications/webhook/${what}`} class="form">
          <Csrf ctx={ctx} />
          <FormError id="confirm-error" error={error} />
          <div class="form-buttons">
            <button type="submit" class="button danger">
              {rotate ? 'Rotate the secret' : 'Remove the webhook'}
            </button>
            <a href="/account/notifications#webhook">Cancel</a>
          </div>
        </form>
      </section>
    </>
  );
}

function confirmPage(ctx: PageCtx, what: 'rotate' | 'remove', error?: string): PageResult {
  return { title: `${what === 'rotate' ? 'Rotate the webhook secret' : 'Remove the webhook'} · Explorer`, cache: false, body: <ConfirmView ctx={ctx} what={what} error={error} /> };
}

export async function webhookRotatePage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? confirmPage(ctx, 'rotate');
}

export async function webhookRemovePage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? confirmPage(ctx, 'remove');
}

export const NOTIFICATION_ACTIONS: ActionDef[] = [
  {
    pattern: '/account/notifications/webhook',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const url = (ctx.form.url ?? '').trim();
      const r = await ctx.api.send<{ data: { webhook_url: string; secret: string } }>('PUT', `${SETTINGS}/webhook`, { url });
      if (r.status === 200) return { page: secretPage(r.body.data.secret, r.body.data.webhook_url, false) };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, await settingsPage(ctx, { form: 'webhook', error: apiProblem(r, 'The webhook could not be set'), value: url }));
    },
  },
  {
    pattern: '/account/notifications/webhook/rotate',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const r = await ctx.api.send<{ data: { secret: string } }>('POST', `${SETTINGS}/webhook/rotate`, {});
      if (r.status === 200) return { page: secretPage(r.body.data.secret, null, true) };
      return refused(ctx, r, confirmPage(ctx, 'rotate', apiProblem(r, 'The secret could not be rotated')));
    },
  },
  {
    pattern: '/account/notifications/webhook/remove',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const r = await ctx.api.send('DELETE', `${SETTINGS}/webhook`, undefined);
      if (r.status === 200) return { redirect: '/account/notifications?done=webhook-removed#webhook' };
      return refused(ctx, r, confirmPage(ctx, 'remove', apiProblem(r, 'The webhook could not be removed')));
    },
  },
  {
    pattern: '/account/notifications/webhook/test',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const r = await ctx.api.send('POST', `${SETTINGS}/webhook/test`, {});
      if (r.status === 202 || r.status === 200) return { redirect: '/account/notifications?done=test-queued#webhook' };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, await settingsPage(ctx, { form: 'test', error: apiProblem(r, 'The test delivery could not be queued') }));
    },
  },
  {
    // An address (another than the account's is mailed a code), or `account` for the account's own.
    pattern: '/account/notifications/email',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const useAccount = ctx.form.account === '1';
      const email = (ctx.form.email ?? '').trim();
      const r = await ctx.api.send<{ data: NotifySettings }>('PUT', `${SETTINGS}/email`, { email: useAccount ? null : email });
      if (r.status === 200) return { redirect: `/account/notifications?done=${r.body.data.email_confirmed ? 'email-saved' : 'code-sent'}#email` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, await settingsPage(ctx, { form: 'email', error: apiProblem(r, 'The address could not be chosen'), value: email }));
    },
  },
  {
    pattern: '/account/notifications/email/confirm',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const r = await ctx.api.send('POST', `${SETTINGS}/email/confirm`, { code: (ctx.form.code ?? '').trim() });
      if (r.status === 200) return { redirect: '/account/notifications?done=email-confirmed#email' };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, await settingsPage(ctx, { form: 'code', error: apiProblem(r, 'The code was not accepted') }));
    },
  },
];
