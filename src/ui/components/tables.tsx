// The lists most pages share: transactions, blocks, token transfers and internal transactions,
// each row built from the API's own objects.
import { AddressLink, Amount, BlockLink, Shortened, Status, Table, Time, TxLink, UNKNOWN_OUTCOME, unknownReward } from './common.js';
import { groupDigits, gwei, gweiShort, percent } from '../format.js';

/** A transaction as /api/v2 lists it (the fields the table shows). */
export interface TxItem {
  hash: string;
  status: string | null;
  result?: string | null;
  method: string | null;
  block_number: number | null;
  timestamp: string | null;
  from: any;
  to: any;
  created_contract?: any;
  value: string;
  fee: { value: string | null } | null;
  transaction_types?: string[];
}

export function TxTable({ items, coin, me }: { items: TxItem[]; coin: string; me?: string }) {
  return (
    <Table head={['Transaction', 'Method', 'Block', 'Age', 'From', '', 'To', `Value (${coin})`, `Fee (${coin})`]} caption="Transactions">
      {items.map((t) => {
        const dir = me ? (t.from?.hash?.toLowerCase() === me ? 'out' : 'in') : null;
        return (
          <tr>
            <td>
              <span
                class={`dot ${t.status === 'ok' ? 'ok' : t.status === 'error' ? 'err' : t.block_number === null ? 'pending' : 'unknown'}`}
                title={t.status === 'ok' ? 'Success' : t.status === 'error' ? `Failed: ${t.result ?? ''}` : t.block_number === null ? 'Pending' : `Unknown outcome (${UNKNOWN_OUTCOME})`}
              />
              <TxLink hash={t.hash} />
            </td>
            <td>{t.method ? <span class="method" title={t.method}>{t.method}</span> : <span class="muted">—</span>}</td>
            <td>
              <BlockLink n={t.block_number} />
            </td>
            <td>
              <Time iso={t.timestamp} />
            </td>
            <td>
              <AddressLink a={t.from} />
            </td>
            <td>{dir ? <span class={`dir ${dir}`}>{dir === 'out' ? 'OUT' : 'IN'}</span> : <span aria-hidden="true">→</span>}</td>
            <td>{t.to ? <AddressLink a={t.to} /> : t.created_contract ? <span class="create">Create: <AddressLink a={t.created_contract} /></span> : <span class="muted">—</span>}</td>
            <td class="num">
              <Amount value={t.value} decimals={18} max={6} />
            </td>
            <td class="num">
              <Amount value={t.fee?.value ?? null} decimals={18} max={5} />
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

export interface BlockItem {
  height: number;
  hash: string;
  timestamp: string;
  transactions_count: number;
  miner: any;
  gas_used: string;
  gas_limit: string;
  gas_used_percentage: number;
  burnt_fees: string | null;
  base_fee_per_gas: string | null;
  rewards?: { reward: string; type: string }[];
  difficulty?: string | null;
}

export function BlockTable({ items, coin }: { items: BlockItem[]; coin: string }) {
  return (
    <Table head={['Block', 'Age', 'Txs', 'Miner', 'Gas used / limit', 'Base fee', `Reward (${coin})`, `Burnt fees (${coin})`]} caption="Blocks">
      {items.map((b) => {
        const reward = b.rewards?.reduce((s, r) => s + BigInt(r.reward), 0n);
        const unknown = b.rewards ? unknownReward(b) : null;
        return (
          <tr>
            <td>
              <BlockLink n={b.height} />
            </td>
            <td>
              <Time iso={b.timestamp} />
            </td>
            <td class="num">{b.transactions_count > 0 ? <a href={`/block/${b.height}?tab=txs`}>{groupDigits(String(b.transactions_count))}</a> : '0'}</td>
            <td>
              <AddressLink a={b.miner} />
            </td>
            <td class="num">
              {groupDigits(b.gas_used)} <span class="muted">/ {groupDigits(b.gas_limit)} ({percent(b.gas_used_percentage)})</span>
            </td>
            <td class="num">{b.base_fee_per_gas === null ? <span class="muted">—</span> : <Shortened shown={gweiShort(b.base_fee_per_gas)} exact={gwei(b.base_fee_per_gas)} />}</td>
            <td class="num">
              {unknown ? (
                <span class="muted" title={unknown}>
                  unknown
                </span>
              ) : reward !== undefined && b.rewards?.length ? (
                <Amount value={reward.toString()} decimals={18} max={5} />
              ) : (
                <span class="muted">—</span>
              )}
            </td>
            <td class="num">
              <Amount value={b.burnt_fees} decimals={18} max={5} />
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

/** A token transfer as /api/v2 lists it. */
export interface TransferItem {
  transaction_hash: string;
  timestamp: string | null;
  block_number?: number | null;
  from: any;
  to: any;
  token: { address_hash: string; name: string | null; symbol: string | null; type: string | null; decimals: string | null } | null;
  total: { value?: string | null; decimals?: string | null; token_id?: string | null } | null;
  method: string | null;
  type: string;
  token_type?: string;
}

export function TokenName({ token }: { token: TransferItem['token'] }) {
  if (!token) return <span class="muted">—</span>;
  const label = token.name ?? token.symbol ?? token.address_hash;
  return (
    <a href={`/token/${token.address_hash}`} title={token.address_hash}>
      {label.length > 24 ? `${label.slice(0, 23)}…` : label}
      {token.symbol && token.name ? <span class="muted"> ({token.symbol})</span> : null}
    </a>
  );
}

export function TransferTable({ items, me }: { items: TransferItem[]; me?: string }) {
  return (
    <Table head={['Transaction', 'Age', 'From', '', 'To', 'Token', 'Amount / ID']} caption="Token transfers">
      {items.map((t) => {
        const dir = me ? (t.from?.hash?.toLowerCase() === me ? 'out' : 'in') : null;
        const id = t.total?.token_id;
        return (
          <tr>
            <td>
              <TxLink hash={t.transaction_hash} />
            </td>
            <td>
              <Time iso={t.timestamp} />
            </td>
            <td>
              <AddressLink a={t.from} />
            </td>
            <td>{dir ? <span class={`dir ${dir}`}>{dir === 'out' ? 'OUT' : 'IN'}</span> : <span aria-hidden="true">→</span>}</td>
            <td>
              <AddressLink a={t.to} />
            </td>
            <td>
              <TokenName token={t.token} /> <span class="tag">{t.token?.type ?? t.token_type}</span>
            </td>
            <td class="num">
              {t.total?.value !== undefined && t.total?.value !== null ? <Amount value={t.total.value} decimals={t.token?.decimals ?? t.total.decimals ?? 0} symbol={t.token?.symbol} max={6} /> : null}
              {id !== undefined && id !== null ? (
                <span>
                  {' '}
                  <a href={`/token/${t.token?.address_hash}/instance/${id}`}>#{id.length > 16 ? `${id.slice(0, 15)}…` : id}</a>
                </span>
              ) : null}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}
