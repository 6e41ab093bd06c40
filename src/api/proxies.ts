// Proxy detection: which implementation a contract delegates its calls to, read from its code and
// from the node's storage at its head, as Blockscout names the kinds (proxy_type):
//   eip1167         minimal proxy: the implementation is written in the 45-byte runtime code
//   eip7702         an account's delegation designator (0xef0100 ‖ address)
//   eip1967         the EIP-1967 implementation slot (OpenZeppelin's ERC1967, UUPS, transparent)
//   eip1967_beacon  the EIP-1967 beacon slot; the beacon's implementation() names the implementation
//   eip1967_oz      OpenZeppelin's pre-EIP-1967 slot (zos, keccak256("org.zeppelinos.proxy.implementation"))
//   eip1822         the EIP-1822 (UUPS draft) slot keccak256("PROXIABLE")
// A slot holds an implementation only when its word is a non-zero address (12 zero bytes first):
// anything else is ordinary storage, not a proxy.
import type { RpcClient, RpcCall } from '../rpc/client.js';

export type ProxyType = 'eip1167' | 'eip7702' | 'eip1967' | 'eip1967_beacon' | 'eip1967_oz' | 'eip1822';

/** A proxy and its implementations (lower-case addresses). */
export interface ProxyFact {
  type: ProxyType;
  implementations: string[];
}

/** The storage slots read, in the order a proxy kind wins (the EIP-1967 slots before the older ones). */
export const PROXY_SLOTS = [
  // keccak256('eip1967.proxy.implementation') - 1
  { type: 'eip1967', slot: '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc' },
  // keccak256('eip1967.proxy.beacon') - 1
  { type: 'eip1967_beacon', slot: '0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50' },
  // keccak256('org.zeppelinos.proxy.implementation')
  { type: 'eip1967_oz', slot: '0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3' },
  // keccak256('PROXIABLE')
  { type: 'eip1822', slot: '0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7' },
] as const satisfies readonly { type: ProxyType; slot: string }[];

/** The beacon's implementation() selector (IBeacon). */
export const BEACON_IMPLEMENTATION = '0x5c60da1b';

const MINIMAL_PROXY = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/;
const DELEGATION = /^0xef0100([0-9a-f]{40})$/;
const ZERO = '0'.repeat(40);

/** What the runtime code alone says: a minimal proxy or a 7702 delegation, else null. */
export function proxyFromCode(code: string): ProxyFact | null {
  const c = code.toLowerCase();
  const minimal = MINIMAL_PROXY.exec(c);
  if (minimal && minimal[1] !== ZERO) return { type: 'eip1167', implementations: [`0x${minimal[1]}`] };
  const delegated = DELEGATION.exec(c);
  if (delegated && delegated[1] !== ZERO) return { type: 'eip7702', implementations: [`0x${delegated[1]}`] };
  return null;
}

/** The address a 32-byte word holds (12 zero bytes, then a non-zero address), else null. */
export function wordAddress(word: unknown): string | null {
  if (typeof word !== 'string') return null;
  const w = word.toLowerCase();
  const m = /^0x0{24}([0-9a-f]{40})$/.exec(w.length < 66 && /^0x[0-9a-f]*$/.test(w) ? `0x${w.slice(2).padStart(64, '0')}` : w);
  return m && m[1] !== ZERO ? `0x${m[1]}` : null;
}

/** What a runtime code says by itself: no code, a proxy written in the code, or ordinary code. */
export type CodeKind = 'none' | 'plain' | ProxyFact;

export function codeKind(code: string): CodeKind {
  if (code === '0x' || code === '') return 'none';
  return proxyFromCode(code) ?? 'plain';
}

/**
 * The proxy kind of each contract, from the node at its head (one batch of eth_getStorageAt, and of
 * eth_call for beacons). `known` gives the kind of the code where it is known; for the others the
 * batch asks eth_getCode too, and `kinds` returns what it said. An address the node did not answer
 * for is left out (unknown, never guessed); one it answered for maps to its fact or null (not a
 * proxy).
 */
export async function detectProxies(
  rpc: Pick<RpcClient, 'batch'>,
  addresses: readonly string[],
  known: ReadonlyMap<string, CodeKind>,
): Promise<{ facts: Map<string, ProxyFact | null>; kinds: Map<string, CodeKind> }> {
  const facts = new Map<string, ProxyFact | null>();
  const kinds = new Map<string, CodeKind>();
  const calls: RpcCall[] = [];
  const plan: { address: string; what: 'code' | number }[] = [];
  for (const a of addresses) {
    const kind = known.get(a);
    if (kind !== undefined && kind !== 'plain') {
      facts.set(a, kind === 'none' ? null : kind);
      continue;
    }
    if (kind === undefined) {
      calls.push({ method: 'eth_getCode', params: [a, 'latest'] });
      plan.push({ address: a, what: 'code' });
    }
    PROXY_SLOTS.forEach((s, i) => {
      calls.push({ method: 'eth_getStorageAt', params: [a, s.slot, 'latest'] });
      plan.push({ address: a, what: i });
    });
  }
  if (!calls.length) return { facts, kinds };
  const outcomes = await rpc.batch<string>(calls);
  const words = new Map<string, (string | undefined)[]>();
  const failed = new Set<string>();
  plan.forEach((p, i) => {
    const o = outcomes[i];
    if (!o?.ok || typeof o.result !== 'string') {
      failed.add(p.address);
      return;
    }
    if (p.what === 'code') kinds.set(p.address, codeKind(o.result.toLowerCase()));
    else {
      const w = words.get(p.address) ?? [];
      w[p.what] = o.result;
      words.set(p.address, w);
    }
  });
  const beacons: { address: string; beacon: string }[] = [];
  for (const [a, w] of words) {
    if (failed.has(a)) continue;
    const kind = kinds.get(a) ?? known.get(a);
    if (kind !== undefined && kind !== 'plain') {
      facts.set(a, kind === 'none' ? null : kind);
      continue;
    }
    let found: ProxyFact | null = null;
    for (let i = 0; i < PROXY_SLOTS.length; i++) {
      const at = wordAddress(w[i]);
      if (!at) continue;
      const type = PROXY_SLOTS[i]!.type;
      // A beacon is asked below: it decides, whatever the slots after it hold.
      if (type === 'eip1967_beacon') beacons.push({ address: a, beacon: at });
      else found = { type, implementations: [at] };
      break;
    }
    if (!beacons.length || beacons[beacons.length - 1]!.address !== a) facts.set(a, found);
  }
  if (beacons.length) {
    const answers = await rpc.batch<string>(beacons.map((b) => ({ method: 'eth_call', params: [{ to: b.beacon, data: BEACON_IMPLEMENTATION }, 'latest'] })));
    beacons.forEach((b, i) => {
      const o = answers[i];
      if (!o) return;
      if (!o.ok) {
        // A beacon that reverts names no implementation; a node that did not answer: unknown.
        if (o.error.kind === 'rpc') facts.set(b.address, null);
        return;
      }
      const impl = wordAddress(o.result);
      facts.set(b.address, impl ? { type: 'eip1967_beacon', implementations: [impl] } : null);
    });
  }
  return { facts, kinds };
}
