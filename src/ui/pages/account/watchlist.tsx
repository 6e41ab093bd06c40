// The watchlist pages: the watched addresses (paged as the Account API pages them), adding one with
// its per-standard incoming/outgoing choices and channels (also from the address page's one-click
// form, which comes back there), editing one, and removing one after a confirmation page that
// works without JavaScript.
import { AddressLink, Empty, Row, Table } from '../../components/common.js';
import { PageError } from '../errors.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import { AccountNav, needSignIn } from './profile.js';
import { Csrf, FormError, FormOk, apiProblem, formStatus, refused } from './account-forms.js';

const API = '/account/api/v1/user/watchlist';
/** Entries per page of the list. */
export const WATCHLIST_PAGE = 25;
/** The Account API's largest page, for finding one entry (there is no GET of a single entry). */
const SCAN_PAGE = 1000;
/** The Account API's longest entry name. */
const NAME_MAX = 255;

const KINDS = ['native', 'ERC-20', 'ERC-721', 'ERC-1155'] as const;
type Kind = (typeof KINDS)[number];
type Settings = Record<Kind, { incoming: boolean; outgoing: boolean }>;
interface Methods {
  email: boolean;
  webhook: boolean;
}
export interface WatchEntry {
  id: string;
  address_hash: string;
  name: string;
  notification_settings: Settings;
  notification_methods: Methods;
}
interface WatchPage {
  items: WatchEntry[];
  pagination: { total: number; skip: number; limit: number; hasMore: boolean };
}

/** What a form shows: the values sent back after a refusal, or the defaults of a new entry. */
interface FormValues {
  address: string;
  name: string;
  settings: Settings;
  methods: Methods;
}

const DONE: Record<string, string> = {
  added: 'The address is on your watchlist.',
  saved: 'The changes are saved.',
  removed: 'The address is no longer watched; its notifications have stopped.',
};

const kindLabel = (k: Kind, coin: string) => (k === 'native' ? coin : k);

function allSettings(on: boolean): Settings {
  return Object.fromEntries(KINDS.map((k) => [k, { incoming: on, outgoing: on }])) as Settings;
}

/** A path of this UI to go back to (never another site), or null. */
function localPath(v: string | null | undefined): string | null {
  return v && /^\/(?!\/)[^\s\\]*$/.test(v) ? v : null;
}

/** An offset from the query: a whole number, else the first page. */
function skipOf(v: string | null | undefined): number {
  return v && /^[0-9]{1,9}$/.test(v) ? Number(v) : 0;
}

async function accountData<T>(ctx: PageCtx, path: string, what: string): Promise<T> {
  const r = await ctx.api.get<{ data: T }>(path);
  if (r.status === 200) return r.body.data;
  throw new PageError(formStatus(r), what, apiProblem(r, what));
}

/** Whether the account has a webhook (a new entry sends to it by default then). */
async function webhookSet(ctx: PageCtx): Promise<boolean> {
  const r = await ctx.api.get<{ data: { webhook_url: string | null } }>('/account/api/v1/user/notification-settings');
  return r.status === 200 && !!r.body.data.webhook_url;
}

/** The entry `id`: looked for on the page it was listed on first, then through the whole list. */
async function findEntry(ctx: PageCtx, id: string, skipHint: number): Promise<WatchEntry | null> {
  const near = await accountData<WatchPage>(ctx, `${API}?skip=${skipHint}&limit=${WATCHLIST_PAGE}`, 'The watchlist could not be read');
  const hit = near.items.find((e) => e.id === id);
  if (hit) return hit;
  for (let skip = 0; ; skip += SCAN_PAGE) {
    const p = await accountData<WatchPage>(ctx, `${API}?skip=${skip}&limit=${SCAN_PAGE}`, 'The watchlist could not be read');
    const e = p.items.find((x) => x.id === id);
    if (e) return e;
    if (!p.pagination.hasMore) return null;
  }
}

/** The settings as a form sent them (checkboxes: present when ticked). */
function settingsOf(form: Record<string, string>): Settings {
  return Object.fromEntries(KINDS.map((k) => [k, { incoming: `${k}.incoming` in form, outgoing: `${k}.outgoing` in form }])) as Settings;
}

