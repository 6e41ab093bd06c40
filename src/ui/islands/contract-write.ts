// The contract tab's method forms through the browser's wallet (EIP-1193, window.ethereum): a
// write method's inputs are checked per ABI type, encoded as call data and sent with
// eth_sendTransaction from the wallet's account; a read method with arguments is asked with
// eth_call. The wallet must be on the explorer's chain (else it is said, with a switch button).
// Without a wallet the forms stay as the server rendered them: disabled, with a note.
import { decodeErrorResult, decodeFunctionResult, encodeFunctionData, getAddress, parseEther, type Abi } from 'viem';

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

interface Param {
  name?: string;
  type: string;
  components?: Param[];
}

interface Method {
  type: string;
  name?: string;
  inputs?: Param[];
  outputs?: Param[];
  stateMutability?: string;
}

/** A wrong input, said in words next to its form. */
class InputError extends Error {}

const eth = (window as unknown as { ethereum?: Eip1193 }).ethereum;

function describe(p: Param, i: number): string {
  return `${p.name || `argument ${i + 1}`} (${p.type})`;
}

/** A JSON value (or a text field's string) as viem takes it for ABI type `type`. */
function convert(v: unknown, p: Param, what: string): unknown {
  const type = p.type;
  const arr = /^(.*)\[(\d*)\]$/.exec(type);
  if (arr) {
    const list = typeof v === 'string' ? parseJson(v, what) : v;
    if (!Array.isArray(list)) throw new InputError(`${what}: write a JSON list, e.g. [${'"1", "2"'}].`);
    if (arr[2] !== '' && list.length !== Number(arr[2])) throw new InputError(`${what}: the list must have exactly ${arr[2]} items (it has ${list.length}).`);
    const inner = { ...p, type: arr[1] };
    return list.map((x, k) => convert(x, inner, `${what}, item ${k + 1}`));
  }
  if (type === 'tuple') {
    const comps = p.components ?? [];
    const t = typeof v === 'string' ? parseJson(v, what) : v;
    if (Array.isArray(t)) {
      if (t.length !== comps.length) throw new InputError(`${what}: the tuple has ${comps.length} fields, the list ${t.length}.`);
      return t.map((x, k) => convert(x, comps[k], `${what}, ${comps[k].name || `field ${k + 1}`}`));
    }
    if (t && typeof t === 'object') {
      const o = t as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [k, c] of comps.entries()) {
        const key = c.name || String(k);
        if (!(key in o)) throw new InputError(`${what}: the field ${key} is missing.`);
        out[key] = convert(o[key], c, `${what}, ${key}`);
      }
      return comps.every((c) => c.name) ? out : comps.map((c, k) => out[c.name || String(k)]);
    }
    throw new InputError(`${what}: write the tuple as a JSON list of its fields, or an object by field name.`);
  }
  // Scalars: a JSON number is taken for integers only when it is exact.
  const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : typeof v === 'boolean' ? String(v) : v;
  if (typeof s !== 'string') throw new InputError(`${what}: expected a ${type} value${typeof v === 'number' ? ' (write large numbers as "strings")' : ''}.`);
  const text = s.trim();
  if (type === 'address') {
    if (!/^0x[0-9a-fA-F]{40}$/.test(text)) throw new InputError(`${what}: not an address (0x followed by 40 hexadecimal digits).`);
    // Mixed case is an EIP-55 checksum: a typo changes it, so it must match.
    const lower = text.slice(2) === text.slice(2).toLowerCase() || text.slice(2) === text.slice(2).toUpperCase();
    if (!lower && getAddress(text.toLowerCase()) !== text) throw new InputError(`${what}: the address's checksum (its mix of capital letters) is wrong; check it for a typo.`);
    return text;
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int) {
    if (!/^-?\d+$/.test(text) && !/^0x[0-9a-fA-F]+$/.test(text)) throw new InputError(`${what}: write a whole number${int[1] ? '' : ' (a minus sign is allowed)'}.`);
    const n = BigInt(text);
    const bits = BigInt(int[2] || '256');
    const [min, max] = int[1] ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n];
    if (n < min || n > max) throw new InputError(`${what}: must be from ${min} to ${max}.`);
    return n;
  }
  if (type === 'bool') {
    const b = text.toLowerCase();
    if (b === 'true' || b === '1') return true;
    if (b === 'false' || b === '0') return false;
    throw new InputError(`${what}: write true or false.`);
  }
  if (type === 'string') return s;
  const bytes = /^bytes(\d*)$/.exec(type);
  if (bytes) {
    if (!/^0x([0-9a-fA-F]{2})*$/.test(text)) throw new InputError(`${what}: write bytes as 0x followed by pairs of hexadecimal digits.`);
    const len = (text.length - 2) / 2;
    if (bytes[1] && len !== Number(bytes[1])) throw new InputError(`${what}: must be exactly ${bytes[1]} bytes (${Number(bytes[1]) * 2} hexadecimal digits); it is ${len}.`);
    return text;
  }
  throw new InputError(`${what}: the type ${type} is not supported by this form.`);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new InputError(`${what}: not valid JSON.`);
  }
}

