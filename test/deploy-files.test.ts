// The deployment files, checked without a Docker engine (none exists where these tests run; no
// image is built here): deploy/compose.yml runs each explorer service with a real role of the CLI
// and only variables of the settings table (the ones each role needs present), its addresses agree
// with deploy/nginx.conf and TRUSTED_PROXIES, its health checks ask real routes; deploy/Dockerfile
// builds with npm ci and the build, runs a real role as a user without privileges, keeps the
// embedded stores under one volume and checks the API's health; `nginx -t` accepts deploy/nginx.conf.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { SETTINGS } from '../src/config/settings.js';
import { COMPOSE_VARIABLES } from '../src/config/generate-env-example.js';
import { HEALTH_PATH } from '../src/api/health.js';
import { PROJECT_ROOT } from './helpers/fixtures.js';
import { nginxBinary, nginxTest, testConfig } from './helpers/nginx.js';
import { tmpDir } from './helpers/tmp.js';

const DEPLOY = path.join(PROJECT_ROOT, 'deploy');
const CLI = fileURLToPath(new URL('../src/bin/explorer.js', import.meta.url));
const SETTING_NAMES = new Set(SETTINGS.map((d) => d.env));
const COMPOSE_NAMES = new Set(COMPOSE_VARIABLES.map((v) => v.name));
/** The explorer image's own build, named by every explorer service. */
const IMAGE = 'evm-explorer:local';

/** What each role cannot run without in the composed stack (else it would use embedded stores of its own). */
const REQUIRED: Record<string, string[]> = {
  migrate: ['DATABASE_URL', 'CLICKHOUSE_URL'],
  indexer: ['DATABASE_URL', 'CLICKHOUSE_URL', 'ETHEREUM_JSONRPC_HTTP_URL'],
  api: ['DATABASE_URL', 'CLICKHOUSE_URL', 'TRUSTED_PROXIES'],
  notifier: ['DATABASE_URL', 'CLICKHOUSE_URL'],
  ui: ['API_URL', 'TRUSTED_PROXIES'],
};

/** The roles `explorer --help` lists. */
function cliRoles(): string[] {
  const r = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`explorer --help failed: ${r.stderr}`);
  const lines = r.stdout.split('\n');
  const from = lines.indexOf('Commands:');
  const out: string[] = [];
  for (const line of lines.slice(from + 1)) {
    const m = /^  ([a-z-]+)\s/.exec(line);
    if (!m) break;
    out.push(m[1]!);
  }
  return out;
}

/** Names `${NAME}`, `${NAME:-x}`, `${NAME:?x}` interpolated anywhere in the text (nested ones too). */
function interpolated(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

/** The URL a `node -e "fetch('http://127.0.0.1:PORT/PATH')..."` health check asks. */
function fetchedUrl(test: unknown): URL | null {
  const text = Array.isArray(test) ? test.join(' ') : String(test);
  const m = /fetch\('(http:\/\/127\.0\.0\.1:[^']*)'(?: \+ \(process\.env\.API_PORT \|\| (\d+)\) \+ '([^']*)')?\)/.exec(text);
  if (!m) return null;
  return new URL(m[2] ? `${m[1]}${m[2]}${m[3]}` : m[1]!);
}

