// How the web UI writes numbers, amounts, hashes and times: exact token amounts with their
// decimals (BigInt, never floating point), thousands separators, shortened hashes, relative
// times. Pure functions, the same on the server and in the browser.

/** Digits with thin thousands separators: "1234567" → "1,234,567". Non-digit input is returned as is. */
export function groupDigits(digits: string): string {
  const m = /^(-?)(\d+)$/.exec(digits);
  if (!m) return digits;
  return m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * An integer amount of base units as a decimal with `decimals` places, exactly: "1500000000000000000"
 * with 18 → "1.5". Trailing zeros of the fraction are dropped; `maxFraction` cuts (never rounds up)
 * the fraction and marks the cut with "…" so a shortened number never claims more than it is.
 */
export function formatUnits(value: string | bigint | null | undefined, decimals: number | string | null | undefined, maxFraction?: number): string {
  if (value === null || value === undefined || value === '') return '';
  let v: bigint;
  try {
    v = typeof value === 'bigint' ? value : BigInt(value);
  } catch {
    return String(value);
  }
  const d = Number(decimals ?? 0);
  if (!Number.isInteger(d) || d < 0 || d > 255) return groupDigits(v.toString());
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const s = abs.toString().padStart(d + 1, '0');
  const int = s.slice(0, s.length - d);
  let frac = d ? s.slice(s.length - d).replace(/0+$/, '') : '';
  let cut = false;
  if (maxFraction !== undefined && frac.length > maxFraction) {
    frac = frac.slice(0, maxFraction).replace(/0+$/, '');
    cut = true;
  }
  const out = groupDigits(int) + (frac ? `.${frac}` : '') + (cut ? '…' : '');
  return (neg ? '-' : '') + out;
}

/** `0x1234…abcd` for a long hash or address; short input unchanged. */
export function shortHash(h: string, head = 6, tail = 4): string {
  if (!h || h.length <= head + tail + 1) return h;
  return `${h.slice(0, head)}…${h.slice(-tail)}`;
}

/** "5 s ago", "3 min ago", "2 h ago", "4 d ago" from ISO times; '' when `iso` is not a time. */
export function relativeTime(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((now - t) / 1000);
  if (s < 0) return 'in the future';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** "2024-05-01 12:34:56 UTC" from an ISO time; '' when not a time. */
export function utcTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  return new Date(t).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** A percentage with at most `digits` decimals ("12.3%"); '' when not a finite number. */
export function percent(v: number | string | null | undefined, digits = 1): string {
  const n = typeof v === 'string' ? Number(v) : v;
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  return `${Number(n.toFixed(digits))}%`;
}

/** Milliseconds as "12.3 s" / "850 ms". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '';
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${Math.round(ms)} ms`;
}

/**
 * A USD amount from the API's decimal text (a price or market cap of the price source): in cents
 * from $1 up ("$2,310.50"), four significant digits below ("$0.00001234"), or `compact` for a
 * narrow tile ("$277.26B"); '' when not a number.
 */
export function usd(v: string | null | undefined, o: { compact?: boolean } = {}): string {
  const n = v === null || v === undefined || v === '' ? NaN : Number(v);
  if (!Number.isFinite(n)) return '';
  const f: Intl.NumberFormatOptions = o.compact
    ? { notation: 'compact', maximumFractionDigits: 2 }
    : n >= 1 || n === 0
      ? { minimumFractionDigits: 2, maximumFractionDigits: 2 }
      : { maximumSignificantDigits: 4 };
  return `$${n.toLocaleString('en-US', f)}`;
}

/** Below this many wei a gas price reads better in wei ("8 wei") than in gwei ("0.000000008 gwei"). */
const WEI_BELOW = 1_000_000n;

/** A gas price or base fee exactly, in the unit that reads best: "1.5 gwei" for 1500000000, "8 wei" for 8. */
export function gwei(wei: string | null | undefined): string {
  if (wei === null || wei === undefined || wei === '') return '';
  try {
    if (BigInt(wei) < WEI_BELOW) return `${groupDigits(BigInt(wei).toString())} wei`;
  } catch {
    return wei;
  }
  return `${formatUnits(wei, 9)} gwei`;
}

/** A gas price short, in the unit that reads best ("0.01135 gwei", "8 wei"); the exact one is `gwei()`. */
export function gweiShort(wei: string | null | undefined, digits = 4): string {
  const exact = gwei(wei);
  return exact.endsWith(' gwei') ? `${readableUnits(wei, 9, digits)} gwei` : exact;
}

/**
 * A decimal number ("0.010485497243479890", "-12345.678") with the digits that matter: the whole
 * integer part, and of the fraction `digits` significant digits below 1 ("0.00004417") or enough
 * to keep `digits` digits in all, at least two, from 1 up ("10,000.25", "1.019"), rounded half up.
 * Never "…": the figure is a number, and the exact one goes in its title (see Amount). Text that is
 * not a decimal number is returned as is.
 */
export function readableDecimal(text: string, digits = 4): string {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m) return text;
  const int = m[2].replace(/^0+(?=\d)/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (!frac) return m[1] + groupDigits(int);
  const places = int !== '0' ? Math.max(2, digits - int.length) : frac.length - frac.replace(/^0+/, '').length + digits;
  if (places >= frac.length) return `${m[1]}${groupDigits(int)}.${frac}`;
  // Round half up on the digits themselves (BigInt: no floating point on 78-digit amounts).
  let scaled = BigInt(int + frac.slice(0, places));
  if (frac.charCodeAt(places) >= 53) scaled += 1n; // '5'
  return m[1] + formatUnits(scaled, places);
}

/** An amount of base units with the digits that matter (readableDecimal of formatUnits' exact value). */
export function readableUnits(value: string | bigint | null | undefined, decimals: number | string | null | undefined, digits = 4): string {
  const exact = formatUnits(value, decimals);
  return readableDecimal(exact.replace(/,/g, ''), digits);
}

/**
 * A long hash or address cut into `parts` nearly equal pieces ("0x" stays with the first), the
 * places a line may break: wrapped at any width it never leaves one or two characters alone on a
 * line, as breaking anywhere did.
 */
export function hashChunks(h: string, parts = 4): string[] {
  if (!h || h.length < 16) return [h];
  const start = h.startsWith('0x') ? 2 : 0;
  const size = Math.ceil((h.length - start) / parts);
  const out: string[] = [];
  for (let i = start; i < h.length; i += size) out.push(h.slice(i === start ? 0 : i, i + size));
  return out;
}
