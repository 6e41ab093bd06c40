// Which IP addresses are not public (loopback, private, link-local incl. cloud metadata,
// reserved...): the rule of the SSRF guard, which src/net/outbound.ts applies to every address a
// host resolves to before it connects.
import { isIP } from 'node:net';

/** Dotted IPv4 text -> its 4 bytes; null when invalid. */
export function parseIPv4(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

/** IPv6 text -> 8 groups of 16 bits (embedded dotted IPv4 tail allowed); null when invalid. */
export function parseIPv6(ip: string): number[] | null {
  let s = ip;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (isIP(s) !== 6) return null;
  // Dotted IPv4 tail -> two hex groups.
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const grp = (h: string) => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  const head = grp(halves[0]!);
  const rest = halves.length === 2 ? grp(halves[1]!) : [];
  const fill = 8 - head.length - rest.length;
  if (halves.length === 1 ? head.length !== 8 : fill < 0) return null;
  const groups = [...head, ...new Array<number>(halves.length === 2 ? fill : 0).fill(0), ...rest];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function privateV4(o: number[]): boolean {
  const [a, b, c] = o as [number, number, number, number];
  return (
    a === 0 || // "this network" (0.0.0.0 reaches the local host)
    a === 10 ||
    (a === 100 && b >= 64 && b <= 127) || // CGNAT 100.64/10 (incl. 100.100.100.200 cloud metadata)
    a === 127 ||
    (a === 169 && b === 254) || // link-local, 169.254.169.254 metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 0 && c === 0) || // IETF protocol assignments
    (a === 192 && b === 0 && c === 2) || // TEST-NET-1
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // TEST-NET-2
    (a === 203 && b === 0 && c === 113) || // TEST-NET-3
    a >= 224 // multicast 224/4, reserved 240/4, broadcast
  );
}

/**
 * True when `ip` is not a public unicast address: loopback, private (RFC 1918, fc00::/7),
 * link-local (169.254/16 incl. the 169.254.169.254 metadata service, fe80::/10), CGNAT,
 * unspecified, multicast, reserved and documentation ranges, and IPv6 forms that embed such an
 * IPv4 address (::ffff:0:0/96 mapped, ::/96 compatible, 64:ff9b::/96 NAT64, 2002::/16 6to4;
 * Teredo 2001::/32 always). Anything that is not an IP address counts as private (fail closed).
 */
export function isPrivateAddress(ip: string): boolean {
  const s = ip.trim();
  const v4 = parseIPv4(s);
  if (v4) return privateV4(v4);
  const g = parseIPv6(s);
  if (!g) return true;
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  // ::/128, ::1, ::ffff:a.b.c.d, ::a.b.c.d (deprecated compatible form)
  if (zeros(5) && (g[5] === 0 || g[5] === 0xffff)) {
    if (g[5] === 0 && g[6] === 0) return true; // ::, ::1 and the rest of ::/112
    return privateV4(embedded(g[6]!, g[7]!));
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return privateV4(embedded(g[6]!, g[7]!));
  if (g[0] === 0x2002) return privateV4(embedded(g[1]!, g[2]!));
  if (g[0] === 0x2001 && g[1] === 0) return true; // Teredo
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  if (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return true; // discard 100::/64
  const top = g[0]!;
  if ((top & 0xfe00) === 0xfc00) return true; // unique local fc00::/7 (incl. fd00:ec2::254)
  if ((top & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((top & 0xffc0) === 0xfec0) return true; // site-local fec0::/10 (deprecated)
  if ((top & 0xff00) === 0xff00) return true; // multicast
  return false;
}
