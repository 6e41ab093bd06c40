// A transaction's call tree (Otterscan's trace view): every frame of the API's raw trace
// (/transactions/{h}/raw-trace, depth-first with traceAddress) as nested lists, each with its type,
// from → to (named from the API's internal transactions where it has them), value, the method
// (the transaction's own decoded input for the top frame, else its selector's name where the API
// knows one, else the selector), its decoded arguments (call-input.ts; the raw input, folded,
// where they do not decode), gas used and whether it failed; public tags beside the names where
// the API gives them. Plain nested <ol>: readable without JavaScript; indentation is depth.
import type { ComponentChildren } from 'preact';
import { AddressLink, Amount, type AddressLike } from './common.js';
import { groupDigits, shortHash } from '../format.js';
import type { CallArg, DecodedCall } from '../call-input.js';

/** A parity-style trace item as /raw-trace answers it. */
export interface RawTraceItem {
  action: Record<string, string | null | undefined>;
  error?: string;
  result?: Record<string, string> | null;
  subtraces: number;
  traceAddress: number[];
  type: string;
}

/** One frame of the tree, with the names the API gave for its addresses. */
export interface CallFrame {
  depth: number;
  /** CALL, DELEGATECALL, STATICCALL, CALLCODE, CREATE, CREATE2, SELFDESTRUCT. */
  type: string;
  from: AddressLike | string | null;
  to: AddressLike | string | null;
  /** A creation: the contract created (to is null). */
  created: AddressLike | string | null;
  value: bigint;
  gasUsed: bigint | null;
  /** The 4-byte selector of a call with input, else null. */
  selector: string | null;
  /** A name for the call ("transfer(address to, uint256 amount)") where the API gave one. */
  method: string | null;
  /** The call's input ('' for a creation: its init code is not a call). */
  input: string;
  /** Its arguments, where the input decodes exactly as the method the API named. */
  call: DecodedCall | null;
  error: string | null;
  children: CallFrame[];
}

const big = (v: string | null | undefined): bigint | null => {
  if (v === null || v === undefined || v === '') return null;
  try {
    return BigInt(v);
  } catch {
    return null;
  }
};

/**
 * The raw trace as a tree. `named(i)`: the API's address objects of frame i (internal
 * transactions by their index, the transaction itself for the top frame), so names and tags show;
 * `methodOf(i)`: a method name of frame i where the API decoded it.
 */
export function buildCallTree(
  items: RawTraceItem[],
  named: (i: number) => { from?: AddressLike | null; to?: AddressLike | null; created?: AddressLike | null } | undefined,
  methodOf: (i: number) => string | null,
  decodedOf: (i: number) => DecodedCall | null = () => null,
): CallFrame[] {
  const roots: CallFrame[] = [];
  const stack: CallFrame[] = [];
  items.forEach((it, i) => {
    const a = it.action ?? {};
    const n = named(i) ?? {};
    const create = it.type === 'create';
    const selfdestruct = it.type === 'suicide' || it.type === 'selfdestruct';
    const type = create ? (a.creationMethod ?? 'create') : selfdestruct ? 'selfdestruct' : (a.callType ?? it.type);
    const input = a.input ?? '';
    const call = create ? null : decodedOf(i);
    const frame: CallFrame = {
      depth: it.traceAddress.length,
      type: type.toUpperCase(),
      from: n.from ?? (selfdestruct ? a.address : a.from) ?? null,
      to: create ? null : (n.to ?? (selfdestruct ? a.refundAddress : a.to) ?? null),
      created: create ? (n.created ?? it.result?.address ?? null) : null,
      value: big(selfdestruct ? a.balance : a.value) ?? 0n,
      gasUsed: big(it.result?.gasUsed),
      selector: !create && input.length >= 10 ? input.slice(0, 10) : null,
      method: call?.name ?? methodOf(i),
      input: create ? '' : input,
      call,
      error: it.error ?? null,
      children: [],
    };
    // The parent is the open frame one level up (depth-first order).
    while (stack.length && stack[stack.length - 1].depth >= frame.depth) stack.pop();
    if (stack.length) stack[stack.length - 1].children.push(frame);
    else roots.push(frame);
    stack.push(frame);
  });
  return roots;
}

/** An address of a frame, with its first public tag (an approved public name's) when the API gives one. */
function Party({ a }: { a: AddressLike | string | null }) {
  const tag = a && typeof a === 'object' ? (a as { public_tags?: { display_name?: string }[] }).public_tags?.[0]?.display_name : undefined;
  return (
    <>
      <AddressLink a={a} copy={false} />
      {tag ? <span class="tag ct-public-tag">{tag}</span> : null}
    </>
  );
}

