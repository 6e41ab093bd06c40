// Writes src/abi/signature-catalogue.generated.ts: the functions, events and errors in the ABIs that well-kept npm packages ship, each with its origin, for naming calls and logs of contracts nobody verified.
// Never typed by hand: `npm run gen:catalogue` rewrites it, and test/unit/abi/signature-catalogue.test.ts
// checks the committed file equals a fresh run, so a package upgrade shows up as a diff of entries.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keccak256, parseAbiItem, toBytes, toEventSelector, toFunctionSelector, type Abi, type AbiFunction } from 'viem';
import { projectRoot } from '../paths.js';
import { INTERFACES } from './generate-standard-abi.js';
import { canonicalSignature, itemText } from './item-text.js';

export const GENERATED_FILE = 'src/abi/signature-catalogue.generated.ts';

/** One package to read: where its artifacts lie, and what in it is not a real contract. */
export interface CatalogueSource {
  /** The name it is installed under in node_modules (an npm alias for a second version of a package). */
  pkg: string;
  /** Folders inside the package to walk for artifact JSON (ABI arrays, or objects with an `abi`). */
  dirs: string[];
  /** Artifact names in this package that are test fixtures without a tell-tale word in their name. */
  exclude?: string[];
  /** Artifacts read first, in this order, so their parameter names win over the rest of the package's. */
  first?: readonly string[];
  /**
   * Where the package keeps its Solidity sources, for ABIs that do not say which file they came
   * from (a flat folder of bare ABI arrays): a contract declared only under test folders is left out.
   */
  solSources?: string;
  /** A label for the contract field (a package holding several versions of one contract says which). */
  label?: (file: string, json: Record<string, unknown>) => string | null;
  /**
   * Source files (as the artifact names them) whose artifacts are read although they lie under a
   * vendored `lib/`: the one place a package ships another project's current ABI.
   */
  vendored?: readonly string[];
}

/**
 * The packages, in priority order: an item found in two of them keeps the first one's parameter
 * names and origin. OpenZeppelin's standard interfaces first (ERC-20's `transferFrom(from, to,
 * value)` over ERC-721's `tokenId`, as the standard table has them), then token and DEX
 * infrastructure (WETH9 sits in Uniswap v2's periphery build), then wallets and account
 * abstraction, then the rest.
 *
 * Left out, and why: @uniswap/universal-router 2.0.0 (~92 MB, Permit2's artifacts again) and
 * @eth-optimism/contracts-bedrock (~128 MB) are too big to install on every CI run (v4-periphery,
 * ~77 MB, is in: v4 and Permit2); @uniswap/permit2-sdk ships a pre-release Permit2 ABI (its transferFrom,
 * permitTransferFrom and errors differ from the deployed contract's), which would name calls wrongly;
 * @uniswap/swap-router-contracts pulls in hardhat through hardhat-watcher's peer dependency;
 * @chainlink/contracts after 1.2.0 (pinned there in package.json) depends on a GitHub repository the
 * registry cannot serve; @arbitrum/nitro-contracts runs patch-package on install.
 */
