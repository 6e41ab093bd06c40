// Contract verification in the public API v2, as Blockscout serves it:
// POST /smart-contracts/{address}/verification/via/standard-input (the form Blockscout's frontend
// sends: multipart with the standard JSON input as the file `files[0]`, or the same fields as
// JSON with `input`) answers at once, "Smart-contract verification started", and the result
// follows on the websocket (`addresses:<address>`, `verification_result`) and in
// /smart-contracts/{address}; also via/flattened-code (one file and its settings) and
// via/multi-part (several files); GET /smart-contracts/verification/config lists the compilers.
// Vyper and Sourcify are not accepted yet (README says so).
import type { ApiReply, ApiRequest } from '../http.js';
import { CORS_HEADERS, JSON_TYPE } from '../http.js';
import type { RouteDef } from '../router.js';
import { normalizeVersion } from '../../verify/compilers.js';
import { VerificationRefused, type VerificationService } from '../../verify/service.js';
import { InputRefused, flattenedPath, inputFromSources, type PlainSettings } from '../../verify/inputs.js';

/** The EVM versions solc accepts (newest first), as the config lists them. */
const EVM_VERSIONS = ['default', 'osaka', 'prague', 'cancun', 'shanghai', 'paris', 'london', 'berlin', 'istanbul', 'petersburg', 'constantinople', 'byzantium', 'spuriousDragon', 'tangerineWhistle', 'homestead'];

/** Blockscout's license_type choices (Etherscan's licenseType numbers). */
export const LICENSE_TYPES: Record<string, number> = {
  none: 1,
  unlicense: 2,
  mit: 3,
  gnu_gpl_v2: 4,
  gnu_gpl_v3: 5,
  gnu_lgpl_v2_1: 6,
  gnu_lgpl_v3: 7,
  bsd_2_clause: 8,
  bsd_3_clause: 9,
  mpl_2_0: 10,
  osl_3_0: 11,
  apache_2_0: 12,
  gnu_agpl_v3: 13,
  bsl_1_1: 14,
};

export const verificationConfigRoutes: RouteDef[] = [
  {
    pattern: '/smart-contracts/verification/config',
    async handler({ ctx }) {
      const compilers = ctx.verification?.compilers;
      const versions = compilers ? await compilers.versions() : [];
      return {
        body: {
          solidity_compiler_versions: versions,
          solidity_evm_versions: EVM_VERSIONS,
          vyper_compiler_versions: [],
          vyper_evm_versions: [],
          verification_options: compilers ? VERIFICATION_KINDS : [],
          is_rust_verifier_microservice_enabled: false,
          license_types: LICENSE_TYPES,
        },
        // The list of downloadable builds changes rarely; the cache's when a version is fetched.
        policy: 'volatile',
      };
    },
  },
];

const reply = (status: number, body: unknown): ApiReply => ({ status, headers: { 'content-type': JSON_TYPE, ...CORS_HEADERS }, body: JSON.stringify(body) });

/** The POST path this module answers: /api/v2/smart-contracts/<address>/verification/via/<kind>. */
export const VERIFICATION_POST = /^\/api\/v2\/smart-contracts\/([^/]+)\/verification\/via\/([^/]+)\/?$/;

interface Form {
  fields: Record<string, string>;
  /** Uploaded files (multipart), in order: the field, the file name, the text. */
  files: { field: string; name: string; content: string }[];
}

/** The form's fields and files: multipart, urlencoded or JSON (whose objects are kept as JSON text). */
async function formOf(req: ApiRequest): Promise<Form | null> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  const body = req.body ?? Buffer.alloc(0);
  const out: Form = { fields: {}, files: [] };
  try {
    if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
      // The platform's own multipart and urlencoded parser (undici's, behind Response).
      const form = await new Response(new Uint8Array(body), { headers: { 'content-type': req.headers['content-type'] } }).formData();
      for (const [k, v] of form as unknown as Iterable<[string, string | File]>) {
        if (typeof v === 'string') {
          if (!(k in out.fields)) out.fields[k] = v;
        } else out.files.push({ field: k, name: v.name, content: await v.text() });
      }
      return out;
    }
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    for (const [k, v] of Object.entries(parsed)) out.fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
    return out;
  } catch {
    return null;
  }
}

const truthy = (v: string | undefined) => v === 'true' || v === '1';

/** The plain settings of the flattened and multi-part forms (Blockscout's field names). */
function plainSettings(f: Record<string, string>): PlainSettings {
  const runs = f.optimization_runs !== undefined && f.optimization_runs !== '' ? Number(f.optimization_runs) : undefined;
  return { optimize: truthy(f.is_optimization_enabled), runs, evmVersion: f.evm_version || undefined, viaIR: truthy(f.via_ir ?? f.is_via_ir) };
}