function Frame({ f, coin }: { f: CallFrame; coin: string }) {
  return (
    <li class={f.error ? 'ct-frame ct-failed' : 'ct-frame'} data-depth={f.depth}>
      <div class="ct-line">
        <span class={`tag ct-type ct-${f.type.toLowerCase()}`}>{f.type}</span>
        {f.error ? <span class="status err ct-error">Failed: {f.error}</span> : null}
        <span class="ct-from">
          <Party a={f.from} />
        </span>
        <span aria-hidden="true"> → </span>
        <span class="sr-only"> to </span>
        <span class="ct-to">
          {f.to ? (
            <Party a={f.to} />
          ) : f.created ? (
            <span class="create">
              Created <AddressLink a={f.created} copy={false} />
            </span>
          ) : (
            <span class="muted">—</span>
          )}
        </span>
        {f.method ? <span class="method ct-method" title={f.selector ?? undefined}>{f.method}</span> : f.selector ? <span class="mono muted ct-method" title="Method selector: not decoded">{f.selector}</span> : null}
        {f.value > 0n ? (
          <span class="ct-value">
            <Amount value={f.value.toString()} decimals={18} symbol={coin} />
          </span>
        ) : null}
        {f.gasUsed !== null ? <span class="muted ct-gas">gas {groupDigits(f.gasUsed.toString())}</span> : null}
      </div>
      {f.call ? f.call.args.length ? <Args args={f.call.args} /> : null : f.selector ? <RawInput input={f.input} /> : null}
      {f.children.length ? <FrameList frames={f.children} coin={coin} /> : null}
    </li>
  );
}

/** Longest raw input put in the page (hex characters); a longer one is a link away, in the raw trace. */
const RAW_INPUT_SHOWN = 4096;
/** Bytes and strings longer than this are folded. */
const LONG_TEXT = 66;
/** Arrays longer than this are folded. */
const LONG_ARRAY = 4;

/** A frame's arguments: name, type and value, one a line. */
function Args({ args }: { args: CallArg[] }) {
  return (
    <ul class="ct-args" aria-label="Arguments">
      {args.map((a, i) => (
        <li class="ct-arg" data-name={a.name || `#${i}`}>
          <span class="ct-arg-name">{a.name || `#${i}`}</span> <span class="muted ct-arg-type">{a.type}</span> <ArgValue type={a.type} value={a.value} />
        </li>
      ))}
    </ul>
  );
}

/** Long text folded: its start and length in the summary, the whole of it inside. */
function Folded({ summary, children }: { summary: string; children: ComponentChildren }) {
  return (
    <details class="ct-fold">
      <summary class="mono">{summary}</summary>
      <div class="mono ct-fold-body">{children}</div>
    </details>
  );
}

/** One decoded value: an address linked, an integer in full with separators, long bytes and arrays folded. */
function ArgValue({ type, value }: { type: string; value: unknown }) {
  const arr = /^(.*)\[\d*\]$/.exec(type);
  if (arr && Array.isArray(value)) {
    const items = value.map((v, i) => (
      <>
        {i ? ', ' : null}
        <ArgValue type={arr[1]} value={v} />
      </>
    ));
    return value.length > LONG_ARRAY ? <Folded summary={`${value.length} items`}>[{items}]</Folded> : <span class="ct-arg-value">[{items}]</span>;
  }
  if (type === 'address' && typeof value === 'string') return <AddressLink a={value} copy={false} />;
  if (typeof value === 'bigint') return <span class="mono ct-arg-value">{groupDigits(value.toString())}</span>;
  if (typeof value === 'boolean') return <span class="mono ct-arg-value">{String(value)}</span>;
  if (typeof value === 'string') {
    const text = type === 'string' ? JSON.stringify(value) : value;
    if (text.length <= LONG_TEXT) return <span class="mono ct-arg-value">{text}</span>;
    const size = type === 'string' ? `${value.length} characters` : `${(value.length - 2) / 2} bytes`;
    return <Folded summary={`${type === 'string' ? text.slice(0, 16) : shortHash(text, 10, 8)} (${size})`}>{text}</Folded>;
  }
  // A tuple or anything else viem gives: as JSON, big integers as digits.
  const json = JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)) ?? '';
  return json.length <= LONG_TEXT ? <span class="mono ct-arg-value">{json}</span> : <Folded summary={`${json.slice(0, 16)}…`}>{json}</Folded>;
}

/** The input of a frame whose arguments did not decode, folded: never a guess at them. */
function RawInput({ input }: { input: string }) {
  const bytes = (input.length - 2) / 2;
  return (
    <details class="ct-fold ct-raw">
      <summary>Input, not decoded ({groupDigits(String(bytes))} bytes)</summary>
      <div class="mono ct-fold-body">{input.length <= RAW_INPUT_SHOWN ? input : `${input.slice(0, RAW_INPUT_SHOWN)} … (the rest in the raw trace)`}</div>
    </details>
  );
}

function FrameList({ frames, coin }: { frames: CallFrame[]; coin: string }) {
  return (
    <ol class="ct-list">
      {frames.map((f) => (
        <Frame f={f} coin={coin} />
      ))}
    </ol>
  );
}

/** The tree, in a region that scrolls sideways when deep (named and reachable by keyboard, as such a region must be). */
export function CallTree({ frames, coin, label }: { frames: CallFrame[]; coin: string; label: string }) {
  return (
    <div class="call-tree" role="region" aria-label={label} tabindex={0}>
      <FrameList frames={frames} coin={coin} />
    </div>
  );
}
