// Proxy detection's pure parts: the slots are the EIPs' (computed here, not copied), what code and
// slot words say, and that a node answer missing for an address leaves it unknown.
import t from 'tap';
import { keccak256, toHex } from 'viem';
import { BEACON_IMPLEMENTATION, PROXY_SLOTS, codeKind, detectProxies, proxyFromCode, wordAddress } from '../../../src/api/proxies.js';
import type { RpcCall, CallOutcome } from '../../../src/rpc/client.js';
import { RpcError } from '../../../src/rpc/errors.js';

const IMPL = `0x${'ab'.repeat(20)}`;
const word = (a: string) => `0x${'0'.repeat(24)}${a.slice(2)}`;

t.test('the slots are the EIPs\'', async (t) => {
  const minusOne = (s: string) => toHex(BigInt(keccak256(toHex(s))) - 1n, { size: 32 });
  const slot = (type: string) => PROXY_SLOTS.find((s) => s.type === type)!.slot;
  t.equal(slot('eip1967'), minusOne('eip1967.proxy.implementation'));
  t.equal(slot('eip1967_beacon'), minusOne('eip1967.proxy.beacon'));
  t.equal(slot('eip1967_oz'), keccak256(toHex('org.zeppelinos.proxy.implementation')));
  t.equal(slot('eip1822'), keccak256(toHex('PROXIABLE')));
  t.equal(BEACON_IMPLEMENTATION, keccak256(toHex('implementation()')).slice(0, 10));
});

t.test('what the code says', async (t) => {
  t.same(proxyFromCode(`0x363d3d373d3d3d363d73${IMPL.slice(2)}5af43d82803e903d91602b57fd5bf3`), { type: 'eip1167', implementations: [IMPL] });
  t.same(proxyFromCode(`0xEF0100${IMPL.slice(2).toUpperCase()}`), { type: 'eip7702', implementations: [IMPL] }, 'any case');
  t.equal(proxyFromCode(`0x363d3d373d3d3d363d73${'00'.repeat(20)}5af43d82803e903d91602b57fd5bf3`), null, 'the zero address is no implementation');
  t.equal(proxyFromCode(`0x363d3d373d3d3d363d73${IMPL.slice(2)}5af43d82803e903d91602b57fd5bf300`), null, 'exactly the 45 bytes');
  t.equal(codeKind('0x'), 'none');
  t.equal(codeKind('0x6080'), 'plain');
});

t.test('what a slot word says', async (t) => {
  t.equal(wordAddress(word(IMPL)), IMPL);
  t.equal(wordAddress(`0x${'0'.repeat(64)}`), null, 'zero: nothing there');
  t.equal(wordAddress(`0x01${'0'.repeat(22)}${IMPL.slice(2)}`), null, 'high bytes set: ordinary storage');
  t.equal(wordAddress(`0x${IMPL.slice(2)}`), IMPL, 'a short answer is left-padded');
  t.equal(wordAddress('0x'), null);
  t.equal(wordAddress(42), null);
});

t.test('one batch; a beacon is asked; an unanswered address stays unknown', async (t) => {
  const A = `0x${'01'.repeat(20)}`; // EIP-1967 implementation slot
  const B = `0x${'02'.repeat(20)}`; // beacon
  const C = `0x${'03'.repeat(20)}`; // plain
  const D = `0x${'04'.repeat(20)}`; // the node fails for it
  const E = `0x${'05'.repeat(20)}`; // known minimal proxy: nothing asked
  const BEACON = `0x${'0b'.repeat(20)}`;
  const batches: RpcCall[][] = [];
  const rpc = {
    async batch<T>(calls: readonly RpcCall[]): Promise<CallOutcome<T>[]> {
      batches.push([...calls]);
      return calls.map((c) => {
        const [addr, slot] = (c.params ?? []) as [string | { to: string }, string];
        if (c.method === 'eth_call') return { ok: true, result: word(IMPL) as T };
        if (addr === D) return { ok: false, error: new RpcError({ method: 'eth_getStorageAt', url: 'x', kind: 'timeout', message: 'slow' }) };
        if (c.method === 'eth_getCode') return { ok: true, result: '0x6080' as T };
        if (addr === A && slot === PROXY_SLOTS[0].slot) return { ok: true, result: word(IMPL) as T };
        if (addr === B && slot === PROXY_SLOTS[1].slot) return { ok: true, result: word(BEACON) as T };
        return { ok: true, result: `0x${'0'.repeat(64)}` as T };
      });
    },
  };
  const known = new Map([[E, proxyFromCode(`0x363d3d373d3d3d363d73${IMPL.slice(2)}5af43d82803e903d91602b57fd5bf3`)!]]);
  const { facts, kinds } = await detectProxies(rpc, [A, B, C, D, E], known);
  t.same(facts.get(A), { type: 'eip1967', implementations: [IMPL] });
  t.same(facts.get(B), { type: 'eip1967_beacon', implementations: [IMPL] });
  t.same(batches[1], [{ method: 'eth_call', params: [{ to: BEACON, data: BEACON_IMPLEMENTATION }, 'latest'] }], "the beacon's implementation()");
  t.equal(facts.get(C), null, 'no proxy');
  t.notOk(facts.has(D), 'not answered: unknown');
  t.same(facts.get(E), known.get(E), 'from the known code, without asking');
  t.notOk(batches[0]!.some((c) => (c.params ?? [])[0] === E));
  t.equal(batches.length, 2, 'one batch for the slots, one for the beacons');
  t.equal(kinds.get(A), 'plain', 'the code kinds read are returned for caching');
});
