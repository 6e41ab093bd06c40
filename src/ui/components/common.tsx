// The small pieces every page is built from: address and hash links with identicons and copy
// buttons, times, amounts, status badges, tabs, pagers, detail rows, tiles and empty states.
import { toChildArray, type ComponentChildren } from 'preact';
import { identicon } from '../identicon.js';
import { formatUnits, groupDigits, hashChunks, readableUnits, relativeTime, shortHash, utcTime } from '../format.js';

/** An address as the API embeds it (Blockscout's AddressParam), or a bare hash. */
export interface AddressLike {
  hash: string;
  name?: string | null;
  is_contract?: boolean | null;
  /** The signed-in visitor's own tag (the API adds it to their answers only). */
  private_tags?: { label?: string; display_name?: string }[];
  /** The name the signed-in visitor watches the address under. */
  watchlist_names?: { label?: string; display_name?: string }[];
}

/**
 * A copy button for `text`, or for the text of the element `from` (an id: a long text such as a
 * source file is not repeated in an attribute), or with neither for the last part of the link
 * beside it (an address or hash link: /address/0x…, not repeated a third time in a row's HTML);
 * hidden until the copy island shows it (useless without JavaScript).
 */
export function Copy({ text, from, label }: { text?: string; from?: string; label?: string }) {
  return (
    // Its icon (two sheets; a tick once copied) is drawn by the stylesheet: not repeated in every row's HTML.
    <button type="button" class="copy" data-copy={text} data-copy-from={from} hidden aria-label={`Copy ${label ?? 'value'}`} title="Copy" />
  );
}

/** An address's identicon (identicon.ts); 20 px, the stylesheet's size, unless told. */
export function Identicon({ address, size = 20 }: { address: string; size?: number }) {
  const { bg, fg, d } = identicon(address);
  return (
    <svg class="identicon" width={size === 20 ? undefined : size} height={size === 20 ? undefined : size} viewBox="0 0 5 5" aria-hidden="true">
      <rect width="5" height="5" fill={bg} />
      {d ? <path d={d} stroke={fg} /> : null}
    </svg>
  );
}


/** A full hash or address with even break points (<wbr>): on a narrow screen it wraps in even pieces. */
export function FullHash({ hash }: { hash: string }) {
  return (
    <>
      {hashChunks(hash).map((c, i) => (i ? [<wbr />, c] : c))}
    </>
  );
}

/** What the signed-in visitor calls `a` (their private tag, else their watchlist name), or null. */
export function ownLabel(a: AddressLike): { text: string; kind: 'private tag' | 'watchlist' } | null {
  const tag = a.private_tags?.[0]?.display_name ?? a.private_tags?.[0]?.label;
  if (tag) return { text: tag, kind: 'private tag' };
  const watched = a.watchlist_names?.[0]?.display_name ?? a.watchlist_names?.[0]?.label;
  return watched ? { text: watched, kind: 'watchlist' } : null;
}

/**
 * An address: identicon, the visitor's own label for it (marked as theirs, visible to them only),
 * else its name (token or contract name), else the shortened checksummed hash; link, copy.
 */
export function AddressLink({ a, full = false, copy = true }: { a: AddressLike | string | null | undefined; full?: boolean; copy?: boolean }) {
  if (!a) return <span class="muted">—</span>;
  const addr: AddressLike = typeof a === 'string' ? { hash: a } : a;
  const own = ownLabel(addr);
  const label = own?.text ?? addr.name ?? (full ? <FullHash hash={addr.hash} /> : shortHash(addr.hash, 8, 6));
  return (
    <span class="addr">
      <Identicon address={addr.hash} />
      {addr.is_contract ? <span class="badge-contract" title="Contract">◆</span> : null}
      <a href={`/address/${addr.hash}`} title={own ? `${addr.hash} (your ${own.kind}, visible to you only)` : addr.hash} class={own ? 'own-label' : full && !addr.name ? 'mono' : undefined}>
        {label}
        {own ? <span class="sr-only"> (your {own.kind})</span> : null}
      </a>
      {own ? <OwnMark kind={own.kind} /> : null}
      {copy ? <Copy label="address" /> : null}
    </span>
  );
}