export const SOURCES: readonly CatalogueSource[] = [
  { pkg: '@openzeppelin/contracts', dirs: ['build/contracts'], first: INTERFACES },
  // v2's flat build holds its test tokens beside the real contracts, under names that say nothing.
  { pkg: '@uniswap/v2-core', dirs: ['build'], exclude: ['ERC20'] },
  { pkg: '@uniswap/v2-periphery', dirs: ['build'], exclude: ['ERC20', 'DeflatingERC20', 'RouterEventEmitter'], first: ['WETH9'] },
  { pkg: '@uniswap/v3-core', dirs: ['artifacts/contracts'] },
  { pkg: '@uniswap/v3-periphery', dirs: ['artifacts/contracts'] },
  { pkg: '@uniswap/v4-core', dirs: ['out'] },
  // v4's periphery (position manager, router, quoters: its src/), and Permit2's two interfaces as the
  // deployed Permit2 has them (IPermit2 is their union), vendored in its lib/: the one package of a
  // sane size that ships them (permit2-sdk's are a pre-release's). Its forge build holds each
  // artifact once per compiler profile (X.default.json, X.posm.json...): the label drops the profile.
  {
    pkg: '@uniswap/v4-periphery',
    dirs: ['foundry-out'],
    vendored: ['lib/permit2/src/interfaces/IAllowanceTransfer.sol', 'lib/permit2/src/interfaces/ISignatureTransfer.sol'],
    label: (file) => path.basename(file, '.json').replace(/\.(default|descriptor|posm|test)$/, ''),
  },
  { pkg: '@uniswap/universal-router', dirs: ['artifacts/contracts'] },
  // Every Safe release's deployed contracts, newest first; the label says which release.
  {
    pkg: '@safe-global/safe-deployments',
    dirs: ['src/assets/v1.5.0', 'src/assets/v1.4.1', 'src/assets/v1.3.0', 'src/assets/v1.2.0', 'src/assets/v1.1.1', 'src/assets/v1.0.0'],
    label: (_file, json) => (typeof json.contractName === 'string' && typeof json.version === 'string' ? `${json.contractName} ${json.version}` : null),
  },
  { pkg: '@safe-global/safe-smart-account', dirs: ['build/artifacts/contracts'] },
  { pkg: '@account-abstraction/contracts', dirs: ['artifacts'] },
  // EntryPoint v0.6 (unpacked UserOperation) is still much used; its handleOps differs from v0.7+.
  { pkg: '@account-abstraction/contracts-v0.6', dirs: ['artifacts'] },
  { pkg: '@opensea/seaport-js', dirs: ['src/artifacts/seaport/contracts', 'src/artifacts/src/contracts'] },
  // The ENS registry interface, the public resolver and the reverse registrar (the current
  // @ensdomains/ens-contracts is not on the registry this project installs from).
  { pkg: '@ensdomains/resolver', dirs: ['build/contracts'] },
  // Chainlink before Aave, which vendors Chainlink's feed interfaces: the feeds' calls say Chainlink.
  // A flat folder of bare ABIs: its test helpers (Greeter, Counter, UpkeepCounter...) are told apart by where their sources lie.
  { pkg: '@chainlink/contracts', dirs: ['abi/v0.8'], solSources: 'src/v0.8' },
  { pkg: '@aave/core-v3', dirs: ['artifacts/contracts'] },
];

/** Contract names that mark test scaffolding rather than a deployed contract or interface. */
const TEST_NAME = /Mock|Test|Harness|Echidna|Fuzz|Invariant|Example|Migrations|Dummy|Fake|Exposed|Malicious|Broken|Reverting|^Std[A-Z]|^Vm(Safe)?$|^DSTest$|^console2?$|^Script$/;
/** Source paths of the same: test and mock folders, forge tests and scripts, vendored libraries. */
const TEST_PATH = /(^|\/)(tests?|mocks?|harness(es)?|echidna|examples?|scripts?|fuzz|invariants?|test-?helpers)\/|\.[ts]\.sol$|^lib\//i;

type Param = { name?: string; type: string; indexed?: boolean; components?: readonly Param[] };
type RawItem = { type: string; name?: string; inputs?: readonly Param[]; anonymous?: boolean };
type Kind = 'function' | 'event' | 'error';
const KIND_ORDER: Record<Kind, number> = { function: 0, event: 1, error: 2 };

export interface CatalogueEntry {
  item: string;
  origin: number;
  contract: string;
  kind: Kind;
  /** 4 bytes for a function or an error, topic 0 for an event. */
  selector: string;
}

export interface CatalogueStats {
  /** Artifacts read (after the test/mock filter). */
  artifacts: number;
  /** Artifacts left out as tests, mocks, scripts or vendored libraries. */
  skippedArtifacts: number;
  /** Anonymous events: no topic 0 to find them by. */
  anonymous: number;
  /** Distinct item texts that do not parse back to the same selector, names and indexed flags. */
  notRoundTripping: number;
  /** Items whose text an earlier package or artifact already gave. */
  duplicates: number;
  /** Items with a signature already taken under other parameter names. */
  renamed: number;
}

/** The artifact's parameters and the parsed text's agree in type, name, indexed flag and components. */
function sameParams(a: readonly Param[], b: readonly Param[], event: boolean): boolean {
  return (
    a.length === b.length &&
    a.every((p, i) => {
      const q = b[i];
      if (p.type !== q.type || (p.name ?? '') !== (q.name ?? '')) return false;
      if (event && Boolean(p.indexed) !== Boolean(q.indexed)) return false;
      if (p.type.startsWith('tuple')) return sameParams(p.components ?? [], q.components ?? [], false);
      return true;
    })
  );
}

/**
 * The item's selector if its text parses back (viem's parseAbiItem) to the same kind, name,
 * parameters and selector as the artifact's item; null otherwise. The expected selector is hashed
 * here from the artifact's own types, the actual one by viem from the parsed text.
 */
