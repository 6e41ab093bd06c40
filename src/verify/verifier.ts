// Verifies a Solidity contract from its standard JSON input with Sourcify's verification core
// (@ethereum-sourcify/lib-sourcify): compiles it (through the compiler pool: a worker thread) and
// matches the result against the deployed runtime code and the creation transaction's input,
// handling immutables, linked libraries, constructor arguments and the metadata hash. A "full"
// match has the same metadata hash (Sourcify's perfect match), a "partial" one differs only there.
import { SolidityCompilation, SourcifyChain, Verification, setLibSourcifyLogger, type ISolidityCompiler } from '@ethereum-sourcify/lib-sourcify';
// Not re-exported by the package's index; the chain's calls are told apart by this class.
import { RpcFailure } from '@ethereum-sourcify/lib-sourcify/build/main/SourcifyChain/SourcifyChain.js';
import { getAddress } from 'viem';
import type { SolidityJsonInput } from '@ethereum-sourcify/compilers-types';
import { normalizeVersion } from './compilers.js';
import { twinKey, type TwinKey } from './twins.js';

export class VerificationFailed extends Error {
  override name = 'VerificationFailed';
}

export interface SolidityVerifyRequest {
  address: string;
  /** v0.8.20+commit.a1b79de6 */
  compilerVersion: string;
  /** `path/File.sol:Name` or `Name` (then the one source declaring it). */
  contractName: string;
  input: SolidityJsonInput;
  /** The creation transaction, when the stores know it (creation-code matching). */
  creationTx?: string | null;
}

export interface VerifiedContract {
  address: string;
  name: string;
  filePath: string;
  compilerVersion: string;
  language: 'solidity';
  match: 'full' | 'partial';
  runtimeMatch: 'perfect' | 'partial' | null;
  creationMatch: 'perfect' | 'partial' | null;
  /** The compiler settings the match was made with (without the output selection). */
  settings: Record<string, unknown>;
  sources: Record<string, string>;
  abi: unknown[];
  /** ABI-encoded constructor arguments (hex with 0x), when the creation input was matched. */
  constructorArgs: string | null;
  /** Linked libraries: fully qualified name -> address. */
  libraries: Record<string, string>;
  /** What finds its bytecode twins (null when only the creation code matched). */
  twin: TwinKey | null;
}

/** A contract's declaring source: `path:Name` as given, or the only source declaring `Name`. */
export function compilationTarget(input: SolidityJsonInput, contractName: string): { path: string; name: string } {
  const name = contractName.trim();
  const colon = name.lastIndexOf(':');
  if (colon > 0) {
    const path = name.slice(0, colon);
    if (!input.sources?.[path]) throw new VerificationFailed(`contract_name names ${JSON.stringify(path.slice(0, 200))}, which is not one of the input's sources`);
    return { path, name: name.slice(colon + 1) };
  }
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) throw new VerificationFailed('contract_name must be a contract name or path:Name');
  const declares = new RegExp(`(^|[^\\w$])(abstract\\s+contract|contract|library)\\s+${name.replace(/\$/g, '\\$')}(?![\\w$])`);
  const paths = Object.entries(input.sources ?? {})
    .filter(([, s]) => typeof (s as { content?: unknown }).content === 'string' && declares.test((s as { content: string }).content))
    .map(([p]) => p);
  if (paths.length === 0) throw new VerificationFailed(`no source of the input declares a contract ${name}`);
  if (paths.length > 1) throw new VerificationFailed(`${name} is declared in several sources (${paths.slice(0, 5).join(', ')}): give path:${name}`);
  return { path: paths[0], name };
}

/** lib-sourcify's errors carry their message already (their data are in `.data`). */
function libSourcifyMessage(e: unknown): string {
  return e instanceof Error && e.message ? e.message : String(e);
}