/** An input value as text: integers in decimal, lists bracketed. */
function shown(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return `[${v.map(shown).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}: ${shown(x)}`).join(', ')}}`;
  return String(v);
}

/** The revert data in a wallet's error, wherever the wallet put it (EIP-1474 `data`, or nested). */
function revertData(e: unknown): `0x${string}` | null {
  const seen = new Set<unknown>();
  const walk = (v: unknown): `0x${string}` | null => {
    if (typeof v === 'string') return /^0x[0-9a-fA-F]{8,}$/.test(v) && (v.length - 2) % 2 === 0 ? (v as `0x${string}`) : null;
    if (!v || typeof v !== 'object' || seen.has(v)) return null;
    seen.add(v);
    const o = v as Record<string, unknown>;
    return walk(o.data) ?? walk(o.originalError) ?? walk(o.cause) ?? walk(o.error);
  };
  return walk(e);
}

/** Why the contract reverted, in words: its reason string, its panic, or its custom error by the ABI's name. */
function revertReason(e: unknown, errors: Abi): string | null {
  const data = revertData(e);
  if (!data) return null;
  try {
    const d = decodeErrorResult({ abi: errors, data });
    if (d.errorName === 'Error') return String(d.args?.[0]);
    if (d.errorName === 'Panic') return `panic 0x${(d.args?.[0] as bigint).toString(16)} (an assertion, overflow or division by zero)`;
    const inputs = (d.abiItem as { inputs?: Param[] }).inputs ?? [];
    return `${d.errorName}(${inputs.map((p, k) => `${p.name || `argument ${k + 1}`}: ${shown(d.args?.[k])}`).join(', ')})`;
  } catch {
    return `a custom error ${data.slice(0, 10)} this ABI does not name`;
  }
}

const isRevert = (e: unknown) => (e as { code?: number })?.code === 3 || /revert/i.test(String((e as { message?: string })?.message ?? '')) || revertData(e) !== null;

/** A wallet's error in plain words. */
function walletError(e: unknown, sending: boolean, errors: Abi): string {
  const err = e as { code?: number; message?: string; data?: { message?: string } };
  if (err?.code === 4001) return sending ? 'You rejected the transaction in your wallet: nothing was sent.' : 'You rejected the request in your wallet.';
  if (err?.code === 4100) return 'The wallet did not allow this site to use your account: connect it in the wallet and try again.';
  if (err?.code === 4900 || err?.code === 4901) return 'The wallet is not connected to a network.';
  const message = err?.data?.message || err?.message || String(e);
  if (isRevert(e)) {
    const reason = revertReason(e, errors) ?? /execution reverted:?\s*(.*)/i.exec(message)?.[1];
    return `The contract refused the call${sending ? ', so nothing was sent' : ''}: ${reason || 'it reverted without a reason'}.`;
  }
  return `The wallet refused: ${message}`;
}

const toHex = (n: bigint) => `0x${n.toString(16)}`;

function setup(form: HTMLFormElement, wallet: Eip1193): void {
  const kind = form.dataset.methodForm as 'read' | 'write';
  const method = JSON.parse(form.dataset.abi ?? '{}') as Method;
  const to = form.dataset.target ?? '';
  const want = form.dataset.chainId ? BigInt(form.dataset.chainId) : null;
  const fields = form.querySelector<HTMLFieldSetElement>('[data-method-fields]')!;
  const error = form.querySelector<HTMLElement>('[data-method-error]')!;
  const result = form.querySelector<HTMLElement>('[data-method-result]')!;
  const inputs = Array.from(form.querySelectorAll<HTMLInputElement>('input[name^="arg"]'));
  const valueInput = form.querySelector<HTMLInputElement>('[data-value]');
  const params: Param[] = method.type === 'fallback' ? [{ name: 'data', type: 'bytes' }] : method.inputs ?? [];
  const errors = JSON.parse(form.closest<HTMLElement>('[data-abi-errors]')?.dataset.abiErrors ?? '[]') as Abi;
  fields.disabled = false;

  const fail = (m: string, extra?: HTMLElement) => {
    error.textContent = m;
    if (extra) error.append(' ', extra);
  };

  /** The call data, or an InputError naming the input. */
  function callData(): `0x${string}` {
    const args = params.map((p, i) => {
      const raw = inputs[i]?.value ?? '';
      if (raw.trim() === '' && p.type !== 'string') throw new InputError(`${describe(p, i)}: a value is needed.`);
      return convert(raw, p, describe(p, i));
    });
    if (method.type === 'receive') return '0x';
    if (method.type === 'fallback') return args[0] as `0x${string}`;
    return encodeFunctionData({ abi: [method] as unknown as Abi, functionName: method.name!, args });
  }

  function value(): bigint {
    const v = (valueInput?.value ?? '').trim();
    if (!v) return 0n;
    if (!/^\d+(\.\d{1,18})?$/.test(v) && !/^\.\d{1,18}$/.test(v)) throw new InputError('Value to send: write an amount such as 0.5 (at most 18 decimals).');
    return parseEther(v);
  }

  /** The wallet on the explorer's chain, else false with the mismatch said (and a button to switch). */
  async function onChain(): Promise<boolean> {
    if (want === null) return true;
    const got = BigInt((await wallet.request({ method: 'eth_chainId' })) as string);
    if (got === want) return true;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'button secondary';
    button.textContent = `Switch the wallet to chain ${want}`;
    button.addEventListener('click', async () => {
      try {
        await wallet.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: toHex(want) }] });
        error.textContent = '';
        result.textContent = `The wallet is now on chain ${want}: press ${kind === 'write' ? 'Write' : 'Query'} again.`;
      } catch (e) {
        fail((e as { code?: number })?.code === 4902 ? `Your wallet does not know chain ${want}: add this network to it first.` : walletError(e, false, errors));
      }
    });
    fail(`Your wallet is on chain ${got}, but this explorer shows chain ${want}: ${kind === 'write' ? 'nothing was sent' : 'nothing was asked'}.`, button);
    return false;
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    result.textContent = '';
    let data: `0x${string}`;
    let amount = 0n;
    try {
      data = callData();
      amount = value();
    } catch (e) {
      return fail(e instanceof InputError ? e.message : `The inputs could not be encoded: ${(e as Error).message?.split('\n')[0]}`);
    }
    fields.disabled = true;
    try {
      if (kind === 'read') {
        if (!(await onChain())) return;
        const out = (await wallet.request({ method: 'eth_call', params: [{ to, data }, 'latest'] })) as `0x${string}`;
        const decoded = decodeFunctionResult({ abi: [method] as unknown as Abi, functionName: method.name!, data: out });
        const outs = method.outputs ?? [];
        const values = outs.length === 1 ? [decoded] : (decoded as unknown[]);
        const list = document.createElement('ul');
        list.className = 'outputs';
        outs.forEach((o, k) => {
          const li = document.createElement('li');
          const t = document.createElement('span');
          t.className = 'muted mono';
          t.textContent = `${o.type}${o.name ? ` ${o.name}` : ''}`;
          const v = document.createElement('span');
          v.className = 'mono output-value';
          v.textContent = shown(values[k]);
          li.append(t, ' ', v);
          list.append(li);
        });
        result.append(outs.length ? list : 'The call returned nothing.');
        return;
      }
      let accounts: string[];
      try {
        accounts = (await wallet.request({ method: 'eth_requestAccounts' })) as string[];
      } catch (e) {
        return fail((e as { code?: number })?.code === 4001 ? "You did not let this site use your wallet's account: nothing was sent." : walletError(e, true, errors));
      }
      const from = accounts?.[0];
      if (!from) return fail('The wallet gave no account.');
      if (!(await onChain())) return;
      const tx: Record<string, string> = { from, to, data };
      if (amount > 0n) tx.value = toHex(amount);
      // Tried first with eth_call: a call the contract refuses is said with its reason before the
      // wallet asks for a signature (a node may mine it and charge the gas otherwise).
      try {
        await wallet.request({ method: 'eth_call', params: [tx, 'latest'] });
      } catch (e) {
        if (isRevert(e)) return fail(walletError(e, true, errors));
      }
      const hash = (await wallet.request({ method: 'eth_sendTransaction', params: [tx] })) as string;
      const link = document.createElement('a');
      link.href = `/tx/${hash}`;
      link.className = 'mono break';
      link.textContent = hash;
      result.append('Transaction sent: ', link, '. Its page shows it once it is in a block.');
    } catch (e) {
      fail(walletError(e, kind === 'write', errors));
    } finally {
      fields.disabled = false;
    }
  });
}

const forms = document.querySelectorAll<HTMLFormElement>('form[data-method-form]');
for (const note of document.querySelectorAll<HTMLElement>('[data-wallet-note]')) {
  const write = note.dataset.walletNote === 'write';
  note.textContent = eth
    ? write
      ? 'Each method is sent as a transaction from your browser wallet\u2019s account, which you confirm in the wallet.'
      : 'Methods that take arguments are asked through your browser wallet (nothing is sent).'
    : write
      ? 'No browser wallet was found: writing needs one (such as MetaMask).'
      : 'No browser wallet was found: methods that take arguments are asked through one (such as MetaMask).';
  // Without the explorer's chain id the forms cannot check the wallet's: the visitor must.
  if (eth && document.querySelector('form[data-method-form]:not([data-chain-id])')) note.append(" This explorer was not told its chain id (CHAIN_ID), so check that your wallet is on this explorer's chain.");
}
if (eth) for (const f of forms) setup(f, eth);