const roles = cliRoles();
const composeText = fs.readFileSync(path.join(DEPLOY, 'compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as { services: Record<string, any>; networks?: Record<string, any> };
const services = compose.services;
const explorer = Object.entries(services).filter(([, s]) => s.image === IMAGE);
const nginxConf = fs.readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8');

t.test('the CLI has the roles the files name', async (t) => {
  for (const role of ['start', 'indexer', 'api', 'ui', 'notifier', 'migrate']) t.ok(roles.includes(role), `explorer ${role}`);
});

t.test('compose.yml: the services and their images', async (t) => {
  t.match(services.clickhouse?.image, /^clickhouse\/clickhouse-server(:|$)/, 'the official ClickHouse server image');
  t.equal(services.postgres?.image, 'postgres:16', 'PostgreSQL 16');
  t.match(services.nginx?.image, /^nginx(:|$)/, 'nginx');
  t.same(explorer.map(([name]) => name).sort(), ['api', 'indexer', 'migrate', 'notifier', 'ui'], 'the explorer services, one image');
  for (const [name, s] of explorer) t.same(s.build, { context: '..', dockerfile: 'deploy/Dockerfile' }, `${name} builds deploy/Dockerfile from the repository root`);
  t.equal(services.api.deploy?.replicas, 2, 'two API replicas');
  t.ok(services.nginx.ports.some((p: string) => /:80$/.test(p)), 'nginx publishes port 80');
  t.ok(services.nginx.volumes.includes('./nginx.conf:/etc/nginx/nginx.conf:ro'), 'nginx runs deploy/nginx.conf');
});

t.test('compose.yml: each explorer service runs a role with settings the explorer knows', async (t) => {
  for (const [name, s] of explorer) {
    t.ok(Array.isArray(s.command) && s.command.length === 1, `${name}: the command is the role alone`);
    const role = s.command[0];
    t.ok(roles.includes(role), `${name}: "${role}" is a role of the CLI`);
    t.equal(role, name, `${name} runs the role of its name`);
    const env = s.environment ?? {};
    t.notOk(Array.isArray(env), `${name}: environment is a map`);
    for (const key of Object.keys(env)) t.ok(SETTING_NAMES.has(key), `${name}: ${key} is a setting`);
    for (const key of REQUIRED[role] ?? []) t.ok(typeof env[key] === 'string' && env[key] !== '', `${name}: ${key} is set`);
    t.same(s.env_file, [{ path: '.env', required: false }], `${name}: reads deploy/.env when there is one`);
    const deps = Object.entries(s.depends_on ?? {});
    for (const [dep, how] of deps as [string, any][]) {
      t.ok(services[dep], `${name} depends on ${dep}, a service`);
      if (how.condition === 'service_healthy') t.not(services[dep]?.healthcheck?.disable, true, `${name} waits for ${dep}'s health check, which it has`);
    }
  }
  for (const name of ['indexer', 'api', 'notifier']) t.same(services[name].depends_on.migrate, { condition: 'service_completed_successfully' }, `${name} starts after the migrations`);
  t.equal(services.migrate.depends_on.postgres.condition, 'service_healthy');
  t.equal(services.migrate.depends_on.clickhouse.condition, 'service_healthy');
  t.same(Object.keys(services.nginx.depends_on).sort(), ['api', 'ui']);
});

t.test('compose.yml: every interpolated variable is a setting or listed in .env.example', async (t) => {
  const envExample = fs.readFileSync(path.join(DEPLOY, '.env.example'), 'utf8');
  const names = new Set(interpolated(composeText));
  t.ok(names.has('ETHEREUM_JSONRPC_HTTP_URL'), 'the node comes from .env');
  for (const n of names) {
    t.ok(SETTING_NAMES.has(n) || COMPOSE_NAMES.has(n), `\${${n}} is a setting or a compose variable`);
    t.match(envExample, new RegExp(`^# ${n}=`, 'm'), `${n} is in deploy/.env.example`);
  }
  t.match(composeText, /ETHEREUM_JSONRPC_HTTP_URL:\?/, 'compose stops, saying so, when no node is set');
});

t.test('compose.yml agrees with nginx.conf and TRUSTED_PROXIES', async (t) => {
  const upstreamHosts = [...nginxConf.matchAll(/^\s*server ([a-z0-9-]+):(\d+)\b/gm)].map((m) => [m[1]!, m[2]!] as const);
  t.same(upstreamHosts.map(([h]) => h).sort(), ['api', 'ui'], 'nginx proxies to the api and ui services');
  for (const [host, port] of upstreamHosts) {
    const portSetting = host === 'api' ? 'API_PORT' : 'UI_PORT';
    t.equal(services[host].environment[portSetting], port, `${host} listens where nginx looks for it (${portSetting}=${port})`);
  }
  t.equal(services.ui.environment.API_URL, `http://api:${services.api.environment.API_PORT}`, 'the UI reads the API service');
  const subnet = compose.networks?.explorer?.ipam?.config?.[0]?.subnet as string;
  const prefix = subnet.replace(/\.0\/24$/, '.');
  const nginxIp = services.nginx.networks.explorer.ipv4_address as string;
  const uiIp = services.ui.networks.explorer.ipv4_address as string;
  t.ok(nginxIp.startsWith(prefix) && uiIp.startsWith(prefix), 'fixed addresses in the network');
  t.same(services.api.environment.TRUSTED_PROXIES.split(','), [nginxIp, uiIp], 'the API trusts nginx and the UI to name the client');
  t.same(services.ui.environment.TRUSTED_PROXIES.split(','), [nginxIp], 'the UI trusts nginx');
  for (const [name, s] of explorer) {
    if (name !== 'ui' && name !== 'api') t.notOk(s.environment.TRUSTED_PROXIES, `${name} serves no HTTP and trusts no proxy`);
  }
});

t.test('compose.yml: health checks ask real routes on the service\'s own port', async (t) => {
  const api = fetchedUrl(services.api.healthcheck.test);
  t.ok(api && HEALTH_PATH.test(api.pathname), `api: ${api?.pathname} is a health route`);
  t.equal(api?.port, services.api.environment.API_PORT);
  const ui = fetchedUrl(services.ui.healthcheck.test);
  t.equal(ui?.pathname, '/favicon.svg', 'ui: its favicon, answered without the API (test/deploy-nginx.test.ts asks it)');
  t.equal(ui?.port, services.ui.environment.UI_PORT);
  t.match(fs.readFileSync(path.join(PROJECT_ROOT, 'src/ui/ui-server.ts'), 'utf8'), /'\/favicon\.svg'/, 'the UI serves /favicon.svg');
  const viaNginx = services.nginx.healthcheck.test.find((a: string) => a.startsWith('http://'));
  t.ok(HEALTH_PATH.test(new URL(viaNginx).pathname), 'nginx: the API health through the proxy');
  for (const name of ['indexer', 'notifier']) {
    const metrics = fetchedUrl(services[name].healthcheck.test);
    t.equal(metrics?.pathname, '/metrics', `${name}: its metrics answer (it has no other HTTP port)`);
    t.equal(metrics?.port, services[name].environment.METRICS_PORT, `${name}: on its METRICS_PORT`);
  }
  t.equal(services.migrate.healthcheck?.disable, true, "migrate: runs once, the image's API check is off");
  for (const name of ['postgres', 'clickhouse']) t.ok(services[name].healthcheck?.test, `${name} has a health check`);
});

/** Dockerfile instructions (continuation lines joined), with the stage each belongs to. */
function dockerfile(text: string): { stage: number; op: string; args: string }[] {
  const out: { stage: number; op: string; args: string }[] = [];
  let stage = -1;
  const logical = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  for (const line of logical) {
    const m = /^([A-Z]+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`not an instruction: ${line}`);
    if (m[1] === 'FROM') stage++;
    out.push({ stage, op: m[1]!, args: m[2]! });
  }
  return out;
}

t.test('Dockerfile: two stages, a role as command, a user without privileges, one data volume, a health check', async (t) => {
  const text = fs.readFileSync(path.join(DEPLOY, 'Dockerfile'), 'utf8');
  const ins = dockerfile(text);
  const from = ins.filter((i) => i.op === 'FROM').map((i) => i.args);
  t.same(from, ['node:20-bookworm-slim AS build', 'node:20-bookworm-slim AS runtime'], 'build and runtime stages on Node 20, Debian bookworm slim');
  const runs = ins.filter((i) => i.op === 'RUN' && i.stage === 0).map((i) => i.args).join(' && ');
  t.match(runs, /\bnpm ci\b/, 'the build stage runs npm ci');
  t.match(runs, /\bnpm run build\b/, 'and the build');
  const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8'));
  t.ok(pkg.scripts.build, 'package.json has the build script');
  // Every file the image copies from the build context exists in the repository.
  for (const i of ins.filter((i) => i.op === 'COPY' && !i.args.includes('--from'))) {
    const parts = i.args.split(/\s+/).filter((p) => !p.startsWith('--'));
    for (const src of parts.slice(0, -1)) if (src !== '.') t.ok(fs.existsSync(path.join(PROJECT_ROOT, src)), `COPY ${src}: it exists`);
  }
  for (const i of ins.filter((i) => i.op === 'COPY' && i.args.includes('--from=build'))) {
    const src = i.args.split(/\s+/).filter((p) => !p.startsWith('--'))[0]!;
    t.match(src, /^\/app\//, `${src} is copied from the build stage`);
    const rel = src.replace(/^\/app\//, '');
    if (!['node_modules', 'build'].includes(rel)) t.ok(fs.existsSync(path.join(PROJECT_ROOT, rel)), `${rel} exists in the repository`);
  }
  const runtime = ins.filter((i) => i.stage === 1);
  const users = runtime.filter((i) => i.op === 'USER').map((i) => i.args);
  t.ok(users.length && !['root', '0'].includes(users.at(-1)!), `runs as ${users.at(-1)}, not root`);
  const env = runtime.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');
  const envNames = [...env.matchAll(/([A-Z_][A-Z0-9_]*)=/g)].map((m) => m[1]!);
  for (const n of envNames) t.ok(SETTING_NAMES.has(n) || n === 'NODE_ENV', `ENV ${n} is a setting`);
  t.match(env, /\bDATA_DIR=\/data\b/, 'DATA_DIR=/data');
  t.ok(runtime.some((i) => i.op === 'VOLUME' && JSON.parse(i.args).includes('/data')), 'VOLUME /data: the embedded stores in one volume');
  const entrypoint = JSON.parse(runtime.find((i) => i.op === 'ENTRYPOINT')!.args);
  t.same(entrypoint, ['node', 'build/src/bin/explorer.js'], 'ENTRYPOINT: the explorer CLI');
  t.same(pkg.bin.explorer, entrypoint[1], 'the CLI package.json names');
  t.ok(fs.existsSync(path.join(PROJECT_ROOT, 'src/bin/explorer.ts')), 'built from src/bin/explorer.ts');
  const cmd = JSON.parse(runtime.find((i) => i.op === 'CMD')!.args);
  t.same(cmd, ['start'], 'CMD: start (all-in-one)');
  t.ok(roles.includes(cmd[0]), 'a real role');
  const health = runtime.find((i) => i.op === 'HEALTHCHECK');
  t.ok(health, 'a HEALTHCHECK');
  const cmdJson = JSON.parse(health!.args.replace(/^.*?CMD\s+/, ''));
  const url = fetchedUrl(cmdJson);
  t.ok(url && HEALTH_PATH.test(url.pathname), `the health check asks ${url?.pathname}, a health route of the API`);
  t.equal(url?.port, '4000', 'on API_PORT (default 4000)');
});

const nginx = nginxBinary();

t.test('nginx -t accepts deploy/nginx.conf', { skip: nginx ? false : 'nginx is not installed (apt-get install -y nginx)' }, async (t) => {
  const dir = tmpDir(t, 'explorer-nginx-t-');
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, testConfig(nginxConf, dir, 8080, { api: [4000, 4001], ui: 3000 }));
  const r = nginxTest(nginx!, dir, conf);
  t.equal(r.status, 0, `nginx -t: ${r.output}`);
  const verifyMb = SETTINGS.find((d) => d.env === 'VERIFY_MAX_INPUT_MB')!.default as number;
  t.match(nginxConf, new RegExp(`^  client_max_body_size ${verifyMb}m;`, 'm'), `bodies up to VERIFY_MAX_INPUT_MB's default (${verifyMb} MiB), the API's own limit`);
  const iconBytes = SETTINGS.find((d) => d.env === 'PUBLIC_ICON_MAX_BYTES')!.default as number;
  t.match(nginxConf, /location \/account\/api\/ \{\n\s+client_max_body_size 1m;/, 'the Account API: 1 MiB');
  t.ok(iconBytes <= 1024 * 1024, `an icon upload (PUBLIC_ICON_MAX_BYTES=${iconBytes}) fits`);
  t.notMatch(nginxConf, /\$proxy_add_x_forwarded_for/, 'X-Forwarded-For is replaced, never appended to what the client sent');
});