export async function verifySolidity(req: SolidityVerifyRequest, deps: { compiler: ISolidityCompiler; chain: SourcifyChain }): Promise<VerifiedContract> {
  const version = normalizeVersion(req.compilerVersion);
  if (!version) throw new VerificationFailed('compiler_version must be a full solc version such as v0.8.20+commit.a1b79de6');
  if (req.input?.language !== 'Solidity') throw new VerificationFailed('the standard JSON input must have "language": "Solidity"');
  if (!req.input.sources || typeof req.input.sources !== 'object' || !Object.keys(req.input.sources).length) throw new VerificationFailed('the standard JSON input has no sources');
  const target = compilationTarget(req.input, req.contractName);
  const compilation = new SolidityCompilation(deps.compiler, version.slice(1), structuredClone(req.input), target);
  // lib-sourcify compares the address with the creation receipt's, which is checksummed.
  const verification = new Verification(compilation, deps.chain, getAddress(req.address), req.creationTx ?? undefined);
  try {
    await verification.verify();
  } catch (e) {
    // A source that does not compile: solc's own words (lib-sourcify would stumble over the missing output).
    const errors = (compilation.compilerOutput?.errors ?? []).filter((x) => x.severity === 'error');
    if (errors.length) {
      const said = errors.slice(0, 3).map((x) => (x.formattedMessage ?? x.message ?? '').trim().split('\n')[0]);
      throw new VerificationFailed(`the sources do not compile: ${said.join('; ')}${errors.length > 3 ? ` (and ${errors.length - 3} more errors)` : ''}`);
    }
    throw new VerificationFailed(libSourcifyMessage(e));
  }
  // Only a perfect or partial match counts ('error', 'extra-file-input-bug' and null do not).
  const matched = (m: string | null) => (m === 'perfect' || m === 'partial' ? m : null);
  const runtimeMatch = matched(verification.status.runtimeMatch);
  const creationMatch = matched(verification.status.creationMatch);
  if (!runtimeMatch && !creationMatch) throw new VerificationFailed("the compiled bytecode does not match the contract's");
  const out = compilation.compilerOutput?.contracts?.[target.path]?.[target.name];
  const settings = { ...(compilation.jsonInput.settings as unknown as Record<string, unknown>) };
  delete settings.outputSelection;
  // The sources the contract was built from (its metadata lists them), not every file of the input.
  const used = compilation.metadata?.sources ? new Set(Object.keys(compilation.metadata.sources)) : null;
  const sources: Record<string, string> = {};
  for (const [p, s] of Object.entries(compilation.jsonInput.sources)) if (!used || used.has(p)) sources[p] = (s as { content?: string }).content ?? '';
  const t = verification.transformations;
  const args = t.creation.values.constructorArguments;
  const twin = runtimeMatch ? twinKey(verification.onchainRuntimeBytecode, t.runtime.list, t.runtime.values) : null;
  return {
    address: req.address.toLowerCase(),
    name: target.name,
    filePath: target.path,
    compilerVersion: version,
    language: 'solidity',
    match: runtimeMatch === 'perfect' || creationMatch === 'perfect' ? 'full' : 'partial',
    runtimeMatch,
    creationMatch,
    settings,
    sources,
    abi: (out?.abi as unknown[]) ?? [],
    constructorArgs: args ? (args.startsWith('0x') ? args : `0x${args}`) : null,
    // lib-sourcify gives the addresses as bare hex.
    libraries: Object.fromEntries(
      Object.entries({ ...(verification.libraryMap.runtime ?? {}), ...(verification.libraryMap.creation ?? {}) }).map(([k, v]) => [k, `0x${String(v).replace(/^0x/i, '').toLowerCase()}`]),
    ),
    twin,
  };
}

/** Where lib-sourcify's own log lines go (it prints to the console otherwise): warnings and errors only. */
export function routeLibSourcifyLog(log: { warn(msg: string, f?: Record<string, unknown>): void; error(msg: string, f?: Record<string, unknown>): void }): void {
  // lib-sourcify's levels: 0 error, 1 warn, 2 info, 3 debug, 5 silly.
  setLibSourcifyLogger({
    logLevel: 1,
    setLevel() {},
    log(level, message, metadata) {
      if (level === 0) log.error(`lib-sourcify: ${message}`, metadata);
      else if (level === 1) log.warn(`lib-sourcify: ${message}`, metadata);
    },
  });
}

/** lib-sourcify's view of the node: one RPC URL. */
export function nodeChain(chainId: number, nodeUrl: string): SourcifyChain {
  const chain = new SourcifyChain({ name: 'explorer node', chainId, rpcs: [{ rpc: nodeUrl }], supported: true } as unknown as ConstructorParameters<typeof SourcifyChain>[0]);
  // lib-sourcify races every node call against a timer it never clears, so each call held the
  // process open 10 s after it (a SIGTERM'd API outlived a container's 10 s stop grace period).
  // The same race and the same error, with the timer unref'd.
  chain.rejectInMs = (host?: string) =>
    new Promise<never>((_resolve, reject) => {
      setTimeout(() => reject(new RpcFailure(`RPC ${host} took too long to respond`)), SourcifyChain.getGlobalRpcTimeout()).unref();
    });
  return chain;
}
