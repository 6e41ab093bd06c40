// A transaction's call tree (Otterscan's trace view): every frame of the API's raw trace
// (/transactions/{h}/raw-trace, depth-first with traceAddress) as nested lists, each with its type,
// from → to (named from the API's internal transactions where it has them), value, the method
// (the transaction's own decoded input for the top frame, else its selector's name where the API
// knows one, else the selector), gas used and whether it failed; public tags beside the names
// where the API gives them. Plain nested <ol>: readable without JavaScript; indentation is depth.
import { AddressLink, Amount, type AddressLike } from './common.js';
import { groupDigits } from '../format.js';

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
    const frame: CallFrame = {
      depth: it.traceAddress.length,
      type: type.toUpperCase(),
      from: n.from ?? (selfdestruct ? a.address : a.from) ?? null,
      to: create ? null : (n.to ?? (selfdestruct ? a.refundAddress : a.to) ?? null),
      created: create ? (n.created ?? it.result?.address ?? null) : null,
      value: big(selfdestruct ? a.balance : a.value) ?? 0n,
      gasUsed: big(it.result?.gasUsed),
      selector: !create && input.length >= 10 ? input.slice(0, 10) : null,
      method: methodOf(i),
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
      {f.children.length ? <FrameList frames={f.children} coin={coin} /> : null}
    </li>
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