export function roundTrip(item: RawItem & { type: Kind; name: string }, text: string): string | null {
  let parsed: Extract<Abi[number], { type: Kind }>;
  try {
    parsed = parseAbiItem(text) as Extract<Abi[number], { type: Kind }>;
  } catch {
    return null;
  }
  if (parsed.type !== item.type || parsed.name !== item.name) return null;
  if (!sameParams(item.inputs ?? [], parsed.inputs as readonly Param[], item.type === 'event')) return null;
  const hash = keccak256(toBytes(canonicalSignature(item)));
  const want = item.type === 'event' ? hash : hash.slice(0, 10);
  const got = (parsed.type === 'event' ? toEventSelector(parsed) : toFunctionSelector(parsed as AbiFunction)).toLowerCase();
  return got === want ? got : null;
}

function packageDir(pkg: string): string {
  return path.join(projectRoot(), 'node_modules', pkg);
}

/** The installed package's own name@version (an alias's real name, so the origin says what it is). */
export function packageOrigin(pkg: string): string {
  const json = JSON.parse(fs.readFileSync(path.join(packageDir(pkg), 'package.json'), 'utf8')) as { name: string; version: string };
  return `${json.name}@${json.version}`;
}

/** Every .json under dir, sorted by path (a plain comparison: the same order on every machine). */
function jsonFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'build-info' && e.name !== 'node_modules') walk(p);
      } else if (e.name.endsWith('.json') && !e.name.endsWith('.dbg.json')) out.push(p);
    }
  };
  walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

interface Artifact {
  name: string;
  abi: RawItem[];
}

/** The source file an artifact was compiled from, where it says (hardhat's sourceName, forge's compilation target). */
function sourcePath(json: Record<string, unknown>): string | null {
  if (typeof json.sourceName === 'string') return json.sourceName;
  const target = (json.metadata as { settings?: { compilationTarget?: Record<string, string> } } | undefined)?.settings?.compilationTarget;
  return target && typeof target === 'object' ? (Object.keys(target)[0] ?? null) : null;
}

/** Where each contract, interface and library is declared under dir: name to the source files' paths. */
function declarations(dir: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.sol')) {
        const rel = path.relative(dir, p).split(path.sep).join('/');
        for (const m of fs.readFileSync(p, 'utf8').matchAll(/^\s*(?:abstract\s+)?(?:contract|interface|library)\s+([A-Za-z_$][\w$]*)/gm)) {
          found.set(m[1], [...(found.get(m[1]) ?? []), rel]);
        }
      }
    }
  };
  walk(dir);
  return found;
}

/** A package's real contract and interface artifacts, in priority order; `skipped` counts the rest. */
function readArtifacts(source: CatalogueSource, stats: CatalogueStats): Artifact[] {
  const root = packageDir(source.pkg);
  const declared = source.solSources ? declarations(path.join(root, source.solSources)) : null;
  const found: Artifact[] = [];
  for (const dir of source.dirs) {
    for (const file of jsonFiles(path.join(root, dir))) {
      const json = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      const abi = Array.isArray(json) ? json : (json as { abi?: unknown }).abi;
      if (!Array.isArray(abi)) continue; // not an artifact (a combined build, a package.json)
      const obj = (Array.isArray(json) ? {} : json) as Record<string, unknown>;
      const name = typeof obj.contractName === 'string' ? obj.contractName : path.basename(file, '.json');
      const rel = path.relative(root, file).split(path.sep).join('/');
      const src = sourcePath(obj);
      const files = declared?.get(name);
      const vendored = !!src && !!source.vendored?.includes(src);
      if (!vendored && ((files && files.every((f) => TEST_PATH.test(f))) || TEST_NAME.test(name) || TEST_PATH.test(path.relative(path.join(root, dir), file).split(path.sep).join('/')) || (src && TEST_PATH.test(src)) || source.exclude?.includes(name))) {
        stats.skippedArtifacts++;
        continue;
      }
      // forge writes an artifact per contract it compiled, the package's own and its dependencies':
      // only those compiled from the package's src/ are its own (and the vendored ones named).
      if ((rel.startsWith('out/') || rel.startsWith('foundry-out/')) && !vendored && !(src && src.startsWith('src/'))) {
        stats.skippedArtifacts++;
        continue;
      }
      found.push({ name: source.label?.(file, obj) ?? name, abi: abi as RawItem[] });
    }
  }
  const first = source.first ?? [];
  const rank = (a: Artifact): number => {
    const i = first.indexOf(a.name);
    return i < 0 ? first.length : i;
  };
  // A stable sort: the preferred artifacts in their order, then the rest by path.
  return found.map((a, i) => ({ a, i })).sort((x, y) => rank(x.a) - rank(y.a) || x.i - y.i).map((x) => x.a);
}

