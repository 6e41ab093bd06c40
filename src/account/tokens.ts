// Secrets handed to clients: API keys ("ek_") and session tokens ("es_"), each the prefix and 32
// random bytes in base64url. Only their SHA-256 digests are stored. E-mailed codes are 6 digits,
// stored as sha256(salt || code). Sign-In with Ethereum nonces are 128 random bits.
import crypto from 'node:crypto';

export const API_KEY_PREFIX = 'ek_';
export const SESSION_PREFIX = 'es_';

const TOKEN = /^(ek|es)_[A-Za-z0-9_-]{43}$/;

export type TokenKind = 'api_key' | 'session';

export function newToken(kind: TokenKind): string {
  return (kind === 'api_key' ? API_KEY_PREFIX : SESSION_PREFIX) + crypto.randomBytes(32).toString('base64url');
}

/** The kind of a well-formed token, or null (checked before any database work). */
export function tokenKind(token: string): TokenKind | null {
  const m = TOKEN.exec(token);
  if (!m) return null;
  return m[1] === 'ek' ? 'api_key' : 'session';
}

export function sha256Hex(s: string): string {
  return crypto.createHash('sha256').update(s).digest('hex');
}

/** A 6-digit code, uniformly drawn. */
export function newEmailCode(): string {
  return crypto.randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/**
 * A Sign-In with Ethereum nonce: 16 bytes from the operating system's CSPRNG as 32 hex digits
 * (EIP-4361 wants at least 8 letters or digits). Not viem's generateSiweNonce, whose successive
 * nonces are one buffer shifted by a character each, so one nonce predicts the next.
 */
export function newSiweNonce(): string {
  return crypto.randomBytes(16).toString('hex');
}

export function hashEmailCode(code: string, salt: string): string {
  return sha256Hex(salt + ':' + code);
}

export function newSalt(): string {
  return crypto.randomBytes(16).toString('hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && crypto.timingSafeEqual(x, y);
}
