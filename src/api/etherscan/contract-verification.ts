// module=contract of the Etherscan-compatible API, the actions developers' tools use to verify
// and fetch contracts (forge verify-contract, hardhat-verify, wagmi): verifysourcecode and
// checkverifystatus (a guid to poll), getabi and getsourcecode; the literal strings those tools
// match are Blockscout's (../shared/spec/blockscout-api-v2.md §6.3). The verification itself is
// the v2 API's (src/verify/service.ts).
import type { ApiContext } from '../context.js';
import { verifiedRow, jobStatus } from '../../storage/postgres/verified.js';
import { VerificationRefused } from '../../verify/service.js';
import { normalizeVersion } from '../../verify/compilers.js';
import { InputRefused, flattenedPath, inputFromSources } from '../../verify/inputs.js';
import { parseAddress, type Params } from './params.js';
import { LICENSE_TYPES } from '../routes/verification.js';
import { fail, ok, type ActionReply, type ActionTable } from './actions.js';

const NOT_VERIFIED = 'Contract source code not verified';

function addressParam(p: Params): string | ActionReply {
  const raw = p.get('address');
  if (raw === undefined) return fail('Query parameter address is required');
  return parseAddress(raw.trim()) ?? fail('Invalid address hash');
}

async function getabi(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const address = addressParam(p);
  if (typeof address !== 'string') return address;
  const v = await verifiedRow(ctx.pg, address);
  // A verification may come at any time: neither answer is kept long.
  return v ? ok(JSON.stringify(v.abi)) : fail(NOT_VERIFIED, null, 'volatile');
}

async function getsourcecode(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const address = addressParam(p);
  if (typeof address !== 'string') return address;
  const v = await verifiedRow(ctx.pg, address);
  if (!v) return ok([{ Address: address }]);
  const additional = Object.entries(v.sources)
    .filter(([path]) => path !== v.file_path)
    .map(([Filename, SourceCode]) => ({ Filename, SourceCode }));
  const implementations = (await ctx.addressFacts([address])).get(address)?.proxy?.implementations.map((i) => i.address) ?? [];
  return ok([
    {
      Address: address,
      SourceCode: v.sources[v.file_path] ?? '',
      ABI: JSON.stringify(v.abi),
      ContractName: v.name,
      CompilerVersion: v.compiler_version,
      OptimizationUsed: v.optimization ? 'true' : 'false',
      ...(v.optimization && v.optimization_runs !== null ? { OptimizationRuns: v.optimization_runs } : {}),
      EVMVersion: v.evm_version ?? 'default',
      FileName: v.file_path,
      ...(v.constructor_args ? { ConstructorArguments: v.constructor_args.replace(/^0x/, '') } : {}),
      ExternalLibraries: Object.entries(v.libraries).map(([name, address_hash]) => ({ name, address_hash })),
      AdditionalSources: additional,
      CompilerSettings: v.settings,
      IsProxy: implementations.length ? 'true' : 'false',
      ...(implementations.length ? { ImplementationAddress: implementations[0], ImplementationAddresses: implementations } : {}),
    },
  ]);
}

/**
 * Accepts a verification (Etherscan's form: codeformat, contractaddress, contractname,
 * compilerversion, sourceCode; for a single file also optimizationUsed, runs, evmversion) and
 * answers its guid. Constructor arguments, when sent, must be the creation input's; linked
 * libraries are read from the deployed code.
 */
async function verifysourcecode(p: Params, ctx: ApiContext, client: string, ip: string): Promise<ActionReply> {
  const service = ctx.verification?.service;
  if (!service) return fail('Contract verification is not enabled on this instance');
  const format = p.get('codeformat');
  if (format === undefined) return fail('Missing codeformat field');
  const sourceCode = p.get('sourceCode') ?? p.get('sourcecode');
  const rawAddress = p.get('contractaddress');
  if (sourceCode === undefined || rawAddress === undefined) return fail('Missing sourceCode or contractaddress fields');
  const address = parseAddress(rawAddress.trim());
  if (!address) return fail('Invalid address hash', 'Invalid address hash');
  if (format !== 'solidity-standard-json-input' && format !== 'solidity-single-file') {
    return fail(`codeformat ${format.slice(0, 40)} is not verified here: send solidity-standard-json-input or solidity-single-file`);
  }
  let contractName = p.get('contractname');
  if (!contractName) return fail('contractname is required.', 'contractname is required.');
  const compilerVersion = p.get('compilerversion');
  if (!compilerVersion) return fail('compilerversion is required.', 'compilerversion is required.');
  if (!normalizeVersion(compilerVersion)) return fail('Invalid compilerversion: expected e.g. v0.8.20+commit.a1b79de6');
  let input: unknown;
  if (format === 'solidity-single-file') {
    // One flattened file and its settings (Etherscan's field names).
    contractName = contractName.slice(contractName.lastIndexOf(':') + 1);
    const runs = p.get('runs');
    try {
      input = inputFromSources(
        { [flattenedPath(contractName)]: sourceCode },
        { optimize: p.get('optimizationUsed') === '1' || p.get('optimizationused') === '1', runs: runs ? Number(runs) : undefined, evmVersion: p.get('evmversion') || undefined },
      );
    } catch (e) {
      if (e instanceof InputRefused) return fail(e.message);
      throw e;
    }
  } else {
    try {
      input = JSON.parse(sourceCode);
    } catch {
      return fail('sourceCode is not a standard JSON input (invalid JSON)');
    }
    if (!input || typeof input !== 'object' || Array.isArray(input)) return fail('sourceCode is not a standard JSON input');
  }
  try {
    // Etherscan numbers the licenses (licenseType=3 is MIT); Blockscout names them.
    const licenseNumber = Number(p.get('licenseType') ?? p.get('licensetype'));
    const licenseType = Object.entries(LICENSE_TYPES).find(([, n]) => n === licenseNumber)?.[0];
    // The correctly spelled field, as Blockscout reads it (forge also sends Etherscan's misspelling).
    const constructorArgs = p.get('constructorArguments') || undefined;
    const guid = await service.submitSolidity({ address, compilerVersion, contractName, input: input as never, client, ip, licenseType, constructorArgs });
    return ok(guid, 'none');
  } catch (e) {
    if (e instanceof VerificationRefused) {
      // No place in the verification queue: when to retry, as the v2 API says it.
      if (e.kind === 'busy') return { ...fail(e.message, e.message), status: 429, headers: { 'retry-after': String(e.retryAfterSeconds ?? 1) } };
      return fail(e.message, e.message);
    }
    throw e;
  }
}

/** The state of a verifysourcecode guid; status "1" whatever it says (as forge and hardhat expect). */
async function checkverifystatus(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const guid = p.get('guid');
  if (guid === undefined) return fail('Query parameter guid is required');
  const job = /^[0-9a-f]{41,60}$/.test(guid) ? await jobStatus(ctx.pg, guid) : null;
  const result = !job ? 'Unknown UID' : job.status === 'pending' ? 'Pending in queue' : job.status === 'pass' ? 'Pass - Verified' : 'Fail - Unable to verify';
  return ok(result, 'none');
}

export const contractVerificationActions: ActionTable = { getabi, getsourcecode, verifysourcecode, checkverifystatus };
