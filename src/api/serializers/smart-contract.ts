// /smart-contracts/{address} and the read/write method lists in Blockscout's shapes
// (../shared/spec/blockscout-api-v2.md §3.8; schema SmartContract of the OpenAPI document).
// A verified contract carries its sources, ABI, compiler and settings, match kind and constructor
// arguments (decoded by its constructor); for any other contract `is_verified` is false and every
// field only verification can fill is null (or false where the schema wants a boolean).
import { decodeAbiParameters, decodeFunctionResult, toFunctionSelector, type AbiFunction, type AbiParameter, type Hex } from 'viem';
import { checksum, isoDate } from './common.js';
import { implementationsJson, type ProxyFacts } from './address.js';
import type { VerifiedRow } from '../../storage/postgres/verified.js';
import { jsonValue } from '../../abi/decode.js';

/** One entry of a JSON ABI (functions, events, constructor, fallback, receive, errors). */
export type AbiEntry = Record<string, unknown> & { type: string; name?: string; inputs?: AbiParam[]; outputs?: AbiParam[]; stateMutability?: string; constant?: boolean };
export interface AbiParam {
  name?: string;
  type: string;
  internalType?: string;
  components?: AbiParam[];
  indexed?: boolean;
  /** Read methods: the current value (Blockscout's methods-read). */
  value?: unknown;
}

export interface SmartContractFacts {
  /** Deployed code: '0x...' ; null when self-destructed (or unknown). */
  deployedBytecode: string | null;
  /** Init code + constructor arguments of the creation; null when the creation is not stored. */
  creationBytecode: string | null;
  creationStatus: 'success' | 'failed' | 'selfdestructed' | null;
  /** The proxy kind and implementations when it delegates (src/api/proxies.ts). */
  proxy?: ProxyFacts;
}


/** Blockscout's decoded_constructor_args: [value, {name, type, internalType}] per constructor input. */
function decodedConstructorArgs(abi: unknown[], args: string | null): unknown[] | null {
  const ctor = abi.find((e) => (e as { type?: string }).type === 'constructor') as { inputs?: AbiParameter[] } | undefined;
  if (!args || !ctor?.inputs?.length) return null;
  try {
    const values = decodeAbiParameters(ctor.inputs, args as Hex);
    return ctor.inputs.map((p, i) => [jsonValue(values[i]), { name: p.name ?? '', type: p.type, internalType: (p as { internalType?: string }).internalType ?? p.type }]);
  } catch {
    return null;
  }
}

/** The fields verification fills, from the stored verification. */
function verifiedFields(v: VerifiedRow): Record<string, unknown> {
  const additional = Object.entries(v.sources)
    .filter(([p]) => p !== v.file_path)
    .map(([file_path, source_code]) => ({ file_path, source_code }));
  return {
    is_verified: true,
    is_changed_bytecode: false,
    is_partially_verified: v.match === 'partial',
    is_fully_verified: v.match === 'full',
    is_verified_via_sourcify: false,
    is_verified_via_eth_bytecode_db: false,
    is_verified_via_verifier_alliance: false,
    can_be_visualized_via_sol2uml: false,
    name: v.name,
    compiler_version: v.compiler_version,
    optimization_enabled: v.optimization,
    optimization_runs: v.optimization_runs,
    evm_version: v.evm_version ?? 'default',
    verified_at: isoDate(v.verified_at),
    abi: v.abi,
    source_code: v.sources[v.file_path] ?? '',
    file_path: v.file_path,
    additional_sources: additional,
    compiler_settings: v.settings,
    external_libraries: Object.entries(v.libraries).map(([name, address]) => ({ name, address_hash: checksum(address) })),
    // Blockscout keeps the arguments as bare hex.
    constructor_args: v.constructor_args ? v.constructor_args.replace(/^0x/, '') : null,
    decoded_constructor_args: decodedConstructorArgs(v.abi, v.constructor_args),
    language: v.language,
    license_type: v.license_type,
    is_blueprint: false,
  };
}

export function smartContractJson(f: SmartContractFacts, verified: VerifiedRow | null = null): Record<string, unknown> {
  const base = unverifiedJson(f);
  return verified ? { ...base, ...verifiedFields(verified) } : base;
}

/**
 * An unverified contract deployed from the same build as the verified `twin`: its source, ABI and
 * compiler facts, but not verified itself (`is_verified` false) and pointing at the twin
 * (`verified_twin_address_hash`); the twin's constructor arguments are not this contract's.
 */
