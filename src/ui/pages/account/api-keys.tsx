// The account's API keys: the list (name, key id, created, last used), creating one (its secret
// shown once, on the answer to the POST itself: never in a URL, a cookie or a cache) and revoking
// one after a confirmation page that works without JavaScript.
import { Copy, Empty, Table, Time } from '../../components/common.js';
import { utcTime } from '../../format.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import { PageError } from '../errors.js';
import { Csrf, FormError, apiProblem, refused } from './account-forms.js';
import { AccountNav, needSignIn } from './profile.js';
import { ConfirmRemove, Done, UUID, findRecord, listOf } from './records.js';

const API = '/account/api/v1/user/api-keys';
const SECTION = '/account/api-keys';
/** The Account API's limits (src/account/app.ts LIMITS.apiKeys, NAME_MAX.other). */
const MAX_KEYS = 100;
const NAME_MAX = 255;

interface ApiKey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

interface NewKey {
  id: string;
  name: string;
  api_key: string;
}

const DONE = { revoked: 'The key is revoked: requests that send it are refused from now on.' };

function KeysView({ ctx, keys, created, name = '', error }: { ctx: PageCtx; keys: ApiKey[]; created?: NewKey; name?: string; error?: string | null }) {
  return (
    <>
      <h1>API keys</h1>
      <AccountNav current={SECTION} />
      {created ? null : <Done ctx={ctx} texts={DONE} />}
      {created ? (
        // data-forget-post: the account island turns this POST answer's history entry into a plain
        // GET of the list, so reloading shows the list without the secret (and makes no second key).
        <section class="card" aria-labelledby="secret-h" data-forget-post>
          <h2 id="secret-h">Your new key “{created.name}”</h2>
          <p class="notice" role="note">
            Copy the key now: it is not shown again, here or anywhere. If you lose it, revoke it and create another.
          </p>
          <p class="secret">
            <code class="mono" id="new-key-secret">
              {created.api_key}
            </code>
            <Copy text={created.api_key} label="API key" />
          </p>
          <p class="muted">
            Send it as <code>Authorization: Bearer &lt;key&gt;</code> to the data API (a higher rate limit, counted for this key) and to the Account API (<code>/account/api/v1</code>).
          </p>
        </section>
      ) : null}
      <section class="card" aria-labelledby="keys-h">
        <h2 id="keys-h">Your keys</h2>
        {keys.length ? (
          <Table head={['Name', 'Key id', 'Created', 'Last used', 'Actions']} caption="API keys">
            {keys.map((k) => (
              <tr id={`key-${k.id}`}>
                <td class="record-name">{k.name}</td>
                <td class="mono" title={k.id}>
                  {k.id.slice(0, 8)}
                </td>
                <td>{utcTime(k.created_at)}</td>
                <td>{k.last_used_at ? <Time iso={k.last_used_at} /> : <span class="muted">never</span>}</td>
                <td>
                  <a href={`${SECTION}/${k.id}/revoke`} aria-label={`Revoke ${k.name}`}>
                    Revoke
                  </a>
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          <Empty>No API key yet. The data API works without one, at the anonymous rate limit.</Empty>
        )}
        <p class="muted">
          {keys.length} of at most {MAX_KEYS} keys. The key id (its start here, in full when revoking) names a key: it is not the secret.
        </p>
      </section>
      <section class="card" id="create" aria-labelledby="create-h">
        <h2 id="create-h">Create a key</h2>
        <form method="post" action={SECTION} class="form">
          <Csrf ctx={ctx} />
          <label for="key-name">Name</label>
          <input
            id="key-name"
            name="name"
            required
            maxLength={NAME_MAX}
            autocomplete="off"
            placeholder="e.g. my indexer"
            value={name}
            aria-describedby={error ? 'create-error' : undefined}
          />
          <FormError id="create-error" error={error} />
          <button type="submit" class="button">
            Create key
          </button>
        </form>
      </section>
    </>
  );
}

async function keysPage(ctx: PageCtx, extra: { created?: NewKey; name?: string; error?: string | null } = {}): Promise<PageResult> {
  const keys = await listOf<ApiKey>(ctx, API, 'API keys');
  return { title: 'API keys · Explorer', cache: false, islands: ['account'], body: <KeysView ctx={ctx} keys={keys} {...extra} /> };
}

export async function apiKeysPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? keysPage(ctx);
}

/** The key `:id` of the account, or a 404 page (an id that is not a UUID never reaches the API). */
async function keyOf(ctx: PageCtx): Promise<ApiKey> {
  const id = ctx.params.id ?? '';
  if (!UUID.test(id)) throw new PageError(404, 'No such API key', 'This is not the id of an API key. Back to your API keys.');
  return findRecord(await listOf<ApiKey>(ctx, API, 'API keys'), id.toLowerCase(), 'API key', 'your API keys');
}

function revokePage(ctx: PageCtx, k: ApiKey, error?: string): PageResult {
  return {
    title: 'Revoke an API key · Explorer',
    cache: false,
    body: (
      <ConfirmRemove
        ctx={ctx}
        section={SECTION}
        title="Revoke an API key"
        consequence="Every request that sends this key is refused (401) from the moment it is revoked. This cannot be undone: a new key has a new secret."
        action={`${SECTION}/${k.id}/revoke`}
        verb="Revoke the key"
        error={error}
      >
        <p>
          The key <strong>{k.name}</strong> (<span class="mono">{k.id}</span>), created {utcTime(k.created_at)}, {k.last_used_at ? <>last used <Time iso={k.last_used_at} /></> : 'never used'}.
        </p>
      </ConfirmRemove>
    ),
  };
}

export async function apiKeyRevokePage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? revokePage(ctx, await keyOf(ctx));
}

export const API_KEY_ACTIONS: ActionDef[] = [
  {
    pattern: SECTION,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const name = (ctx.form.name ?? '').trim();
      const r = await ctx.api.send<{ data: NewKey }>('POST', API, { name });
      // The secret goes into this answer only (no-store, like every action's answer).
      if (r.status === 201 || r.status === 200) return { page: await keysPage(ctx, { created: r.body.data }) };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, await keysPage(ctx, { name, error: apiProblem(r, 'The key could not be created') }));
    },
  },
  {
    pattern: `${SECTION}/:id/revoke`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const k = await keyOf(ctx);
      const r = await ctx.api.send('DELETE', `${API}/${k.id}`, undefined);
      if (r.status === 200) return { redirect: `${SECTION}?done=revoked` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, revokePage(ctx, k, apiProblem(r, 'The key could not be revoked')));
    },
  },
];
