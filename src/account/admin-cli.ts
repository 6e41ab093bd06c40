// `explorer admin ...`: the operator's review of public-name submissions from a shell (the same
// operations as the admin Account API endpoints, src/account/public-names.ts), and who else may
// review through the API (`grant`, `revoke`). Output is JSON on stdout.
import os from 'node:os';
import type { Config } from '../config/settings.js';
import type { PgStore } from '../storage/postgres/store.js';
import { findUserId, grantAdmin, revokeAdmin } from '../storage/postgres/public-names.js';
import { migrateAll, openStores } from '../storage/stores.js';
import { createPublicNames, type PublicNamesOptions } from './public-names.js';
import { HttpError } from './validate.js';
import { ADMIN_USAGE } from './cli-usage.js';

export class AdminUsageError extends Error {}

interface Parsed {
  cmd: string;
  positional: string[];
  flags: Record<string, string>;
}

const FLAGS: Record<string, string[]> = {
  list: ['status'],
  approve: ['note'],
  reject: ['note'],
  revert: ['note'],
  edit: ['name', 'tags', 'website', 'description', 'note'],
};
const POSITIONAL: Record<string, [number, number]> = {
  grant: [1, 1],
  revoke: [1, 1],
  list: [0, 0],
  show: [1, 1],
  approve: [1, 1],
  reject: [1, 1],
  edit: [1, 1],
  revert: [1, 1],
  decisions: [0, 1],
};

export function parseAdminArgs(args: string[]): Parsed {
  const [cmd, ...rest] = args;
  if (!cmd) throw new AdminUsageError('a sub-command is required');
  if (!(cmd in POSITIONAL)) throw new AdminUsageError(`unknown sub-command "${cmd}"`);
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    const m = /^--([a-z]+)(?:=(.*))?$/s.exec(a);
    if (!m) {
      positional.push(a);
      continue;
    }
    if (!(FLAGS[cmd] ?? []).includes(m[1]!)) throw new AdminUsageError(`${cmd} takes no --${m[1]}`);
    let v = m[2];
    if (v === undefined) {
      if (i + 1 >= rest.length) throw new AdminUsageError(`--${m[1]} needs a value`);
      v = rest[++i]!;
    }
    flags[m[1]!] = v;
  }
  const [min, max] = POSITIONAL[cmd]!;
  if (positional.length < min || positional.length > max) throw new AdminUsageError(`${cmd} takes ${min === max ? min : `${min} to ${max}`} argument(s)`);
  return { cmd, positional, flags };
}

/**
 * Runs one admin command on `pg`, writing JSON to `out`; resolves with the exit code. Tests call
 * it directly.
 */
export async function runAdmin(
  pg: PgStore,
  args: string[],
  o: { out: (s: string) => void; err: (s: string) => void; actor?: string; instance?: string; origin?: string; publicNames?: PublicNamesOptions },
): Promise<number> {
  let p: Parsed;
  try {
    p = parseAdminArgs(args);
  } catch (e) {
    if (!(e instanceof AdminUsageError)) throw e;
    o.err(`explorer admin: ${e.message}\nUsage: ${ADMIN_USAGE}\n`);
    return 2;
  }
  const actor = o.actor ?? `cli:${os.userInfo().username}`;
  const names = createPublicNames(pg, { ...o.publicNames, instance: o.instance ?? 'this explorer', origin: o.origin });
  const print = (v: unknown) => o.out(JSON.stringify(v, null, 2) + '\n');
  const id = p.positional[0]!;
  try {
    switch (p.cmd) {
      case 'grant':
      case 'revoke': {
        const userId = await findUserId(pg, id.includes('@') || id.startsWith('0x') ? id.toLowerCase() : id);
        const ok = userId !== null && (p.cmd === 'grant' ? await grantAdmin(pg, userId, actor, new Date()) : await revokeAdmin(pg, userId));
        if (!ok) {
          o.err(`explorer admin: ${userId === null ? `no account ${id}` : `account ${id} is not an admin`}\n`);
          return 1;
        }
        print({ account: userId, admin: p.cmd === 'grant' });
        return 0;
      }
      case 'list':
        print(await names.list(p.flags.status ?? null));
        return 0;
      case 'show':
        print(await names.review(id));
        return 0;
      case 'approve':
      case 'reject':
        print(await names.decide(id, p.cmd, actor, p.flags.note !== undefined ? { note: p.flags.note } : {}));
        return 0;
      case 'edit': {
        const body: Record<string, unknown> = {};
        for (const k of ['name', 'website', 'description', 'note'] as const) if (p.flags[k] !== undefined) body[k] = p.flags[k];
        if (p.flags.tags !== undefined) body.tags = p.flags.tags.split(',').map((t) => t.trim()).filter(Boolean);
        print(await names.decide(id, 'edit', actor, body));
        return 0;
      }
      case 'revert':
        print(await names.revert(id, actor, p.flags.note !== undefined ? { note: p.flags.note } : {}));
        return 0;
      case 'decisions':
        print(await names.decisions(p.positional[0] ?? null));
        return 0;
    }
  } catch (e) {
    if (e instanceof HttpError) {
      o.err(`explorer admin: ${e.message}\n`);
      return e.status === 400 ? 2 : 1;
    }
    throw e;
  }
  return 2;
}

/** `explorer admin ...` on the stores of the settings (migrated first). */
export async function runAdminCommand(cfg: Config, args: string[], ownerOf?: (address: string) => Promise<string | null>): Promise<number> {
  try {
    parseAdminArgs(args);
  } catch (e) {
    if (!(e instanceof AdminUsageError)) throw e;
    process.stderr.write(`explorer admin: ${e.message}\nUsage: ${ADMIN_USAGE}\n`);
    return 2;
  }
  const stores = await openStores(cfg);
  try {
    await migrateAll(stores);
    return await runAdmin(stores.pg, args, {
      out: (s) => process.stdout.write(s),
      err: (s) => process.stderr.write(s),
      instance: cfg.publicUrl ? new URL(cfg.publicUrl).host : undefined,
      origin: cfg.publicUrl ? new URL(cfg.publicUrl).origin : undefined,
      publicNames: { ownerOf },
    });
  } finally {
    await stores.close();
  }
}