export function twinJson(f: SmartContractFacts, twin: VerifiedRow): Record<string, unknown> {
  return {
    ...unverifiedJson(f),
    ...verifiedFields(twin),
    is_verified: false,
    is_fully_verified: false,
    is_partially_verified: false,
    verified_twin_address_hash: checksum(twin.address_hash),
    verified_at: null,
    constructor_args: null,
    decoded_constructor_args: null,
  };
}

function unverifiedJson(f: SmartContractFacts): Record<string, unknown> {
  return {
    proxy_type: f.proxy?.type ?? null,
    implementations: implementationsJson(f.proxy),
    conflicting_implementations: null,
    deployed_bytecode: f.deployedBytecode,
    creation_bytecode: f.creationBytecode,
    creation_status: f.creationStatus,
    is_verified: false,
    // Verification fields: null until verification exists (`certified` is a plain boolean).
    verified_twin_address_hash: null,
    is_changed_bytecode: null,
    is_partially_verified: null,
    is_fully_verified: null,
    is_verified_via_sourcify: null,
    is_verified_via_eth_bytecode_db: null,
    is_verified_via_verifier_alliance: null,
    sourcify_repo_url: null,
    can_be_visualized_via_sol2uml: null,
    name: null,
    compiler_version: null,
    optimization_enabled: null,
    optimization_runs: null,
    evm_version: null,
    verified_at: null,
    abi: null,
    source_code: null,
    file_path: null,
    additional_sources: null,
    compiler_settings: null,
    external_libraries: null,
    constructor_args: null,
    decoded_constructor_args: null,
    language: null,
    license_type: null,
    certified: false,
    is_blueprint: null,
  };
}

const READ_MUTABILITY = new Set(['view', 'pure']);

/** Blockscout's queriable_method?: a view/pure (or legacy `constant`) function. */
export function isReadMethod(e: AbiEntry): boolean {
  return e.type === 'function' && (e.constant === true || READ_MUTABILITY.has(String(e.stateMutability ?? '')));
}

/** Blockscout's write_function?: a function that may change state, or the fallback/receive entry. */
export function isWriteMethod(e: AbiEntry): boolean {
  if (e.type === 'fallback' || e.type === 'receive') return true;
  return e.type === 'function' && !isReadMethod(e);
}

/** 8 lower-case hex digits of the function selector, no 0x (Blockscout's method_id). */
export function methodId(e: AbiEntry): string | null {
  if (e.type !== 'function' || typeof e.name !== 'string') return null;
  try {
    return toFunctionSelector(e as unknown as AbiFunction).slice(2).toLowerCase();
  } catch {
    return null;
  }
}

/** The entry with `method_id` added (functions only), as the old Blockscout endpoints did. */
export function withMethodId(e: AbiEntry): AbiEntry {
  const id = methodId(e);
  return id === null ? { ...e } : { ...e, method_id: id };
}

/**
 * A decoded value as Blockscout's render_json writes it: numbers and booleans as strings,
 * addresses checksummed, bytes as 0x hex, arrays and tuples as lists of rendered values.
 */
export function renderValue(value: unknown, param: AbiParam): unknown {
  const arr = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (arr) return Array.isArray(value) ? value.map((v) => renderValue(v, { ...param, type: arr[1]! })) : [];
  if (param.type === 'tuple') {
    const comps = param.components ?? [];
    return comps.map((c, i) => {
      const v = Array.isArray(value) ? value[i] : value && typeof value === 'object' ? (value as Record<string, unknown>)[c.name ?? ''] : undefined;
      return renderValue(v, c);
    });
  }
  if (typeof value === 'string' && (param.type === 'address' || param.type === 'address payable') && /^0x[0-9a-fA-F]{40}$/.test(value)) {
    return checksum(value.toLowerCase());
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return value === null || value === undefined ? '' : String(value);
}

/** The outputs of a read method with their values from the raw eth_call result (throws if undecodable). */
export function outputsWithValues(e: AbiEntry, raw: `0x${string}`): AbiParam[] {
  const outputs = e.outputs ?? [];
  const decoded = decodeFunctionResult({ abi: [e as unknown as AbiFunction], functionName: e.name!, data: raw }) as unknown;
  const values = outputs.length === 1 ? [decoded] : Array.isArray(decoded) ? decoded : [];
  return outputs.map((o, i) => ({ ...o, value: renderValue(values[i], o) }));
}
