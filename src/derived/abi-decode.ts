// Tolerant decoders for eth_call return data of real-world contracts: strings that are proper
// ABI `string`, `bytes32` (right-padded), garbage or invalid UTF-8; uint256 words; bools that
// must be exactly 0 or 1 (ERC-165); addresses. Pure functions, no RPC.

/** '0x'-prefixed (or bare) hex -> bytes; null when it is not an even run of hex digits. */
export function hexToBytesLoose(hex: string | null | undefined): Uint8Array | null {
  if (typeof hex !== 'string') return null;
  const h = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) return null;
  return Uint8Array.from(Buffer.from(h, 'hex'));
}

/** The 32-byte word at byte `offset` as a bigint (caller checks bounds). */
function wordAt(b: Uint8Array, offset: number): bigint {
  let v = 0n;
  for (let i = offset; i < offset + 32; i++) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

/** First word of the return data as uint256; null for empty/short/malformed data. */
export function decodeUint256(hex: string | null | undefined): bigint | null {
  const b = hexToBytesLoose(hex);
  if (!b || b.length < 32) return null;
  return wordAt(b, 0);
}

/** First word as a bool: true/false for exactly 1/0, null for anything else (not a proper bool). */
export function decodeBoolStrict(hex: string | null | undefined): boolean | null {
  const v = decodeUint256(hex);
  if (v === 0n) return false;
  if (v === 1n) return true;
  return null;
}

/** First word as an address (lower-case); null when malformed or the upper 12 bytes are not 0. */
export function decodeAddressWord(hex: string | null | undefined): string | null {
  const b = hexToBytesLoose(hex);
  if (!b || b.length < 32) return null;
  for (let i = 0; i < 12; i++) if (b[i] !== 0) return null;
  return '0x' + Buffer.from(b.subarray(12, 32)).toString('hex');
}

// C0/C1 controls and DEL (Unicode Cc), plus the invisible bidi/format marks that let a name
// pose as another (LRM/RLM, embeddings/overrides, isolates) and the BOM.
const STRIP_RE = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/gu;
// What counts as nothing printable: whitespace and U+FFFD (what invalid UTF-8 became).
const NOTHING_RE = /^[\s\uFFFD]*$/u;

export interface SanitizeOptions {
  /** Keep at most this many code points (default: no limit). */
  maxChars?: number;
}

export interface SanitizedText {
  text: string | null;
  /** Invalid UTF-8 sequences were replaced by U+FFFD. */
  replaced: boolean;
  /** Control/format characters were dropped. */
  stripped: boolean;
  truncated: boolean;
}

/**
 * Bytes -> display text: UTF-8 with invalid sequences replaced (U+FFFD), NULs and other control
 * and bidi-override characters dropped, surrounding whitespace trimmed. null when nothing
 * printable remains.
 */
export function sanitizeText(bytes: Uint8Array, opts: SanitizeOptions = {}): SanitizedText {
  let strict = true;
  let s: string;
  try {
    s = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    strict = false;
    s = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
  }
  const cleaned = s.replace(STRIP_RE, '');
  // NULs are padding, not content: only report stripping of anything else.
  const stripped = cleaned.length !== s.replace(/\0/g, '').length;
  let text = cleaned.trim();
  let truncated = false;
  if (opts.maxChars !== undefined) {
    const cps = Array.from(text);
    if (cps.length > opts.maxChars) {
      text = cps.slice(0, opts.maxChars).join('').trimEnd();
      truncated = true;
    }
  }
  return { text: NOTHING_RE.test(text) ? null : text, replaced: !strict, stripped, truncated };
}

export type StringEncoding = 'string' | 'bytes32' | 'empty' | 'invalid';

export interface LooseString {
  /** Sanitized text, or null (empty, undecodable, nothing printable). */
  value: string | null;
  /** How the return data was read. */
  encoding: StringEncoding;
  /** The raw bytes of the string before sanitizing (null for empty/invalid). */
  raw: Uint8Array | null;
  replaced: boolean;
  stripped: boolean;
  truncated: boolean;
}

/**
 * The bytes of an ABI-encoded dynamic `string`/`bytes` return value, or null when the data is
 * not one: the first word is an offset (a multiple of 32, inside the data), the word there a
 * length, and the whole string fits in the data.
 */
export function abiStringBytes(b: Uint8Array): Uint8Array | null {
  if (b.length < 64) return null;
  const off = wordAt(b, 0);
  if (off % 32n !== 0n || off + 32n > BigInt(b.length)) return null;
  const o = Number(off);
  const len = wordAt(b, o);
  if (BigInt(o) + 32n + len > BigInt(b.length)) return null;
  return b.subarray(o + 32, o + 32 + Number(len));
}

/**
 * eth_call return data of name()/symbol()/tokenURI()... -> text, whatever the contract returned:
 * a proper ABI `string`; a `bytes32` (32 bytes, right-padded with NULs: MKR, SAI, old EOS);
 * a string whose length counts trailing NULs; invalid UTF-8 (replaced); control characters
 * (dropped). Empty data (`0x`, e.g. a function-less contract's fallback) -> null.
 */
export function decodeStringLoose(hex: string | null | undefined, opts: SanitizeOptions = {}): LooseString {
  const none = (encoding: StringEncoding): LooseString => ({
    value: null,
    encoding,
    raw: null,
    replaced: false,
    stripped: false,
    truncated: false,
  });
  const b = hexToBytesLoose(hex);
  if (!b) return none('invalid');
  if (b.length === 0) return none('empty');
  let raw = abiStringBytes(b);
  let encoding: StringEncoding = 'string';
  if (!raw) {
    if (b.length < 32) return none('invalid');
    // bytes32 (or anything else word-sized): the first word, read as text.
    raw = b.subarray(0, 32);
    encoding = 'bytes32';
  }
  const s = sanitizeText(raw, opts);
  return { value: s.text, encoding, raw, replaced: s.replaced, stripped: s.stripped, truncated: s.truncated };
}
