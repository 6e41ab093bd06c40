// The account's private address tags: the list, adding one (also the address page's one-step form,
// which comes back there through `next`), editing one (the Account API has no PATCH: a POST for the
// same address replaces its tag in place; a new address is added first and the old tag removed
// only once that worked) and removing one after a confirmation page.
import { AddressLink, Empty, Table } from '../../components/common.js';
import type { ActionDef, ActionResult, PageCtx, PageResult } from '../../page.js';
import { PageError } from '../errors.js';
import { Csrf, FormError, apiProblem, refused } from './account-forms.js';
import { AccountNav, needSignIn } from './profile.js';
import { ConfirmRemove, Done, RECORD_ID, findRecord, listOf, samePath } from './records.js';

const API = '/account/api/v1/user/tags/address';
const SECTION = '/account/tags';
/** The Account API's longest tag (SERVICE.md "Tag name length"). */
export const TAG_MAX = 35;
/** The Account API's most tags per account (src/account/app.ts LIMITS.tags). */
const MAX_TAGS = 10_000;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

interface Tag {
  id: string;
  address_hash: string;
  name: string;
}

interface TagValues {
  address: string;
  name: string;
}

const DONE = {
  added: 'The tag is saved. Only you see it, wherever the address is shown while you are signed in.',
  saved: 'The tag is changed.',
  removed: 'The tag is removed.',
};

/** The address and name inputs of the add and edit forms (the name counted as you type by the account island). */
function TagFields({ prefix, v, errorId }: { prefix: string; v: TagValues; errorId?: string }) {
  return (
    <>
      <label for={`${prefix}-address`}>Address</label>
      <input
        id={`${prefix}-address`}
        name="address_hash"
        class="mono"
        required
        pattern="0x[0-9a-fA-F]{40}"
        maxLength={42}
        placeholder="0x…"
        spellcheck={false}
        autocomplete="off"
        value={v.address}
        aria-describedby={errorId}
      />
      <label for={`${prefix}-name`}>Tag (at most {TAG_MAX} characters)</label>
      <input id={`${prefix}-name`} name="name" required maxLength={TAG_MAX} data-count autocomplete="off" value={v.name} aria-describedby={errorId} />
    </>
  );
}

function TagsView({ ctx, tags, add, next, error }: { ctx: PageCtx; tags: Tag[]; add: TagValues; next: string | null; error?: string | null }) {
  return (
    <>
      <h1>Private tags</h1>
      <AccountNav current={SECTION} />
      {error ? null : <Done ctx={ctx} texts={DONE} />}
      <section class="card" aria-labelledby="tags-h">
        <h2 id="tags-h">Your tags</h2>
        {tags.length ? (
          <Table head={['Tag', 'Address', 'Actions']} caption="Private tags">
            {tags.map((g) => (
              <tr id={`tag-${g.id}`}>
                <td class="record-name">{g.name}</td>
                <td>
                  <AddressLink a={g.address_hash} />
                </td>
                <td class="record-actions">
                  <a href={`${SECTION}/${g.id}/edit`} aria-label={`Edit ${g.name}`}>
                    Edit
                  </a>
                  <a href={`${SECTION}/${g.id}/remove`} aria-label={`Remove ${g.name}`}>
                    Remove
                  </a>
                </td>
              </tr>
            ))}
          </Table>
        ) : (
          <Empty>No private tag yet. Add one below, or with “Add private tag” on an address page.</Empty>
        )}
      </section>
      <section class="card" id="add" aria-labelledby="add-h">
        <h2 id="add-h">Add a tag</h2>
        <p class="muted">
          A tag names an address for you alone ({tags.length} of at most {MAX_TAGS}). An address has one tag: adding one to a tagged address replaces its tag.
        </p>
        <form method="post" action={SECTION} class="form">
          <Csrf ctx={ctx} />
          {next ? <input type="hidden" name="next" value={next} /> : null}
          <TagFields prefix="add" v={add} errorId={error ? 'add-error' : undefined} />
          <FormError id="add-error" error={error} />
          <button type="submit" class="button">
            Add tag
          </button>
        </form>
      </section>
    </>
  );
}

async function listPage(ctx: PageCtx, extra: { add?: TagValues; next?: string | null; error?: string | null } = {}): Promise<PageResult> {
  const tags = await listOf<Tag>(ctx, API, 'private tags');
  const address = ctx.url.searchParams.get('address') ?? '';
  const add = extra.add ?? { address: ADDRESS.test(address) ? address : '', name: '' };
  const next = extra.next !== undefined ? extra.next : samePath(ctx.url.searchParams.get('next'));
  return { title: 'Private tags · Explorer', cache: false, islands: ['account'], body: <TagsView ctx={ctx} tags={tags} add={add} next={next} error={extra.error} /> };
}

export async function tagsPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? listPage(ctx);
}

/** The tag `:id` among `tags` (an id that is not a record id never reaches the API), or a 404 page. */
function tagOf(ctx: PageCtx, tags: Tag[]): Tag {
  const id = ctx.params.id ?? '';
  if (!RECORD_ID.test(id)) throw new PageError(404, 'No such tag', 'This is not the id of a tag. Back to your private tags.');
  return findRecord(tags, id, 'tag', 'your private tags');
}