/** The mark beside a label only the signed-in visitor sees: a lock for a private tag, an eye for a watchlist name. */
export function OwnMark({ kind }: { kind: 'private tag' | 'watchlist' }) {
  return (
    <span class={`own-mark ${kind === 'private tag' ? 'own-tag' : 'own-watch'}`} aria-hidden="true" title={kind === 'private tag' ? 'Private tag: visible to you only' : 'Your watchlist name: visible to you only'}>
      {kind === 'private tag' ? 'private' : 'watched'}
    </span>
  );
}

/** A transaction or block hash: shortened (or full) link with a copy button. */
export function HashLink({ hash, href, full = false }: { hash: string; href: string; full?: boolean }) {
  return (
    <span class="hash">
      <a href={href} class="mono" title={hash}>
        {full ? <FullHash hash={hash} /> : shortHash(hash, 10, 8)}
      </a>
      <Copy label="hash" />
    </span>
  );
}

export function TxLink({ hash, full = false }: { hash: string; full?: boolean }) {
  return <HashLink hash={hash} href={`/tx/${hash}`} full={full} />;
}

export function BlockLink({ n }: { n: number | string | null | undefined }) {
  if (n === null || n === undefined) return <span class="muted">—</span>;
  return <a href={`/block/${n}`}>{groupDigits(String(n))}</a>;
}

/** A time relative to now, the exact UTC time on hover; the live island keeps it current. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time datetime={iso} title={utcTime(iso)} data-rel="">
      {relativeTime(iso)}
    </time>
  );
}

/**
 * A figure shown short (`shown`: the digits that matter) whose exact value is one tap, focus or
 * hover away, with no script: the element takes focus (a tap on a phone focuses it) and the
 * stylesheet shows its `.exact` part while it is hovered or focused ("Shortened figures", app.css);
 * hidden otherwise, so the row reads as shown and a screen reader hears the exact value once, when
 * the figure is focused. The app island puts a copy button of the exact digits in it. A figure
 * shown exactly is plain text: nothing to reveal.
 */
export function Shortened({ shown, exact, cls, children }: { shown: string; exact: string; cls?: string; children?: ComponentChildren }) {
  if (shown === exact) return <span class={cls}>{shown}{children}</span>;
  return (
    <span class={cls ? `${cls} short` : 'short'} tabindex={0}>
      {shown}
      <span class="exact">{exact}</span>
      {children}
    </span>
  );
}

/**
 * An amount of base units with its decimals and symbol: exact, or with `max` its digits that matter
 * (about `max` significant ones, format.ts readableUnits) with the exact value a tap away (Shortened).
 */
export function Amount({ value, decimals, symbol, max }: { value: string | null | undefined; decimals: number | string | null | undefined; symbol?: string | null; max?: number }) {
  if (value === null || value === undefined) return <span class="muted">—</span>;
  const exact = formatUnits(value, decimals);
  const shown = max === undefined ? exact : readableUnits(value, decimals, max);
  return (
    <Shortened shown={shown} exact={exact} cls="amount">
      {symbol ? <span class="unit"> {symbol}</span> : null}
    </Shortened>
  );
}

/** Why a mined transaction's outcome is unknown (the API's `status` null): said where it shows. */
export const UNKNOWN_OUTCOME = 'its receipt carries no status, as before Byzantium, and no trace of it is indexed';

/**
 * "Unknown (why)" when a block's reward is not known, null when it is: the API lists no reward
 * for a block after genesis (src/chain/rewards.ts). Before the merge only reward traces tell it,
 * and the node gives none; after it the receipts do, so only blocks indexed without them lack it.
 */
export function unknownReward(b: { height: number; rewards?: unknown[] | null; difficulty?: string | null }): string | null {
  if (b.height === 0 || b.rewards?.length) return null;
  return b.difficulty && b.difficulty !== '0' ? 'Unknown (the node gives no reward traces)' : 'Unknown';
}

export function Status({ status, result }: { status: string | null | undefined; result?: string | null }) {
  if (status === 'ok') return <span class="status ok">Success</span>;
  if (status === 'error') return <span class="status err" title={result ?? undefined}>Failed{result && result !== 'error' ? `: ${result}` : ''}</span>;
  return <span class="status pending">Pending</span>;
}

export interface TabDef {
  id: string;
  label: string;
  count?: number | null;
  /** The count is exact (a counter): shown in full. Otherwise it is capped as /tabs-counters caps it (51 for "more than 50"). */
  exact?: boolean;
}

