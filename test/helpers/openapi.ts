// OpenAPI conformance for tests: loads Blockscout's OpenAPI document (../shared/spec, v10.2.6)
// and validates response bodies against an operation's 200 schema, strictly: `required`,
// `nullable`, `additionalProperties: false`, `pattern`, `enum`, `format` (date-time, uri),
// bounds, `anyOf`/`oneOf`/`allOf`. The places where the live Blockscout server is documented to
// differ from its document (../shared/spec/blockscout-api-v2.md, the ⚠ notes) are applied in ONE
// place, documentedDifferences(), and nowhere else; this project's own additions in ourAdditions().
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export type Schema = Record<string, any>;

export interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** build/test/helpers → the project root → ../shared */
export const SHARED_DIR = path.resolve(here, '../../../../shared');
export const OPENAPI_FILE = path.join(SHARED_DIR, 'spec', 'blockscout-openapi-10.2.6.yaml');

/** The document with the documented differences applied, or null when ../shared is absent. */
export function loadOpenApi(): OpenApiDoc | null {
  if (!fs.existsSync(OPENAPI_FILE)) return null;
  const doc = parse(fs.readFileSync(OPENAPI_FILE, 'utf8'), { maxAliasCount: -1 }) as OpenApiDoc;
  documentedDifferences(doc);
  ethereumBuild(doc);
  optimismBuild(doc);
  ourAdditions(doc);
  return doc;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The live server's documented departures from its OpenAPI document, each with its source in
 * ../shared/spec/blockscout-api-v2.md:
 * 1. §2.2 ⚠: Transaction.to is null for a contract creation (the schema says non-null).
 * 2. §2.4: InternalTransaction.to is null for a creation (`to: Address|null`; the new contract is
 *    in created_contract).
 * 3. §2.6 ⚠: StateChange.change is a list of {total, direction} for ERC-721 (the schema allows
 *    only a string).
 * 4. §1.2 and §3.3 ⚠: /main-page/indexing-status ratios are decimal strings (Decimal encodes as a
 *    string; the schema says number).
 * 5. /transactions/{hash}/raw-trace is the node's parity-style trace as the node gives it
 *    (`trace_transaction`): besides the keys RawTrace lists, items carry blockHash, blockNumber,
 *    transactionPosition and error, creations their init/creationMethod and result address/code,
 *    and self-destructs are `suicide` items with address/refundAddress/balance (ours: no section of
 *    the spec page describes raw-trace; Blockscout relays the node's trace the same way).
 * 6. /stats/hot-smart-contracts items carry transactions_count and total_gas_used as digit strings
 *    (the schema says integers): Blockscout 10.2.6's StatsView writes both with to_string, and its
 *    frontend's HotContract type reads strings (ours: the spec page has no section on it).
 */
export function documentedDifferences(doc: OpenApiDoc): void {
  const s = doc.components.schemas;
  for (const name of ['Transaction', 'TransactionResponse']) {
    s[name].properties.to = { allOf: [ref('Address')], nullable: true };
  }
  s.InternalTransaction.properties.to = { allOf: [ref('Address')], nullable: true };
  s.StateChange.properties.change = {
    anyOf: [
      ref('IntegerStringNullable'),
      {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['direction', 'total'],
          properties: { direction: { type: 'string', enum: ['from', 'to'] }, total: ref('TotalERC721') },
        },
      },
    ],
  };
  const trace = s.RawTrace.items;
  trace.properties.blockHash = ref('FullHash');
  trace.properties.blockNumber = { type: 'integer', minimum: 0 };
  trace.properties.transactionPosition = { type: 'integer', minimum: 0 };
  trace.properties.error = { type: 'string' };
  trace.properties.type.enum = [...trace.properties.type.enum, 'suicide'];
  Object.assign(trace.properties.action.properties, {
    creationMethod: { type: 'string', enum: ['create', 'create2'] },
    address: ref('AddressHash'),
    refundAddress: ref('AddressHash'),
    balance: ref('HexString'),
  });
  trace.properties.action.required = [];
  Object.assign(trace.properties.result.properties, { address: ref('AddressHash'), code: ref('HexString') });
  trace.properties.result.required = ['gasUsed'];
  trace.properties.result.nullable = true;
  const status = doc.paths['/v2/main-page/indexing-status'].get.responses['200'].content['application/json'].schema;
  const decimal = { type: 'string', pattern: '^([1-9][0-9]*|0)(\\.[0-9]+)?$' };
  status.properties.indexed_blocks_ratio = decimal;
  status.properties.indexed_internal_transactions_ratio = { ...decimal, nullable: true };
  const hot = s.HotContract.properties;
  hot.transactions_count = { type: 'string', pattern: '^[1-9][0-9]*$' };
  hot.total_gas_used = { type: 'string', pattern: '^[1-9][0-9]*$' };
}

/**
 * What Blockscout's Ethereum build (CHAIN_TYPE=ethereum) answers beyond the default document, which
 * this project answers too: EIP-4844's blob fields and blob paths. Where Blockscout defines them
 * (blockscout/blockscout, apps/block_scout_web/lib/block_scout_web/):
 * - blocks: schemas/api/v2/block.ex's chain_type_fields :ethereum, filled by
 *   views/api/v2/ethereum_view.ex extend_block_json_response: blob_transactions_count,
 *   blob_gas_used and excess_blob_gas on every block (null before Cancun, required), blob_gas_price and
 *   burnt_blob_fees on a single block. Its beacon_deposits_count (EIP-6110 deposits, required
 *   there) is not answered here: deposits are not indexed, so it is left out, not required.
 * - transactions: schemas/api/v2/transaction.ex chain_type_fields :ethereum, filled by
 *   extend_transaction_json_response on a blob transaction only (absent on others):
 *   max_fee_per_blob_gas, blob_versioned_hashes, blob_gas_used, blob_gas_price, burnt_blob_fee.
 *   Nullable here: a node whose receipts lack the blob fields leaves them unknown (Blockscout
 *   stores no blob row then).
 * - GET /transactions/{hash}/blobs (controllers/api/v2/transaction_controller.ex :blobs, items of
 *   schemas/api/v2/blob.ex) and GET /blobs/{hash} (controllers/api/v2/blob_controller.ex,
 *   views/api/v2/blob_view.ex: the blob and `transaction_hashes`, items {block_consensus,
 *   transaction_hash}). blob_data, kzg_commitment and kzg_proof are null where the blob's data is
 *   not known (Blockscout's left join with its blobs table gives nil; its schema says non-null).
 *   Each transaction_hashes item's block_number and timestamp are this project's additions.
 */
function ethereumBuild(doc: OpenApiDoc): void {
  const s = doc.components.schemas;
  for (const name of ['Block', 'BlockResponse']) {
    Object.assign(s[name].properties, {
      blob_transactions_count: { type: 'integer', minimum: 0, nullable: false },
      blob_gas_used: ref('IntegerStringNullable'),
      excess_blob_gas: ref('IntegerStringNullable'),
      blob_gas_price: ref('IntegerStringNullable'),
      burnt_blob_fees: ref('IntegerString'),
    });
    s[name].required = [...s[name].required, 'blob_transactions_count', 'blob_gas_used', 'excess_blob_gas'];
  }
  for (const name of ['Transaction', 'TransactionResponse']) {
    Object.assign(s[name].properties, {
      max_fee_per_blob_gas: ref('IntegerStringNullable'),
      blob_versioned_hashes: { type: 'array', items: ref('FullHash'), nullable: false },
      blob_gas_used: ref('IntegerStringNullable'),
      blob_gas_price: ref('IntegerStringNullable'),
      burnt_blob_fee: ref('IntegerStringNullable'),
    });
  }
  const hexOrNull = { type: 'string', pattern: '^0x([A-Fa-f0-9]*)$', nullable: true };
  const blob = {
    type: 'object',
    additionalProperties: false,
    required: ['hash', 'blob_data', 'kzg_commitment', 'kzg_proof'],
    properties: { hash: ref('FullHash'), blob_data: hexOrNull, kzg_commitment: hexOrNull, kzg_proof: hexOrNull },
  };
  s.Blob = blob;
  const json = (schema: Schema) => ({ '200': { description: 'OK', content: { 'application/json': { schema } } } });
  doc.paths['/v2/transactions/{transaction_hash_param}/blobs'] = {
    get: {
      parameters: doc.paths['/v2/transactions/{transaction_hash_param}'].get.parameters,
      responses: json({ type: 'object', additionalProperties: false, required: ['items'], properties: { items: { type: 'array', items: ref('Blob') } } }),
    },
  };
  doc.paths['/v2/blobs/{blob_hash_param}'] = {
    get: {
      parameters: [{ in: 'path', name: 'blob_hash_param', required: true, schema: ref('FullHash') }],
      responses: json({
        ...blob,
        required: [...blob.required, 'transaction_hashes'],
        properties: {
          ...blob.properties,
          transaction_hashes: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['block_consensus', 'transaction_hash', 'block_number', 'timestamp'],
              properties: {
                block_consensus: { type: 'boolean' },
                transaction_hash: ref('FullHash'),
                block_number: { type: 'integer', minimum: 0 },
                timestamp: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      }),
    },
  };
}

/**
 * What Blockscout's optimism build (CHAIN_TYPE=optimism) answers beyond the default document, which
 * this project answers on an OP Stack chain (README.md, "OP Stack"). Where Blockscout defines
 * them (blockscout/blockscout, apps/block_scout_web/lib/block_scout_web/): transactions:
 * schemas/api/v2/transaction.ex chain_type_fields :optimism, filled by views/api/v2/optimism_view.ex
 * extend_transaction_json_response: l1_fee, l1_fee_scalar, l1_gas_price, l1_gas_used and
 * da_footprint_gas_scalar each where the node gave it, operator_fee where above zero (absent
 * otherwise, so none is required; op_withdrawals likewise, on a single transaction).
 */
function optimismBuild(doc: OpenApiDoc): void {
  const s = doc.components.schemas;
  // Blockscout stores l1_fee_scalar as a decimal (before Ecotone a fraction such as "0.684").
  const decimalText = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$' };
  const withdrawal = {
    type: 'object',
    additionalProperties: false,
    required: ['nonce', 'status', 'l1_transaction_hash'],
    properties: {
      nonce: { type: 'integer' },
      // Null here: the L1 side is not built.
      status: { type: 'string', nullable: true },
      l1_transaction_hash: { ...ref('FullHash'), nullable: true },
      portal_contract_address_hash: { type: 'string', nullable: true },
      msg_nonce_raw: ref('IntegerString'),
      msg_sender_address_hash: { type: 'string', nullable: true },
      msg_target_address_hash: { type: 'string', nullable: true },
      msg_value: ref('IntegerStringNullable'),
      msg_gas_limit: ref('IntegerStringNullable'),
      msg_data: { type: 'string', nullable: true },
    },
  };
  for (const name of ['Transaction', 'TransactionResponse']) {
    Object.assign(s[name].properties, {
      l1_fee: ref('IntegerString'),
      l1_fee_scalar: decimalText,
      l1_gas_price: ref('IntegerString'),
      l1_gas_used: ref('IntegerString'),
      da_footprint_gas_scalar: ref('IntegerString'),
      operator_fee: ref('IntegerString'),
      op_withdrawals: { type: 'array', items: withdrawal },
    });
  }
  // /optimism/deposits and /optimism/withdrawals items (schemas/api/v2/optimism/deposit.ex and
  // withdrawal.ex). What only the L1 side knows is null here (not built: README.md, "OP Stack"),
  // where Blockscout's schema says non-null; l2_block_number and l2_timestamp of a deposit are
  // this explorer's additions.
  const nullable = (x: Schema) => ({ ...x, nullable: true });
  s.OptimismDeposit = {
    type: 'object',
    additionalProperties: false,
    required: ['l1_block_number', 'l1_block_timestamp', 'l1_transaction_hash', 'l1_transaction_origin', 'l2_transaction_gas_limit', 'l2_transaction_hash', 'l2_block_number', 'l2_timestamp'],
    properties: {
      l1_block_number: { type: 'integer', nullable: true },
      l1_block_timestamp: { type: 'string', format: 'date-time', nullable: true },
      l1_transaction_hash: nullable(ref('FullHash')),
      l1_transaction_origin: { type: 'string', nullable: true },
      l2_transaction_gas_limit: ref('IntegerString'),
      l2_transaction_hash: ref('FullHash'),
      l2_block_number: { type: 'integer', minimum: 0 },
      l2_timestamp: { type: 'string', format: 'date-time' },
    },
  };
  const addressHash = { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$', nullable: true };
  s.OptimismWithdrawal = {
    type: 'object',
    additionalProperties: false,
    required: [
      'challenge_period_end', 'from', 'l1_transaction_hash', 'l2_timestamp', 'l2_transaction_hash', 'msg_data', 'msg_gas_limit', 'msg_nonce',
      'msg_nonce_raw', 'msg_nonce_version', 'msg_sender_address_hash', 'msg_target_address_hash', 'msg_value', 'portal_contract_address_hash', 'status',
    ],
    properties: {
      challenge_period_end: { type: 'string', format: 'date-time', nullable: true },
      from: { allOf: [ref('Address')], nullable: true },
      l1_transaction_hash: nullable(ref('FullHash')),
      l2_timestamp: { type: 'string', format: 'date-time', nullable: true },
      l2_transaction_hash: ref('FullHash'),
      msg_data: { type: 'string', pattern: '^0x([A-Fa-f0-9]*)$', nullable: true },
      msg_gas_limit: ref('IntegerStringNullable'),
      msg_nonce: { type: 'integer' },
      msg_nonce_raw: ref('IntegerString'),
      msg_nonce_version: { type: 'integer' },
      msg_sender_address_hash: addressHash,
      msg_target_address_hash: addressHash,
      msg_value: ref('IntegerStringNullable'),
      portal_contract_address_hash: addressHash,
      status: {
        type: 'string',
        enum: ['Waiting for state root', 'Ready to prove', 'Waiting a game to resolve', 'In challenge period', 'Ready for relay', 'Proven', 'Relayed'],
        nullable: true,
      },
    },
  };
  const json = (schema: Schema) => ({ '200': { description: 'OK', content: { 'application/json': { schema } } } });
  const page = (item: string) => ({
    type: 'object',
    additionalProperties: false,
    required: ['items', 'next_page_params'],
    properties: { items: { type: 'array', items: ref(item) }, next_page_params: { type: 'object', nullable: true } },
  });
  doc.paths['/v2/optimism/deposits'] = { get: { parameters: [], responses: json(page('OptimismDeposit')) } };
  doc.paths['/v2/optimism/withdrawals'] = { get: { parameters: [], responses: json(page('OptimismWithdrawal')) } };
  doc.paths['/v2/optimism/deposits/count'] = { get: { parameters: [], responses: json({ type: 'integer', minimum: 0 }) } };
  doc.paths['/v2/optimism/withdrawals/count'] = { get: { parameters: [], responses: json({ type: 'integer', minimum: 0 }) } };
}

/**
 * This project's own additions: `caveats` on the answers whose figures a partial history or node
 * leaves incomplete (README.md, "Partial history": a token, its holders, an address, its tokens),
 * an object of sentences keyed by the figure they qualify, absent when complete; and how a
 * transaction's method and a log's decoding were named (README.md, "Names for unverified calls").
 */
function ourAdditions(doc: OpenApiDoc): void {
  const caveats = { type: 'object', additionalProperties: { type: 'string' } };
  const s = doc.components.schemas;
  for (const name of ['TokenResponse', 'AddressResponse']) s[name].properties.caveats = caveats;
  // How `method`/`decoded_input` and a log's `decoded` were named (src/abi/naming.ts), or null.
  const naming = {
    type: 'object',
    nullable: true,
    additionalProperties: false,
    required: ['source', 'origin', 'signature', 'other_signatures'],
    properties: {
      source: { type: 'string', enum: ['verified_abi', 'custom_abi', 'catalogue', 'other_verified_contract', 'imported', 'online'] },
      origin: { type: 'string', nullable: true },
      signature: { type: 'string' },
      other_signatures: { type: 'array', items: { type: 'string' } },
    },
  };
  for (const name of ['Transaction', 'TransactionResponse']) s[name].properties.method_naming = naming;
  // On a transaction of an OP Stack chain (README.md, "OP Stack"): a deposit's fields, and the
  // L1-fee and operator-fee parameters Blockscout stores but does not answer; null where the node
  // gave none, absent on other chains.
  const opAdditions = {
    source_hash: { ...ref('FullHash'), nullable: true },
    mint: ref('IntegerStringNullable'),
    is_system_tx: { type: 'boolean', nullable: true },
    deposit_nonce: ref('IntegerStringNullable'),
    deposit_receipt_version: ref('IntegerStringNullable'),
    l1_base_fee_scalar: ref('IntegerStringNullable'),
    l1_blob_base_fee: ref('IntegerStringNullable'),
    l1_blob_base_fee_scalar: ref('IntegerStringNullable'),
    operator_fee_scalar: ref('IntegerStringNullable'),
    operator_fee_constant: ref('IntegerStringNullable'),
  };
  for (const name of ['Transaction', 'TransactionResponse']) Object.assign(s[name].properties, opAdditions);
  s.Log.properties.decoded_naming = naming;
  for (const path of ['/v2/tokens/{address_hash_param}/holders', '/v2/addresses/{address_hash_param}/tokens']) {
    doc.paths[path].get.responses['200'].content['application/json'].schema.properties.caveats = caveats;
  }
}

/** The 200 response schema of GET `template` (e.g. '/v2/blocks/{block_hash_or_number_param}'). */
export function responseSchema(doc: OpenApiDoc, template: string): Schema {
  const op = doc.paths[template]?.get;
  if (!op) throw new Error(`no GET ${template} in the document`);
  return op.responses['200'].content['application/json'].schema;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (Number.isInteger(v)) return 'integer';
  return typeof v;
}

/** Every violation of `schema` by `value`, as "path: message". */
export function validate(doc: OpenApiDoc, schema: Schema, value: unknown, at = '$'): string[] {
  const errors: string[] = [];
  check(doc, schema, value, at, errors);
  return errors;
}

function resolve(doc: OpenApiDoc, schema: Schema): Schema {
  let s = schema;
  while (s && s.$ref) {
    const name = String(s.$ref).replace('#/components/schemas/', '');
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`unresolved ${s.$ref}`);
    // Keywords beside a $ref (OpenApiSpex puts none that matter) are ignored, as OpenAPI 3.0 says.
    s = target;
  }
  return s;
}

function check(doc: OpenApiDoc, raw: Schema, v: unknown, at: string, errors: string[]): void {
  const s = resolve(doc, raw);
  if (v === null) {
    // nullable on the wrapper (allOf + nullable) or on the schema itself.
    if (raw.nullable === true || s.nullable === true) return;
    if (s.allOf && s.allOf.length === 1 && resolve(doc, s.allOf[0]).nullable === true) return;
    if (s.anyOf && s.anyOf.some((x: Schema) => x.nullable === true || resolve(doc, x).nullable === true)) return;
    errors.push(`${at}: null is not allowed`);
    return;
  }
  if (s.allOf) for (const sub of s.allOf) check(doc, sub, v, at, errors);
  if (s.anyOf) {
    const ok = s.anyOf.some((sub: Schema) => validate(doc, sub, v, at).length === 0);
    if (!ok) {
      const detail = s.anyOf.map((sub: Schema) => validate(doc, sub, v, at).slice(0, 2).join('; ')).join(' | ');
      errors.push(`${at}: matches none of anyOf (${detail})`);
    }
  }
  if (s.oneOf) {
    const n = s.oneOf.filter((sub: Schema) => validate(doc, sub, v, at).length === 0).length;
    if (n !== 1) errors.push(`${at}: matches ${n} of oneOf (exactly 1 required)`);
  }
  const t = typeOf(v);
  const type = s.type ?? (s.properties ? 'object' : undefined);
  if (type) {
    const okType = type === t || (type === 'number' && t === 'integer');
    if (!okType) {
      errors.push(`${at}: expected ${type}, got ${t}`);
      return;
    }
  }
  if (s.enum && !s.enum.includes(v)) errors.push(`${at}: ${JSON.stringify(v)} not in enum ${JSON.stringify(s.enum)}`);
  if (typeof v === 'string') {
    if (s.pattern && !new RegExp(s.pattern).test(v)) errors.push(`${at}: ${JSON.stringify(v.slice(0, 80))} does not match ${s.pattern}`);
    if (s.format === 'date-time' && !DATE_TIME.test(v)) errors.push(`${at}: ${JSON.stringify(v)} is not a date-time`);
    if (s.format === 'uri') {
      try {
        new URL(v);
      } catch {
        errors.push(`${at}: ${JSON.stringify(v)} is not a uri`);
      }
    }
    if (s.minLength !== undefined && v.length < s.minLength) errors.push(`${at}: shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && v.length > s.maxLength) errors.push(`${at}: longer than ${s.maxLength}`);
  }
  if (typeof v === 'number') {
    if (s.minimum !== undefined && v < s.minimum) errors.push(`${at}: ${v} < minimum ${s.minimum}`);
    if (s.maximum !== undefined && v > s.maximum) errors.push(`${at}: ${v} > maximum ${s.maximum}`);
  }
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) errors.push(`${at}: more than ${s.maxItems} items`);
    if (s.minItems !== undefined && v.length < s.minItems) errors.push(`${at}: fewer than ${s.minItems} items`);
    if (s.items) v.forEach((x, i) => check(doc, s.items, x, `${at}[${i}]`, errors));
  }
  if (t === 'object' && (type === 'object' || s.properties)) {
    const o = v as Record<string, unknown>;
    for (const r of s.required ?? []) if (!(r in o)) errors.push(`${at}: missing required ${r}`);
    const props = s.properties ?? {};
    for (const [k, x] of Object.entries(o)) {
      if (props[k]) check(doc, props[k], x, `${at}.${k}`, errors);
      else if (s.additionalProperties === false) errors.push(`${at}: unexpected property ${k}`);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') check(doc, s.additionalProperties, x, `${at}.${k}`, errors);
    }
  }
}
