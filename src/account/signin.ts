// Sign-in: Sign-In with Ethereum (EIP-4361, viem/siwe) and an e-mailed one-time code. Both end
// in a session token ("es_..."); the first sign-in of a wallet or an e-mail address creates its
// account.
//
// A SIWE message is bound to this instance, never to what the request says about itself: its
// domain must be the host of PUBLIC_URL, its URI on that origin, its Chain ID the indexed chain's.
// Trusting the Host header would let a page on evil.example relay a signature meant for itself
// (posted with Host: evil.example) and sign its visitor in here.
import { getAddress, verifyMessage } from 'viem';
import { parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import type { PgStore } from '../storage/postgres/store.js';
import { dropEmailCode, insertSiweNonce, putEmailCode, signInWithEmailCode, signInWithNonce } from '../storage/postgres/account/sign-in.js';
import type { Logger } from '../log.js';
import type { Mailer } from '../mail.js';
import { hashEmailCode, newEmailCode, newSalt, newSiweNonce, newToken, sameDigest, sha256Hex } from './tokens.js';
import { Fields, HttpError, badRequest } from './validate.js';

export const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const NONCE_TTL_MS = 10 * 60 * 1000;
export const CODE_TTL_MS = 10 * 60 * 1000;
export const CODE_MAX_ATTEMPTS = 5;
/** A new code for the same address is sent at most this often. */
export const CODE_RESEND_MS = 30 * 1000;

/** The 503 of both SIWE endpoints when PUBLIC_URL is not set. */
export const SIWE_NEEDS_PUBLIC_URL =
  "Sign-In with Ethereum is off on this instance: the operator has not set PUBLIC_URL (the explorer's public origin, " +
  'e.g. https://explorer.example.org), which every sign-in message must name';

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
  /** The public origin (PUBLIC_URL) SIWE messages must name; unset: SIWE answers 503. */
  publicUrl?: string;
  /** Chain ID SIWE messages must name: a number, or how to ask the node (asked once it is needed, kept once known). */
  chainId?: number | (() => Promise<number>);
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

  // The origin SIWE binds to, parsed once; null when PUBLIC_URL is not set.
  let target: { origin: string; host: string; scheme: string } | null = null;
  if (d.publicUrl) {
    const u = new URL(d.publicUrl);
    target = { origin: u.origin, host: u.host, scheme: u.protocol.slice(0, -1) };
  }
  const siweTarget = () => {
    if (!target) throw new HttpError(503, SIWE_NEEDS_PUBLIC_URL);
    return target;
  };

  let knownChainId = typeof d.chainId === 'number' ? d.chainId : undefined;
  async function expectedChainId(): Promise<number> {
    if (knownChainId !== undefined) return knownChainId;
    if (typeof d.chainId !== 'function') {
      throw new HttpError(503, 'Sign-In with Ethereum is off on this instance: the chain id is unknown (the operator sets CHAIN_ID or a node URL)');
    }
    try {
      const id = await d.chainId();
      if (!Number.isSafeInteger(id) || id <= 0) throw new Error(`the node answered an invalid chain id ${String(id)}`);
      return (knownChainId = id);
    } catch (e) {
      d.log?.warn('could not read the chain id for Sign-In with Ethereum', { error: e instanceof Error ? e.message : String(e) });
      throw new HttpError(503, 'Sign-In with Ethereum is unavailable: the chain id could not be read from the node; try again later');
    }
  }

  /** A single-use nonce, and what the message must name (domain, an URI on the origin, Chain ID). */
  async function siweNonce(): Promise<{ nonce: string; expires_at: string; domain: string; uri: string; chain_id: number }> {
    const t = siweTarget();
    const chainId = await expectedChainId();
    const nonce = newSiweNonce();
    const expiresAt = new Date(d.clock() + NONCE_TTL_MS);
    await insertSiweNonce(d.pg, nonce, expiresAt);
    return { nonce, expires_at: expiresAt.toISOString(), domain: t.host, uri: t.origin, chain_id: chainId };
  }

  async function siweVerify(body: Record<string, unknown>): Promise<SessionGrant> {
    const t = siweTarget();
    const chainId = await expectedChainId();
    const f = new Fields(body, ['message', 'signature']);
    const message = f.string('message', 8192);
    const signature = f.string('signature', 1024);
    if (signature !== undefined && !/^0x(?:[0-9a-fA-F]{2})+$/.test(signature)) f.fail('signature must be 0x-prefixed hexadecimal');
    f.done();
    const fields = parseSiweMessage(message!);
    if (!fields.address || !fields.domain || !fields.nonce || !fields.uri || !fields.version || fields.chainId === undefined) {
      throw badRequest('message is not an EIP-4361 (Sign-In with Ethereum) message');
    }
    // Host names are case-insensitive; the configured one is already lower-case.
    if (fields.domain.toLowerCase() !== t.host) {
      throw new HttpError(401, `the message is for domain ${fields.domain.slice(0, 300)}, but this explorer is ${t.host}`);
    }
    if (fields.scheme !== undefined && fields.scheme.toLowerCase() !== t.scheme) {
      throw new HttpError(401, `the message is for scheme ${fields.scheme.slice(0, 40)}, but this explorer is ${t.origin}`);
    }
    let uriOrigin = 'null';
    try {
      uriOrigin = new URL(fields.uri).origin;
    } catch {
      // not a URL: refused below
    }
    if (uriOrigin !== t.origin) throw new HttpError(401, `the message's URI ${fields.uri.slice(0, 300)} is not on ${t.origin}`);
    if (fields.chainId !== chainId) throw new HttpError(401, `the message is for chain id ${fields.chainId}, but this explorer indexes chain id ${chainId}`);
    const time = now();
    if (fields.expirationTime && !(fields.expirationTime.getTime() > time.getTime())) throw new HttpError(401, 'the message has expired');
    if (fields.notBefore && !(fields.notBefore.getTime() <= time.getTime())) throw new HttpError(401, 'the message is not valid yet');
    if (!validateSiweMessage({ message: fields, time })) throw new HttpError(401, 'the message is not a valid Sign-In with Ethereum message');
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
      await d.mailer.send({
        to: email!,
        subject: `Your sign-in code: ${code}`,
        text:
          `Your sign-in code is ${code}\n\nIt is valid for ${CODE_TTL_MS / 60000} minutes and for ${CODE_MAX_ATTEMPTS} attempts.\n` +
          `If you did not ask for it, ignore this message.\n`,
      });
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
