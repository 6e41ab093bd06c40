// The blocks list and a block's page: its details (base fee, burnt fees, gas, rewards, miner,
// previous and next), then its transactions or withdrawals, paged through next_page_params.
import { AddressLink, Amount, Empty, HashLink, Pager, Row, Table, Tabs, Time, unknownReward } from '../components/common.js';
import { BlockTable, TxTable } from '../components/tables.js';
import { formatUnits, groupDigits, gwei, percent, utcTime } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { apiGet } from './errors.js';

/** The query a list page passes on to the API: its paging keys, as the URL carries them. */
export function passOn(ctx: PageCtx, drop: string[] = ['tab']): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of ctx.url.searchParams) if (!drop.includes(k)) q.append(k, v);
  return q;
}

const withQuery = (path: string, q: URLSearchParams) => (q.toString() ? `${path}?${q}` : path);

export async function blocksPage(ctx: PageCtx): Promise<PageResult> {
  const q = passOn(ctx);
  q.set('type', 'block');
  const page = await apiGet<{ items: any[]; next_page_params: Record<string, unknown> | null }>(ctx, withQuery('/api/v2/blocks', q), 'Blocks');
  const paged = ctx.url.searchParams.size > 0;
  return {
    title: 'Blocks · Explorer',
    section: 'blocks',
    islands: ['live'],
    body: (
      <>
        <h1>Blocks</h1>
        {page.items.length ? <BlockTable items={page.items} coin={ctx.coin} /> : <Empty>No blocks indexed yet.</Empty>}
        <Pager base="/blocks" next={page.next_page_params} hasPrev={paged} />
      </>
    ),
  };
}

