// Sign-in: Sign-In with Ethereum (EIP-4361, viem/siwe) and an e-mailed one-time code. Both end
// in a session token ("es_..."); the first sign-in of a wallet or an e-mail address creates its
// account.
import { getAddress, verifyMessage } from 'viem';
import { generateSiweNonce, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import type { PgStore } from '../storage/postgres/index.js';
import {
  dropEmailCode,
  insertSiweNonce,
  putEmailCode,
  signInWithEmailCode,
  signInWithNonce,
} from '../storage/postgres/account.js';
import type { Logger } from '../log.js';
import type { Mailer } from './mail.js';
import { hashEmailCode, newEmailCode, newSalt, newToken, sameDigest, sha256Hex } from './tokens.js';
import { Fields, HttpError, badRequest } from './validate.js';

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const NONCE_TTL_MS = 10 * 60 * 1000;
export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_ATTEMPTS = 5;
/** A new code for the same address is sent at most this often. */
export const CODE_RESEND_MS = 30 * 1000;

export interface SessionGrant {
  token: string;
  expires_at: string;
  user_id: string;
  created: boolean;
}

export interface SignInDeps {
  pg: PgStore;
  clock: () => number;
  mailer?: Mailer;
  /** Expected EIP-4361 domain (host[:port]); when unset, the Host header of the request. */
  siweDomain?: string;
  log?: Logger;
}

const EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** A normalized (trimmed, lower-case) e-mail address, or a 400. */
export function normalizeEmail(v: string): string | null {
  const e = v.trim().toLowerCase();
  return e.length <= 254 && EMAIL.test(e) ? e : null;
}

export function createSignIn(d: SignInDeps) {
  const now = () => new Date(d.clock());
  const newSession = () => {
    const token = newToken('session');
    return { token, tokenHash: sha256Hex(token), expiresAt: new Date(d.clock() + SESSION_TTL_MS) };
  };

  async function siweNonce(): Promise<{ nonce: string; expires_at: string }> {
    const nonce = generateSiweNonce();
    const expiresAt = new Date(d.clock() + NONCE_TTL_MS);
    await insertSiweNonce(d.pg, nonce, expiresAt);
    return { nonce, expires_at: expiresAt.toISOString() };
  }

  async function siweVerify(body: Record<string, unknown>, host: string | undefined): Promise<SessionGrant> {
    const f = new Fields(body, ['message', 'signature']);
    const message = f.string('message', 8192);
    const signature = f.string('signature', 1024);
    if (signature !== undefined && !/^0x(?:[0-9a-fA-F]{2})+$/.test(signature)) f.fail('signature must be 0x-prefixed hexadecimal');
    f.done();
    const fields = parseSiweMessage(message!);
    if (!fields.address || !fields.domain || !fields.nonce || !fields.uri || !fields.version || fields.chainId === undefined) {
      throw badRequest('message is not an EIP-4361 (Sign-In with Ethereum) message');
    }
    const domain = d.siweDomain ?? host;
    if (!domain || fields.domain !== domain) throw new HttpError(401, `the message is for domain ${fields.domain}, not ${domain ?? '(unknown)'}`);
    const time = now();
    if (fields.expirationTime && !(fields.expirationTime.getTime() > time.getTime())) throw new HttpError(401, 'the message has expired');
    if (fields.notBefore && !(fields.notBefore.getTime() <= time.getTime())) throw new HttpError(401, 'the message is not valid yet');
    if (!validateSiweMessage({ message: fields, domain, time })) throw new HttpError(401, 'the message is not a valid Sign-In with Ethereum message');
    let valid = false;
    try {
      valid = await verifyMessage({ address: fields.address, message: message!, signature: signature as `0x${string}` });
    } catch {
      valid = false;
    }
    if (!valid) throw new HttpError(401, 'the signature does not match the message and its address');
    const address = fields.address.toLowerCase();
    const cs = getAddress(address);
    const s = newSession();
    const got = await signInWithNonce(
      d.pg,
      fields.nonce,
      time,
      { name: cs, nickname: `${cs.slice(0, 6)}…${cs.slice(-4)}`, address },
      { tokenHash: s.tokenHash, expiresAt: s.expiresAt },
    );
    if (!got) throw new HttpError(401, 'unknown, used or expired nonce: request a new one from /auth/siwe/nonce');
    return { token: s.token, expires_at: s.expiresAt.toISOString(), user_id: got.user.id, created: got.created };
  }

  async function emailCode(body: Record<string, unknown>): Promise<{ email: string; expires_at: string }> {
    const f = new Fields(body, ['email']);
    const raw = f.string('email', 320);
    const email = raw === undefined ? undefined : normalizeEmail(raw);
    if (raw !== undefined && !email) f.fail('email must be an e-mail address');
    f.done();
    if (!d.mailer) throw new HttpError(503, 'sign-in by e-mail is not configured on this instance (no SMTP settings)');
    const code = newEmailCode();
    const salt = newSalt();
    const codeHash = hashEmailCode(code, salt);
    const time = now();
    const expiresAt = new Date(time.getTime() + CODE_TTL_MS);
    const put = await putEmailCode(d.pg, { email: email!, codeHash, salt, now: time, expiresAt, cooldownMs: CODE_RESEND_MS });
    if (!put.ok) {
      const secs = Math.max(1, Math.ceil((put.retryAt.getTime() - time.getTime()) / 1000));
      throw new HttpError(429, `a code was sent to this address a moment ago; ask again in ${secs} s`, { 'retry-after': String(secs) });
    }
    try {
      await d.mailer.send(
        email!,
        `Your sign-in code: ${code}`,
        `Your sign-in code is ${code}\n\nIt is valid for ${CODE_TTL_MS / 60000} minutes and for ${CODE_MAX_ATTEMPTS} attempts.\n` +
          `If you did not ask for it, ignore this message.\n`,
      );
    } catch (e) {
      await dropEmailCode(d.pg, email!, codeHash).catch(() => undefined);
      d.log?.warn('could not send a sign-in code', { error: e instanceof Error ? e.message : String(e) });
      throw new HttpError(503, 'the e-mail could not be sent; try again later');
    }
    return { email: email!, expires_at: expiresAt.toISOString() };
  }

  async function emailVerify(body: Record<string, unknown>): Promise<SessionGrant> {
    const f = new Fields(body, ['email', 'code']);
    const raw = f.string('email', 320);
    const email = raw === undefined ? undefined : normalizeEmail(raw);
    if (raw !== undefined && !email) f.fail('email must be an e-mail address');
    const code = f.string('code', 64);
    if (code !== undefined && !/^[0-9]{6}$/.test(code)) f.fail('code must be the 6 digits of the e-mail');
    f.done();
    const s = newSession();
    const local = email!.split('@')[0];
    const r = await signInWithEmailCode(d.pg, {
      email: email!,
      now: now(),
      maxAttempts: CODE_MAX_ATTEMPTS,
      check: (hash, salt) => sameDigest(hashEmailCode(code!, salt), hash),
      user: { name: local, nickname: local },
      session: { tokenHash: s.tokenHash, expiresAt: s.expiresAt },
    });
    if (r.result === 'none') throw new HttpError(401, 'no valid code for this address (expired, used up or never sent): request a new one');
    if (r.result === 'wrong') {
      throw new HttpError(
        401,
        r.attemptsLeft > 0 ? `wrong code; ${r.attemptsLeft} attempt(s) left` : 'wrong code; no attempts left: request a new code',
      );
    }
    return { token: s.token, expires_at: s.expiresAt.toISOString(), user_id: r.user.id, created: r.created };
  }

  return { siweNonce, siweVerify, emailCode, emailVerify };
}
