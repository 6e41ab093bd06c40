// The "where things live" map of docs/architecture.md, enforced: every import of every file under
// src/ and workers/ is checked against what its folder may import (drivers only in storage, the
// API without indexer code, uWebSockets.js only in the server, the UI only through the public API).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from './helpers/fixtures.js';

interface Rule {
  /** Which files the rule is about (repo-relative paths). */
  files: RegExp;
  /** What they may not import: package names or repo-relative paths (of .ts files), by pattern. */
  forbidden: RegExp;
  /** Files exempt from it. */
  except?: RegExp;
  why: string;
}

const DRIVERS = /^(pg|@clickhouse\/client|chdb)(\/|$)/;

export const RULES: Rule[] = [
  { files: /^(src|workers)\//, except: /^src\/storage\//, forbidden: DRIVERS, why: 'only src/storage speaks SQL and imports database drivers' },
  { files: /^src\/storage\//, forbidden: /^src\/(api|account|notify|indexer|derived|ui|bin|devnet)\//, why: 'storage does not depend on the layers above it' },
  { files: /^src\/(api|account)\//, forbidden: /^(src\/(indexer|derived|devnet|bin)\/|workers\/|piscina$)/, why: 'the API does not load indexer, derived-lane or worker code' },
  { files: /^src\/ui\//, forbidden: /^(src\/(storage|indexer|derived|notify|account|devnet|bin)\/|workers\/|pg$|@clickhouse\/client$|chdb|piscina$)/, why: 'the UI reads chain data only through the public API' },
  { files: /^(src|workers)\//, except: /^src\/api\/server\.ts$/, forbidden: /^uWebSockets\.js$/, why: 'src/api/server.ts is the only importer of uWebSockets.js' },
  { files: /^src\//, except: /^src\/indexer\/pool\.ts$/, forbidden: /^piscina$/, why: 'the worker pool is made in src/indexer/pool.ts only' },
  { files: /^(src\/chain|src\/rpc|workers)\//, forbidden: /^src\/(storage\/(postgres|clickhouse\/(store|reads|chain|derived))|api|account|notify|indexer|derived|bin)\b/, why: 'the ingest path runs downhill: workers -> rpc -> chain' },
  { files: /^(src|workers)\//, except: /^src\/mail\.ts$/, forbidden: /^nodemailer$/, why: 'one mailer: src/mail.ts' },
  { files: /^src\/notify\//, forbidden: /^src\/derived\//, why: 'the notifier takes the SSRF guard from src/net, not from the derived lanes' },
  { files: /^(src|workers)\//, except: /^src\/metrics\//, forbidden: /^prom-client$/, why: 'metrics are made and served in src/metrics only' },
];

/** Import specifiers of a TypeScript source (static, dynamic and re-exports). */
export function specifiers(source: string): string[] {
  const out: string[] = [];
  const re = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) out.push((m[1] ?? m[2] ?? m[3])!);
  return out;
}

/** A specifier as the rules see it: a repo-relative .ts path for relative imports, else the package name. */
export function target(fromFile: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), spec)).replace(/\.js$/, '.ts');
}

/** Every broken rule in these files: "file imports X: why". */
export function violations(files: ReadonlyMap<string, string>, rules: readonly Rule[] = RULES): string[] {
  const out: string[] = [];
  for (const [file, source] of files) {
    for (const spec of specifiers(source)) {
      const to = target(file, spec);
      for (const r of rules) {
        if (r.files.test(file) && !r.except?.test(file) && r.forbidden.test(to)) out.push(`${file} imports ${to}: ${r.why}`);
      }
    }
  }
  return out;
}

/**
 * Modules that import each other in a circle (type imports included: a circle of types is still
 * two modules that cannot be understood apart), each circle once, as 'a -> b -> a'.
 */
export function importCycles(files: ReadonlyMap<string, string>): string[] {
  const edges = new Map<string, string[]>();
  for (const [file, source] of files) {
    const to = specifiers(source)
      .filter((s) => s.startsWith('.'))
      .map((s) => target(file, s))
      .map((t) => (files.has(t) ? t : t.replace(/\.ts$/, '.tsx')))
      .filter((t) => files.has(t));
    edges.set(file, to);
  }
  const out: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const to of edges.get(f) ?? []) {
      if (state.get(to) === 'open') out.push([...stack.slice(stack.indexOf(to)), to].join(' -> '));
      else if (!state.has(to)) visit(to);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...files.keys()].sort()) if (!state.has(f)) visit(f);
  return out;
}

/** Import specifiers a module loads as it loads (static imports and re-exports, not `import type`, not `import()`). */
export function loadedSpecifiers(source: string): string[] {
  const out: string[] = [];
  const re = /(?:^|[\s;])(?:import|export)\s+(?!type\s)[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]/gm;
  for (let m = re.exec(source); m; m = re.exec(source)) out.push((m[1] ?? m[2])!);
  return out;
}

/** Every module (repo-relative, or a package name) that loading `entry` loads, itself included. */
export function loadedBy(files: ReadonlyMap<string, string>, entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (f: string) => {
    if (seen.has(f)) return;
    seen.add(f);
    const source = files.get(f);
    if (source === undefined) return;
    for (const spec of loadedSpecifiers(source)) {
      const to = target(f, spec);
      const tsx = to.replace(/\.ts$/, '.tsx');
      visit(!files.has(to) && files.has(tsx) ? tsx : to);
    }
  };
  visit(entry);
  return seen;
}

function sources(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(PROJECT_ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(e.name)) out.set(rel, fs.readFileSync(path.join(PROJECT_ROOT, rel), 'utf8'));
    }
  };
  walk('src');
  walk('workers');
  return out;
}

t.test('the checker catches each kind of crossing', async (t) => {
  const crossing = new Map([
    ['src/api/routes/x.ts', "import pg from 'pg';\nimport { createIndexer } from '../../indexer/indexer.js';"],
    ['src/ui/page.ts', "import { openStores } from '../storage/stores.js';"],
    ['src/derived/x.ts', "const m = await import('@clickhouse/client');"],
    ['src/storage/x.ts', "export { startApi } from '../api/start-api.js';"],
    ['src/api/app.ts', "import uWS from 'uWebSockets.js';"],
  ]);
  const found = violations(crossing);
  t.equal(found.length, 6, found.join('\n'));
  t.same(violations(new Map([['src/storage/postgres/store.ts', "import pg from 'pg';"], ['src/api/server.ts', "import uWS from 'uWebSockets.js';"]])), [], 'allowed imports pass');
});

t.test('no module imports across the map', async (t) => {
  const files = sources();
  t.ok(files.size > 100, `${files.size} files read`);
  t.same(violations(files), []);
});

t.test('a process loads only the code of what it runs', async (t) => {
  const files = sources();
  t.same(
    [...loadedBy(new Map([['src/a.ts', "import type { X } from './indexer/x.js';\nimport { y, type Z } from './y.js';\nexport { w } from './w.js';\nconst v = await import('./v.js');"], ['src/y.ts', "import 'piscina';"]]), 'src/a.ts')].sort(),
    ['piscina', 'src/a.ts', 'src/w.ts', 'src/y.ts'],
    'the walk follows what loads, not types or import()',
  );
  const INDEXER = /^(src\/(indexer|derived|devnet)\/|workers\/|piscina$)/;
  for (const role of ['src/bin/role-api.ts', 'src/bin/role-ui.ts', 'src/bin/role-notifier.ts']) {
    t.same([...loadedBy(files, role)].filter((m) => INDEXER.test(m)), [], `${role} loads no indexer, derived-lane, devnet or worker code`);
  }
  // `explorer --help`, `migrate` or `account create` load a role's modules only when they run it.
  const cli = [...loadedBy(files, 'src/bin/explorer.ts')];
  t.same(cli.filter((m) => /^src\/(bin\/(role|start)|api|ui|indexer|derived|notify|account\/(app|cli|admin-cli)\.ts)/.test(m)), [], 'src/bin/explorer.ts loads no role before it runs one');
});

t.test('no modules import each other in a circle', async (t) => {
  const circle = new Map([
    ['src/api/server.ts', "import type { Front } from './gateway.js';"],
    ['src/api/gateway.ts', "import type { AccountLike } from './socket/admission.js';"],
    ['src/api/socket/admission.ts', "import type { Admitted } from '../server.js';"],
    ['src/ui/page.ts', "import { x } from './pages/home.js';"],
    ['src/ui/pages/home.tsx', "import type { PageCtx } from '../page.js';"],
  ]);
  t.same(importCycles(circle), ['src/api/gateway.ts -> src/api/socket/admission.ts -> src/api/server.ts -> src/api/gateway.ts', 'src/ui/page.ts -> src/ui/pages/home.tsx -> src/ui/page.ts'], 'the checker finds circles, .tsx files too');
  t.same(importCycles(sources()), [], 'none in src/ or workers/');
});

t.test('SQL is written only under src/storage', async (t) => {
  const sql = /\b(SELECT\s[\s\S]{0,200}?\sFROM|INSERT\s+INTO|DELETE\s+FROM|ALTER\s+TABLE|CREATE\s+TABLE)\b/;
  // Comments may name statements (e.g. "the CREATE TABLE statements of sql/..."); code may not hold them.
  const code = (s: string) => s.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const outside = [...sources()].filter(([f, s]) => !f.startsWith('src/storage/') && sql.test(code(s))).map(([f]) => f);
  t.same(outside, []);
});