/**
 * The standard JSON input a POST of `kind` carries or describes, or the refusal to answer.
 * standard-input: the input as files[0] (or `input`); flattened-code: `source_code` and the
 * settings; multi-part: the files (named by their paths) and the settings, or `sources` as JSON.
 */
function inputOf(kind: string, form: Form, contractName: string): { input: unknown; contractName: string } | string {
  const f = form.fields;
  if (kind === 'standard-input') {
    const raw = form.files.find((x) => x.field === 'files[0]' || x.field === 'files')?.content ?? f['files[0]'] ?? f.files ?? f.input;
    if (!raw) return 'the standard JSON input is required (files[0])';
    try {
      const input = JSON.parse(raw) as unknown;
      return input && typeof input === 'object' && !Array.isArray(input) ? { input, contractName } : 'the standard JSON input must be an object';
    } catch {
      return 'the standard JSON input is not valid JSON';
    }
  }
  let sources: Record<string, string>;
  if (kind === 'flattened-code') {
    if (!f.source_code) return 'source_code is required';
    const name = contractName.slice(contractName.lastIndexOf(':') + 1);
    sources = { [flattenedPath(name)]: f.source_code };
    contractName = name;
  } else {
    sources = {};
    for (const file of form.files) if (/^files\[\d+\]$|^files$/.test(file.field)) sources[file.name] = file.content;
    if (!form.files.length && f.sources) {
      try {
        sources = JSON.parse(f.sources) as Record<string, string>;
      } catch {
        return 'sources is not valid JSON';
      }
    }
    if (!Object.keys(sources).length) return 'the source files are required (files[0], files[1]...)';
  }
  try {
    return { input: inputFromSources(sources, plainSettings(f)), contractName };
  } catch (e) {
    if (e instanceof InputRefused) return e.message;
    throw e;
  }
}

/** The verification forms this API takes. */
export const VERIFICATION_KINDS = ['standard-input', 'flattened-code', 'multi-part'];

/**
 * The answer to a verification POST, or null when `req` is not one. `client`: who is asking (one
 * running verification each).
 */
export async function verificationPost(req: ApiRequest, service: VerificationService | undefined, client: string): Promise<ApiReply | null> {
  const m = VERIFICATION_POST.exec(req.path);
  if (!m) return null;
  const [, rawAddress, kind] = m;
  if (!/^0x[0-9a-fA-F]{40}$/.test(rawAddress)) return reply(422, { errors: [{ title: 'Invalid value', source: { pointer: '/address_hash' }, detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/' }] });
  if (!service) return reply(404, { message: 'Verification is not enabled on this instance' });
  if (!VERIFICATION_KINDS.includes(kind)) return reply(422, { message: `verification via ${kind.slice(0, 40)} is not supported here; use one of ${VERIFICATION_KINDS.join(', ')}` });
  const form = await formOf(req);
  if (!form) return reply(400, { message: 'The request body could not be read: send multipart/form-data or JSON' });
  const compilerVersion = form.fields.compiler_version ?? '';
  if (!normalizeVersion(compilerVersion)) return reply(422, { message: 'compiler_version must be a full solc version such as v0.8.20+commit.a1b79de6' });
  const name = (form.fields.contract_name ?? '').trim();
  if (!name) return reply(422, { message: 'contract_name is required' });
  const got = inputOf(kind, form, name);
  if (typeof got === 'string') return reply(422, { message: got });
  try {
    const license = form.fields.license_type;
    await service.submitSolidity({
      address: rawAddress.toLowerCase(),
      compilerVersion,
      contractName: got.contractName,
      input: got.input as never,
      client,
      ip: req.ip,
      licenseType: license && Object.hasOwn(LICENSE_TYPES, license) ? license : undefined,
      // Blockscout's form: arguments count only when autodetection is off.
      constructorArgs: form.fields.autodetect_constructor_args === 'false' ? form.fields.constructor_args || undefined : undefined,
    });
    return reply(200, { message: 'Smart-contract verification started' });
  } catch (e) {
    if (e instanceof VerificationRefused) {
      if (e.kind === 'already-verified') return reply(200, { message: 'Already verified' });
      if (e.kind === 'not-a-contract') return reply(400, { message: e.message });
      if (e.kind === 'busy') {
        const refused = reply(429, { message: e.message });
        refused.headers['retry-after'] = String(e.retryAfterSeconds ?? 1);
        return refused;
      }
      return reply(422, { message: e.message });
    }
    throw e;
  }
}
