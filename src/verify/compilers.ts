// Where a solc build comes from: the compiler cache directory (SOLC_CACHE_DIR), holding
// `soljson-v<long version>.js` files; seeded from the solc-js builds installed from npm (so an
// offline instance verifies with those), and filled on demand from the official binaries list
// (`list.json` of binaries.soliditylang.org, its URL a setting; fetched through src/net/outbound.ts),
// every download checked against the list's sha256 before it is kept. Nothing outside this
// directory is ever loaded as a compiler.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { outbound } from '../net/outbound.js';

/** A full solc version as Blockscout and Etherscan name it: v0.8.20+commit.a1b79de6. */
export const LONG_VERSION = /^v?(\d{1,3}\.\d{1,3}\.\d{1,3})\+commit\.([0-9a-f]{8})$/;

export class CompilerUnavailable extends Error {
  override name = 'CompilerUnavailable';
}

export interface CompilerStoreOptions {
  /** The cache directory (created when missing). */
  dir: string;
  /** The binaries list (list.json); its directory is where the builds are fetched from. Null: offline. */
  listUrl: string | null;
  /** How long a download may take (ms). */
  timeoutMs?: number;
}

/** The largest list and build accepted (soljson builds are under 10 MB, the list a few). */
const MAX_LIST_BYTES = 32 * 1024 * 1024;
const MAX_BUILD_BYTES = 64 * 1024 * 1024;

interface ListBuild {
  path: string;
  longVersion: string;
  sha256: string;
}

/** "v0.8.20+commit.a1b79de6" for any spelling the clients send (with or without the v). */
export function normalizeVersion(v: string): string | null {
  const m = LONG_VERSION.exec(v.trim());
  return m ? `v${m[1]}+commit.${m[2]}` : null;
}

const fileOf = (version: string) => `soljson-${version}.js`;

export class CompilerStore {
  private list: { at: number; builds: Map<string, ListBuild> } | null = null;
  private listFailure: { at: number; error: Error } | null = null;
  private readonly downloads = new Map<string, Promise<string>>();

  constructor(private readonly o: CompilerStoreOptions) {
    fs.mkdirSync(o.dir, { recursive: true });
    // The builds are CommonJS files named .js: inside a project whose package.json says
    // "type": "module" (the default DATA_DIR is ./data of this one) Node would load them as ES
    // modules and fail. A package.json of the cache's own says what they are.
    const own = path.join(o.dir, 'package.json');
    if (!fs.existsSync(own)) fs.writeFileSync(own, '{ "type": "commonjs" }\n');
  }

  get dir(): string {
    return this.o.dir;
  }

  /**
   * Copies the solc-js builds installed from npm into the cache (the `solc` package and any alias
   * of it such as `solc-0.8.20`), named by their long version. Returns the versions added.
   */
  seedFromNpm(fromDir: string = process.cwd()): string[] {
    const added: string[] = [];
    const req = createRequire(path.join(fromDir, 'package.json'));
    const modules = path.join(fromDir, 'node_modules');
    const names = fs.existsSync(modules) ? fs.readdirSync(modules).filter((n) => n === 'solc' || /^solc-\d/.test(n)) : [];
    for (const name of names) {
      try {
        const soljsonPath = req.resolve(`${name}/soljson.js`);
        // The build names its version; the package's own version could be an alias's.
        const wrapper = req(`${name}/wrapper.js`) as (m: unknown) => { version(): string };
        const long = /^(\d+\.\d+\.\d+)\+commit\.([0-9a-f]{8})/.exec(wrapper(req(soljsonPath)).version());
        if (!long) continue;
        const version = `v${long[1]}+commit.${long[2]}`;
        const target = path.join(this.o.dir, fileOf(version));
        if (!fs.existsSync(target)) {
          fs.copyFileSync(soljsonPath, `${target}.tmp`);
          fs.renameSync(`${target}.tmp`, target);
        }
        added.push(version);
      } catch {
        // Not a solc-js package after all: skipped.
      }
    }
    return added;
  }

  /** The versions in the cache now. */
  cached(): string[] {
    return fs
      .readdirSync(this.o.dir)
      .map((f) => /^soljson-(v.+)\.js$/.exec(f)?.[1])
      .filter((v): v is string => !!v && LONG_VERSION.test(v));
  }

  /** Every version a verification may name: the cache's and the list's (when it can be read). */
  async versions(): Promise<string[]> {
    const all = new Set(this.cached());
    try {
      for (const v of (await this.builds()).keys()) all.add(v);
    } catch {
      // Offline: the cache's only.
    }
    return [...all].sort(compareVersionsDesc);
  }