function methodsOf(form: Record<string, string>): Methods {
  return { email: 'email' in form, webhook: 'webhook' in form };
}

/** "ETH in, out · ERC-20 in", "all transfers, in and out", or "nothing". */
export function settingsSummary(s: Settings, coin: string): string {
  const on = KINDS.map((k) => ({ k, dirs: [s[k]?.incoming ? 'in' : '', s[k]?.outgoing ? 'out' : ''].filter(Boolean) }));
  if (on.every((x) => x.dirs.length === 2)) return 'All transfers, in and out';
  if (on.every((x) => x.dirs.length === 0)) return 'Nothing';
  return on
    .filter((x) => x.dirs.length)
    .map((x) => `${kindLabel(x.k, coin)} ${x.dirs.join(', ')}`)
    .join(' · ');
}

function Channels({ m, hasWebhook }: { m: Methods; hasWebhook: boolean }) {
  if (!m.email && !m.webhook) return <span class="muted">none</span>;
  return (
    <>
      {m.email ? 'e-mail' : null}
      {m.email && m.webhook ? ', ' : null}
      {m.webhook ? (
        hasWebhook ? (
          'webhook'
        ) : (
          <span title="No webhook is set: nothing is sent by webhook until one is">
            webhook <span class="muted">(none set)</span>
          </span>
        )
      ) : null}
    </>
  );
}

/** The standards' incoming/outgoing boxes and the channels, shared by the add and edit forms. */
function SettingsFields({ prefix, v, coin, hasWebhook }: { prefix: string; v: FormValues; coin: string; hasWebhook: boolean }) {
  return (
    <>
      {/* Tells the action these boxes were on the form (an unticked box sends nothing). */}
      <input type="hidden" name="settings" value="1" />
      <fieldset class="watch-fields">
        <legend>Notify about transfers</legend>
        {KINDS.map((k) => (
          <div class="watch-kind">
            <span class="watch-kind-name">{kindLabel(k, coin)}</span>
            <label>
              <input type="checkbox" id={`${prefix}-${k}-in`} name={`${k}.incoming`} checked={v.settings[k].incoming} />
              <span class="sr-only">{kindLabel(k, coin)} </span>incoming
            </label>
            <label>
              <input type="checkbox" id={`${prefix}-${k}-out`} name={`${k}.outgoing`} checked={v.settings[k].outgoing} />
              <span class="sr-only">{kindLabel(k, coin)} </span>outgoing
            </label>
          </div>
        ))}
      </fieldset>
      <fieldset class="watch-fields">
        <legend>Send by</legend>
        <div class="watch-channels">
          <label>
            <input type="checkbox" id={`${prefix}-email`} name="email" checked={v.methods.email} /> e-mail
          </label>
          <label>
            <input type="checkbox" id={`${prefix}-webhook`} name="webhook" checked={v.methods.webhook} /> webhook
          </label>
        </div>
        {hasWebhook ? null : (
          <p class="muted">
            No webhook is set yet: <a href="/account/notifications#webhook">set one</a> for webhook deliveries.
          </p>
        )}
      </fieldset>
    </>
  );
}

function Pages({ p }: { p: WatchPage['pagination'] }) {
  if (p.total <= p.limit && p.skip === 0) return null;
  const at = (skip: number) => (skip > 0 ? `/account/watchlist?skip=${skip}` : '/account/watchlist');
  const last = Math.min(p.skip + p.limit, p.total);
  return (
    <nav class="pager" aria-label="Watchlist pages">
      <span class="muted">
        {p.total ? p.skip + 1 : 0}–{last} of {p.total}
      </span>
      {p.skip > 0 ? (
        <a href={at(Math.max(0, p.skip - p.limit))} rel="prev">
          « Previous
        </a>
      ) : (
        <span class="muted">« Previous</span>
      )}
      {p.hasMore ? (
        <a href={at(p.skip + p.limit)} rel="next">
          Next »
        </a>
      ) : (
        <span class="muted">Next »</span>
      )}
    </nav>
  );
}

