// ERC-4337 user operations in the web UI, at Blockscout's frontend URLs: the list (/ops), one
// operation (/op/:hash) with what it did, its gas and who paid, and the table the address page's
// "User operations" tab shows for an account (its operations) or a bundler (the operations it
// submitted). Everything is read from /api/v2/proxy/account-abstraction/*.
import { AddressLink, Amount, BlockLink, Empty, FullHash, HashLink, Pager, Row, Table, Time, TxLink } from '../components/common.js';
import { TxSummaryLine, type TxSummary } from '../components/tx-summary.js';
import { groupDigits, gwei } from '../format.js';
import type { VNode } from 'preact';
import type { PageCtx, PageResult } from '../page.js';
import { passOn } from './blocks.js';
import { apiGet, apiGetOptional, PageError } from './errors.js';

const AA = '/api/v2/proxy/account-abstraction';
const OP_HASH = /^0x[0-9a-fA-F]{64}$/;

interface OpItem {
  hash: string;
  address: any;
  entry_point: any;
  entry_point_version: string;
  transaction_hash: string;
  block_number: string;
  status: boolean;
  fee: string;
  timestamp: string | null;
}

interface OpPage {
  items: OpItem[];
  next_page_params: Record<string, unknown> | null;
}

export const OpLink = ({ hash, full = false }: { hash: string; full?: boolean }) => <HashLink hash={hash} href={`/op/${hash}`} full={full} />;

