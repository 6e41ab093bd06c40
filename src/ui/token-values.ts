// What the token pages compute from the API's values: a holder's share of a supply (exact, with
// BigInt), and which NFT media URLs from untrusted metadata a page may put in <img>/<video>.
// Pure functions.

/**
 * `value` as a percentage of `supply` with at most `digits` decimals, cut (never rounded up) and
 * marked "…" when cut, like formatUnits. null when it cannot be computed (no supply, zero supply,
 * not integers): a share is never guessed. A positive share too small to show is "<0.0001%".
 */
export function sharePercent(value: string | bigint | null | undefined, supply: string | bigint | null | undefined, digits = 4): string | null {
  let v: bigint;
  let s: bigint;
  try {
    if (value === null || value === undefined || supply === null || supply === undefined || value === '' || supply === '') return null;
    v = BigInt(value);
    s = BigInt(supply);
  } catch {
    return null;
  }
  if (s <= 0n || v < 0n) return null;
  const scale = 10n ** BigInt(digits);
  const scaled = v * 100n * scale;
  const q = scaled / s;
  const exact = scaled % s === 0n;
  if (q === 0n && v > 0n) return `<${digits ? `0.${'0'.repeat(digits - 1)}1` : '1'}%`;
  const int = q / scale;
  const frac = digits ? (q % scale).toString().padStart(digits, '0').replace(/0+$/, '') : '';
  return `${int}${frac ? `.${frac}` : ''}${exact ? '' : '…'}%`;
}

/** Image types a browser shows from a data: URL in <img> (an SVG there runs no script). */
const DATA_IMAGE = /^data:image\/(png|jpe?g|gif|webp|avif|svg\+xml|bmp)[;,]/i;

/** A URL the page may use as an <img src>: http(s) or a data:image URL; anything else (javascript:, ipfs:, data:text/html) is null. */
export function imageSrc(url: unknown): string | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > 200_000) return null;
  if (DATA_IMAGE.test(url)) return url;
  return httpUrl(url);
}

/** An absolute http(s) URL, else null. */
export function httpUrl(url: unknown): string | null {
  if (typeof url !== 'string' || url.length > 4096) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const VIDEO_EXT = /\.(mp4|webm|ogv|ogg|mov|m4v)$/i;

/** An http(s) URL of a video (by its file name, or the API's media type), for <video>; else null. */
export function videoSrc(url: unknown, mediaType?: string | null): string | null {
  const u = httpUrl(url);
  if (!u) return null;
  if (mediaType && /^video\//i.test(mediaType)) return u;
  return VIDEO_EXT.test(new URL(u).pathname) ? u : null;
}

export interface Attribute {
  trait: string;
  value: string;
}

/** Text of an untrusted metadata value: strings as they are, other values as JSON, cut to `max`. */
export function text(v: unknown, max = 500): string {
  const s = typeof v === 'string' ? v : v === undefined ? '' : JSON.stringify(v) ?? '';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/**
 * The attributes of NFT metadata as trait/value rows: OpenSea's array of {trait_type, value}
 * (or {key, value} / {name, value}), or a plain object of trait → value. Anything else: none.
 */
export function attributes(metadata: unknown): Attribute[] {
  if (!metadata || typeof metadata !== 'object') return [];
  const raw = (metadata as Record<string, unknown>).attributes ?? (metadata as Record<string, unknown>).properties;
  const out: Attribute[] = [];
  if (Array.isArray(raw)) {
    for (const a of raw.slice(0, 200)) {
      if (a && typeof a === 'object' && !Array.isArray(a)) {
        const o = a as Record<string, unknown>;
        const trait = o.trait_type ?? o.key ?? o.name;
        if (!('value' in o) && trait === undefined) continue;
        out.push({ trait: trait === undefined || trait === null ? '' : text(trait, 100), value: text(o.value) });
      } else if (a !== null && a !== undefined) {
        out.push({ trait: '', value: text(a) });
      }
    }
  } else if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw).slice(0, 200)) out.push({ trait: text(k, 100), value: text(v) });
  }
  return out;
}
