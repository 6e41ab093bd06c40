// The token pages' pieces: the token list's table, a token's transfers (without the token
// column every row would repeat), its holders with their exact shares, and NFT images from
// untrusted metadata (only http(s) or data:image URLs, in <img>/<video>, never inline markup).
import { AddressLink, Amount, BlockLink, Identicon, Shortened, Table, Time, TxLink } from './common.js';
import { PublicIcon } from './public-icon.js';
import { groupDigits, readableDecimal, shortHash } from '../format.js';
import { imageSrc, sharePercent, text, videoSrc } from '../token-values.js';

/** The Token object of /api/v2 (the fields the pages show). */
export interface TokenJson {
  address_hash: string;
  type: string | null;
  name: string | null;
  symbol: string | null;
  decimals: string | null;
  holders_count: string | null;
  total_supply: string | null;
  /** USD price and circulating market cap, where the API's price source knows the token. */
  exchange_rate?: string | null;
  circulating_market_cap?: string | null;
  /** An approved public name's icon (#19), served by the API; null without one. */
  icon_url?: string | null;
  /** What holders_count and the holders' balances lack (partial history); absent when complete. */
  caveats?: { holders_count?: string; balances?: string };
}

/** A token's name for people: its name, else its symbol, else its shortened address. */
export function tokenLabel(t: Pick<TokenJson, 'address_hash' | 'name' | 'symbol'>, max = 40): string {
  const s = t.name?.trim() || t.symbol?.trim() || shortHash(t.address_hash, 8, 6);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** An NFT id for a link's text: long ids (up to 78 digits) shortened, the whole id on hover. */
export function TokenId({ id, href }: { id: string; href: string }) {
  const shown = id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id;
  return (
    <a href={href} title={id.length > 14 ? id : undefined} class="token-id">
      #{shown}
    </a>
  );
}

export function TokenListTable({ items }: { items: TokenJson[] }) {
  return (
    <Table head={['Token', 'Type', 'Holders', 'Total supply']} caption="Tokens">
      {items.map((t) => (
        <tr>
          <td>
            <span class="token-cell">
              {t.icon_url ? <PublicIcon src={t.icon_url} alt={`Icon of ${tokenLabel(t, 32)}`} size={24} /> : <Identicon address={t.address_hash} size={24} />}
              <span class="token-cell-text">
                <span>
                  <a href={`/token/${t.address_hash}`} title={t.name ?? t.address_hash}>
                    {tokenLabel(t, 32)}
                  </a>
                  {t.symbol && t.name ? <span class="muted"> ({text(t.symbol, 16)})</span> : null}
                </span>
                <span class="token-cell-addr mono muted">{shortHash(t.address_hash, 8, 6)}</span>
              </span>
            </span>
          </td>
          <td>
            <span class="tag">{t.type ?? '—'}</span>
          </td>
          <td class="num">{t.holders_count === null ? <span class="muted">—</span> : groupDigits(t.holders_count)}</td>
          <td class="num">
            <Supply token={t} max={4} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** A token's total supply with its decimals and symbol; "—" when the token has none to tell. */
export function Supply({ token, max }: { token: TokenJson; max?: number }) {
  if (token.total_supply === null || token.total_supply === undefined) return <span class="muted">—</span>;
  return <Amount value={token.total_supply} decimals={token.decimals ?? 0} symbol={token.symbol ? text(token.symbol, 16) : null} max={max} />;
}

/** A transfer of one token as /api/v2/tokens/{h}/transfers lists it. */
export interface TokenTransferJson {
  transaction_hash: string;
  block_number: number | null;
  timestamp: string | null;
  from: any;
  to: any;
  type: string;
  method: string | null;
  token: TokenJson | null;
  total: { value?: string | null; decimals?: string | null; token_id?: string | null } | null;
}

const KIND: Record<string, string> = { token_minting: 'Mint', token_burning: 'Burn', token_spawning: 'Create', token_transfer: 'Transfer' };

/** One token's transfers: no token column (the page is the token); amount and/or id per row (no id on an NFT's own page: `ids` false). */
export function TokenTransferTable({ items, token, ids = true }: { items: TokenTransferJson[]; token: TokenJson; ids?: boolean }) {
  const nft = ids && (token.type === 'ERC-721' || token.type === 'ERC-1155');
  const fungible = token.type !== 'ERC-721';
  const head = ['Transaction', 'Type', 'Block', 'Age', 'From', '', 'To'];
  if (nft) head.push('Token ID');
  if (fungible) head.push('Amount');
  return (
    <Table head={head} caption="Token transfers">
      {items.map((t) => {
        const id = t.total?.token_id;
        return (
          <tr>
            <td>
              <TxLink hash={t.transaction_hash} />
            </td>
            <td>
              <span class="method" title={t.method ?? undefined}>
                {KIND[t.type] ?? t.type}
              </span>
            </td>
            <td>
              <BlockLink n={t.block_number} />
            </td>
            <td>
              <Time iso={t.timestamp} />
            </td>
            <td>
              <AddressLink a={t.from} />
            </td>
            <td>
              <span aria-hidden="true">→</span>
            </td>
            <td>
              <AddressLink a={t.to} />
            </td>
            {nft ? <td>{id !== undefined && id !== null ? <TokenId id={id} href={`/token/${token.address_hash}/instance/${id}`} /> : <span class="muted">—</span>}</td> : null}
            {fungible ? (
              <td class="num">
                <Amount value={t.total?.value ?? null} decimals={token.decimals ?? t.total?.decimals ?? 0} symbol={token.symbol ? text(token.symbol, 16) : null} max={6} />
              </td>
            ) : null}
          </tr>
        );
      })}
    </Table>
  );
}

export interface HolderJson {
  address: any;
  value: string;
  token_id: string | null;
}

/**
 * Holders with their exact balances and shares: of the total supply, or for an ERC-1155 id of
 * that id's supply (`idSupply`, from its instance); "—" where the supply is not known.
 */
export function HolderTable({ items, token, idSupply }: { items: HolderJson[]; token: TokenJson; idSupply: Map<string, string | null> }) {
  const multi = token.type === 'ERC-1155';
  const head = ['Holder'];
  if (multi) head.push('Token ID');
  head.push('Balance', multi ? 'Share of the ID' : 'Share');
  return (
    <Table head={head} caption="Token holders">
      {items.map((h) => {
        const supply = multi ? (h.token_id ? idSupply.get(h.token_id) ?? null : null) : token.total_supply;
        // The share with the digits that matter ("28.71%"), more exactly in its title (never "…" in place of the figure).
        const share = sharePercent(h.value, supply, 8);
        const shareShown = share === null || share.startsWith('<') ? share : `${readableDecimal(share.replace(/[…%]/g, ''), 4)}%`;
        return (
          <tr>
            <td>
              <AddressLink a={h.address} />
            </td>
            {multi ? <td>{h.token_id ? <TokenId id={h.token_id} href={`/token/${token.address_hash}/instance/${h.token_id}`} /> : <span class="muted">—</span>}</td> : null}
            <td class="num">
              <Amount value={h.value} decimals={token.decimals ?? 0} symbol={token.symbol ? text(token.symbol, 16) : null} max={6} />
            </td>
            <td class="num">{share === null ? <span class="muted" title="The supply is not known">—</span> : <Shortened shown={shareShown!} exact={share} />}</td>
          </tr>
        );
      })}
    </Table>
  );
}

/** An NFT instance as /api/v2 gives it (the fields the pages show). */
export interface InstanceJson {
  id: string;
  metadata: Record<string, unknown> | null;
  owner: any;
  token: TokenJson | null;
  image_url: string | null;
  animation_url: string | null;
  media_url: string | null;
  media_type: string | null;
  external_app_url: string | null;
  is_unique: boolean | null;
  token_type?: string;
  value?: string | null;
}

/** The name the metadata gives an instance, else the token's name and the id. */
export function instanceName(i: InstanceJson, token: TokenJson, max = 80): string {
  const n = i.metadata?.name;
  if (typeof n === 'string' && n.trim()) return text(n.trim(), max);
  return `${tokenLabel(token, max)} #${i.id.length > 20 ? `${i.id.slice(0, 8)}…${i.id.slice(-8)}` : i.id}`;
}

/**
 * An instance's picture at `size` pixels: its image (http(s) or data:image, lazily, without a
 * referrer to the image's host), or a placeholder saying there is none.
 */
export function NftImage({ inst, token, size }: { inst: InstanceJson; token: TokenJson; size: number }) {
  const src = imageSrc(inst.image_url) ?? imageSrc(inst.media_url);
  if (!src) {
    return (
      <div class="noimg" role="img" aria-label="No image">
        <span>No image</span>
      </div>
    );
  }
  return <img src={src} alt={instanceName(inst, token)} width={size} height={size} loading="lazy" decoding="async" referrerpolicy="no-referrer" />;
}

/** The media of an instance page: its animation as <video> when it is an http(s) video, else its image. */
export function NftMedia({ inst, token }: { inst: InstanceJson; token: TokenJson }) {
  const video = videoSrc(inst.animation_url, inst.media_type);
  if (video) {
    const poster = imageSrc(inst.image_url);
    return (
      <video src={video} poster={poster ?? undefined} width={420} height={420} controls muted loop playsinline preload="metadata" aria-label={instanceName(inst, token)}>
        <a href={video} rel="noopener noreferrer nofollow">
          The video
        </a>
      </video>
    );
  }
  return <NftImage inst={inst} token={token} size={420} />;
}

/** A grid of a token's instances: picture, id linked to its page, name and owner. */
export function NftGrid({ items, token }: { items: InstanceJson[]; token: TokenJson }) {
  return (
    <ul class="grid nft-grid">
      {items.map((i) => {
        const href = `/token/${token.address_hash}/instance/${i.id}`;
        return (
          <li class="nft">
            <a href={href} class="nft-pic" tabindex={-1} aria-hidden="true">
              <NftImage inst={i} token={token} size={200} />
            </a>
            <div>
              <TokenId id={i.id} href={href} />
              {typeof i.metadata?.name === 'string' && i.metadata.name.trim() ? <span class="nft-name">{text(i.metadata.name.trim(), 60)}</span> : null}
              {i.owner ? (
                <span class="nft-owner">
                  <AddressLink a={i.owner} copy={false} />
                </span>
              ) : token.type === 'ERC-721' ? (
                <span class="muted">Burned</span>
              ) : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
