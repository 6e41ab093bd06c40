// The parts of a transaction's page built from the API's own objects: its token transfers (the
// summary and the tab), internal transactions, logs, state changes, decoded inputs and revert
// reasons, EIP-7702 authorizations, an OP Stack transaction's deposit and L1-fee fields. Amounts
// are exact (BigInt through format.ts).
import type { ComponentChildren } from 'preact';
import { AddressLink, Amount, Row, Table } from './common.js';
import { TokenName, type TransferItem } from './tables.js';
import { formatUnits, groupDigits, gwei } from '../format.js';

/** Blockscout's DecodedInput (and DecodedLogInput, whose parameters say `indexed`). */
export interface Decoded {
  method_id?: string | null;
  method_call?: string | null;
  parameters?: { name?: string | null; type?: string | null; value?: unknown; indexed?: boolean }[];
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** One decoded value: an address as a link, a string as is, tuples and arrays as JSON. */
export function DecodedValue({ type, value }: { type: string | null | undefined; value: unknown }) {
  if (typeof value === 'string') {
    if (type === 'address' && ADDRESS.test(value)) return <AddressLink a={value} full />;
    if (value.startsWith('0x') || /^u?int\d*$/.test(type ?? '')) return <span class="mono">{value}</span>;
    return <span class="tx-decoded-text">{value}</span>;
  }
  if (value === null || value === undefined) return <span class="muted">—</span>;
  return <code class="mono">{JSON.stringify(value)}</code>;
}

/** The API's `method_naming` / `decoded_naming`: how a call or log was named (README.md, "Names for unverified calls"). */
export interface Naming {
  source: string;
  origin: string | null;
  signature: string;
  other_signatures: string[];
}

const NAMED_BY: Record<string, string> = {
  verified_abi: "the contract's verified ABI",
  custom_abi: 'your custom ABI',
  catalogue: 'the built-in catalogue',
  other_verified_contract: 'another verified contract',
  imported: 'an imported signature list',
  online: 'an online signature database',
};

/** Where a name came from, unless it is the contract's own verified ABI (which needs no note). */
export function NamingNote({ n }: { n: Naming | null | undefined }) {
  if (!n || n.source === 'verified_abi') return null;
  const origin = n.origin && n.source === 'other_verified_contract' && ADDRESS.test(n.origin) ? <AddressLink a={n.origin} /> : n.origin;
  return (
    <p class="muted tx-naming">
      Named by {NAMED_BY[n.source] ?? n.source}
      {origin ? <> ({origin})</> : null}
      {n.source !== 'custom_abi' ? '; the contract is not verified, so this is a guess by its selector' : null}
      {n.other_signatures.length ? <>; other signatures with this selector: <span class="mono">{n.other_signatures.join(', ')}</span></> : null}.
    </p>
  );
}

/** A decoded call (or event, or revert error): its signature and a table of its parameters. */
export function DecodedCall({ d, caption, naming }: { d: Decoded; caption: string; naming?: Naming | null }) {
  const params = d.parameters ?? [];
  const indexed = params.some((p) => p.indexed !== undefined);
  return (
    <div class="tx-decoded">
      <NamingNote n={naming} />
      {d.method_call ? (
        <p class="mono tx-decoded-call">
          {d.method_call}
          {d.method_id ? <span class="muted"> (0x{d.method_id.replace(/^0x/, '')})</span> : null}
        </p>
      ) : null}
      {params.length ? (
        <Table head={indexed ? ['Name', 'Type', 'Indexed', 'Value'] : ['Name', 'Type', 'Value']} caption={caption}>
          {params.map((p) => (
            <tr>
              <td>{p.name || <span class="muted">—</span>}</td>
              <td class="mono">{p.type}</td>
              {indexed ? <td>{p.indexed ? 'yes' : 'no'}</td> : null}
              <td class="tx-wrap">
                <DecodedValue type={p.type} value={p.value} />
              </td>
            </tr>
          ))}
        </Table>
      ) : null}
    </div>
  );
}

/** The revert reason as the API gives it: decoded (Error(string), Panic(uint256), a custom error) or raw bytes. */
export function RevertReason({ r }: { r: Decoded | { raw?: string | null } }) {
  if ('raw' in r) {
    if (!r.raw) return <span class="muted">—</span>;
    return <span class="mono">{r.raw}</span>;
  }
  const d = r as Decoded;
  const params = d.parameters ?? [];
  // Error(string reason): the reason itself is what a person wants to read.
  if (params.length === 1 && typeof params[0].value === 'string' && params[0].type === 'string') {
    return (
      <span class="tx-revert">
        <span class="tx-revert-text">{params[0].value}</span> <span class="muted mono">{d.method_call}</span>
      </span>
    );
  }
  return <DecodedCall d={d} caption="Revert reason" />;
}

/** Bytes as hex in a box that scrolls when long: reachable by keyboard and named, as a scrolling region must be. */
export function Data({ hex, label }: { hex: string; label: string }) {
  return (
    <pre class="data" tabindex={0} role="region" aria-label={label}>
      {hex}
    </pre>
  );
}

/** An amount of a token transfer: value with decimals for fungible ones, the id for NFTs. */
export function TransferAmount({ t }: { t: TransferItem }) {
  const id = t.total?.token_id;
  const value = t.total?.value;
  return (
    <>
      {value !== undefined && value !== null ? <Amount value={value} decimals={t.token?.decimals ?? t.total?.decimals ?? 0} /> : null}
      {id !== undefined && id !== null ? (
        <span>
          {value !== undefined && value !== null ? ' of ' : ''}
          <a class="tx-id-link" href={`/token/${t.token?.address_hash}/instance/${id}`} title={`Token ID ${id}`}>
            #{id.length > 20 ? `${id.slice(0, 19)}…` : id}
          </a>
        </span>
      ) : null}
    </>
  );
}

const TRANSFER_KIND: Record<string, string> = {
  token_transfer: 'Transfer',
  token_minting: 'Mint',
  token_burning: 'Burn',
  token_spawning: 'Spawn',
};

/** The detail list's summary of the first transfers: from, to, amount and token, one per line. */
export function TransferSummary({ items }: { items: TransferItem[] }) {
  return (
    <ul class="tx-transfers">
      {items.map((t) => (
        <li>
          <span class="tag">{TRANSFER_KIND[t.type] ?? t.type}</span>
          <span class="muted">From</span> <AddressLink a={t.from} copy={false} />
          <span class="muted">to</span> <AddressLink a={t.to} copy={false} />
          <span class="muted">for</span>{' '}
          <span class="tx-transfer-amount">
            <TransferAmount t={t} /> <TokenName token={t.token} />
          </span>
        </li>
      ))}
    </ul>
  );
}

/** A transaction's token transfers (its tab): kind, token, from, to, amount or id. */
export function TxTransferTable({ items }: { items: TransferItem[] }) {
  return (
    <Table head={['Kind', 'Token', 'From', '', 'To', 'Amount / ID']} caption="Token transfers">
      {items.map((t) => (
        <tr>
          <td>
            <span class="tag">{TRANSFER_KIND[t.type] ?? t.type}</span>
          </td>
          <td>
            <TokenName token={t.token} /> <span class="tag">{t.token?.type ?? t.token_type}</span>
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
          <td class="num">
            <TransferAmount t={t} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

export interface InternalItem {
  error: string | null;
  success: boolean;
  type: string;
  from: any;
  to: any;
  created_contract: any;
  value: string;
  index: number;
  gas_limit: string | null;
}

/** A transaction's internal transactions in execution order: type, from, to (or the contract created), value, gas limit, result. */
export function InternalTable({ items, coin }: { items: InternalItem[]; coin: string }) {
  return (
    <Table head={['#', 'Type', 'From', '', 'To', `Value (${coin})`, 'Gas limit', 'Result']} caption="Internal transactions">
      {items.map((it) => (
        <tr>
          <td class="num">{it.index}</td>
          <td>
            <span class="tag">{it.type}</span>
          </td>
          <td>
            <AddressLink a={it.from} />
          </td>
          <td>
            <span aria-hidden="true">→</span>
          </td>
          <td>
            {it.to ? (
              <AddressLink a={it.to} />
            ) : it.created_contract ? (
              <span class="create">
                Created <AddressLink a={it.created_contract} />
              </span>
            ) : (
              <span class="muted">—</span>
            )}
          </td>
          <td class="num">
            <Amount value={it.value} decimals={18} />
          </td>
          <td class="num">{it.gas_limit === null ? <span class="muted">—</span> : groupDigits(it.gas_limit)}</td>
          <td>{it.success ? <span class="status ok">Success</span> : <span class="status err">{it.error ? `Failed: ${it.error}` : 'Failed'}</span>}</td>
        </tr>
      ))}
    </Table>
  );
}

export interface LogItem {
  address: any;
  topics: (string | null)[];
  data: string;
  index: number;
  decoded: Decoded | null;
  decoded_naming?: Naming | null;
}

/** A transaction's logs: emitter, then the decoded event where the API gives it, else the topics and data. */
export function LogList({ items }: { items: LogItem[] }) {
  return (
    <ol class="tx-logs">
      {items.map((l) => (
        <li class="tx-log">
          <dl class="details">
            <LogRow label="Log index">{l.index}</LogRow>
            <LogRow label="Address">
              <AddressLink a={l.address} full />
            </LogRow>
            {l.decoded ? (
              <LogRow label="Decoded">
                <DecodedCall d={l.decoded} caption={`Log ${l.index} decoded`} naming={l.decoded_naming} />
              </LogRow>
            ) : null}
            <LogRow label="Topics">
              <ol class="tx-topics" start={0}>
                {l.topics.map((t, i) =>
                  t === null ? null : (
                    <li>
                      <span class="muted">[{i}]</span> <span class="mono">{t}</span>
                    </li>
                  ),
                )}
              </ol>
            </LogRow>
            <LogRow label="Data">{l.data && l.data !== '0x' ? <Data label={`Log ${l.index} data`} hex={l.data} /> : <span class="muted">None (0x)</span>}</LogRow>
          </dl>
        </li>
      ))}
    </ol>
  );
}

function LogRow({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export interface StateChangeItem {
  address: any;
  is_miner: boolean;
  type: 'coin' | 'token';
  token: TransferItem['token'];
  token_id: string | null;
  balance_before: string | null;
  balance_after: string | null;
  change: string | { direction: 'from' | 'to'; total: { token_id: string | null } }[];
}

/** A signed exact change: "+1.5" / "-0.2", coloured by direction. */
function Change({ value, decimals }: { value: string; decimals: number | string | null | undefined }) {
  let v: bigint;
  try {
    v = BigInt(value);
  } catch {
    return <span class="mono">{value}</span>;
  }
  const cls = v > 0n ? 'tx-change tx-up' : v < 0n ? 'tx-change tx-down' : 'tx-change';
  return <span class={cls}>{(v > 0n ? '+' : '') + formatUnits(v, decimals)}</span>;
}

/**
 * What the transaction changed: each account's coin and token balances before and after, exact.
 * An NFT's change is the list of ids that left (−) or arrived (+); its balances count tokens held.
 */
export function StateChangeTable({ items, coin }: { items: StateChangeItem[]; coin: string }) {
  return (
    <Table head={['Address', 'Asset', 'Before', 'After', 'Change']} caption="State changes">
      {items.map((s) => {
        const nft = Array.isArray(s.change);
        const decimals = s.type === 'coin' ? 18 : nft ? 0 : (s.token?.decimals ?? 0);
        return (
          <tr>
            <td>
              <AddressLink a={s.address} />
              {s.is_miner ? <span class="tag tx-miner">Miner</span> : null}
            </td>
            <td>
              {s.type === 'coin' ? (
                coin
              ) : (
                <>
                  <TokenName token={s.token} />
                  {s.token_id !== null ? (
                    <span>
                      {' '}
                      <a href={`/token/${s.token?.address_hash}/instance/${s.token_id}`}>#{s.token_id.length > 20 ? `${s.token_id.slice(0, 19)}…` : s.token_id}</a>
                    </span>
                  ) : null}
                </>
              )}
            </td>
            <td class="num">{s.balance_before === null ? <span class="muted">—</span> : formatUnits(s.balance_before, decimals)}</td>
            <td class="num">{s.balance_after === null ? <span class="muted">—</span> : formatUnits(s.balance_after, decimals)}</td>
            <td class="num">
              {Array.isArray(s.change) ? (
                s.change.map((c) => (
                  <span class={c.direction === 'to' ? 'tx-change tx-up' : 'tx-change tx-down'}>
                    {c.direction === 'to' ? '+' : '−'}#{c.total?.token_id ?? '?'}{' '}
                  </span>
                ))
              ) : (
                <Change value={s.change} decimals={decimals} />
              )}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}

export interface Authorization {
  address_hash: string;
  authority: string;
  chain_id: number;
  nonce: string;
  status?: string | null;
}

/** EIP-7702 authorizations: which account delegates its code to which contract. */
export function AuthorizationTable({ items }: { items: Authorization[] }) {
  return (
    <Table head={['Authority', 'Delegates to', 'Chain', 'Nonce', 'Status']} caption="Authorizations">
      {items.map((a) => (
        <tr>
          <td>
            <AddressLink a={a.authority} />
          </td>
          <td>
            <AddressLink a={a.address_hash} />
          </td>
          <td class="num">{a.chain_id}</td>
          <td class="num">{groupDigits(String(a.nonce))}</td>
          <td>{a.status ? <span class="tag">{a.status}</span> : <span class="muted">—</span>}</td>
        </tr>
      ))}
    </Table>
  );
}

/** What an OP Stack chain adds to a transaction (README.md, "OP Stack"); the fields absent on other chains. */
export interface OpStackFields {
  type?: number | null;
  l1_fee?: string;
  l1_gas_price?: string;
  l1_gas_used?: string;
  l1_fee_scalar?: string;
  operator_fee?: string;
  source_hash?: string | null;
  mint?: string | null;
  is_system_tx?: boolean | null;
  deposit_nonce?: string | null;
  deposit_receipt_version?: string | null;
  l1_base_fee_scalar?: string | null;
  l1_blob_base_fee?: string | null;
  l1_blob_base_fee_scalar?: string | null;
  operator_fee_scalar?: string | null;
  operator_fee_constant?: string | null;
  /** A deposit's L1 side (this explorer's op_deposit; nulls where the L1 log is not read). */
  op_deposit?: { l1_block_number: number | null; l1_block_timestamp: string | null; l1_transaction_hash: string | null; l1_transaction_origin: string | null };
}

/** A deposit's fields and a rollup transaction's L1 data and operator fees, as rows of its details (nothing on other chains). */
export function OpStackRows({ tx, coin }: { tx: OpStackFields; coin: string }) {
  const deposit = tx.type === 126 || (tx.source_hash !== undefined && tx.source_hash !== null);
  const scalars = [
    tx.l1_base_fee_scalar != null ? `base fee ${groupDigits(tx.l1_base_fee_scalar)}` : '',
    tx.l1_blob_base_fee_scalar != null ? `blob base fee ${groupDigits(tx.l1_blob_base_fee_scalar)}` : '',
    tx.l1_fee_scalar != null ? tx.l1_fee_scalar : '',
  ].filter(Boolean);
  return (
    <>
      {deposit ? (
        <>
          <Row label="Source hash" hint="What identifies the deposit on L1 (its L1 block and log)">
            <span class="mono">{tx.source_hash ?? '—'}</span>
          </Row>
          <Row label="Minted" hint="Coin the deposit created on L2 (paid on L1), credited to its sender">
            <Amount value={tx.mint ?? '0'} decimals={18} symbol={coin} />
          </Row>
          <Row label="System transaction">{tx.is_system_tx ? 'Yes' : 'No'}</Row>
          {tx.deposit_nonce != null ? <Row label="Deposit nonce">{groupDigits(tx.deposit_nonce)}</Row> : null}
          {tx.deposit_receipt_version != null ? <Row label="Deposit receipt version">{tx.deposit_receipt_version}</Row> : null}
          {tx.op_deposit ? (
            <>
              <Row label="L1 transaction" hint="The L1 transaction whose portal log this deposit is (on L1: not a link here)">
                <span class="mono">{tx.op_deposit.l1_transaction_hash ?? '—'}</span>
              </Row>
              <Row label="L1 block">
                {tx.op_deposit.l1_block_number === null ? '—' : groupDigits(String(tx.op_deposit.l1_block_number))}
                {tx.op_deposit.l1_block_timestamp ? <span class="muted"> · {tx.op_deposit.l1_block_timestamp.slice(0, 19).replace('T', ' ')} UTC</span> : null}
              </Row>
              <Row label="L1 sender" hint="Who sent the L1 transaction (its origin)">
                <span class="mono">{tx.op_deposit.l1_transaction_origin ?? '—'}</span>
              </Row>
            </>
          ) : null}
        </>
      ) : null}
      {tx.l1_fee !== undefined ? (
        <Row label="L1 data fee" hint="What the sender paid for its data posted to L1: part of the transaction fee">
          <Amount value={tx.l1_fee} decimals={18} symbol={coin} />
        </Row>
      ) : null}
      {tx.l1_gas_price !== undefined ? <Row label="L1 gas price">{gwei(tx.l1_gas_price)}</Row> : null}
      {tx.l1_gas_used !== undefined ? <Row label="L1 gas used">{groupDigits(tx.l1_gas_used)}</Row> : null}
      {tx.l1_blob_base_fee != null ? <Row label="L1 blob base fee">{gwei(tx.l1_blob_base_fee)}</Row> : null}
      {scalars.length ? <Row label="L1 fee scalars">{scalars.join(', ')}</Row> : null}
      {tx.operator_fee !== undefined ? (
        <Row label="Operator fee" hint="The chain operator's fee: part of the transaction fee">
          <Amount value={tx.operator_fee} decimals={18} symbol={coin} />
        </Row>
      ) : null}
    </>
  );
}
