// `explorer account create --email E --name N [--nickname X]`: creates an account and prints a
// session token for it (one line on stdout), e.g. to create the first API keys with.
import type { Config } from '../config/settings.js';
import type { PgStore } from '../storage/postgres/store.js';
import { insertSession } from '../storage/postgres/account/credentials.js';
import { insertUser } from '../storage/postgres/account/users.js';
import { migrateAll, openStores } from '../storage/stores.js';
import { normalizeEmail, SESSION_TTL_MS } from './signin.js';
import { newToken, sha256Hex } from './tokens.js';
import { Fields, NAME_MAX } from './validate.js';
import { ACCOUNT_USAGE } from './cli-usage.js';

export class UsageError extends Error {}

export interface NewAccount {
  email: string;
  name: string;
  nickname: string;
}

/** Parses `create --email E --name N [--nickname X]` (also `--flag=value`). */
export function parseAccountArgs(args: string[]): NewAccount {
  const [sub, ...rest] = args;
  if (sub !== 'create') throw new UsageError(sub ? `unknown sub-command "${sub}"` : 'a sub-command is required');
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const m = /^--(email|name|nickname)(?:=(.*))?$/s.exec(a);
    if (!m) throw new UsageError(`unexpected argument "${a}"`);
    let v = m[2];
    if (v === undefined) {
      if (i + 1 >= rest.length) throw new UsageError(`--${m[1]} needs a value`);
      v = rest[++i];
    }
    if (m[1] in flags) throw new UsageError(`--${m[1]} is given twice`);
    flags[m[1]] = v;
  }
  const f = new Fields({ name: flags.name, ...(flags.nickname !== undefined ? { nickname: flags.nickname } : {}) }, ['name', 'nickname']);
  if (flags.name === undefined) throw new UsageError('--name is required');
  if (flags.email === undefined) throw new UsageError('--email is required');
  const name = f.name('name', NAME_MAX.other, true);
  const nickname = f.name('nickname', NAME_MAX.other, false);
  const email = normalizeEmail(flags.email);
  if (!email) f.fail('email must be an e-mail address');
  if (f.issues.length) throw new UsageError(f.issues.join('; ').replace(/\b(name|nickname|email)\b/g, '--$1'));
  return { email: email!, name: name!, nickname: nickname ?? name! };
}

/** Creates the account and a session; null when the e-mail already has an account. */
export async function createAccountWithSession(
  pg: PgStore,
  a: NewAccount,
  clock: () => number = Date.now,
): Promise<{ userId: string; token: string; expiresAt: Date } | null> {
  const at = new Date(clock());
  return pg.tx(async (c) => {
    const user = await insertUser(c, { name: a.name, email: a.email, nickname: a.nickname, address: null, at });
    if (!user) return null;
    const token = newToken('session');
    const expiresAt = new Date(at.getTime() + SESSION_TTL_MS);
    await insertSession(c, { tokenHash: sha256Hex(token), userId: user.id, at, expiresAt });
    return { userId: user.id, token, expiresAt };
  });
}

export async function runAccountCommand(cfg: Config, args: string[]): Promise<number> {
  let account: NewAccount;
  try {
    account = parseAccountArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`explorer account: ${e.message}\nUsage: ${ACCOUNT_USAGE}\n`);
    return 2;
  }
  const stores = await openStores(cfg);
  try {
    await migrateAll(stores);
    const made = await createAccountWithSession(stores.pg, account);
    if (!made) {
      process.stderr.write(`explorer account: an account with the e-mail ${account.email} already exists\n`);
      return 1;
    }
    process.stdout.write(made.token + '\n');
    return 0;
  } finally {
    await stores.close();
  }
}
