// The lists of the address page that no other page shares (yet): filter pills, internal
// transactions, token holdings, coin balance history, logs, withdrawals and a contract's read
// methods, each row built from the API's own objects.
import { AddressLink, Amount, BlockLink, Row, Table, Time, TxLink } from './common.js';
import { TokenName, type TransferItem } from './tables.js';
import { formatUnits, groupDigits } from '../format.js';
import { MethodForm, WalletNote, errorsAttr, type MethodTarget } from './contract-methods.js';

export interface PillOption {
  /** The filter's value in the URL; null: the filter off. */
  value: string | null;
  label: string;
}

/** One filter as pill links (work without JavaScript); the current one is marked. */
export function Pills({ label, options, current, href }: { label: string; options: PillOption[]; current: string | null; href: (value: string | null) => string }) {
  return (
    <nav class="filters" aria-label={label}>
      <span class="muted">{label}:</span>
      {options.map((o) => (
        <a href={href(o.value)} aria-current={o.value === current ? 'true' : undefined}>
          {o.label}
        </a>
      ))}
    </nav>
  );
}

/** Where a row moves ether or tokens relative to the page's address (lower-case `me`). */
function Dir({ from, to, me }: { from: any; to: any; me: string }) {
  const f = from?.hash?.toLowerCase();
  const t = to?.hash?.toLowerCase();
  if (f === me && t === me) return <span class="dir self">SELF</span>;
  return f === me ? <span class="dir out">OUT</span> : <span class="dir in">IN</span>;
}

/** An internal transaction as /api/v2 lists it. */
export interface InternalItem {
  transaction_hash: string;
  type: string;
  success: boolean;
  error: string | null;
  from: any;
  to: any;
  created_contract: any;
  value: string;
  block_number: number;
  timestamp: string | null;
  index: number;
}