/** The catalogue: each distinct item once, first origin in priority order, sorted by kind, selector, priority. */
export function buildCatalogue(sources: readonly CatalogueSource[] = SOURCES): { origins: string[]; entries: CatalogueEntry[]; stats: CatalogueStats } {
  const stats: CatalogueStats = { artifacts: 0, skippedArtifacts: 0, anonymous: 0, notRoundTripping: 0, duplicates: 0, renamed: 0 };
  const origins = sources.map((s) => packageOrigin(s.pkg));
  const texts = new Set<string>();
  const signatures = new Set<string>();
  const kept: (CatalogueEntry & { priority: number })[] = [];
  sources.forEach((source, origin) => {
    for (const artifact of readArtifacts(source, stats)) {
      stats.artifacts++;
      for (const raw of artifact.abi) {
        if (raw.type !== 'function' && raw.type !== 'event' && raw.type !== 'error') continue; // constructor, fallback, receive
        if (typeof raw.name !== 'string') continue;
        const item = raw as RawItem & { type: Kind; name: string };
        if (item.type === 'event' && item.anonymous) {
          stats.anonymous++;
          continue;
        }
        const text = itemText(item);
        if (text === null) {
          stats.notRoundTripping++;
          continue;
        }
        if (texts.has(text)) {
          stats.duplicates++;
          continue;
        }
        texts.add(text);
        const selector = roundTrip(item, text);
        if (selector === null) {
          stats.notRoundTripping++; // each distinct text once
          continue;
        }
        // One entry per signature: the first names win. An event's indexed flags are part of it, since
        // ERC-20's and ERC-721's Transfer share topic 0 and decode only with their own flags.
        const signature = `${item.type} ${canonicalSignature(item)}${item.type === 'event' ? `/${(item.inputs ?? []).map((p) => (p.indexed ? 1 : 0)).join('')}` : ''}`;
        if (signatures.has(signature)) {
          stats.renamed++;
          continue;
        }
        signatures.add(signature);
        kept.push({ item: text, origin, contract: artifact.name, kind: item.type, selector, priority: kept.length });
      }
    }
  });
  kept.sort((a, b) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.selector < b.selector ? -1 : a.selector > b.selector ? 1 : 0) || a.priority - b.priority);
  return { origins, entries: kept.map(({ priority: _p, ...e }) => e), stats };
}

/** The generated file's text. */
export function signatureCatalogueSource({ origins, entries } = buildCatalogue()): string {
  const count = (k: Kind): number => entries.filter((e) => e.kind === k).length;
  return [
    `// Generated by src/abi/generate-signature-catalogue.ts from ${origins.join(', ')}: do not edit.`,
    `// ${count('function')} functions, ${count('event')} events, ${count('error')} errors; \`npm run gen:catalogue\` rewrites it.`,
    '/** The packages (name@version) entries came from; an entry\'s `origin` indexes this list. */',
    `export const CATALOGUE_ORIGINS: readonly string[] = [\n${origins.map((o) => `  ${JSON.stringify(o)},`).join('\n')}\n];`,
    "/** [human-readable ABI item with parameter names ('function mint(address to, uint256 amount)', 'event Swap(address indexed sender, ...)', 'error X(uint256 a)'), origin index, the contract/artifact name it came from] */",
    // One entry per line: a regeneration's diff shows what changed.
    `export const SIGNATURE_CATALOGUE: readonly (readonly [item: string, origin: number, contract: string])[] = [\n${entries.map((e) => `  [${JSON.stringify(e.item)}, ${e.origin}, ${JSON.stringify(e.contract)}],`).join('\n')}\n];`,
    '',
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const catalogue = buildCatalogue();
  const { entries, stats } = catalogue;
  const out = path.join(projectRoot(), GENERATED_FILE);
  fs.writeFileSync(out, signatureCatalogueSource(catalogue));
  console.log(`wrote ${out}: ${entries.length} entries`);
  console.log(
    `${stats.artifacts} artifacts read, ${stats.skippedArtifacts} skipped as tests/mocks/scripts/vendored; ` +
      `items skipped: ${stats.notRoundTripping} not round-tripping, ${stats.anonymous} anonymous events, ` +
      `${stats.duplicates} duplicates, ${stats.renamed} same signature under other names`,
  );
}
