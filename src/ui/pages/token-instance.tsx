// An NFT's own page: its image or video, name, description and attributes from its metadata
// (untrusted: shown as escaped text, media only from http(s)/data:image URLs), its owner or
// supply, the metadata as JSON, and the transfers of this id, paged.
import { AddressLink, Empty, Pager, Row, Table } from '../components/common.js';
import { NftMedia, TokenTransferTable, instanceName, tokenLabel, type InstanceJson, type TokenJson, type TokenTransferJson } from '../components/tokens.js';
import { groupDigits } from '../format.js';
import { attributes, httpUrl, text } from '../token-values.js';
import type { PageCtx, PageResult } from '../page.js';
import { PageError, apiGet, apiGetOptional } from './errors.js';
import { passOn } from './blocks.js';
import { tokenAddress } from './tokens.js';

/** How much of the metadata JSON the page shows (a data: image inside can be large). */
const METADATA_MAX = 64 * 1024;

export async function tokenInstancePage(ctx: PageCtx): Promise<PageResult> {
  const h = tokenAddress(ctx);
  const id = ctx.params.id;
  // uint256: at most 78 digits.
  if (!/^\d{1,78}$/.test(id)) throw new PageError(400, 'Invalid token ID', `"${id.slice(0, 80)}" is not a token ID (a whole number).`);
  const q = passOn(ctx);
  const [inst, transfers, count] = await Promise.all([
    apiGet<InstanceJson>(ctx, `/api/v2/tokens/${h}/instances/${id}`, 'Token'),
    apiGet<{ items: TokenTransferJson[]; next_page_params: Record<string, unknown> | null }>(
      ctx,
      `/api/v2/tokens/${h}/instances/${id}/transfers${q.toString() ? `?${q}` : ''}`,
      'Token transfers',
    ),
    apiGetOptional<{ transfers_count: number | string }>(ctx, `/api/v2/tokens/${h}/instances/${id}/transfers-count`),
  ]);
  const token: TokenJson = inst.token ?? { address_hash: h, type: inst.token_type ?? null, name: null, symbol: null, decimals: null, holders_count: null, total_supply: null };
  const type = inst.token_type ?? token.type;
  const name = instanceName(inst, token, 120);
  const description = typeof inst.metadata?.description === 'string' ? text(inst.metadata.description, 4000) : null;
  const attrs = attributes(inst.metadata);
  const external = httpUrl(inst.external_app_url);
  const base = `/token/${token.address_hash}/instance/${id}`;
  let json = inst.metadata ? JSON.stringify(inst.metadata, null, 2) : null;
  if (json && json.length > METADATA_MAX) json = `${json.slice(0, METADATA_MAX)}\n… (${groupDigits(String(json.length - METADATA_MAX))} more characters)`;
  return {
    title: `${name} · ${tokenLabel(token, 40)} · Explorer`,
    description: description ? description.slice(0, 160) : `${name}, token ID ${id.slice(0, 40)} of ${tokenLabel(token)}.`,
    section: 'tokens',
    body: (
      <>
        <p class="crumbs">
          <a href="/tokens">Tokens</a> › <a href={`/token/${token.address_hash}`}>{tokenLabel(token)}</a> › <a href={`/token/${token.address_hash}?tab=inventory`}>Inventory</a>
        </p>
        <h1>{name}</h1>
        <div class="nft-page">
          <div class="nft nft-media">
            <NftMedia inst={inst} token={token} />
          </div>
          <section class="card">
            <dl class="details">
              <Row label="Token">
                <a href={`/token/${token.address_hash}`}>{tokenLabel(token)}</a> {type ? <span class="tag">{type}</span> : null}
              </Row>
              <Row label="Token ID">
                <span class="mono">{id}</span>
              </Row>
              {type === 'ERC-1155' ? (
                <>
                  <Row label="Supply of this ID" hint="The sum of every holder's balance of this ID">
                    {inst.value !== undefined && inst.value !== null ? groupDigits(inst.value) : <span class="muted">—</span>}
                  </Row>
                  <Row label="Owner">
                    {inst.owner ? (
                      <AddressLink a={inst.owner} full />
                    ) : (
                      <a href={`/token/${token.address_hash}?tab=holders`}>{inst.value === '0' ? 'Nobody holds it' : 'Several holders (see holders)'}</a>
                    )}
                  </Row>
                </>
              ) : (
                <Row label="Owner">{inst.owner ? <AddressLink a={inst.owner} full /> : <span class="muted">Nobody (burned)</span>}</Row>
              )}
              <Row label="Transfers">{count ? groupDigits(String(count.transfers_count)) : <span class="muted">—</span>}</Row>
              {description ? (
                <Row label="Description">
                  <span class="nft-description">{description}</span>
                </Row>
              ) : null}
              {external ? (
                <Row label="External link">
                  <a href={external} rel="noopener noreferrer nofollow ugc" class="mono">
                    {text(external, 120)}
                  </a>
                </Row>
              ) : null}
            </dl>
          </section>
        </div>
        {json ? (
          <>
            <section class="card" aria-labelledby="attrs">
              <h2 id="attrs">Attributes</h2>
              {attrs.length ? (
                <Table head={['Trait', 'Value']} caption="Attributes">
                  {attrs.map((a) => (
                    <tr>
                      <td class="wrap">{a.trait || <span class="muted">—</span>}</td>
                      <td class="wrap">{a.value}</td>
                    </tr>
                  ))}
                </Table>
              ) : (
                <Empty>The metadata lists no attributes.</Empty>
              )}
            </section>
            <section class="card" aria-labelledby="meta">
              <h2 id="meta">Metadata</h2>
              <pre class="data" tabindex={0} role="region" aria-label="Metadata JSON">{json}</pre>
            </section>
          </>
        ) : (
          <section class="card" aria-labelledby="meta">
            <h2 id="meta">Metadata</h2>
            <Empty>No metadata is known for this token: its URI gave none, or it was not read yet.</Empty>
          </section>
        )}
        <section class="card" aria-labelledby="transfers">
          <h2 id="transfers">Transfers</h2>
          {transfers.items.length ? <TokenTransferTable items={transfers.items} token={{ ...token, type }} ids={false} /> : <Empty>This token has no transfers.</Empty>}
          <Pager base={base} next={transfers.next_page_params} hasPrev={ctx.url.searchParams.size > 0} />
        </section>
      </>
    ),
  };
}
