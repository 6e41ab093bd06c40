// The address page's personal strip: what the signed-in visitor calls the address (their private
// tag, their watchlist name) and, in one click, "add private tag" and "add to watchlist" (forms
// posting to the account pages' own actions, which come back here); for anyone else, a link to
// sign in for them.
import type { PageCtx } from '../page.js';
import { shortHash } from '../format.js';
import { OwnMark, ownLabel, type AddressLike } from './common.js';

/** The tag's longest name (the Account API's limit). */
export const TAG_NAME_MAX = 35;

export function OwnActions({ a, ctx }: { a: AddressLike & { token?: { name?: string | null } | null }; ctx: PageCtx }) {
  const here = `/address/${a.hash}`;
  if (!ctx.viewer) {
    return (
      <p class="own-actions muted">
        <span>
          <a href={`/account/sign-in?next=${encodeURIComponent(here)}`}>Sign in</a> to tag this address privately or watch it.
        </span>{' '}
        <span>
          <a href={`/account/public-names?address=${a.hash}#submit`}>Submit a public name</a> for it.
        </span>
      </p>
    );
  }
  const csrf = ctx.viewer.csrf;
  const tag = a.private_tags?.[0]?.display_name ?? a.private_tags?.[0]?.label;
  const watched = a.watchlist_names?.[0]?.display_name ?? a.watchlist_names?.[0]?.label;
  return (
    <div class="own-actions">
      {tag ? (
        <span>
          Your private tag: <strong>{tag}</strong> <OwnMark kind="private tag" /> <a href="/account/tags">Edit</a>
        </span>
      ) : (
        <form method="post" action="/account/tags" aria-label="Add a private tag">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="address_hash" value={a.hash} />
          <input type="hidden" name="next" value={here} />
          <label class="sr-only" for="own-tag-name">
            Private tag for this address
          </label>
          <input type="text" id="own-tag-name" name="name" required maxLength={TAG_NAME_MAX} placeholder="Private tag (visible to you only)" autocomplete="off" />
          <button type="submit" class="button secondary">
            Add private tag
          </button>
        </form>
      )}
      {watched ? (
        <span>
          In your watchlist as <strong>{watched}</strong> <OwnMark kind="watchlist" /> <a href="/account/watchlist">Edit</a>
        </span>
      ) : (
        <form method="post" action="/account/watchlist" aria-label="Add to the watchlist">
          <input type="hidden" name="csrf" value={csrf} />
          <input type="hidden" name="address_hash" value={a.hash} />
          <input type="hidden" name="name" value={(ownLabel(a)?.text ?? a.name ?? a.token?.name ?? shortHash(a.hash, 8, 6)).slice(0, TAG_NAME_MAX)} />
          <input type="hidden" name="next" value={here} />
          <button type="submit" class="button secondary">
            Add to watchlist
          </button>
        </form>
      )}
      <a href={`/account/public-names?address=${a.hash}#submit`}>Submit a public name</a>
    </div>
  );
}