  /** The path of `version`'s build, fetched and checked first when it is not cached. */
  async path(version: string): Promise<string> {
    const v = normalizeVersion(version);
    if (!v) throw new CompilerUnavailable(`${JSON.stringify(version.slice(0, 80))} is not a solc version (expected e.g. v0.8.20+commit.a1b79de6)`);
    const file = path.join(this.o.dir, fileOf(v));
    if (fs.existsSync(file)) return file;
    let p = this.downloads.get(v);
    if (!p) {
      p = this.download(v, file).finally(() => this.downloads.delete(v));
      this.downloads.set(v, p);
    }
    return p;
  }

  private async builds(): Promise<Map<string, ListBuild>> {
    if (!this.o.listUrl) throw new Error('no compiler list is configured (SOLC_LIST_URL)');
    if (this.list && Date.now() - this.list.at < 10 * 60_000) return this.list.builds;
    // An unreachable list (an offline instance) is not asked again for a minute: the config
    // route and verifications answer at once meanwhile.
    if (this.listFailure && Date.now() - this.listFailure.at < 60_000) throw this.listFailure.error;
    let res: Buffer;
    try {
      res = await this.get(this.o.listUrl, MAX_LIST_BYTES, 15_000);
    } catch (e) {
      this.listFailure = { at: Date.now(), error: e as Error };
      throw e;
    }
    const body = JSON.parse(res.toString('utf8')) as { builds?: ListBuild[] };
    if (!Array.isArray(body.builds)) throw new Error('the compiler list has no builds');
    const builds = new Map<string, ListBuild>();
    for (const b of body.builds) {
      if (b && typeof b.path === 'string' && typeof b.longVersion === 'string' && typeof b.sha256 === 'string') builds.set(`v${b.longVersion}`, b);
    }
    this.list = { at: Date.now(), builds };
    return builds;
  }

  private async download(version: string, file: string): Promise<string> {
    const how = `put ${fileOf(version)} (from https://binaries.soliditylang.org/bin/) into ${this.o.dir}`;
    let builds: Map<string, ListBuild>;
    try {
      builds = await this.builds();
    } catch (e) {
      throw new CompilerUnavailable(`solc ${version} is not in the compiler cache and the compiler list could not be read (${(e as Error).message}): ${how}`);
    }
    const b = builds.get(version);
    if (!b || !/^[\w.+-]+\.js$/.test(b.path)) throw new CompilerUnavailable(`solc ${version} is not a known release (not in the compiler list)`);
    const url = new URL(b.path, this.o.listUrl!).toString();
    let bytes: Buffer;
    try {
      bytes = await this.get(url, MAX_BUILD_BYTES);
    } catch (e) {
      throw new CompilerUnavailable(`solc ${version} could not be downloaded (${(e as Error).message}): ${how}`);
    }
    const sha = `0x${crypto.createHash('sha256').update(bytes).digest('hex')}`;
    if (sha !== b.sha256.toLowerCase()) {
      throw new CompilerUnavailable(`solc ${version} was downloaded but its sha256 ${sha} differs from the list's ${b.sha256}: not used`);
    }
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, bytes);
    fs.renameSync(tmp, file);
    return file;
  }

  /**
   * Through the outbound guard: size and time capped, redirects re-checked. The list's own origin
   * is the operator's setting and may be private (a local mirror); a redirect elsewhere may not.
   */
  private async get(url: string, maxBytes: number, timeoutMs = this.o.timeoutMs ?? 120_000): Promise<Buffer> {
    const listOrigin = new URL(this.o.listUrl!).origin;
    const res = await outbound(url, {
      maxBytes,
      timeoutMs: Math.min(timeoutMs, this.o.timeoutMs ?? timeoutMs),
      maxRedirects: 3,
      allowHttp: true,
      allowPrivate: (u) => u.origin === listOrigin,
    });
    if (res.status < 200 || res.status >= 300) throw new Error(`HTTP ${res.status} from ${url}`);
    return res.body;
  }
}

/** Newest first (0.8.20 before 0.8.9). */
export function compareVersionsDesc(a: string, b: string): number {
  const pa = LONG_VERSION.exec(a)![1].split('.').map(Number);
  const pb = LONG_VERSION.exec(b)![1].split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pb[i] - pa[i];
  return a < b ? -1 : a > b ? 1 : 0;
}
