// The call tree (src/ui/components/call-tree.tsx) from raw-trace items the devnet never gives: a
// creation, a self-destruct, a callee with a public tag, and frames out of the trace's simple
// order of depths (a frame back at depth 1 after depth 3); its nesting follows traceAddress depth.
import t from 'tap';
import { render } from 'preact-render-to-string';
import { CallTree, buildCallTree, type RawTraceItem } from '../../../../src/ui/components/call-tree.js';

const A = (n: number) => `0x${String(n).repeat(40).slice(0, 40)}`;
const call = (traceAddress: number[], from: string, to: string, extra: Partial<RawTraceItem> = {}): RawTraceItem => ({
  action: { callType: 'call', from, to, input: '0xa9059cbb00', value: '0x0', gas: '0x100' },
  result: { gasUsed: '0x2a', output: '0x' },
  subtraces: 0,
  traceAddress,
  type: 'call',
  ...extra,
});

t.test('the tree of a trace', async (t) => {
  const items: RawTraceItem[] = [
    call([], A(1), A(2)),
    call([0], A(2), A(3)),
    { action: { from: A(3), gas: '0x10', init: '0x60', value: '0x5', creationMethod: 'create2' }, result: { address: A(4), code: '0x', gasUsed: '0x7' }, subtraces: 0, traceAddress: [0, 0], type: 'create' },
    call([0, 0, 0], A(4), A(5), { error: 'Reverted', result: undefined }),
    { action: { address: A(2), balance: '0xde0b6b3a7640000', refundAddress: A(6) }, result: null, subtraces: 0, traceAddress: [1], type: 'suicide' },
  ];
  const tree = buildCallTree(
    items,
    (i) => (i === 1 ? { to: { hash: A(3), name: 'Pool', public_tags: [{ display_name: 'Uniswap' }] } as never } : undefined),
    (i) => (i === 1 ? 'transfer' : null),
  );
  t.equal(tree.length, 1, 'one top frame');
  t.same(tree[0].children.map((c) => c.type), ['CALL', 'SELFDESTRUCT'], 'the top call has two children, the self-destruct back at depth 1');
  const create = tree[0].children[0].children[0];
  t.equal(create.type, 'CREATE2');
  t.equal(create.created, A(4), 'the contract a creation made');
  t.equal(create.value, 5n);
  t.equal(create.children[0].error, 'Reverted', 'a failed frame under the creation');
  t.equal(create.children[0].gasUsed, null, 'no gas used without a result');
  t.equal(tree[0].children[1].value, 10n ** 18n, "the self-destruct moves the contract's balance");
  t.equal(tree[0].children[1].to, A(6), 'to its beneficiary');
  const html = render(CallTree({ frames: tree, coin: 'ETH', label: 'Frames' }));
  t.match(html, /Pool<\/a>.*Uniswap/s, "a callee by its name, with its public tag");
  t.match(html, />transfer</, 'a named method');
  t.match(html, /class="ct-frame ct-failed" data-depth="3"/, 'the failed frame marked, at depth 3');
  t.match(html, /Failed: Reverted/);
  t.equal((html.match(/<ol/g) ?? []).length, 4, 'a list per level that has children');
  t.match(html, /1<span class="unit"> ETH/, 'value in the coin');
  t.match(html, /gas 42/, 'gas used');
});