export function InternalTable({ items, coin, me }: { items: InternalItem[]; coin: string; me: string }) {
  return (
    <Table head={['Parent transaction', 'Type', 'Block', 'Age', 'From', '', 'To', `Value (${coin})`]} caption="Internal transactions">
      {items.map((i) => (
        <tr>
          <td>
            <span class={`dot ${i.success ? 'ok' : 'err'}`} title={i.success ? 'Success' : `Failed: ${i.error ?? ''}`} />
            <TxLink hash={i.transaction_hash} />
          </td>
          <td>
            <span class="tag">{i.type}</span>
            {!i.success && i.error ? <span class="status err small-status">{i.error.length > 24 ? `${i.error.slice(0, 23)}…` : i.error}</span> : null}
          </td>
          <td>
            <BlockLink n={i.block_number} />
          </td>
          <td>
            <Time iso={i.timestamp} />
          </td>
          <td>
            <AddressLink a={i.from} />
          </td>
          <td>
            <Dir from={i.from} to={i.to ?? i.created_contract} me={me} />
          </td>
          <td>
            {i.to ? (
              <AddressLink a={i.to} />
            ) : i.created_contract ? (
              <span class="create">
                Create: <AddressLink a={i.created_contract} />
              </span>
            ) : (
              <span class="muted">—</span>
            )}
          </td>
          <td class="num">
            <Amount value={i.value} decimals={18} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** A token balance as /addresses/{h}/tokens and /token-balances give it. */
export interface HoldingItem {
  token: NonNullable<TransferItem['token']>;
  token_id: string | null;
  value: string | null;
}

/** The holdings table: token, standard, id (ERC-1155), exact balance, and the transfers of that token. */
export function HoldingsTable({ items, transfersHref }: { items: HoldingItem[]; transfersHref: (token: string) => string }) {
  return (
    <Table head={['Token', 'Type', 'Token ID', 'Balance', { hidden: 'Transfers' }]} caption="Token balances">
      {items.map((b) => (
        <tr>
          <td>
            <TokenName token={b.token} />
          </td>
          <td>
            <span class="tag">{b.token.type ?? 'unknown'}</span>
          </td>
          <td>
            {b.token_id !== null ? (
              <a href={`/token/${b.token.address_hash}/instance/${b.token_id}`} class="mono" title={b.token_id}>
                #{b.token_id.length > 16 ? `${b.token_id.slice(0, 15)}…` : b.token_id}
              </a>
            ) : (
              <span class="muted">—</span>
            )}
          </td>
          <td class="num">
            <Amount value={b.value} decimals={b.token.decimals ?? 0} symbol={b.token.symbol} />
          </td>
          <td>
            <a href={transfersHref(b.token.address_hash)}>Transfers</a>
          </td>
        </tr>
      ))}
    </Table>
  );
}

/** A short list of holdings for the details card: amount, symbol or name, id. */
export function HoldingsSummary({ items }: { items: HoldingItem[] }) {
  return (
    <ul class="holdings">
      {items.map((b) => (
        <li>
          <Amount value={b.value} decimals={b.token.decimals ?? 0} max={6} /> <TokenName token={b.token} />
          {b.token_id !== null ? <span class="muted"> #{b.token_id.length > 12 ? `${b.token_id.slice(0, 11)}…` : b.token_id}</span> : null}
        </li>
      ))}
    </ul>
  );
}

export interface CoinBalanceItem {
  transaction_hash: string | null;
  block_number: number;
  delta: string;
  value: string;
  block_timestamp: string | null;
}

export function CoinHistoryTable({ items, coin }: { items: CoinBalanceItem[]; coin: string }) {
  return (
    <Table head={['Block', 'Transaction', 'Age', `Change (${coin})`, `Balance (${coin})`]} caption="Coin balance history">
      {items.map((c) => {
        const up = !c.delta.startsWith('-');
        return (
          <tr>
            <td>
              <BlockLink n={c.block_number} />
            </td>
            <td>{c.transaction_hash ? <TxLink hash={c.transaction_hash} /> : <span class="muted">—</span>}</td>
            <td>
              <Time iso={c.block_timestamp} />
            </td>
            <td class={`num delta ${up ? 'up' : 'down'}`}>
              {up && c.delta !== '0' ? '+' : ''}
              {formatUnits(c.delta, 18)}
            </td>
            <td class="num">{formatUnits(c.value, 18)}</td>
          </tr>
        );
      })}
    </Table>
  );
}

export interface LogItem {
  transaction_hash: string;
  index: number;
  block_number: number;
  block_timestamp?: string | null;
  topics: (string | null)[];
  data: string;
  address: any;
}

/** Logs as Blockscout shows them: where they come from, then the raw topics and data (no ABI to decode them). */
export function LogList({ items }: { items: LogItem[] }) {
  return (
    <ol class="logs">
      {items.map((l) => (
        <li class="log">
          <dl class="details">
            <Row label="Transaction">
              <TxLink hash={l.transaction_hash} />
            </Row>
            <Row label="Block / index">
              <BlockLink n={l.block_number} /> <span class="muted">· log {l.index}</span>
              {l.block_timestamp ? (
                <>
                  {' '}
                  <span class="muted">·</span> <Time iso={l.block_timestamp} />
                </>
              ) : null}
            </Row>
            <Row label="Topics">
              <ol class="topics">
                {l.topics
                  .filter((t): t is string => t !== null)
                  .map((t, i) => (
                    <li>
                      <span class="muted">[{i}]</span> <span class="mono">{t}</span>
                    </li>
                  ))}
              </ol>
            </Row>
            <Row label="Data">{l.data && l.data !== '0x' ? <pre class="data" tabindex={0} role="region" aria-label="Log data">{l.data}</pre> : <span class="muted">none (0x)</span>}</Row>
          </dl>
        </li>
      ))}
    </ol>
  );
}

export interface AddressWithdrawal {
  index: number;
  validator_index: number;
  amount: string;
  block_number: number;
  timestamp: string | null;
}

export function AddressWithdrawalTable({ items, coin }: { items: AddressWithdrawal[]; coin: string }) {
  return (
    <Table head={['Index', 'Validator', 'Block', 'Age', `Amount (${coin})`]} caption="Withdrawals">
      {items.map((w) => (
        <tr>
          <td>{groupDigits(String(w.index))}</td>
          <td>{groupDigits(String(w.validator_index))}</td>
          <td>
            <BlockLink n={w.block_number} />
          </td>
          <td>
            <Time iso={w.timestamp} />
          </td>
          <td class="num">
            <Amount value={w.amount} decimals={18} />
          </td>
        </tr>
      ))}
    </Table>
  );
}

interface AbiParam {
  name?: string;
  type: string;
  value?: unknown;
}

/** A read method of /smart-contracts/{h}/methods-read. */
export interface ReadMethod {
  name?: string;
  method_id?: string;
  inputs?: AbiParam[];
  outputs?: AbiParam[];
  error?: string;
}

/** A decoded value as the API renders it: strings, and lists of them for arrays and tuples. */
function shown(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(shown).join(', ')}]`;
  return v === null || v === undefined ? '' : String(v);
}

const signature = (ps: AbiParam[] | undefined) => (ps ?? []).map((p) => `${p.type}${p.name ? ` ${p.name}` : ''}`).join(', ');

/** A token's units, to show its supply as an amount beside the raw integer. */
export interface TokenUnits {
  decimals: string | null;
  symbol: string | null;
}

/** totalSupply() of a token with known decimals: the raw integer is in base units. */
function inUnits(m: ReadMethod, o: AbiParam, token: TokenUnits | null | undefined): string | null {
  if (!token || token.decimals === null || m.name !== 'totalSupply' || !/^uint\d*$/.test(o.type) || typeof o.value !== 'string' || !/^\d+$/.test(o.value)) return null;
  return `${formatUnits(o.value, token.decimals)}${token.symbol ? ` ${token.symbol}` : ''}`;
}

/**
 * Read methods: those without inputs with their current values (or the call's error), the others
 * with what they take and, given a `target`, a form the contract-write island answers through the
 * browser's wallet (the UI server asks no node). `idPrefix` keeps a second list's ids unique.
 */
export function ReadMethods({ methods, token, target, idPrefix = 'read' }: { methods: ReadMethod[]; token?: TokenUnits | null; target?: MethodTarget; idPrefix?: string }) {
  const forms = !!target && methods.some((m) => (m.inputs ?? []).length > 0);
  return (
    <>
      {forms ? <WalletNote kind="read" chainId={target!.chainId} /> : null}
      <ol class="methods" data-abi-errors={forms ? errorsAttr(target) : undefined}>
        {methods.map((m, i) => {
          const takesInputs = (m.inputs ?? []).length > 0;
          return (
            <li class="method-item">
              <div class="method-head">
                <span class="muted">{i + 1}.</span> <strong class="mono">{m.name ?? '(unnamed)'}</strong>
                <span class="mono muted">({signature(m.inputs)})</span>
                {m.method_id ? <span class="tag mono">0x{m.method_id}</span> : null}
              </div>
              {m.error ? (
                <p class="method-error">The call failed: {m.error}</p>
              ) : takesInputs ? (
                <>
                  <p class="muted method-note">
                    Returns {signature(m.outputs) || 'nothing'}
                    {target ? ' for the values given below.' : '; needs input values, so no current value is shown.'}
                  </p>
                  {target ? <MethodForm method={{ type: 'function', ...m }} target={target} id={`${idPrefix}-${i}`} kind="read" /> : null}
                </>
              ) : (
                <ul class="outputs">
                  {(m.outputs ?? []).map((o) => (
                    <li>
                      <span class="muted mono">
                        {o.type}
                        {o.name ? ` ${o.name}` : ''}
                      </span>{' '}
                      <span class="mono output-value">{o.value === undefined ? '—' : shown(o.value) === '' ? '(empty)' : shown(o.value)}</span>
                      {inUnits(m, o, token) ? <span class="muted"> = {inUnits(m, o, token)}</span> : null}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}