function EditView({ ctx, g, v, error }: { ctx: PageCtx; g: Tag; v: TagValues; error?: string | null }) {
  return (
    <>
      <h1>Edit a private tag</h1>
      <AccountNav current={SECTION} />
      <section class="card" aria-labelledby="edit-h">
        <h2 id="edit-h">
          “{g.name}” on <AddressLink a={g.address_hash} full copy={false} />
        </h2>
        <form method="post" action={`${SECTION}/${g.id}/edit`} class="form">
          <Csrf ctx={ctx} />
          <TagFields prefix="edit" v={v} errorId={error ? 'edit-error' : undefined} />
          <FormError id="edit-error" error={error} />
          <div class="form-buttons">
            <button type="submit" class="button">
              Save
            </button>
            <a href={SECTION}>Cancel</a>
          </div>
        </form>
        <p class="muted">Another address moves the tag there (the new address is tagged first; the old tag goes only once that worked).</p>
      </section>
    </>
  );
}

function editPage(ctx: PageCtx, g: Tag, v: TagValues = { address: g.address_hash, name: g.name }, error?: string | null): PageResult {
  return { title: 'Edit a private tag · Explorer', cache: false, islands: ['account'], body: <EditView ctx={ctx} g={g} v={v} error={error} /> };
}

export async function tagEditPage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? editPage(ctx, tagOf(ctx, await listOf<Tag>(ctx, API, 'private tags')));
}

function removePage(ctx: PageCtx, g: Tag, error?: string): PageResult {
  return {
    title: 'Remove a private tag · Explorer',
    cache: false,
    body: (
      <ConfirmRemove
        ctx={ctx}
        section={SECTION}
        title="Remove a private tag"
        consequence="The address is shown by its hash (or public name) again."
        action={`${SECTION}/${g.id}/remove`}
        verb="Remove the tag"
        error={error}
      >
        <p>
          The tag <strong>{g.name}</strong> on <AddressLink a={g.address_hash} full copy={false} />.
        </p>
      </ConfirmRemove>
    ),
  };
}

export async function tagRemovePage(ctx: PageCtx): Promise<PageResult> {
  return needSignIn(ctx) ?? removePage(ctx, tagOf(ctx, await listOf<Tag>(ctx, API, 'private tags')));
}

const valuesOf = (form: Record<string, string>): TagValues => ({ address: (form.address_hash ?? '').trim(), name: (form.name ?? '').trim() });

export const TAG_ACTIONS: ActionDef[] = [
  {
    // The add form here, and the address page's one-step form (`next`: back to that page).
    pattern: SECTION,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const v = valuesOf(ctx.form);
      const next = samePath(ctx.form.next);
      const r = await ctx.api.send('POST', API, { address_hash: v.address, name: v.name });
      if (r.status === 201 || r.status === 200) return { redirect: next ?? `${SECTION}?done=added` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, await listPage(ctx, { add: v, next, error: apiProblem(r, 'The tag could not be saved') }));
    },
  },
  {
    pattern: `${SECTION}/:id/edit`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const tags = await listOf<Tag>(ctx, API, 'private tags');
      const g = tagOf(ctx, tags);
      const v = valuesOf(ctx.form);
      const moved = v.address.toLowerCase() !== g.address_hash.toLowerCase();
      // A move onto an address that has its own tag would silently replace that tag: refused here.
      const other = moved ? tags.find((x) => x.address_hash.toLowerCase() === v.address.toLowerCase()) : undefined;
      if (other) return { page: { ...editPage(ctx, g, v, `That address already has your tag “${other.name}”: edit or remove that one first.`), status: 400 } };
      const r = await ctx.api.send('POST', API, { address_hash: v.address, name: v.name });
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      if (r.status !== 201 && r.status !== 200) return refused(ctx, r, editPage(ctx, g, v, apiProblem(r, 'The tag could not be saved')));
      if (moved) {
        const d = await ctx.api.send('DELETE', `${API}/${g.id}`, undefined);
        // 404: removed meanwhile, which is what was wanted.
        if (d.status !== 200 && d.status !== 404) {
          if (d.status === 401) return refused(ctx, d, { title: 'Sign in' });
          return refused(ctx, d, await listPage(ctx, { error: `The new address is tagged, but the old tag stays: ${apiProblem(d, 'it could not be removed')}` }));
        }
      }
      return { redirect: `${SECTION}?done=saved` };
    },
  },
  {
    pattern: `${SECTION}/:id/remove`,
    signedIn: true,
    async run(ctx): Promise<ActionResult> {
      const g = tagOf(ctx, await listOf<Tag>(ctx, API, 'private tags'));
      const r = await ctx.api.send('DELETE', `${API}/${g.id}`, undefined);
      if (r.status === 200) return { redirect: `${SECTION}?done=removed` };
      if (r.status === 401) return refused(ctx, r, { title: 'Sign in' });
      return refused(ctx, r, removePage(ctx, g, apiProblem(r, 'The tag could not be removed')));
    },
  },
];