interface ListProps {
  ctx: PageCtx;
  page: WatchPage;
  hasWebhook: boolean;
  add: FormValues;
  next: string | null;
  error?: string;
  done?: string | null;
}

function WatchlistView({ ctx, page, hasWebhook, add, next, error, done }: ListProps) {
  const skip = page.pagination.skip;
  const q = skip ? `?skip=${skip}` : '';
  return (
    <>
      <h1>Watchlist</h1>
      <AccountNav current="/account/watchlist" />
      <FormOk text={done ? DONE[done] : null} />
      <section class="card" aria-labelledby="watched-h">
        <h2 id="watched-h">Watched addresses</h2>
        {page.items.length ? (
          <>
            <Table head={['Address', 'Name', 'Notifies about', 'Sent by', 'Actions']} caption="Watched addresses">
              {page.items.map((e) => (
                <tr id={`watch-${e.id}`}>
                  <td>
                    <AddressLink a={e.address_hash} />
                  </td>
                  <td class="watch-name">{e.name}</td>
                  <td>{settingsSummary(e.notification_settings, ctx.coin)}</td>
                  <td>
                    <Channels m={e.notification_methods} hasWebhook={hasWebhook} />
                  </td>
                  <td class="watch-actions">
                    <a href={`/account/watchlist/${e.id}/edit${q}`} aria-label={`Edit ${e.name}`}>
                      Edit
                    </a>
                    <a href={`/account/watchlist/${e.id}/remove${q}`} aria-label={`Remove ${e.name}`}>
                      Remove
                    </a>
                  </td>
                </tr>
              ))}
            </Table>
            <Pages p={page.pagination} />
          </>
        ) : (
          <Empty>No address is watched yet. Add one below, or with “Add to watchlist” on an address page.</Empty>
        )}
      </section>
      <section class="card" id="add" aria-labelledby="add-h">
        <h2 id="add-h">Add an address</h2>
        <p class="muted">A notification is sent when a transfer to or from the address is indexed, for the standards and directions ticked.</p>
        <form method="post" action="/account/watchlist" class="form">
          <Csrf ctx={ctx} />
          {next ? <input type="hidden" name="next" value={next} /> : null}
          <label for="add-address">Address</label>
          <input
            id="add-address"
            name="address_hash"
            class="mono"
            required
            pattern="0x[0-9a-fA-F]{40}"
            maxLength={42}
            placeholder="0x…"
            spellcheck={false}
            autocomplete="off"
            value={add.address}
            aria-describedby={error ? 'add-error' : undefined}
          />
          <label for="add-name">Name</label>
          <input id="add-name" name="name" required maxLength={NAME_MAX} autocomplete="off" value={add.name} aria-describedby={error ? 'add-error' : undefined} />
          <SettingsFields prefix="add" v={add} coin={ctx.coin} hasWebhook={hasWebhook} />
          <FormError id="add-error" error={error} />
          <button type="submit" class="button">
            Add to watchlist
          </button>
        </form>
      </section>
    </>
  );
}

function newEntryValues(ctx: PageCtx, hasWebhook: boolean, address = ''): FormValues {
  return { address, name: '', settings: allSettings(true), methods: { email: true, webhook: hasWebhook } };
}

async function listPage(ctx: PageCtx, skip: number, extra: Partial<ListProps> = {}): Promise<PageResult> {
  const [page, hasWebhook] = await Promise.all([
    accountData<WatchPage>(ctx, `${API}?skip=${skip}&limit=${WATCHLIST_PAGE}`, 'The watchlist could not be read'),
    webhookSet(ctx),
  ]);
  // Past the end (the last entries of the last page removed): the last page there is.
  if (!page.items.length && skip > 0 && page.pagination.total > 0) {
    const lastSkip = Math.floor((page.pagination.total - 1) / WATCHLIST_PAGE) * WATCHLIST_PAGE;
    return { title: 'Watchlist', redirect: `/account/watchlist${lastSkip ? `?skip=${lastSkip}` : ''}`, cache: false };
  }
  const address = ctx.url.searchParams.get('address') ?? '';
  const props: ListProps = {
    ctx,
    page,
    hasWebhook,
    add: newEntryValues(ctx, hasWebhook, /^0x[0-9a-fA-F]{40}$/.test(address) ? address : ''),
    next: localPath(ctx.url.searchParams.get('next')),
    done: ctx.url.searchParams.get('done'),
    ...extra,
  };
  return { title: 'Watchlist · Explorer', cache: false, body: <WatchlistView {...props} /> };
}

