#!/usr/bin/env node
// The `explorer` command: one entry point, a role per sub-command.
import { ConfigError, loadConfig, settingsTable, type Config } from '../config/settings.js';
import { createLogger, setLogFormat, setLogLevel } from '../log.js';
import { Lifecycle } from './lifecycle.js';
import type { Stores } from '../storage/stores.js';
// Each command loads what it runs when it runs (a role's modules take a second or more to load):
// `--help`, `migrate` or `account create` load none of the roles, and `api` no indexer code.
import { ACCOUNT_DETAILS, ACCOUNT_USAGE, ADMIN_DETAILS, ADMIN_USAGE } from '../account/cli-usage.js';

const log = createLogger('explorer');

interface Command {
  summary: string;
  usage: string;
  details: string;
  /** Resolves with the exit code. */
  run(cfg: Config, args: string[]): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  start: {
    summary: 'run everything in one process: stores, migrations, devnet (if no RPC URL), indexer, API, UI, notifier',
    usage: 'explorer start',
    details:
      'With no database settings it uses embedded ClickHouse (chDB) and PostgreSQL under DATA_DIR.\n' +
      'With no ETHEREUM_JSONRPC_HTTP_URL it starts a local anvil devnet with a demo workload.\n' +
      'Stops every child process on Ctrl-C or SIGTERM.',
    run: async (cfg) => (await import('./start.js')).runStart(cfg),
  },
  indexer: {
    summary: 'index the chain into ClickHouse: catch-up, head following, reorgs, pending pool',
    usage: 'explorer indexer',
    details:
      'Needs ETHEREUM_JSONRPC_HTTP_URL. Uses CLICKHOUSE_URL/DATABASE_URL, or the embedded stores under\n' +
      'DATA_DIR (then no other process may use that directory). Resumes from its checkpoint.',
    run: runIndexer,
  },
  api: {
    summary: 'serve the public API /api/v2 and the Account API /account/api/v1 on API_PORT',
    usage: 'explorer api',
    details:
      'Reads what the indexer stored. Uses CLICKHOUSE_URL/DATABASE_URL, or the embedded stores under\n' +
      'DATA_DIR (then no other process may use that directory). Rate limits per IP and per API key.',
    run: runApi,
  },
  ui: {
    summary: 'serve the web UI on UI_PORT, reading the public API at API_URL',
    usage: 'explorer ui',
    details:
      'Renders every page on the server from the public API (/api/v2) at API_URL (default\n' +
      'http://127.0.0.1:API_PORT); browsers open the live-updates websocket at UI_SOCKET_URL (default:\n' +
      "the API's port on the page's host). Needs no database.",
    run: runUi,
  },
  notifier: {
    summary: 'deliver watchlist notifications (signed webhooks, e-mail), at least once',
    usage: 'explorer notifier',
    details:
      'Claims due rows of the notification outbox (several notifiers may run at once), delivers\n' +
      'them and retries failures with backoff up to NOTIFY_MAX_ATTEMPTS. Uses DATABASE_URL, or the\n' +
      'embedded stores under DATA_DIR (then no other process may use that directory).',
    run: runNotifier,
  },
  account: {
    summary: 'create an account and print a session token for it (account create --email E --name N)',
    usage: ACCOUNT_USAGE,
    details: ACCOUNT_DETAILS,
    run: runAccount,
  },
  admin: {
    summary: 'review public-name submissions (list, show, approve, reject, edit, revert) and grant reviewers',
    usage: ADMIN_USAGE,
    details: ADMIN_DETAILS,
    async run(cfg, args) {
      // stdout carries only the JSON answer.
      if (cfg.logLevel === 'debug' || cfg.logLevel === 'info') setLogLevel('warn');
      const [{ runAdminCommand }, { nodeOwnerOf }] = await Promise.all([import('../account/admin-cli.js'), import('./roles.js')]);
      return runAdminCommand(cfg, args, cfg.rpcUrl ? nodeOwnerOf(cfg.rpcUrl) : undefined);
    },
  },
  signatures: {
    summary: 'import a signature dump that names calls and logs of unverified contracts',
    usage: 'explorer signatures import <file or directory> [--origin NAME]',
    details:
      'Reads the ethereum-lists/4bytes layout (a directory of files named by the selector, holding\n' +
      "signatures separated by ';') or a text file of `selector,signature` lines (a 64-digit selector\n" +
      'is an event topic). A signature that does not hash to its selector is refused. Imported names\n' +
      'come after verified ABIs and the built-in catalogue (README.md, "Names for unverified calls");\n' +
      'running API processes pick them up within seconds. --origin names the source in answers\n' +
      '(default: the file or directory name). Opens PostgreSQL only: DATABASE_URL, or the embedded\n' +
      'one under DATA_DIR with the explorer stopped.',
    run: runSignatures,
  },
  backup: {
    summary: 'back up the embedded stores under DATA_DIR into a new directory (the explorer stopped)',
    usage: 'explorer backup <directory>',
    details:
      'With every explorer on DATA_DIR stopped: ClickHouse with its BACKUP DATABASE (into\n' +
      '<directory>/clickhouse), PostgreSQL as a copy of its stopped cluster with its password, and the\n' +
      "local devnet's chain when there is one. For store servers (CLICKHOUSE_URL, DATABASE_URL) use\n" +
      "their own tools: deploy/README.md, \"Backups and upgrades\".",
    run: (cfg, args) => runBackup('backup', cfg, args),
  },
  restore: {
    summary: 'restore a backup of the embedded stores into DATA_DIR, which must hold no stores yet',
    usage: 'explorer restore <directory>',
    details:
      'Reads a directory written by "explorer backup" into a new DATA_DIR (an existing ClickHouse or\n' +
      'PostgreSQL there is refused). Then "explorer start" opens it; migrations newer than the backup\n' +
      'are applied then.',
    run: (cfg, args) => runBackup('restore', cfg, args),
  },
  migrate: {
    summary: 'apply pending ClickHouse and PostgreSQL migrations, then exit',
    usage: 'explorer migrate',
    details: 'Applies sql/clickhouse/NNNN_*.sql and sql/postgres/NNNN_*.sql once each; rerunning is a no-op.',
    async run(cfg) {
      const { migrateAll, openStores } = await import('../storage/stores.js');
      const stores = await openStores(cfg);
      try {
        const r = await migrateAll(stores);
        log.info('migrations done', {
          postgres_applied: r.postgres.applied.join(',') || 'none',
          clickhouse_applied: r.clickhouse.applied.join(',') || 'none',
        });
      } finally {
        await stores.close();
      }
      return 0;
    },
  },
};

