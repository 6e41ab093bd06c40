// Public names (#19) in the web UI: a signed-in account's submissions and the form to submit one
// (/account/public-names: name, tags, website, description, an icon uploaded or by URL, a token's
// official links, and an optional signature by the address's owner, which the `public-name` island
// asks of the browser's wallet), and the review pages of the accounts `explorer admin grant` named
// (/account/admin/public-names: approve, reject with a reason, edit, revert a decision). Everything
// goes through the Account API (src/account/public-names.ts); every change is a POST form with the
// form token, so the pages work without JavaScript. A non-admin gets the UI's 404 page, as the API
// answers them 404.
import { AddressLink, Empty, Table, Time } from '../../components/common.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import type { FormFile } from '../../page.js';
import { PublicIcon } from '../../components/public-icon.js';
import { PageError } from '../errors.js';
import { Csrf, FormError, apiProblem, refused } from './account-forms.js';
import { AccountNav, needSignIn } from './profile.js';
import { Done, RECORD_ID, samePath } from './records.js';

const API = '/account/api/v1/user/public-names';
const ICONS_API = '/account/api/v1/user/public-icons';
const ADMIN_API = '/account/api/v1/admin/public-names';
const DECISIONS_API = '/account/api/v1/admin/public-name-decisions';
const SECTION = '/account/public-names';
const REVIEW = '/account/admin/public-names';
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ICON_ID = /^[0-9a-f]{64}\.(png|jpg|webp|gif)$/;
/** The Account API's limits (src/account/public-names.ts PUBLIC_NAME_LIMITS). */
const LIMITS = { name: 64, tags: 8, tag: 35, website: 255, description: 1000 } as const;
/** A token's official links (src/account/public-names.ts TOKEN_LINK_KEYS). */
const LINK_KEYS = ['website', 'docs', 'github', 'twitter', 'telegram', 'discord', 'reddit', 'whitepaper', 'coingecko', 'coinmarketcap'] as const;
const LINK_LABELS: Record<(typeof LINK_KEYS)[number], string> = {
  website: 'Website',
  docs: 'Documentation',
  github: 'GitHub',
  twitter: 'X (Twitter)',
  telegram: 'Telegram',
  discord: 'Discord',
  reddit: 'Reddit',
  whitepaper: 'Whitepaper',
  coingecko: 'CoinGecko',
  coinmarketcap: 'CoinMarketCap',
};
/**
 * The submission form's largest body: an icon of up to the API's PUBLIC_ICON_MAX_BYTES (1 MiB by
 * default) with the form's text and the multipart framing. Larger than the API's default so that
 * an icon the API refuses as too large reaches it and its 413 message is shown in the form.
 */
export const PUBLIC_NAME_FORM_BYTES = 4 * 1024 * 1024;

export interface Submission {
  id: string;
  address_hash: string;
  kind: 'address' | 'token';
  name: string;
  tags: string[];
  website: string | null;
  description: string | null;
  icon_url: string | null;
  links: Record<string, string>;
  status: 'pending' | 'approved' | 'rejected';
  signer: string | null;
  created_at: string;
  updated_at: string;
  submitted_by?: string;
}

interface Decision {
  id: string;
  submission_id: string;
  action: string;
  actor: string;
  at: string;
  note: string | null;
  reverts: string | null;
  reverted_by: string | null;
}

interface Review extends Submission {
  proof: { signer: string; signed_message: string; signature: string; signer_is_deployer: boolean; signer_is_owner: boolean | null } | null;
  decisions: Decision[];
}

interface Values {
  address: string;
  name: string;
  tags: string;
  website: string;
  description: string;
  iconUrl: string;
  /** An icon uploaded by an earlier attempt of this form (kept so a refusal does not lose it). */
  icon: string;
  links: Record<string, string>;
  signature: string;
}

const EMPTY: Values = { address: '', name: '', tags: '', website: '', description: '', iconUrl: '', icon: '', links: {}, signature: '' };

const STATUS_TEXT = { pending: 'Pending review', approved: 'Approved', rejected: 'Rejected' } as const;

const DONE = {
  submitted: 'Submitted. The operator reviews it; it shows for everyone once approved.',
};