export async function watchlistPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? listPage(ctx, skipOf(ctx.url.searchParams.get('skip')));
}

function EditView({ ctx, e, v, hasWebhook, skip, error }: { ctx: PageCtx; e: WatchEntry; v: FormValues; hasWebhook: boolean; skip: number; error?: string }) {
  const back = skip ? `/account/watchlist?skip=${skip}` : '/account/watchlist';
  return (
    <>
      <h1>Edit watchlist entry</h1>
      <AccountNav current="/account/watchlist" />
      <section class="card" aria-labelledby="edit-h">
        <h2 id="edit-h">
          <AddressLink a={e.address_hash} full />
        </h2>
        <form method="post" action={`/account/watchlist/${e.id}/edit`} class="form">
          <Csrf ctx={ctx} />
          <input type="hidden" name="skip" value={String(skip)} />
          <label for="edit-name">Name</label>
          <input id="edit-name" name="name" required maxLength={NAME_MAX} autocomplete="off" value={v.name} aria-describedby={error ? 'edit-error' : undefined} />
          <SettingsFields prefix="edit" v={v} coin={ctx.coin} hasWebhook={hasWebhook} />
          <FormError id="edit-error" error={error} />
          <div class="form-buttons">
            <button type="submit" class="button">
              Save
            </button>
            <a href={back}>Cancel</a>
          </div>
        </form>
        <p>
          To watch another address instead, <a href={`/account/watchlist/${e.id}/remove${skip ? `?skip=${skip}` : ''}`}>remove this entry</a> and add the new address.
        </p>
      </section>
    </>
  );
}

function RemoveView({ ctx, e, skip, error }: { ctx: PageCtx; e: WatchEntry; skip: number; error?: string }) {
  const back = skip ? `/account/watchlist?skip=${skip}` : '/account/watchlist';
  return (
    <>
      <h1>Remove from the watchlist</h1>
      <AccountNav current="/account/watchlist" />
      <section class="card danger" aria-labelledby="remove-h">
        <h2 id="remove-h">Stop watching “{e.name}”?</h2>
        <dl class="details">
          <Row label="Address">
            <AddressLink a={e.address_hash} full />
          </Row>
          <Row label="Notifies about">{settingsSummary(e.notification_settings, ctx.coin)}</Row>
        </dl>
        <p>Its notifications stop at once, including deliveries not yet made.</p>
        <form method="post" action={`/account/watchlist/${e.id}/remove`} class="form">
          <Csrf ctx={ctx} />
          <input type="hidden" name="skip" value={String(skip)} />
          <FormError id="remove-error" error={error} />
          <div class="form-buttons">
            <button type="submit" class="button danger">
              Remove
            </button>
            <a href={back}>Cancel</a>
          </div>
        </form>
      </section>
    </>
  );
}

const valuesOf = (e: WatchEntry): FormValues => ({ address: e.address_hash, name: e.name, settings: e.notification_settings, methods: e.notification_methods });

async function entryOr404(ctx: PageCtx, skip: number): Promise<WatchEntry> {
  const e = /^[0-9]{1,18}$/.test(ctx.params.id) ? await findEntry(ctx, ctx.params.id, skip) : null;
  if (!e) throw new PageError(404, 'Not on your watchlist', 'This watchlist entry does not exist (removed already?). Go back to the watchlist.');
  return e;
}