export function UserOpTable({ items, coin, me }: { items: OpItem[]; coin: string; me?: string }) {
  return (
    <Table head={['User operation', 'Sender', 'Transaction', 'Block', 'Age', 'EntryPoint', `Fee (${coin})`]} caption="User operations">
      {items.map((o) => (
        <tr>
          <td>
            <span class={`dot ${o.status ? 'ok' : 'err'}`} title={o.status ? 'Success' : 'Failed'} />
            <OpLink hash={o.hash} />
          </td>
          <td>{me && o.address?.hash?.toLowerCase() === me ? <span class="muted">this address</span> : <AddressLink a={o.address} />}</td>
          <td>
            <TxLink hash={o.transaction_hash} />
          </td>
          <td>
            <BlockLink n={o.block_number} />
          </td>
          <td>
            <Time iso={o.timestamp} />
          </td>
          <td>
            <AddressLink a={o.entry_point} /> <span class="muted">{o.entry_point_version}</span>
          </td>
          <td class="num">
            <Amount value={o.fee} decimals={18} max={6} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

export async function userOpsPage(ctx: PageCtx): Promise<PageResult> {
  const q = passOn(ctx);
  const page = await apiGet<OpPage>(ctx, q.toString() ? `${AA}/operations?${q}` : `${AA}/operations`, 'User operations');
  return {
    title: 'User operations · Explorer',
    description: 'ERC-4337 user operations, newest first.',
    section: 'txs',
    body: (
      <>
        <h1>User operations</h1>
        <section class="card">
          {page.items.length ? <UserOpTable items={page.items} coin={ctx.coin} /> : <Empty>No user operation (ERC-4337) has been indexed on this chain.</Empty>}
          <Pager base="/ops" next={page.next_page_params} hasPrev={ctx.url.searchParams.size > 0} />
        </section>
      </>
    ),
  };
}

/** The address page's "User operations" tab: the account's operations, or those the bundler submitted. */
export async function userOpsTab(ctx: PageCtx, address: string, role: 'sender' | 'bundler'): Promise<{ items: OpItem[]; next: Record<string, unknown> | null; body: VNode }> {
  const q = passOn(ctx, ['tab', 'role']);
  q.set(role, address);
  const page = await apiGet<OpPage>(ctx, `${AA}/operations?${q}`, 'User operations');
  const body = page.items.length ? (
    <UserOpTable items={page.items} coin={ctx.coin} me={role === 'sender' ? address : undefined} />
  ) : (
    <Empty>{role === 'sender' ? 'No user operation of this account.' : 'This address submitted no user operation.'}</Empty>
  );
  return { items: page.items, next: page.next_page_params, body };
}

/** Which roles the address has in user operations (its tab shows when it has one): one small read each. */
export async function userOpRoles(ctx: PageCtx, address: string): Promise<{ sender: boolean; bundler: boolean }> {
  const [asSender, asBundler] = await Promise.all([
    apiGetOptional<OpPage>(ctx, `${AA}/operations?sender=${address}&page_size=1`),
    apiGetOptional<OpPage>(ctx, `${AA}/operations?bundler=${address}&page_size=1`),
  ]);
  return { sender: !!asSender?.items.length, bundler: !!asBundler?.items.length };
}

const SPONSOR: Record<string, string> = {
  wallet_deposit: "the account's deposit at the EntryPoint",
  wallet_balance: "the account's balance",
  paymaster_sponsor: 'the paymaster',
  paymaster_hybrid: "the paymaster's deposit at the EntryPoint",
};

export async function userOpPage(ctx: PageCtx): Promise<PageResult> {
  const hash = ctx.params.hash;
  if (!OP_HASH.test(hash)) {
    return { status: 400, title: 'Invalid user operation hash · Explorer', section: 'txs', body: <p class="empty">"{hash.slice(0, 80)}" is not a user operation hash (0x and 64 hex digits).</p> };
  }
  let op: any;
  try {
    op = await apiGet<any>(ctx, `${AA}/operations/${hash}`, 'User operation');
  } catch (e) {
    if (e instanceof PageError && e.status === 404) {
      return {
        status: 404,
        title: 'User operation not found · Explorer',
        section: 'txs',
        cache: false,
        body: (
          <section class="error-page">
            <p class="error-code">404</p>
            <h1>User operation not found</h1>
            <p>
              No indexed EntryPoint bundle holds the user operation <span class="mono">{hash}</span> (yet).
            </p>
          </section>
        ),
      };
    }
    throw e;
  }
  const summary = await apiGetOptional<{ data?: { summaries?: TxSummary[] } }>(ctx, `${AA}/operations/${hash}/summary`).catch(() => null);
  const decoded = op.decoded_execute_call_data ?? op.decoded_call_data;
  return {
    title: `User operation ${hash.slice(0, 10)}… · Explorer`,
    description: `ERC-4337 user operation ${hash}`,
    section: 'txs',
    body: (
      <div id="user-op">
        <h1 class="tx-title">User operation</h1>
        <p class="tx-hash">
          <FullHash hash={op.hash} />
        </p>
        <TxSummaryLine summaries={summary?.data?.summaries} coin={ctx.coin} />
        <section class="card">
          <dl class="details">
            <Row label="Status">{op.status ? <span class="status ok">Success</span> : <span class="status err">Failed</span>}</Row>
            {op.revert_reason ? (
              <Row label="Revert reason">
                <code class="mono wrap">{op.revert_reason}</code>
              </Row>
            ) : null}
            <Row label="Sender">
              <AddressLink a={op.sender} full />
            </Row>
            <Row label="Nonce">
              <span class="mono">{BigInt(op.nonce).toString()}</span>
            </Row>
            <Row label="Transaction">
              <TxLink hash={op.transaction_hash} full />
            </Row>
            <Row label="Block">
              <BlockLink n={op.block_number} />
            </Row>
            <Row label="Time">
              <Time iso={op.timestamp} />
            </Row>
            <Row label="EntryPoint">
              <AddressLink a={op.entry_point} full /> <span class="muted">{op.entry_point_version}</span>
            </Row>
            <Row label="Bundler" hint="The account that sent the bundle's transaction">
              <AddressLink a={op.bundler} full />
            </Row>
            <Row label="Position">
              Operation {op.index + 1} of bundle {op.bundle_index + 1} in its transaction
            </Row>
            {op.factory ? (
              <Row label="Factory" hint="The account was deployed by this operation">
                <AddressLink a={op.factory} full />
              </Row>
            ) : null}
            {op.paymaster ? (
              <Row label="Paymaster">
                <AddressLink a={op.paymaster} full />
              </Row>
            ) : null}
            <Row label="Paid by">{SPONSOR[op.sponsor_type] ?? op.sponsor_type}</Row>
            <Row label="Fee">
              <Amount value={op.fee} decimals={18} symbol={ctx.coin} />
            </Row>
            <Row label="Gas used">
              {groupDigits(op.gas_used)} of {groupDigits(op.gas)}
            </Row>
            <Row label="Gas price">{gwei(op.gas_price)}</Row>
            <Row label="Gas limits">
              call {groupDigits(op.call_gas_limit)} · verification {groupDigits(op.verification_gas_limit)} · pre-verification {groupDigits(op.pre_verification_gas)}
            </Row>
            <Row label="Max fee per gas">
              {gwei(op.max_fee_per_gas)} (priority {gwei(op.max_priority_fee_per_gas)})
            </Row>
            {op.execute_target ? (
              <Row label="Calls">
                <AddressLink a={op.execute_target} full />
              </Row>
            ) : null}
            {decoded?.method_call ? (
              <Row label="Method">
                <code class="mono wrap">{decoded.method_call}</code>
              </Row>
            ) : null}
            <Row label="Call data">
              <code class="mono wrap">{op.call_data}</code>
            </Row>
            {op.user_logs_count ? (
              <Row label="Its logs">
                {op.user_logs_count} from index {op.user_logs_start_index} in the <a href={`/tx/${op.transaction_hash}?tab=logs`}>transaction's logs</a>
              </Row>
            ) : null}
          </dl>
        </section>
      </div>
    ),
  };
}