async function runBackup(what: 'backup' | 'restore', cfg: Config, args: string[]): Promise<number> {
  if (args.length !== 1 || args[0]!.startsWith('-')) {
    process.stderr.write(`explorer ${what}: name one directory\nUsage: ${COMMANDS[what]!.usage}\n`);
    return 2;
  }
  if (cfg.clickhouseUrl || cfg.databaseUrl) {
    process.stderr.write(
      `explorer ${what}: for the embedded stores only; with CLICKHOUSE_URL or DATABASE_URL set, use the servers' BACKUP and pg_dump (deploy/README.md, "Backups and upgrades")\n`,
    );
    return 2;
  }
  const { backupEmbedded, restoreEmbedded } = await import('../storage/backup.js');
  const m = what === 'backup'
    ? await backupEmbedded(cfg.dataDir, cfg.clickhouseDatabase, args[0]!)
    : await restoreEmbedded(args[0]!, cfg.dataDir, cfg.clickhouseDatabase);
  log.info(what === 'backup' ? 'backup written' : 'backup restored', { directory: args[0], data_dir: cfg.dataDir, ...m });
  return 0;
}

async function runSignatures(cfg: Config, args: string[]): Promise<number> {
  const [sub, target, ...rest] = args;
  const originAt = rest.indexOf('--origin');
  const origin = originAt >= 0 ? rest[originAt + 1] : undefined;
  if (sub !== 'import' || !target || target.startsWith('-') || (originAt >= 0 && !origin) || rest.length !== (originAt >= 0 ? 2 : 0)) {
    process.stderr.write(`explorer signatures: ${sub === 'import' ? 'name one file or directory' : 'unknown sub-command'}\nUsage: ${COMMANDS.signatures!.usage}\n`);
    return 2;
  }
  const fs = await import('node:fs');
  const path = await import('node:path');
  if (!fs.existsSync(target)) {
    process.stderr.write(`explorer signatures: ${target} does not exist\n`);
    return 2;
  }
  const { readSignatureDump } = await import('../abi/signature-import.js');
  const { addSignatures } = await import('../storage/postgres/signatures.js');
  const report = readSignatureDump(target);
  // PostgreSQL alone: the signatures live there, and ClickHouse's embedded store may be in use.
  const { openPostgres } = await import('../storage/postgres/store.js');
  const { migratePostgres } = await import('../storage/migrate.js');
  const pg = await openPostgres({ url: cfg.databaseUrl, dataDir: path.join(cfg.dataDir, 'postgres') });
  try {
    await migratePostgres(pg);
    const from = origin ?? path.basename(path.resolve(target));
    const added = await addSignatures(pg, report.signatures.map((x) => ({ ...x, source: 'imported' as const, origin: from })));
    log.info('signatures imported', { read: report.read, valid: report.signatures.length, added, unparsed: report.unparsed, mismatched: report.mismatched, origin: from });
  } finally {
    await pg.close();
  }
  return 0;
}