export async function watchlistEditPage(ctx: PageCtx): Promise<PageResult> {
  const out = needSignIn(ctx);
  if (out) return out;
  const skip = skipOf(ctx.url.searchParams.get('skip'));
  const [e, hasWebhook] = await Promise.all([entryOr404(ctx, skip), webhookSet(ctx)]);
  return { title: 'Edit watchlist entry · Explorer', cache: false, body: <EditView ctx={ctx} e={e} v={valuesOf(e)} hasWebhook={hasWebhook} skip={skip} /> };
}

export async function watchlistRemovePage(ctx: PageCtx): Promise<PageResult> {
  const out = needSignIn(ctx);
  if (out) return out;
  const skip = skipOf(ctx.url.searchParams.get('skip'));
  return { title: 'Remove from the watchlist · Explorer', cache: false, body: <RemoveView ctx={ctx} e={await entryOr404(ctx, skip)} skip={skip} /> };
}

export const WATCHLIST_ACTIONS: ActionDef[] = [
  {
    // The add form here, and the address page's one-click form (no boxes: the defaults; `next` back to it).
    pattern: '/account/watchlist',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const f = ctx.form;
      const full = f.settings === '1';
      const hasWebhook = await webhookSet(ctx);
      const address = (f.address_hash ?? '').trim();
      const name = (f.name ?? '').trim();
      const r = await ctx.api.send<{ data: WatchEntry }>('POST', API, {
        address_hash: address,
        name,
        ...(full ? { notification_settings: settingsOf(f) } : {}),
        notification_methods: full ? methodsOf(f) : { email: true, webhook: hasWebhook },
      });
      if (r.status === 200 || r.status === 201) {
        const next = localPath(f.next);
        if (next) return { redirect: next };
        // Entries are listed oldest first: the new one is on the last page.
        const top = await ctx.api.get<{ data: WatchPage }>(`${API}?limit=1`);
        const total = top.status === 200 ? top.body.data.pagination.total : 0;
        const lastSkip = total > 0 ? Math.floor((total - 1) / WATCHLIST_PAGE) * WATCHLIST_PAGE : 0;
        return { redirect: `/account/watchlist?${lastSkip ? `skip=${lastSkip}&` : ''}done=added` };
      }
      const add: FormValues = full
        ? { address, name, settings: settingsOf(f), methods: methodsOf(f) }
        : { ...newEntryValues(ctx, hasWebhook, address), name };
      return refused(ctx, r, await listPage(ctx, 0, { add, next: localPath(f.next), error: apiProblem(r, 'The address could not be added'), done: null }));
    },
  },
  {
    pattern: '/account/watchlist/:id/edit',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const f = ctx.form;
      const skip = skipOf(f.skip);
      const v = { name: (f.name ?? '').trim(), settings: settingsOf(f), methods: methodsOf(f) };
      const r = await ctx.api.send('PATCH', `${API}/${encodeURIComponent(ctx.params.id)}`, {
        name: v.name,
        notification_settings: v.settings,
        notification_methods: v.methods,
      });
      if (r.status === 200) return { redirect: `/account/watchlist?${skip ? `skip=${skip}&` : ''}done=saved` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      const [e, hasWebhook] = await Promise.all([entryOr404(ctx, skip), webhookSet(ctx)]);
      return refused(ctx, r, {
        title: 'Edit watchlist entry · Explorer',
        body: <EditView ctx={ctx} e={e} v={{ ...v, address: e.address_hash }} hasWebhook={hasWebhook} skip={skip} error={apiProblem(r, 'The changes could not be saved')} />,
      });
    },
  },
  {
    pattern: '/account/watchlist/:id/remove',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const skip = skipOf(ctx.form.skip);
      const r = await ctx.api.send('DELETE', `${API}/${encodeURIComponent(ctx.params.id)}`, undefined);
      if (r.status === 200) return { redirect: `/account/watchlist?${skip ? `skip=${skip}&` : ''}done=removed` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, {
        title: 'Remove from the watchlist · Explorer',
        body: <RemoveView ctx={ctx} e={await entryOr404(ctx, skip)} skip={skip} error={apiProblem(r, 'The address could not be removed')} />,
      });
    },
  },
];