const REVIEW_DONE = {
  approved: 'Approved: the name shows for everyone.',
  rejected: 'Rejected: the name does not show.',
  edited: 'Saved.',
  reverted: 'The decision is reverted.',
};

/** Tags as typed ("exchange, bridge") into the API's array. */
function tagList(s: string): string[] {
  return s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/** The status of a submission as a small label. */
function Status({ s }: { s: Submission['status'] }) {
  return <span class={`tag pn-status pn-${s}`}>{STATUS_TEXT[s] ?? s}</span>;
}

/** Tags as small labels. */
function Tags({ tags }: { tags: string[] }) {
  if (!tags.length) return <span class="muted">none</span>;
  return (
    <span class="pn-tags">
      {tags.map((t) => (
        <span class="tag">{t}</span>
      ))}
    </span>
  );
}

function ExternalLink({ href }: { href: string | null }) {
  if (!href) return <span class="muted">none</span>;
  return (
    <a href={href} rel="nofollow noopener noreferrer" class="pn-url">
      {href}
    </a>
  );
}

// ---------------------------------------------------------------- the account's page

function SubmitForm({ ctx, v, isToken, message, error }: { ctx: PageCtx; v: Values; isToken: boolean; message: string | null; error?: string | null }) {
  const err = error ? 'submit-error' : undefined;
  return (
    <form method="post" action={SECTION} enctype="multipart/form-data" class="form pn-form" data-public-name-form="">
      <Csrf ctx={ctx} />
      <label for="pn-address">Address (a contract, token or account this explorer has seen)</label>
      <input id="pn-address" name="address_hash" class="mono" required pattern="0x[0-9a-fA-F]{40}" maxLength={42} placeholder="0x…" spellcheck={false} autocomplete="off" value={v.address} aria-describedby={err} />
      <label for="pn-name">Public name (at most {LIMITS.name} characters, no &lt; or &gt;)</label>
      <input id="pn-name" name="name" required maxLength={LIMITS.name} data-count autocomplete="off" value={v.name} aria-describedby={err} />
      <label for="pn-tags">Tags, separated by commas (at most {LIMITS.tags}, each at most {LIMITS.tag} characters)</label>
      <input id="pn-tags" name="tags" autocomplete="off" placeholder="exchange, bridge" value={v.tags} aria-describedby={err} />
      <label for="pn-website">Website</label>
      <input id="pn-website" name="website" type="url" maxLength={LIMITS.website} placeholder="https://…" autocomplete="off" value={v.website} aria-describedby={err} />
      <label for="pn-description">Description (at most {LIMITS.description} characters)</label>
      <textarea id="pn-description" name="description" rows={4} maxLength={LIMITS.description} class="pn-description" aria-describedby={err}>
        {v.description}
      </textarea>
      <fieldset class="watch-fields pn-fieldset">
        <legend>Icon (optional)</legend>
        <p class="muted">A square PNG, JPEG, WebP or GIF of at most 1 MiB and 1024×1024 pixels (an animated one keeps its first frame; SVG is refused). Upload a file, or give its URL: it is fetched once and kept here.</p>
        {v.icon && ICON_ID.test(v.icon) ? (
          <p class="pn-kept">
            <input type="hidden" name="icon" value={v.icon} />
            Uploaded already: <code class="mono">{v.icon.slice(0, 12)}…</code> (choose another file to replace it).
          </p>
        ) : null}
        <label for="pn-icon">Icon file</label>
        <input id="pn-icon" name="icon_file" type="file" accept="image/png,image/jpeg,image/webp,image/gif" />
        <label for="pn-icon-url">or the icon's URL</label>
        <input id="pn-icon-url" name="icon_url" type="url" maxLength={2048} placeholder="https://…/icon.png" autocomplete="off" value={v.iconUrl} />
      </fieldset>
      <details class="pn-links" open={isToken || Object.values(v.links).some(Boolean)}>
        <summary>Official links (tokens only)</summary>
        <div class="form">
          {LINK_KEYS.map((k) => (
            <>
              <label for={`pn-link-${k}`}>{LINK_LABELS[k]}</label>
              <input id={`pn-link-${k}`} name={`link_${k}`} type="url" maxLength={255} placeholder="https://…" autocomplete="off" value={v.links[k] ?? ''} />
            </>
          ))}
        </div>
      </details>
      <fieldset class="watch-fields pn-fieldset" data-owner-sign-box="">
        <legend>Proof of control (optional)</legend>
        <p class="muted">
          A signature (EIP-191 personal_sign) by the contract's deployer or owner, or by the account itself, shows the reviewers that the submission comes from whoever controls the address.
        </p>
        {message ? (
          <>
            <p>The message to sign for this address and name:</p>
            <pre class="pn-message" id="pn-message">
              {message}
            </pre>
          </>
        ) : (
          <p class="muted" id="pn-message-hint">
            The message is “Public name submission to &lt;this explorer&gt;”, then “Address: &lt;checksummed address&gt;” and “Name: &lt;name&gt;” on lines of their own.
          </p>
        )}
        <p class="pn-sign-row">
          <button type="button" class="button secondary" data-owner-sign="" hidden>
            Sign with the owner's wallet
          </button>
          <span class="muted" data-owner-sign-status="" role="status"></span>
        </p>
        <p class="form-error" data-owner-sign-error="" role="alert" hidden></p>
        <label for="pn-signature">Signature (0x followed by 130 hex digits)</label>
        <input id="pn-signature" name="signature" class="mono" pattern="0x[0-9a-fA-F]{130}" maxLength={132} spellcheck={false} autocomplete="off" placeholder="0x…" value={v.signature} />
      </fieldset>
      <FormError id="submit-error" error={error} />
      <button type="submit" class="button">
        Submit for review
      </button>
    </form>
  );
}

function SubmissionsView(p: { ctx: PageCtx; items: Submission[]; pending: number | null; v: Values; isToken: boolean; message: string | null; error?: string | null }) {
  return (
    <>
      <h1>Public names</h1>
      <AccountNav current={SECTION} />
      {p.error ? null : <Done ctx={p.ctx} texts={DONE} />}
      {p.pending !== null ? (
        <p class="notice pn-admin-note">
          You review public names: {p.pending} pending. <a href={REVIEW}>Review submissions</a>
        </p>
      ) : null}
      <section class="card" aria-labelledby="mine-h">
        <h2 id="mine-h">Your submissions</h2>
        {p.items.length ? (
          <Table head={['Name', 'Address', 'Tags', 'Status', 'Submitted']} caption="Your public-name submissions">
            {p.items.map((s) => (
              <tr id={`submission-${s.id}`}>
                <td>
                  <span class="pn-name-cell">
                    <PublicIcon src={s.icon_url} alt={`Icon of ${s.name}`} size={24} />
                    <span class="record-name">{s.name}</span>
                  </span>
                </td>
                <td>
                  <AddressLink a={s.address_hash} />
                </td>
                <td>
                  <Tags tags={s.tags} />
                </td>
                <td>
                  <Status s={s.status} />
                </td>
                <td>
                  <Time iso={s.created_at} />
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          <Empty>No submission yet. Submit one below, or with “Submit a public name” on an address page.</Empty>
        )}
      </section>
      <section class="card" id="submit" aria-labelledby="submit-h">
        <h2 id="submit-h">Submit a public name</h2>
        <p class="muted">
          A public name shows for everyone wherever the address appears, with its tags, once this explorer's operator approves it. Submit only for an address your project controls.
        </p>
        <SubmitForm ctx={p.ctx} v={p.v} isToken={p.isToken} message={p.message} error={p.error} />
      </section>
    </>
  );
}

/** Whether `address` is a token (its official links apply), asked of the public API. */
async function isToken(ctx: PageCtx, address: string): Promise<boolean> {
  if (!ADDRESS.test(address)) return false;
  const r = await ctx.api.get<{ address_hash?: string }>(`/api/v2/tokens/${address}`);
  return r.status === 200 && !!r.body?.address_hash;
}

/** The exact text to sign for these values, when they make one (the Account API's). */
async function messageFor(ctx: PageCtx, v: Values): Promise<string | null> {
  if (!ADDRESS.test(v.address) || !v.name.trim()) return null;
  const r = await ctx.api.get<{ data?: { message?: string } }>(`${API}/message?address_hash=${v.address}&name=${encodeURIComponent(v.name.trim())}`);
  return r.status === 200 && typeof r.body?.data?.message === 'string' ? r.body.data.message : null;
}

async function listPage(ctx: PageCtx, extra: { v?: Values; error?: string | null } = {}): Promise<PageResult> {
  const address = ctx.url.searchParams.get('address') ?? '';
  const v = extra.v ?? { ...EMPTY, address: ADDRESS.test(address) ? address : '' };
  const [mine, admin, token, message] = await Promise.all([
    ctx.api.get<{ data?: Submission[] }>(API),
    ctx.api.get<{ data?: Submission[] }>(`${ADMIN_API}?status=pending`),
    isToken(ctx, v.address),
    extra.error ? messageFor(ctx, v) : Promise.resolve(null),
  ]);
  if (mine.status !== 200 || !Array.isArray(mine.body?.data)) {
    throw new PageError(mine.status >= 400 && mine.status < 500 ? mine.status : 502, 'Your submissions could not be read', apiProblem(mine, 'Your submissions could not be read'));
  }
  const pending = admin.status === 200 && Array.isArray(admin.body?.data) ? admin.body.data.length : null;
  return {
    title: 'Public names · Explorer',
    cache: false,
    islands: ['account', 'public-name'],
    body: <SubmissionsView ctx={ctx} items={mine.body.data} pending={pending} v={v} isToken={token} message={message} error={extra.error} />,
  };
}

export async function publicNamesPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? listPage(ctx);
}

const valuesOf = (form: Record<string, string>): Values => ({
  address: (form.address_hash ?? '').trim(),
  name: form.name ?? '',
  tags: form.tags ?? '',
  website: (form.website ?? '').trim(),
  description: form.description ?? '',
  iconUrl: (form.icon_url ?? '').trim(),
  icon: ICON_ID.test(form.icon ?? '') ? form.icon! : '',
  links: Object.fromEntries(LINK_KEYS.map((k) => [k, (form[`link_${k}`] ?? '').trim()]).filter(([, u]) => u)),
  signature: (form.signature ?? '').trim(),
});

/** The submission as the Account API takes it: only what was filled in. */
function submissionBody(v: Values): Record<string, unknown> {
  const body: Record<string, unknown> = { address_hash: v.address, name: v.name.trim() };
  const tags = tagList(v.tags);
  if (tags.length) body.tags = tags;
  if (v.website) body.website = v.website;
  if (v.description.trim()) body.description = v.description;
  if (v.icon) body.icon = v.icon;
  if (v.iconUrl) body.icon_url = v.iconUrl;
  if (Object.keys(v.links).length) body.links = v.links;
  if (v.signature) body.signature = v.signature;
  return body;
}

async function submit(ctx: PageCtx & { form: Record<string, string>; files?: Record<string, FormFile> }): Promise<ActionResult> {
  const v = valuesOf(ctx.form);
  const file = ctx.files?.icon_file;
  if (file) {
    if (v.iconUrl) return { page: { ...(await listPage(ctx, { v, error: 'Give an icon file or an icon URL, not both.' })), status: 400 } };
    const up = await ctx.api.upload<{ data?: { icon?: string } }>(ICONS_API, file.bytes, file.type);
    if (up.status !== 201 || typeof up.body?.data?.icon !== 'string') return refused(ctx, up, await listPage(ctx, { v, error: apiProblem(up, 'The icon could not be uploaded') }));
    v.icon = up.body.data.icon;
  } else if (v.icon && v.iconUrl) {
    // An icon kept from an earlier attempt gives way to a URL given now.
    v.icon = '';
  }
  const r = await ctx.api.send('POST', API, submissionBody(v));
  if (r.status === 201 || r.status === 200) return { redirect: `${SECTION}?done=submitted` };
  return refused(ctx, r, await listPage(ctx, { v, error: apiProblem(r, 'The submission could not be sent') }));
}

// ---------------------------------------------------------------- review (admins)

/** The UI's own 404 page: what a non-admin gets (the API answers them 404 as for no path). */
function notFound(ctx: PageCtx): PageError {
  return new PageError(404, 'Page not found', `There is no page at ${ctx.url.pathname.slice(0, 200)}.`);
}

/** The review list from the Account API, or the 404 page for anyone who is not an admin. */
async function reviewList(ctx: PageCtx, status: string | null): Promise<Submission[]> {
  const r = await ctx.api.get<{ data?: Submission[] }>(`${ADMIN_API}${status ? `?status=${status}` : ''}`);
  if (r.status === 404) throw notFound(ctx);
  if (r.status !== 200 || !Array.isArray(r.body?.data)) throw new PageError(r.status >= 400 && r.status < 500 ? r.status : 502, 'The submissions could not be read', apiProblem(r, 'The submissions could not be read'));
  return r.body.data;
}

async function reviewOf(ctx: PageCtx, id: string): Promise<Review> {
  if (!RECORD_ID.test(id)) throw notFound(ctx);
  const r = await ctx.api.get<{ data?: Review }>(`${ADMIN_API}/${id}`);
  if (r.status === 404) throw r.body && /Submission not found/.test(JSON.stringify(r.body)) ? new PageError(404, 'No such submission', 'There is no submission with this id.') : notFound(ctx);
  if (r.status !== 200 || !r.body?.data) throw new PageError(502, 'The submission could not be read', apiProblem(r, 'The submission could not be read'));
  return r.body.data;
}

const FILTERS = [
  { id: '', label: 'Pending and recent' },
  { id: 'approved', label: 'Approved' },
  { id: 'rejected', label: 'Rejected' },
  { id: 'all', label: 'All' },
] as const;

const yesNo = (v: boolean | null) => (v === null ? 'unknown (no node to ask)' : v ? 'yes' : 'no');

function Proof({ r }: { r: Review }) {
  if (!r.proof) return <span class="muted">not signed</span>;
  return (
    <span class="pn-proof">
      signed by <AddressLink a={r.proof.signer} />
      <span>
        deployer: <strong>{r.proof.signer_is_deployer ? 'yes' : 'no'}</strong>, current owner(): <strong>{yesNo(r.proof.signer_is_owner)}</strong>
      </span>
    </span>
  );
}

function ReviewCard({ ctx, r, back, error }: { ctx: PageCtx; r: Review; back: string; error?: string | null }) {
  const errId = error ? `review-error-${r.id}` : undefined;
  const links = Object.entries(r.links ?? {});
  return (
    <article class="card pn-review" id={`review-${r.id}`} aria-labelledby={`review-h-${r.id}`}>
      <header class="pn-review-head">
        {r.icon_url ? <PublicIcon src={r.icon_url} alt={`Submitted icon of ${r.name}`} size={48} /> : <span class="pn-no-icon muted">no icon</span>}
        <div>
          <h2 id={`review-h-${r.id}`}>
            {r.name} <Status s={r.status} />
          </h2>
          <p class="muted">
            #{r.id} · {r.kind === 'token' ? 'token' : 'address'} · submitted <Time iso={r.created_at} /> by account {r.submitted_by ?? '—'}
          </p>
        </div>
      </header>
      <dl class="details">
        <div class="row">
          <dt>Address</dt>
          <dd>
            <AddressLink a={r.address_hash} full />
          </dd>
        </div>
        <div class="row">
          <dt>Tags</dt>
          <dd>
            <Tags tags={r.tags} />
          </dd>
        </div>
        <div class="row">
          <dt>Website</dt>
          <dd>
            <ExternalLink href={r.website} />
          </dd>
        </div>
        <div class="row">
          <dt>Description</dt>
          <dd class="pn-text">{r.description ?? <span class="muted">none</span>}</dd>
        </div>
        {links.length ? (
          <div class="row">
            <dt>Links</dt>
            <dd>
              <ul class="pn-link-list">
                {links.map(([k, u]) => (
                  <li>
                    {LINK_LABELS[k as keyof typeof LINK_LABELS] ?? k}: <ExternalLink href={u} />
                  </li>
                ))}
              </ul>
            </dd>
          </div>
        ) : null}
        <div class="row">
          <dt>Signature</dt>
          <dd>
            <Proof r={r} />
          </dd>
        </div>
      </dl>
      <FormError id={errId} error={error} />
      <div class="pn-decide">
        {r.status !== 'approved' ? (
          <form method="post" action={`${REVIEW}/${r.id}/approve`} class="pn-inline-form">
            <Csrf ctx={ctx} />
            <input type="hidden" name="back" value={back} />
            <button type="submit" class="button" aria-describedby={errId}>
              Approve <span class="sr-only">{r.name}</span>
            </button>
          </form>
        ) : null}
        {r.status !== 'rejected' ? (
          <form method="post" action={`${REVIEW}/${r.id}/reject`} class="pn-inline-form">
            <Csrf ctx={ctx} />
            <input type="hidden" name="back" value={back} />
            <label class="sr-only" for={`reason-${r.id}`}>
              Reason for rejecting {r.name}
            </label>
            <input id={`reason-${r.id}`} name="note" maxLength={1000} placeholder="Reason (optional)" autocomplete="off" />
            <button type="submit" class="button danger" aria-describedby={errId}>
              Reject <span class="sr-only">{r.name}</span>
            </button>
          </form>
        ) : null}
        <a href={`${REVIEW}/${r.id}/edit`} class="pn-edit-link">
          Edit <span class="sr-only">{r.name}</span>
        </a>
      </div>
      {r.decisions.length ? (
        <details class="pn-decisions" open={r.decisions.some((d) => !d.reverted_by)}>
          <summary>Decisions ({r.decisions.length})</summary>
          <ul>
            {r.decisions.map((d) => (
              <li id={`decision-${d.id}`}>
                <span>
                  <strong>{d.action}</strong> by {d.actor} <Time iso={d.at} />
                  {d.note ? <span class="pn-text"> — “{d.note}”</span> : null}
                  {d.reverted_by ? <span class="muted"> (reverted)</span> : null}
                </span>
                {!d.reverted_by && d.action !== 'revert' ? (
                  <form method="post" action={`/account/admin/public-name-decisions/${d.id}/revert`} class="pn-inline-form">
                    <Csrf ctx={ctx} />
                    <input type="hidden" name="back" value={back} />
                    <button type="submit" class="button secondary">
                      Revert <span class="sr-only">the {d.action} of {r.name}</span>
                    </button>
                  </form>
                ) : null}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </article>
  );
}

async function reviewPage(ctx: PageCtx, err?: { id: string; error: string }): Promise<PageResult> {
  const asked = ctx.url.searchParams.get('status') ?? '';
  const filter = FILTERS.some((f) => f.id === asked) ? asked : '';
  const all = await reviewList(ctx, filter === 'approved' || filter === 'rejected' ? filter : null);
  let sections: { title: string; items: Submission[] }[];
  if (filter === '') {
    const pending = all.filter((s) => s.status === 'pending');
    const recent = all
      .filter((s) => s.status !== 'pending')
      .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0))
      .slice(0, 20);
    sections = [
      { title: `Pending (${pending.length})`, items: pending.slice(0, 50) },
      { title: 'Recently decided', items: recent },
    ];
  } else sections = [{ title: FILTERS.find((f) => f.id === filter)!.label, items: all.slice(-100).reverse() }];
  const reviews = await Promise.all(sections.map((s) => Promise.all(s.items.map((i) => reviewOf(ctx, i.id)))));
  const back = `${REVIEW}${filter ? `?status=${filter}` : ''}`;
  return {
    title: 'Review public names · Explorer',
    cache: false,
    body: (
      <>
        <h1>Review public names</h1>
        <AccountNav current={SECTION} />
        <Done ctx={ctx} texts={REVIEW_DONE} />
        <nav class="tabs" aria-label="Which submissions">
          {FILTERS.map((f) => (
            <a href={`${REVIEW}${f.id ? `?status=${f.id}` : ''}`} aria-current={f.id === filter ? 'page' : undefined}>
              {f.label}
            </a>
          ))}
        </nav>
        {sections.map((s, i) => (
          <section aria-label={s.title} class="pn-section">
            <h2>{s.title}</h2>
            {reviews[i].length ? reviews[i].map((r) => <ReviewCard ctx={ctx} r={r} back={back} error={err && err.id === r.id ? err.error : null} />) : <Empty>None.</Empty>}
          </section>
        ))}
      </>
    ),
  };
}

export async function reviewPublicNamesPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? reviewPage(ctx);
}

interface EditValues {
  name: string;
  tags: string;
  website: string;
  description: string;
  links: Record<string, string>;
  note: string;
}

function editPage(ctx: PageCtx, r: Review, v?: EditValues, error?: string | null): PageResult {
  const e: EditValues = v ?? { name: r.name, tags: r.tags.join(', '), website: r.website ?? '', description: r.description ?? '', links: { ...r.links }, note: '' };
  const err = error ? 'edit-error' : undefined;
  return {
    title: 'Edit a public name · Explorer',
    cache: false,
    islands: ['account'],
    body: (
      <>
        <h1>Edit a public name</h1>
        <AccountNav current={SECTION} />
        <section class="card" aria-labelledby="edit-h">
          <h2 id="edit-h">
            #{r.id} for <AddressLink a={r.address_hash} full copy={false} /> <Status s={r.status} />
          </h2>
          <form method="post" action={`${REVIEW}/${r.id}/edit`} class="form pn-form">
            <Csrf ctx={ctx} />
            <label for="edit-name">Public name</label>
            <input id="edit-name" name="name" required maxLength={LIMITS.name} data-count autocomplete="off" value={e.name} aria-describedby={err} />
            <label for="edit-tags">Tags, separated by commas</label>
            <input id="edit-tags" name="tags" autocomplete="off" value={e.tags} aria-describedby={err} />
            <label for="edit-website">Website</label>
            <input id="edit-website" name="website" type="url" maxLength={LIMITS.website} autocomplete="off" value={e.website} aria-describedby={err} />
            <label for="edit-description">Description</label>
            <textarea id="edit-description" name="description" rows={4} maxLength={LIMITS.description} class="pn-description" aria-describedby={err}>
              {e.description}
            </textarea>
            {r.kind === 'token' ? (
              <fieldset class="watch-fields pn-fieldset">
                <legend>Official links</legend>
                <div class="form">
                  {LINK_KEYS.map((k) => (
                    <>
                      <label for={`edit-link-${k}`}>{LINK_LABELS[k]}</label>
                      <input id={`edit-link-${k}`} name={`link_${k}`} type="url" maxLength={255} autocomplete="off" value={e.links[k] ?? ''} />
                    </>
                  ))}
                </div>
              </fieldset>
            ) : null}
            <label for="edit-note">Note (why; kept with the decision)</label>
            <input id="edit-note" name="note" maxLength={1000} autocomplete="off" value={e.note} />
            <FormError id="edit-error" error={error} />
            <div class="form-buttons">
              <button type="submit" class="button">
                Save
              </button>
              <a href={`${REVIEW}#review-${r.id}`}>Cancel</a>
            </div>
          </form>
          <p class="muted">An approved name changes wherever it shows at once.</p>
        </section>
      </>
    ),
  };
}

export async function editPublicNamePage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? editPage(ctx, await reviewOf(ctx, ctx.params.id ?? ''));
}

/** Back to the review list the form was on (a path of this UI's review page only). */
function backOf(form: Record<string, string>, id: string, done: string): string {
  const b = samePath(form.back);
  const base = b && b.startsWith(REVIEW) ? b : REVIEW;
  return `${base}${base.includes('?') ? '&' : '?'}done=${done}#review-${id}`;
}

/** The review page again with the API's refusal on the card of submission `id`. */
async function reviewRefused(ctx: PageCtx & { form: Record<string, string> }, r: Parameters<typeof refused>[1], id: string, what: string): Promise<ActionResult> {
  if (r.status === 404 && !(r.body && /not found/i.test(JSON.stringify(r.body)))) throw notFound(ctx);
  const b = samePath(ctx.form.back);
  const url = new URL(`http://ui${b && b.startsWith(REVIEW) ? b : REVIEW}`);
  return refused(ctx, r, await reviewPage({ ...ctx, url }, { id, error: apiProblem(r, what) }));
}

function decideAction(verb: 'approve' | 'reject', done: string): ActionDef {
  return {
    pattern: `${REVIEW}/:id/${verb}`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const id = ctx.params.id ?? '';
      if (!RECORD_ID.test(id)) throw notFound(ctx);
      const note = (ctx.form.note ?? '').trim();
      const r = await ctx.api.send('POST', `${ADMIN_API}/${id}/${verb}`, note ? { note } : {});
      if (r.status === 200) return { redirect: backOf(ctx.form, id, done), pagesChanged: true };
      return reviewRefused(ctx, r, id, verb === 'approve' ? 'It could not be approved' : 'It could not be rejected');
    },
  };
}

export const PUBLIC_NAME_ACTIONS: ActionDef[] = [
  { pattern: SECTION, signedIn: true, maxBytes: PUBLIC_NAME_FORM_BYTES, run: submit },
  {
    // The island's request for the text to sign (JSON in and out).
    pattern: `${SECTION}/message`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const address = (ctx.form.address_hash ?? '').trim();
      const name = (ctx.form.name ?? '').trim();
      if (!ADDRESS.test(address)) return { json: { message: 'Fill in the address first (0x and 40 hex digits).' }, status: 400 };
      if (!name) return { json: { message: 'Fill in the public name first: it is part of the signed message.' }, status: 400 };
      const r = await ctx.api.get<{ data?: { message?: string } }>(`${API}/message?address_hash=${address}&name=${encodeURIComponent(name)}`);
      if (r.status === 200 && typeof r.body?.data?.message === 'string') return { json: { message: r.body.data.message } };
      return { json: { message: apiProblem(r, 'The message could not be made') }, status: r.status >= 400 && r.status < 500 ? r.status : 502 };
    },
  },
  decideAction('approve', 'approved'),
  decideAction('reject', 'rejected'),
  {
    pattern: `${REVIEW}/:id/edit`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const r0 = await reviewOf(ctx, ctx.params.id ?? '');
      const f = ctx.form;
      const v: EditValues = {
        name: f.name ?? '',
        tags: f.tags ?? '',
        website: (f.website ?? '').trim(),
        description: f.description ?? '',
        links: Object.fromEntries(LINK_KEYS.map((k) => [k, (f[`link_${k}`] ?? '').trim()]).filter(([, u]) => u)),
        note: (f.note ?? '').trim(),
      };
      const body: Record<string, unknown> = { name: v.name.trim(), tags: tagList(v.tags), website: v.website || null, description: v.description.trim() ? v.description : null };
      if (r0.kind === 'token') body.links = v.links;
      if (v.note) body.note = v.note;
      const r = await ctx.api.send('PATCH', `${ADMIN_API}/${r0.id}`, body);
      if (r.status === 200) return { redirect: `${REVIEW}?done=edited#review-${r0.id}`, pagesChanged: true };
      if (r.status === 404) throw notFound(ctx);
      return refused(ctx, r, editPage(ctx, r0, v, apiProblem(r, 'The edit could not be saved')));
    },
  },
  {
    pattern: '/account/admin/public-name-decisions/:id/revert',
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const id = ctx.params.id ?? '';
      if (!RECORD_ID.test(id)) throw notFound(ctx);
      const r = await ctx.api.send<{ data?: { submission_id?: string } }>('POST', `${DECISIONS_API}/${id}/revert`, {});
      if (r.status === 200) return { redirect: backOf(ctx.form, String(r.body?.data?.submission_id ?? ''), 'reverted'), pagesChanged: true };
      // The card to show the refusal on: the decision's submission, found in the list.
      const d = await ctx.api.get<{ data?: Decision[] }>(`${DECISIONS_API}`);
      const sid = d.status === 200 ? d.body?.data?.find((x) => x.id === id)?.submission_id ?? '' : '';
      return reviewRefused(ctx, r, String(sid), 'The decision could not be reverted');
    },
  },
];
