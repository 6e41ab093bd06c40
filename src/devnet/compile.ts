// Compiles the devnet's own contracts (src/devnet/contracts/*.sol) with solc-js and caches the
// result under <project root>/.cache/solc/<sha256>.json.
//
// The cache key covers: every source file (name + content), the solc version, the OpenZeppelin
// version (its files are imported, not hashed) and the compiler settings. solc-js itself is loaded
// only on a cache miss: loading its wasm alone costs about a second.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface CompiledContract {
  abi: Abi;
  /** Creation (init) code, 0x-prefixed. */
  bytecode: Hex;
  /** Runtime code, 0x-prefixed. */
  deployedBytecode: Hex;
}

export type CompiledContracts = Record<string, CompiledContract>;

/**
 * Anvil 1.7 runs the latest hardfork (Prague/Osaka) by default; cancun bytecode runs unchanged
 * there, and cancun is what the OpenZeppelin v5 contracts need at least (mcopy).
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

let rootCache: string | undefined;

/** The project root: the nearest ancestor of this module's directory holding package.json. */
export function projectRoot(): string {
  if (rootCache) return rootCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return (rootCache = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

export function contractsDir(): string {
  return join(projectRoot(), 'src', 'devnet', 'contracts');
}

function packageVersion(req: NodeJS.Require, name: string): string {
  const pkg = JSON.parse(readFileSync(req.resolve(`${name}/package.json`), 'utf8')) as { version: string };
  return pkg.version;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string; message: string }[];
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

const memo = new Map<string, CompiledContracts>();

/**
 * Compile every .sol file in src/devnet/contracts. Returns the contracts keyed by contract name
 * (names are unique across files; a duplicate is an error).
 */
export async function compileContracts(
  opts: { /** use the in-process memo (default true) */ memo?: boolean; /** use the on-disk cache (default true) */ diskCache?: boolean } = {},
): Promise<CompiledContracts> {
  const useMemo = opts.memo ?? true;
  const useDisk = opts.diskCache ?? true;
  const root = projectRoot();
  const dir = contractsDir();
  const req = createRequire(join(root, 'package.json'));

  const files = (await readdir(dir)).filter((f) => f.endsWith('.sol')).sort();
  if (files.length === 0) throw new Error(`no .sol files in ${dir}`);
  const sources: Record<string, { content: string }> = {};
  for (const f of files) sources[f] = { content: await readFile(join(dir, f), 'utf8') };

  const solcVersion = packageVersion(req, 'solc');
  const ozVersion = packageVersion(req, '@openzeppelin/contracts');
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ solcVersion, ozVersion, settings: SOLC_SETTINGS }));
  for (const f of files) hash.update(`\0${f}\0${sources[f].content}`);
  const key = hash.digest('hex');

  const hit = useMemo ? memo.get(key) : undefined;
  if (hit) return hit;

  const cacheFile = join(root, '.cache', 'solc', `${key}.json`);
  if (useDisk) {
    try {
      const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as CompiledContracts;
      memo.set(key, cached);
      return cached;
    } catch {
      // cache miss (or unreadable/corrupt file): compile
    }
  }

  const input = { language: 'Solidity', sources, settings: SOLC_SETTINGS };
  const findImports = (path: string): { contents: string } | { error: string } => {
    try {
      // Local relative imports come in relative to the source unit names (bare file names here).
      const local = resolve(dir, path);
      if (!path.startsWith('@') && existsSync(local)) return { contents: readFileSync(local, 'utf8') };
      return { contents: readFileSync(req.resolve(path), 'utf8') };
    } catch (err) {
      return { error: `cannot resolve import ${path}: ${(err as Error).message}` };
    }
  };
  const solc = req('solc') as { compile(input: string, opts: { import: typeof findImports }): string };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }

  const result: CompiledContracts = {};
  for (const f of files) {
    for (const [name, c] of Object.entries(output.contracts?.[f] ?? {})) {
      if (result[name]) throw new Error(`duplicate contract name ${name} in ${f}`);
      result[name] = {
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
    }
  }

  await mkdir(dirname(cacheFile), { recursive: true });
  // Write-then-rename so a concurrent reader never sees a half-written file.
  const tmp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify(result));
  await rename(tmp, cacheFile);
  memo.set(key, result);
  return result;
}

/**
 * The standard JSON input a developer would verify the devnet's contracts with: every devnet
 * source and, transitively, every file they import (OpenZeppelin's, under the import path as the
 * unit name, as solc names them), with the settings the devnet compiles with.
 */
export async function devnetStandardInput(): Promise<{
  language: 'Solidity';
  sources: Record<string, { content: string }>;
  settings: { optimizer: { enabled: boolean; runs: number }; evmVersion: string; outputSelection: Record<string, Record<string, string[]>> };
}> {
  const dir = contractsDir();
  const req = createRequire(join(projectRoot(), 'package.json'));
  const sources: Record<string, { content: string }> = {};
  const todo: string[] = (await readdir(dir)).filter((f) => f.endsWith('.sol')).sort();
  while (todo.length) {
    const unit = todo.shift()!;
    if (sources[unit]) continue;
    const content = unit.startsWith('@') ? readFileSync(req.resolve(unit), 'utf8') : readFileSync(join(dir, unit), 'utf8');
    sources[unit] = { content };
    for (const m of content.matchAll(/^\s*import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/gm)) {
      // Relative imports are relative to the importing unit's name (solc's rule).
      todo.push(m[1].startsWith('.') ? posixJoin(unit, m[1]) : m[1]);
    }
  }
  return { language: 'Solidity', sources, settings: { optimizer: { ...SOLC_SETTINGS.optimizer }, evmVersion: SOLC_SETTINGS.evmVersion, outputSelection: { '*': { '*': ['abi'] } } } };
}

function posixJoin(fromUnit: string, rel: string): string {
  const parts = fromUnit.split('/').slice(0, -1);
  for (const p of rel.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.') parts.push(p);
  }
  return parts.join('/');
}