export async function blockPage(ctx: PageCtx): Promise<PageResult> {
  const id = ctx.params.id;
  if (!/^(\d{1,20}|0x[0-9a-fA-F]{64})$/.test(id)) {
    return { status: 400, title: 'Invalid block · Explorer', body: <BadBlock id={id} /> };
  }
  const b = await apiGet<any>(ctx, `/api/v2/blocks/${id}`, 'Block');
  const tab = ctx.url.searchParams.get('tab') === 'withdrawals' ? 'withdrawals' : 'txs';
  const base = `/block/${b.height}`;
  const q = passOn(ctx);
  const list =
    tab === 'withdrawals'
      ? await apiGet<any>(ctx, withQuery(`/api/v2/blocks/${b.height}/withdrawals`, q), 'Withdrawals')
      : await apiGet<any>(ctx, withQuery(`/api/v2/blocks/${b.height}/transactions`, q), 'Transactions');
  const rewards: { reward: string; type: string }[] = b.rewards ?? [];
  const hasPrev = [...ctx.url.searchParams.keys()].some((k) => k !== 'tab');
  return {
    title: `Block ${b.height} · Explorer`,
    description: `Block ${b.height}: ${b.transactions_count} transactions, mined ${utcTime(b.timestamp)}.`,
    section: 'blocks',
    body: (
      <>
        <div class="title-row">
          <h1>Block #{groupDigits(String(b.height))}</h1>
          <nav class="prev-next" aria-label="Neighbour blocks">
            {b.height > 0 ? (
              <a href={`/block/${b.height - 1}`} rel="prev">
                ‹ Previous
              </a>
            ) : null}
            <a href={`/block/${b.height + 1}`} rel="next">
              Next ›
            </a>
          </nav>
        </div>
        <section class="card">
          <dl class="details">
            <Row label="Height">{groupDigits(String(b.height))}</Row>
            <Row label="Hash">
              <HashLink hash={b.hash} href={`/block/${b.hash}`} full />
            </Row>
            <Row label="Parent hash">
              <HashLink hash={b.parent_hash} href={`/block/${b.parent_hash}`} full />
            </Row>
            <Row label="Time">
              <Time iso={b.timestamp} /> <span class="muted">({utcTime(b.timestamp)})</span>
            </Row>
            <Row label="Transactions">
              <a href={base}>{groupDigits(String(b.transactions_count))}</a>
              {b.internal_transactions_count !== null && b.internal_transactions_count !== undefined ? (
                <span class="muted"> and {groupDigits(String(b.internal_transactions_count))} internal</span>
              ) : null}
            </Row>
            {b.withdrawals_count ? (
              <Row label="Withdrawals">
                <a href={`${base}?tab=withdrawals`}>{groupDigits(String(b.withdrawals_count))}</a>
              </Row>
            ) : null}
            <Row label="Miner">
              <AddressLink a={b.miner} full />
            </Row>
            {rewards.map((r) => (
              <Row label={r.type}>
                <Amount value={r.reward} decimals={18} symbol={ctx.coin} />
              </Row>
            ))}
            {/* No reward listed after genesis: not a reward of 0, an unknown one. */}
            {unknownReward(b) ? (
              <Row label="Reward">
                <span class="muted">{unknownReward(b)}</span>
              </Row>
            ) : null}
            <Row label="Gas used">
              {groupDigits(b.gas_used)} <span class="muted">({percent(b.gas_used_percentage, 2)} of {groupDigits(b.gas_limit)})</span>
            </Row>
            <Row label="Gas limit">{groupDigits(b.gas_limit)}</Row>
            {b.base_fee_per_gas !== null ? <Row label="Base fee per gas">{gwei(b.base_fee_per_gas)}</Row> : null}
            {b.burnt_fees !== null ? (
              <Row label="Burnt fees">
                <Amount value={b.burnt_fees} decimals={18} symbol={ctx.coin} />
                {b.burnt_fees_percentage !== null ? <span class="muted"> ({percent(b.burnt_fees_percentage)} of fees)</span> : null}
              </Row>
            ) : null}
            {b.priority_fee !== null ? (
              <Row label="Priority fees">
                <Amount value={b.priority_fee} decimals={18} symbol={ctx.coin} />
              </Row>
            ) : null}
            <Row label="Transaction fees">
              <Amount value={b.transaction_fees} decimals={18} symbol={ctx.coin} />
            </Row>
            {/* EIP-4844 (Blockscout's Ethereum build): a block since Cancun has blob gas fields, null before. */}
            {b.blob_gas_used != null ? (
              <>
                <Row label="Blob transactions">{groupDigits(String(b.blob_transactions_count ?? 0))}</Row>
                <Row label="Blob gas used">{groupDigits(b.blob_gas_used)}</Row>
                {b.excess_blob_gas != null ? <Row label="Excess blob gas">{groupDigits(b.excess_blob_gas)}</Row> : null}
                {b.blob_gas_price != null ? <Row label="Blob gas price">{gwei(b.blob_gas_price)}</Row> : null}
                {b.blob_gas_price != null && b.burnt_blob_fees != null ? (
                  <Row label="Burnt blob fees" hint="Blob gas used times the blob gas price: destroyed">
                    <Amount value={b.burnt_blob_fees} decimals={18} symbol={ctx.coin} />
                  </Row>
                ) : null}
              </>
            ) : null}
            {b.difficulty !== null && b.difficulty !== '0' ? <Row label="Difficulty">{groupDigits(b.difficulty)}</Row> : null}
            {b.size !== null ? <Row label="Size">{groupDigits(String(b.size))} bytes</Row> : null}
            <Row label="Nonce">
              <span class="mono">{b.nonce}</span>
            </Row>
          </dl>
        </section>
        <Tabs
          base={base}
          active={tab}
          tabs={[
            { id: 'txs', label: 'Transactions', count: b.transactions_count, exact: true },
            { id: 'withdrawals', label: 'Withdrawals', count: b.withdrawals_count ?? null, exact: true },
          ]}
        />
        <section class="card">
          {tab === 'withdrawals' ? (
            list.items.length ? (
              <WithdrawalTable items={list.items} coin={ctx.coin} />
            ) : (
              <Empty>This block has no withdrawals.</Empty>
            )
          ) : list.items.length ? (
            <TxTable items={list.items} coin={ctx.coin} />
          ) : (
            <Empty>This block has no transactions.</Empty>
          )}
          <Pager base={base} keep={tab === 'txs' ? undefined : { tab }} next={list.next_page_params} hasPrev={hasPrev} />
        </section>
      </>
    ),
  };
}

function WithdrawalTable({ items, coin }: { items: any[]; coin: string }) {
  return (
    <Table head={['Index', 'Validator', 'Receiver', `Amount (${coin})`]} caption="Withdrawals">
      {items.map((w) => (
        <tr>
          <td>{groupDigits(String(w.index))}</td>
          <td>{groupDigits(String(w.validator_index))}</td>
          <td>
            <AddressLink a={w.receiver} />
          </td>
          <td class="num">{formatUnits(w.amount, 18)}</td>
        </tr>
      ))}
    </Table>
  );
}

function BadBlock({ id }: { id: string }) {
  return (
    <section class="error-page">
      <p class="error-code">400</p>
      <h1>Invalid block</h1>
      <p>"{id.slice(0, 80)}" is neither a block number nor a block hash (0x and 64 hex digits).</p>
      <p>
        <a href="/blocks">All blocks</a>
      </p>
    </section>
  );
}
