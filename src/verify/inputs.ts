// The other forms a contract is verified from, turned into the standard JSON input the verifier
// takes: a flattened single file (Blockscout's flattened-code, Etherscan's solidity-single-file)
// or several files (multi-part), with the compiler settings given beside them. Linked libraries
// need no mention: the matching reads their addresses from the deployed code.
import type { SolidityJsonInput } from '@ethereum-sourcify/compilers-types';

export interface PlainSettings {
  optimize: boolean;
  /** Optimizer runs (200 when optimizing and not given). */
  runs?: number;
  /** 'default' or absent: the compiler's own default. */
  evmVersion?: string;
  viaIR?: boolean;
}

/** An EVM version name solc knows (the config's list), or 'default'. */
export const EVM_VERSION = /^(default|[a-zA-Z]{3,20})$/;

export class InputRefused extends Error {
  override name = 'InputRefused';
}

/**
 * A standard JSON input from source units (path -> content) and settings. The paths are the
 * source unit names: a contract is fully matched only when they are the names it was compiled
 * with (the metadata hash covers them), else partially.
 */
export function inputFromSources(sources: Record<string, string>, s: PlainSettings): SolidityJsonInput {
  const paths = Object.keys(sources);
  if (!paths.length) throw new InputRefused('no source files were sent');
  for (const p of paths) {
    if (!p || p.length > 500 || /[\u0000-\u001f]/.test(p)) throw new InputRefused(`${JSON.stringify(p.slice(0, 80))} is not a usable file name`);
  }
  if (s.runs !== undefined && (!Number.isSafeInteger(s.runs) || s.runs < 0 || s.runs > 2 ** 32 - 1)) throw new InputRefused('optimization_runs must be a whole number from 0 to 4294967295');
  if (s.evmVersion !== undefined && !EVM_VERSION.test(s.evmVersion)) throw new InputRefused('evm_version is not an EVM version name');
  const settings: Record<string, unknown> = {
    optimizer: s.optimize ? { enabled: true, runs: s.runs ?? 200 } : { enabled: false, runs: s.runs ?? 200 },
    outputSelection: { '*': { '*': ['abi'] } },
  };
  if (s.evmVersion && s.evmVersion !== 'default') settings.evmVersion = s.evmVersion;
  if (s.viaIR) settings.viaIR = true;
  return {
    language: 'Solidity',
    sources: Object.fromEntries(paths.map((p) => [p, { content: sources[p] }])),
    settings,
  } as unknown as SolidityJsonInput;
}

/** The unit name a flattened file is compiled under: the contract's name, `.sol`. */
export const flattenedPath = (contractName: string): string => `${contractName.includes(':') ? contractName.slice(contractName.lastIndexOf(':') + 1) : contractName}.sol`;
