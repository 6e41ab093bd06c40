// An OP Stack chain's lists in the web UI, at Blockscout's frontend URLs: /deposits (the deposit
// transactions, L1 to L2) and /withdrawals (the withdrawals started on L2), read from
// /api/v2/optimism/deposits and /withdrawals. The L1 side (a deposit's L1 transaction, block and
// sender; a withdrawal's status, finalizing L1 transaction and challenge period end) is what the
// API answers from the OptimismPortal's logs where the explorer follows the L1 (README.md, "OP
// Stack"); a dash where it has none, and a status only where the API knows one. L1 hashes are
// not links: they are on another chain. On other chains the API answers 404 and so do the pages.
import { AddressLink, Amount, BlockLink, Empty, Pager, Table, Time, TxLink } from '../components/common.js';
import { groupDigits, shortHash } from '../format.js';
import type { PageCtx, PageResult } from '../page.js';
import { passOn } from './blocks.js';
import { apiGet, apiGetOptional } from './errors.js';

const OP = '/api/v2/optimism';
const DEPOSITS_L1 = 'The L1 side (transaction, block, sender) is shown once this explorer has read its finalized L1 block; — where it has not (or follows no L1 node).';
const WITHDRAWALS_L1 =
  'Status as the L1 portal\'s logs prove it: "In challenge period" after a proof, "Relayed" once finalized; — where the explorer cannot tell (not proven yet, or matured and waiting for its dispute game). The challenge period ends at the time shown in UTC.';
/** "1 deposit transaction", "2 deposit transactions". */
const counted = (n: number, one: string, many: string) => `${groupDigits(String(n))} ${n === 1 ? one : many}. `;

interface Page<T> {
  items: T[];
  next_page_params: Record<string, unknown> | null;
}

interface DepositItem {
  l1_block_number: number | null;
  l1_transaction_hash: string | null;
  l1_transaction_origin: string | null;
  l2_transaction_hash: string;
  l2_transaction_gas_limit: string;
  l2_block_number: number;
  l2_timestamp: string;
}

interface WithdrawalItem {
  msg_nonce: number;
  msg_nonce_version: number;
  from: any;
  l2_transaction_hash: string;
  l2_timestamp: string | null;
  msg_sender_address_hash: string | null;
  msg_target_address_hash: string | null;
  msg_value: string | null;
  status: string | null;
  l1_transaction_hash: string | null;
  challenge_period_end: string | null;
}

/** An L1 transaction's hash, short, the whole of it in its title (not a link: it is on L1). */
function L1Hash({ hash }: { hash: string | null }) {
  if (!hash) return <span class="muted">—</span>;
  return (
    <span class="mono" title={hash}>
      {shortHash(hash)}
    </span>
  );
}

const withQuery = (path: string, q: URLSearchParams) => (q.toString() ? `${path}?${q}` : path);

/** What the two lists differ in; the page around them (count, note, table, pager) is one. */
interface ListSpec<T> {
  /** The API list under /api/v2/optimism and the page's path: `deposits` or `withdrawals`. */
  list: 'deposits' | 'withdrawals';
  heading: string;
  description: string;
  /** The count's words for one and for many. */
  counted: [string, string];
  note: string;
  empty: string;
  head: string[];
  row(item: T): unknown;
}

async function listPage<T>(ctx: PageCtx, spec: ListSpec<T>): Promise<PageResult> {
  const name = spec.list[0]!.toUpperCase() + spec.list.slice(1);
  const [page, count] = await Promise.all([
    apiGet<Page<T>>(ctx, withQuery(`${OP}/${spec.list}`, passOn(ctx)), name),
    apiGetOptional<number>(ctx, `${OP}/${spec.list}/count`),
  ]);
  return {
    title: `${spec.heading} · Explorer`,
    description: spec.description,
    section: 'txs',
    body: (
      <>
        <h1>{spec.heading}</h1>
        <p class="muted">
          {count === null ? '' : counted(count, ...spec.counted)}
          {spec.note}
        </p>
        <section class="card">
          {page.items.length ? (
            <Table head={spec.head} caption={name}>
              {page.items.map(spec.row)}
            </Table>
          ) : (
            <Empty>{spec.empty}</Empty>
          )}
          <Pager base={`/${spec.list}`} next={page.next_page_params} hasPrev={ctx.url.searchParams.size > 0} />
        </section>
      </>
    ),
  };
}

export const depositsPage = (ctx: PageCtx): Promise<PageResult> =>
  listPage<DepositItem>(ctx, {
    list: 'deposits',
    heading: 'Deposits (L1 → L2)',
    description: 'Deposit transactions of this OP Stack chain, newest first.',
    counted: ['deposit transaction', 'deposit transactions'],
    note: DEPOSITS_L1,
    empty: 'No deposit transaction has been indexed on this chain.',
    head: ['L2 transaction', 'L2 block', 'Age', 'L1 transaction', 'L1 block', 'L1 sender', 'Gas limit'],
    row: (d) => (
      <tr>
        <td>
          <TxLink hash={d.l2_transaction_hash} />
        </td>
        <td>
          <BlockLink n={d.l2_block_number} />
        </td>
        <td>
          <Time iso={d.l2_timestamp} />
        </td>
        <td>
          <L1Hash hash={d.l1_transaction_hash} />
        </td>
        <td class="num">{d.l1_block_number === null ? <span class="muted">—</span> : groupDigits(String(d.l1_block_number))}</td>
        <td>
          <L1Hash hash={d.l1_transaction_origin} />
        </td>
        <td class="num">{groupDigits(d.l2_transaction_gas_limit)}</td>
      </tr>
    ),
  });

export const withdrawalsPage = (ctx: PageCtx): Promise<PageResult> =>
  listPage<WithdrawalItem>(ctx, {
    list: 'withdrawals',
    heading: 'Withdrawals (L2 → L1)',
    description: 'Withdrawals started on this OP Stack chain, newest first.',
    counted: ['withdrawal started on L2', 'withdrawals started on L2'],
    note: WITHDRAWALS_L1,
    empty: 'No withdrawal has been started on this chain.',
    head: ['Nonce', 'From', 'To (on L1)', 'L2 transaction', 'Age', `Value (${ctx.coin})`, 'Status', 'L1 transaction', 'Challenge ends'],
    row: (w) => (
      <tr>
        <td class="num">{groupDigits(String(w.msg_nonce))}</td>
        <td>{w.from ? <AddressLink a={w.from} /> : <span class="muted">—</span>}</td>
        <td class="mono" title={w.msg_target_address_hash ?? undefined}>
          {w.msg_target_address_hash ? shortHash(w.msg_target_address_hash) : '—'}
        </td>
        <td>
          <TxLink hash={w.l2_transaction_hash} />
        </td>
        <td>
          <Time iso={w.l2_timestamp} />
        </td>
        <td class="num">{w.msg_value === null ? <span class="muted">—</span> : <Amount value={w.msg_value} decimals={18} max={6} />}</td>
        <td>{w.status ?? <span class="muted">—</span>}</td>
        <td>
          <L1Hash hash={w.l1_transaction_hash} />
        </td>
        <td>{w.challenge_period_end ? <span title={w.challenge_period_end}>{w.challenge_period_end.slice(0, 16).replace('T', ' ')}</span> : <span class="muted">—</span>}</td>
      </tr>
    ),
  });
