// deploy/.env.example, generated from the settings table (SETTINGS) so it never drifts from what
// the explorer reads: every setting with its default and its meaning, commented out, then the few
// variables only deploy/compose.yml reads (passwords of the store servers, the published port).
// Regenerate after changing a setting: npm run gen:env (test/unit/config/env-example.test.ts
// fails while the committed file is not a fresh generation).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTINGS } from './settings.js';
import { projectRoot } from '../paths.js';

export const GENERATED_FILE = 'deploy/.env.example';

/** Variables deploy/compose.yml interpolates that are not explorer settings: name, default, meaning. */
export const COMPOSE_VARIABLES: ReadonlyArray<{ name: string; default: string; doc: string }> = [
  { name: 'EXPLORER_HTTP_PORT', default: '80', doc: 'Host port nginx (the one public entry: web UI and API) is published on.' },
  { name: 'POSTGRES_PASSWORD', default: 'explorer', doc: 'Password of the PostgreSQL server\'s "explorer" user (the postgres service and DATABASE_URL of the explorer services). Change it.' },
  { name: 'CLICKHOUSE_PASSWORD', default: 'explorer', doc: 'Password of the ClickHouse server\'s "explorer" user (the clickhouse service and CLICKHOUSE_URL of the explorer services). Change it.' },
];

/** Settings deploy/compose.yml sets itself for its services (what .env says of them is overridden). */
export const SET_BY_COMPOSE = new Set(['DATABASE_URL', 'CLICKHOUSE_URL', 'DATA_DIR', 'API_PORT', 'UI_PORT', 'HOST', 'API_URL', 'TRUSTED_PROXIES']);

function defaultText(d: (typeof SETTINGS)[number]): string {
  if (d.default === undefined) return '';
  if (Array.isArray(d.default)) return d.default.join(',');
  return String(d.default);
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function envExampleSource(): string {
  const lines = [
    '# Settings of the explorer for deploy/compose.yml. Generated from src/config/settings.ts by',
    '# `npm run gen:env`: do not edit by hand. Copy to deploy/.env, uncomment and change what you need;',
    '# an unset or empty setting takes the default shown. README.md ("Settings") explains each one.',
    '',
    '# --- Read by deploy/compose.yml only (not explorer settings) ---',
  ];
  for (const v of COMPOSE_VARIABLES) lines.push(`# ${oneLine(v.doc)}`, `# ${v.name}=${v.default}`);
  lines.push('', '# --- Explorer settings (`explorer --help settings`) ---');
  for (const d of SETTINGS) {
    const dflt = defaultText(d);
    // A setting without a default says so, unless its meaning already says what unset does.
    const unset = dflt || /\b(Default|Unset):/.test(d.doc) ? '' : ' Unset by default.';
    lines.push(`# ${oneLine(d.doc)} Form: ${oneLine(d.expected)}.${unset}`);
    if (SET_BY_COMPOSE.has(d.env)) lines.push('# (deploy/compose.yml sets this one for each service; a value here is overridden.)');
    lines.push(`# ${d.env}=${dflt}`);
  }
  return lines.join('\n') + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const out = path.join(projectRoot(), GENERATED_FILE);
  fs.writeFileSync(out, envExampleSource());
  console.log(`wrote ${out}`);
}