/** Tabs as links (`?tab=id`): they work without JavaScript and keep their URL. */
export function Tabs({ tabs, active, base }: { tabs: TabDef[]; active: string; base: string }) {
  return (
    <nav class="tabs" aria-label="Sections">
      {tabs.map((t) => (
        <a href={t.id === tabs[0].id ? base : `${base}?tab=${t.id}`} aria-current={t.id === active ? 'page' : undefined}>
          {t.label}
          {t.count !== undefined && t.count !== null ? <span class="count">{t.count > 50 && !t.exact ? '50+' : groupDigits(String(t.count))}</span> : null}
        </a>
      ))}
    </nav>
  );
}

/**
 * Paging through next_page_params: the next page's URL carries them unchanged (SERVICE.md), the
 * current ones stay in the URL; "First" drops them.
 */
export function Pager({ base, keep, next, hasPrev }: { base: string; keep?: Record<string, string>; next: Record<string, unknown> | null | undefined; hasPrev: boolean }) {
  const url = (params: Record<string, unknown> | null) => {
    const q = new URLSearchParams(keep ?? {});
    for (const [k, v] of Object.entries(params ?? {})) q.set(k, v === null ? 'null' : String(v));
    const s = q.toString();
    return s ? `${base}?${s}` : base;
  };
  if (!next && !hasPrev) return null;
  return (
    <nav class="pager" aria-label="Pages">
      {hasPrev ? <a href={url(null)}>« First</a> : <span class="muted">« First</span>}
      {next ? (
        <a href={url(next)} rel="next">
          Next »
        </a>
      ) : (
        <span class="muted">Next »</span>
      )}
    </nav>
  );
}

/**
 * What a figure lacks, beside it: the API's `caveats` for that figure (partial history, a node that
 * refuses to answer), so a partial figure is never shown as if it were complete.
 */
export function Caveat({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  return (
    <span class="caveat" role="note">
      {text}
    </span>
  );
}

/** A label and its value, in the detail lists of block, transaction, address and token pages. */
export function Row({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <div class="row">
      <dt title={hint}>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function Tile({ label, value, id }: { label: string; value: ComponentChildren; id?: string }) {
  return (
    <div class="tile">
      <div class="tile-label">{label}</div>
      <div class="tile-value" id={id}>
        {value}
      </div>
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/**
 * A column heading: its text, or `{ hidden }` for a column whose heading is for screen readers only
 * (a heading axe and a phone's stacked rows still need). '' is the arrow column between From and To.
 */
export type Head = string | { hidden: string };

const headText = (h: Head): string => (typeof h === 'string' ? h || 'Direction' : h.hidden);

/**
 * Gives every cell of `rows` its column's heading as `data-label`: on a phone the rows stack as
 * cards (app.css, "Tables on a phone") and each value shows its label from it, with no script.
 */
function labelCells(rows: ComponentChildren, head: Head[]): ComponentChildren {
  for (const row of toChildArray(rows)) {
    if (typeof row !== 'object' || row.type !== 'tr') continue;
    let col = 0;
    for (const cell of toChildArray((row.props as { children?: ComponentChildren }).children)) {
      if (typeof cell !== 'object' || cell.type !== 'td') continue;
      const props = cell.props as Record<string, unknown>;
      if (props['data-label'] === undefined && col < head.length) props['data-label'] = headText(head[col]);
      col += Number(props.colSpan ?? props.colspan ?? 1);
    }
  }
  return rows;
}

/** A table: sideways scrolling on a mid-sized screen, rows stacked as labelled cards on a phone. */
export function Table({ head, children, caption }: { head: Head[]; children: ComponentChildren; caption?: string }) {
  return (
    // A region that scrolls sideways must be reachable by keyboard (tabindex) and named; "… table",
    // as the section around it often bears the caption's name and two landmarks must not share one.
    <div class="table-wrap" tabindex={0} role="region" aria-label={`${caption ?? head.map(headText).join(', ')} table`}>
      <table>
        {caption ? <caption class="sr-only">{caption}</caption> : null}
        <thead>
          <tr>
            {head.map((h) => (
              <th scope="col">{typeof h === 'string' && h ? h : <span class="sr-only">{headText(h)}</span>}</th>
            ))}
          </tr>
        </thead>
        <tbody>{labelCells(children, head)}</tbody>
      </table>
    </div>
  );
}