async function runAccount(cfg: Config, args: string[]): Promise<number> {
  // stdout carries only the token: info lines (which go to stdout) are held back.
  if (cfg.logLevel === 'debug' || cfg.logLevel === 'info') setLogLevel('warn');
  return (await import('../account/cli.js')).runAccountCommand(cfg, args);
}

/**
 * Runs one role until a signal stops it: `start` gets a lifecycle to register what it starts in;
 * whatever it started is stopped again if it fails.
 */
async function runRole(start: (life: Lifecycle) => Promise<unknown>): Promise<number> {
  const life = new Lifecycle();
  try {
    await start(life);
  } catch (e) {
    await life.stopAll('start failed');
    throw e;
  }
  return life.untilStopped();
}

/** A role on the stores (opened and migrated first), with this process's metrics served. */
async function runStoredRole(cfg: Config, start: (stores: Stores, life: Lifecycle) => Promise<unknown>): Promise<number> {
  return runRole(async (life) => {
    const { openMigratedStores, startMetrics } = await import('./roles.js');
    await start(await openMigratedStores(cfg, life), life);
    await startMetrics(cfg, life);
  });
}

async function runIndexer(cfg: Config): Promise<number> {
  const rpcUrl = cfg.rpcUrl;
  if (!rpcUrl) {
    process.stderr.write('explorer indexer: ETHEREUM_JSONRPC_HTTP_URL is not set (only "explorer start" starts a devnet)\n');
    return 78;
  }
  return runStoredRole(cfg, async (stores, life) =>
    (await import('./role-indexer.js')).startIndexerRole(cfg, stores, { url: rpcUrl, traceUrl: cfg.traceUrl, variant: cfg.variant }, life),
  );
}

function runNotifier(cfg: Config): Promise<number> {
  return runStoredRole(cfg, async (stores, life) => (await import('./role-notifier.js')).startNotifierRole(cfg, stores, life));
}

function runApi(cfg: Config): Promise<number> {
  return runStoredRole(cfg, async (stores, life) => (await import('./role-api.js')).startApiRole(cfg, stores, life));
}

function runUi(cfg: Config): Promise<number> {
  return runRole(async (life) => (await import('./role-ui.js')).startUiRole(cfg, life));
}

function mainHelp(): string {
  const w = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  return [
    'Usage: explorer <command> [--help]',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([k, c]) => `  ${k.padEnd(w)}  ${c.summary}`),
    '',
    'Settings are read from the environment; "explorer --help settings" lists them.',
  ].join('\n');
}

function commandHelp(name: string, c: Command): string {
  return [`Usage: ${c.usage}`, '', `${name}: ${c.summary}`, '', c.details, '', 'Settings: see "explorer --help settings".'].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (rest[0] === 'settings') process.stdout.write(settingsTable() + '\n');
    else process.stdout.write(mainHelp() + '\n');
    return name ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    process.stderr.write(`explorer: unknown command "${name}"\n\n${mainHelp()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(name, cmd) + '\n');
    return 0;
  }
  let cfg: Config;
  try {
    cfg = loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`explorer: ${e.message}\n`);
      return 78; // EX_CONFIG
    }
    throw e;
  }
  setLogLevel(cfg.logLevel);
  setLogFormat(cfg.logFormat);
  return cmd.run(cfg, rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    log.error('fatal', { error: e instanceof Error ? e.message : String(e) });
    if (e instanceof Error && e.stack && process.env.LOG_LEVEL === 'debug') process.stderr.write(e.stack + '\n');
    process.exitCode = 1;
  },
);
