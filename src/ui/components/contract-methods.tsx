// The contract tab's method forms: write methods (sent as transactions by the browser's wallet) and read methods that take arguments (asked with eth_call through the wallet), both driven by the contract-write island.
import type { VNode } from 'preact';

export interface AbiParam {
  name?: string;
  type: string;
  internalType?: string;
  components?: AbiParam[];
}

/** A method as /smart-contracts/{address}/methods-read and methods-write give it (an ABI entry and its selector). */
export interface AbiMethod {
  type: string;
  name?: string;
  inputs?: AbiParam[];
  outputs?: AbiParam[];
  stateMutability?: string;
  method_id?: string;
}

/** Where the forms send to: the contract (or later a proxy), the explorer's chain, and the coin's symbol. */
export interface MethodTarget {
  /** The address the calls go to. */
  address: string;
  /** The explorer's chain id (the wallet must be on it); undefined when this UI was not told. */
  chainId?: number;
  coin: string;
  /** The ABI's custom errors, so the island can say a revert's reason by name. */
  errors?: AbiMethod[];
}

/** The list's attribute carrying the ABI's errors for the island (once per list, not per form). */
export const errorsAttr = (t: MethodTarget | undefined) => (t?.errors?.length ? JSON.stringify(t.errors) : undefined);

export const paramList = (ps: AbiParam[] | undefined) => (ps ?? []).map((p) => `${p.type}${p.name ? ` ${p.name}` : ''}`).join(', ');

/** What an input of this type takes, as its placeholder. */
function hint(type: string): string {
  if (type.endsWith(']') || type.startsWith('tuple')) return 'JSON, e.g. ["0x…", "1"]';
  if (type === 'address') return '0x… (40 hexadecimal digits)';
  if (type === 'bool') return 'true or false';
  if (/^u?int\d*$/.test(type)) return type.startsWith('u') ? 'a whole number ≥ 0' : 'a whole number';
  if (type === 'bytes') return '0x… (hexadecimal)';
  const n = /^bytes(\d+)$/.exec(type);
  if (n) return `0x… (${Number(n[1]) * 2} hexadecimal digits)`;
  return '';
}

/** A tuple's type as written in Solidity ABI signatures: (uint256,address)[] rather than tuple[]. */
function shownType(p: AbiParam): string {
  if (!p.type.startsWith('tuple') || !p.components) return p.type;
  return `(${p.components.map(shownType).join(',')})${p.type.slice('tuple'.length)}`;
}

/**
 * One method's form. Rendered disabled: the island enables it when there is a wallet, so without
 * JavaScript or a wallet the form still shows what the method takes. `id` makes the inputs' ids
 * unique on the page (two sections of methods may be shown, e.g. the contract's and its proxy's).
 */
export function MethodForm({ method, target, id, kind }: { method: AbiMethod; target: MethodTarget; id: string; kind: 'read' | 'write' }): VNode {
  const inputs = method.type === 'fallback' ? [{ name: 'data', type: 'bytes' }] : method.inputs ?? [];
  const payable = kind === 'write' && method.stateMutability === 'payable';
  const label = method.type === 'function' ? method.name ?? '(unnamed)' : method.type;
  return (
    <form class="method-form" data-method-form={kind} data-target={target.address} data-chain-id={target.chainId} data-abi={JSON.stringify(method)} novalidate>
      <fieldset disabled data-method-fields>
        <legend class="sr-only">
          {kind === 'write' ? 'Write' : 'Read'} {label}
        </legend>
        {inputs.map((p, j) => (
          <div class="method-field">
            <label for={`${id}-${j}`}>
              <span class="mono">{p.name || `argument ${j + 1}`}</span> <span class="muted mono">{shownType(p)}</span>
            </label>
            <input id={`${id}-${j}`} name={`arg${j}`} type="text" class="mono" autocomplete="off" spellcheck={false} placeholder={hint(p.type)} />
          </div>
        ))}
        {payable ? (
          <div class="method-field">
            <label for={`${id}-value`}>
              Value to send <span class="muted">({target.coin})</span>
            </label>
            <input id={`${id}-value`} name="value" type="text" inputmode="decimal" autocomplete="off" placeholder="0" data-value />
          </div>
        ) : null}
        <button type="submit" class="button">
          {kind === 'write' ? 'Write' : 'Query'}
        </button>
      </fieldset>
      <p class="method-error" role="alert" data-method-error />
      <div class="method-result" role="status" data-method-result />
    </form>
  );
}

/** Why the forms may be disabled; the island replaces it with what it found (a wallet or none). */
export function WalletNote({ kind, chainId }: { kind: 'read' | 'write'; chainId?: number }) {
  return (
    <p class="wallet-note" data-wallet-note={kind}>
      {kind === 'write'
        ? 'Writing needs a browser wallet (such as MetaMask) and JavaScript: each method is sent as a transaction your wallet signs.'
        : 'Methods that take arguments are asked through your browser wallet, which needs a wallet (such as MetaMask) and JavaScript.'}
      {chainId === undefined ? " This explorer was not told its chain id (CHAIN_ID), so check that your wallet is on this explorer's chain." : null}
    </p>
  );
}

/**
 * The write methods of `methods`, each with its form, sent to `target`. `idPrefix` names the
 * section's heading and inputs, so a second list (a proxy's implementation) can be on the same page.
 */
export function WriteMethods({ methods, target, idPrefix = 'write', heading = 'Write contract' }: { methods: AbiMethod[] | null; target: MethodTarget; idPrefix?: string; heading?: string }) {
  return (
    <section class="card" aria-labelledby={`${idPrefix}-h`}>
      <h2 id={`${idPrefix}-h`}>{heading}</h2>
      {methods === null ? (
        <p class="muted">The write methods are not available.</p>
      ) : !methods.length ? (
        <p class="muted">This contract has no methods that change its state.</p>
      ) : (
        <>
          <WalletNote kind="write" chainId={target.chainId} />
          <ol class="methods" data-abi-errors={errorsAttr(target)}>
            {methods.map((m, i) => (
              <li class="method-item write-method">
                <div class="method-head">
                  <span class="muted">{i + 1}.</span> <strong class="mono">{m.type === 'function' ? m.name : m.type}</strong>
                  <span class="mono muted">({paramList(m.inputs)})</span>
                  {m.stateMutability === 'payable' ? <span class="tag">payable</span> : null}
                  {m.method_id ? <span class="tag mono">0x{m.method_id}</span> : null}
                </div>
                <MethodForm method={m} target={target} id={`${idPrefix}-${i}`} kind="write" />
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
