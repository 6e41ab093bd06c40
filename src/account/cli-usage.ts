// The usage texts of `explorer account` and `explorer admin`, apart from their code: `explorer --help` shows them without loading it.

export const ACCOUNT_USAGE = 'explorer account create --email <address> --name <display name> [--nickname <nickname>]';

export const ACCOUNT_DETAILS =
  'Creates an account (user) with that e-mail address and prints a session token for it on\n' +
  'stdout, one line. Use it as "Authorization: Bearer <token>" on the Account API, e.g. to create\n' +
  'API keys with POST /account/api/v1/user/api-keys. The session expires after 30 days.\n' +
  'The nickname defaults to the name. Exits 0 on success, 1 when the e-mail already has an account,\n' +
  '2 on a usage error. Opens the stores of the settings (DATABASE_URL or the embedded ones under\n' +
  'DATA_DIR, which no other process may hold) and applies pending migrations first.';

export const ADMIN_USAGE = 'explorer admin <grant|revoke|list|show|approve|reject|edit|revert|decisions> ...';

export const ADMIN_DETAILS = [
  'Review of public names (project submissions of a name, tags, website, description, icon):',
  '  explorer admin grant <account>          let an account review through the Account API (/admin/...)',
  '  explorer admin revoke <account>         take that back (<account>: id, e-mail or wallet address)',
  '  explorer admin list [--status S]        submissions (S: pending, approved, rejected; default all)',
  '  explorer admin show <id>                one submission: its proof of control (signer is deployer/owner) and decisions',
  '  explorer admin approve <id> [--note N]  show it (in place of any other name of its address)',
  '  explorer admin reject <id> [--note N]   do not show it (an approved one stops showing)',
  '  explorer admin edit <id> [--name N] [--tags a,b] [--website U] [--description D] [--note N]',
  '  explorer admin revert <decision-id> [--note N]   undo a decision (the latest one of its submission)',
  '  explorer admin decisions [<id>]         every decision (of one submission): who, when, before and after',
  'Decisions are recorded with the actor cli:<the OS user>. A running API shows',
  'them within a second. Exits 0 on success, 1 when refused (not found, conflict), 2 on a usage error.',
  'Opens the stores of the settings (DATABASE_URL, or the embedded ones under DATA_DIR, which no other',
  'process may hold: while `explorer start` runs on them, review through the admin API instead).',
].join('\n');
