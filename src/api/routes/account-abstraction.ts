// ERC-4337 user operations natively under /proxy/account-abstraction/*, the paths Blockscout
// proxies to its user-ops-indexer service, with that service's answers (blockscout-rs,
// user-ops-indexer: what each list counts and how it is ordered and paged) in the shapes of
// Blockscout's OpenAPI 10.2.6. The operations are the indexer's `user_operations` rows
// (src/chain/user-operations.ts): written with their block, so there is no separate past
// indexing to wait for, and a reorg removes them with the block.
import { decodeAbiParameters, formatUnits, toFunctionSelector, type Hex } from 'viem';
import {
  accountByAddress,
  listAccounts,
  listBundles,
  listUserOperations,
  roleCounts,
  userOperationByHash,
  type AccountRead,
  type CountedAddressRead,
  type UserOperationRead,
} from '../../storage/clickhouse/reads/user-operations.js';
import { nameCall } from '../../abi/naming.js';
import { getFact } from '../../storage/postgres/indexer.js';
import { USER_OPERATIONS_FROM } from '../../storage/postgres/user-operations.js';
import { ApiError, NotFoundError } from '../errors.js';
import type { ApiContext } from '../context.js';
import { COMMON_QUERY, FULL_HASH_RE, type CastValue, type ParamSpec } from '../params.js';
import type { RouteDef } from '../router.js';
import { addressObject, requiredAddress, type FactsLookup } from '../serializers/address.js';
import { checksum, isoTimestamp } from '../serializers/common.js';
import type { SummaryVariable, TxSummary } from '../tx-summary.js';

const PREFIX = '/proxy/account-abstraction';
/** The fact naming the first block whose user operations are stored (sql/postgres/0022; 0 once the upgrade's backfill filled the rest). */
export { USER_OPERATIONS_FROM };
const DEFAULT_PAGE = 50;
const ADDRESS: ParamSpec = { kind: 'address' };
const PAGING: Record<string, ParamSpec> = { ...COMMON_QUERY, page_size: { kind: 'int', min: 1n, max: 50n }, page_token: { kind: 'string' } };
const ADDRESS_PATH: Record<string, ParamSpec> = { address_hash_param: ADDRESS };
const OP_PATH: Record<string, ParamSpec> = { operation_hash_param: { kind: 'fullHash' } };

/**
 * The account `execute` functions whose (target, value, data) Blockscout's indexer shows as the
 * operation's execute_target and execute_call_data (its EXECUTE_SELECTORS).
 */
const EXECUTE_SELECTORS = new Set<string>(
  [
    'function execute(address,uint256,bytes,uint8)',
    'function execute(address,uint256,bytes)',
    'function execute_ncC(address,uint256,bytes)',
    'function execTransactionFromEntrypoint(address,uint256,bytes)',
    'function executeAndRevert(address,uint256,bytes,uint8)',
    'function execFromEntryPoint(address,uint256,bytes)',
    'function execTransactionFromEntrypoint(address,uint256,bytes,uint8,address,address,uint256)',
    'function executeCall(address,uint256,bytes)',
    'function executeUserOp(address,uint256,bytes,uint8)',
    'function execFromEntryPointWithFee(address,uint256,bytes,(address,address,uint256))',
    'function execTransactionFromEntrypoint(address,uint256,bytes,uint8)',
    'function send(address,uint256,bytes)',
    'function execute(address,uint256,bytes,bytes)',
    'function callContract(address,uint256,bytes,bool)',
    'function exec(address,uint256,bytes)',
  ].map((s) => toFunctionSelector(s)),
);

/** The call an account's execute-like function makes: its target and data (null when call_data is not one). */
export function executeCall(callData: string): { target: string; data: string } | null {
  if (!EXECUTE_SELECTORS.has(callData.slice(0, 10).toLowerCase())) return null;
  try {
    const [target, , data] = decodeAbiParameters([{ type: 'address' }, { type: 'uint256' }, { type: 'bytes' }], `0x${callData.slice(10)}` as Hex);
    return { target: target.toLowerCase(), data: data.toLowerCase() };
  } catch {
    return null;
  }
}

const pageSizeOf = (q: Record<string, CastValue>): number => (typeof q.page_size === 'bigint' ? Number(q.page_size) : DEFAULT_PAGE);
const badToken = (): ApiError => new ApiError(400, { message: 'invalid page_token' });
const lowerOrUndefined = (v: CastValue | undefined): string | undefined => (typeof v === 'string' ? v.toLowerCase() : undefined);

/** `{items, next_page_params}` with Blockscout's `{page_size, page_token}` (the first item of the next page). */
function page<R, T>(rows: R[], size: number, json: (r: R) => T, token: (r: R) => string): { items: T[]; next_page_params: { page_size: number; page_token: string } | null } {
  const next = rows.length > size ? rows[size]! : null;
  return { items: rows.slice(0, size).map(json), next_page_params: next ? { page_size: size, page_token: token(next) } : null };
}

const nonceHash = (nonce: string): string => `0x${BigInt(nonce).toString(16).padStart(64, '0')}`;
const orNullHex = (s: string | null): string | null => (s === null || s === '' ? null : s);

function gasPrice(r: UserOperationRead): string {
  const used = BigInt(r.gas_used);
  return used === 0n ? '0' : (BigInt(r.actual_gas_cost) / used).toString();
}

/** Blockscout's raw user operation: v0.6's fields as sent, v0.7+'s packed ones. */
function rawJson(r: UserOperationRead) {
  const common = { sender: checksum(r.sender), nonce: r.nonce, init_code: r.init_code, call_data: r.call_data };
  if (r.entry_point_version === 'v0.6') {
    return {
      ...common,
      call_gas_limit: r.call_gas_limit,
      verification_gas_limit: r.verification_gas_limit,
      pre_verification_gas: r.pre_verification_gas,
      max_fee_per_gas: r.max_fee_per_gas,
      max_priority_fee_per_gas: r.max_priority_fee_per_gas,
      paymaster_and_data: r.paymaster_and_data,
      signature: r.signature,
    };
  }
  return {
    ...common,
    account_gas_limits: r.account_gas_limits,
    pre_verification_gas: r.pre_verification_gas,
    gas_fees: r.gas_fees,
    paymaster_and_data: r.paymaster_and_data,
    signature: r.signature,
  };
}

/** The addresses an operation's answer shows as address objects. */
const opAddresses = (r: UserOperationRead): string[] => {
  const exec = executeCall(r.call_data);
  return [r.sender, r.entry_point, r.bundler, r.factory, r.paymaster, exec?.target ?? ''].filter((a) => a !== '');
};

export function userOperationJson(r: UserOperationRead, facts: FactsLookup) {
  const exec = executeCall(r.call_data);
  return {
    hash: r.hash,
    sender: requiredAddress(r.sender, facts),
    nonce: nonceHash(r.nonce),
    call_data: r.call_data,
    call_gas_limit: r.call_gas_limit,
    verification_gas_limit: r.verification_gas_limit,
    pre_verification_gas: r.pre_verification_gas,
    max_fee_per_gas: r.max_fee_per_gas,
    max_priority_fee_per_gas: r.max_priority_fee_per_gas,
    signature: r.signature,
    raw: rawJson(r),
    aggregator: r.aggregator ? checksum(r.aggregator) : null,
    aggregator_signature: orNullHex(r.aggregator_signature),
    entry_point: requiredAddress(r.entry_point, facts),
    entry_point_version: r.entry_point_version,
    transaction_hash: r.transaction_hash,
    block_number: r.block_number,
    block_hash: r.block_hash,
    bundler: requiredAddress(r.bundler, facts),
    bundle_index: r.bundle_index,
    index: r.op_index,
    factory: addressObject(r.factory, facts),
    paymaster: addressObject(r.paymaster, facts),
    status: r.status === 1,
    revert_reason: orNullHex(r.revert_reason),
    gas: r.gas,
    gas_price: gasPrice(r),
    gas_used: r.gas_used,
    sponsor_type: r.sponsor_type,
    user_logs_start_index: r.user_logs_start_index,
    user_logs_count: r.user_logs_count,
    fee: r.actual_gas_cost,
    // Only the chain's own blocks are stored (a reorg removes the operations of orphaned ones).
    consensus: true,
    timestamp: isoTimestamp(r.ts),
    execute_target: exec ? addressObject(exec.target, facts) : null,
    execute_call_data: exec ? exec.data : null,
    decoded_call_data: nameCall(r.call_data, facts.get(r.sender)?.abi)?.decoded ?? null,
    decoded_execute_call_data: exec ? (nameCall(exec.data, facts.get(exec.target)?.abi)?.decoded ?? null) : null,
  };
}

export function userOperationListJson(r: UserOperationRead, facts: FactsLookup) {
  return {
    hash: r.hash,
    address: requiredAddress(r.sender, facts),
    entry_point: requiredAddress(r.entry_point, facts),
    entry_point_version: r.entry_point_version,
    transaction_hash: r.transaction_hash,
    block_number: r.block_number,
    status: r.status === 1,
    fee: r.actual_gas_cost,
    timestamp: isoTimestamp(r.ts),
  };
}

function accountJson(a: AccountRead, facts: FactsLookup) {
  const created = a.creation_op_hash !== '';
  return {
    address: requiredAddress(a.address, facts),
    factory: addressObject(a.creation_factory, facts),
    creation_transaction_hash: created ? a.creation_transaction_hash : null,
    creation_op_hash: created ? a.creation_op_hash : null,
    creation_timestamp: created ? isoTimestamp(a.creation_ts) : null,
    total_ops: Number(a.total_ops),
  };
}

async function findOperation(ctx: ApiContext, hash: string): Promise<UserOperationRead> {
  const r = await userOperationByHash(ctx.ch, hash.toLowerCase());
  if (!r) throw new NotFoundError();
  return r;
}

/** `a,b,...` page token parts, or a 400 when it has not `n` of them. */
function tokenParts(q: Record<string, CastValue>, n: number): string[] | undefined {
  if (typeof q.page_token !== 'string') return undefined;
  const parts = q.page_token.split(',');
  if (parts.length !== n) throw badToken();
  return parts;
}
const ADDRESS_TOKEN = /^0x[0-9a-fA-F]{40}$/;
const INT_TOKEN = /^[0-9]{1,20}$/;

/** bundlers / paymasters / factories: their counts, ordered and paged as Blockscout's. */
function roleRoutes(role: 'bundler' | 'paymaster' | 'factory', plural: string, json: (c: CountedAddressRead, facts: FactsLookup) => object): RouteDef[] {
  return [
    {
      pattern: `${PREFIX}/${plural}`,
      query: PAGING,
      async handler({ query, ctx }) {
        const size = pageSizeOf(query);
        const t = tokenParts(query, 2);
        if (t && (!INT_TOKEN.test(t[0]!) || !ADDRESS_TOKEN.test(t[1]!))) throw badToken();
        const rows = await roleCounts(ctx.ch, role, { from: t ? { total: BigInt(t[0]!), address: t[1]!.toLowerCase() } : undefined, limit: size + 1 });
        const facts = await ctx.addressFacts(rows.map((r) => r.address));
        const rank = (r: CountedAddressRead) => (role === 'bundler' ? r.bundles! : r.total);
        return { body: page(rows, size, (r) => json(r, facts), (r) => `${rank(r)},${checksum(r.address)}`), policy: 'volatile' };
      },
    },
    {
      pattern: `${PREFIX}/${plural}/:address_hash_param`,
      path: ADDRESS_PATH,
      query: COMMON_QUERY,
      async handler({ path, ctx }) {
        const a = (path.address_hash_param as string).toLowerCase();
        const [row] = await roleCounts(ctx.ch, role, { address: a, limit: 1 });
        if (!row) throw new NotFoundError();
        const facts = await ctx.addressFacts([a]);
        return { body: json(row, facts), policy: 'volatile' };
      },
    },
  ];
}

/** What the operation did, in Blockscout's summary shape: who ran it through which EntryPoint, what it called, who paid. */
function operationSummary(r: UserOperationRead, facts: FactsLookup): TxSummary[] {
  const address = (a: string): SummaryVariable => ({ type: 'address', value: requiredAddress(a, facts) });
  const exec = executeCall(r.call_data);
  const method = exec ? (nameCall(exec.data, facts.get(exec.target)?.abi)?.method ?? null) : null;
  const out: TxSummary[] = [];
  if (exec && method) out.push({ summary_template: '{sender} called {method} on {target}', summary_template_variables: { sender: address(r.sender), method: { type: 'string', value: method }, target: address(exec.target) } });
  else if (exec) out.push({ summary_template: '{sender} called {target}', summary_template_variables: { sender: address(r.sender), target: address(exec.target) } });
  else out.push({ summary_template: '{sender} ran a user operation through {entry_point}', summary_template_variables: { sender: address(r.sender), entry_point: address(r.entry_point) } });
  if (r.status !== 1) out.push({ summary_template: 'The operation reverted', summary_template_variables: {} });
  out.push({
    // {native} is the coin's symbol, filled in by the frontend (as in the transactions' summaries).
    summary_template: '{fee} {native} paid by {payer}',
    summary_template_variables: { fee: { type: 'currency', value: formatUnits(BigInt(r.actual_gas_cost), 18) }, payer: address(r.paymaster || r.sender) },
  });
  return out;
}

export const accountAbstractionRoutes: RouteDef[] = [
  {
    pattern: `${PREFIX}/status`,
    query: COMMON_QUERY,
    async handler({ ctx }) {
      // Operations are decoded with their blocks by the indexer, so there is no past to catch up
      // separately, except for the blocks a release before them indexed (sql/postgres/0022): the
      // indexer's upgrade backfill decodes theirs from the stored blocks, then sets the fact to 0.
      const from = await getFact<{ block: number }>(ctx.pg, USER_OPERATIONS_FROM);
      const past = !from || from.block === 0;
      const part = { enabled: true, live: true, past_db_logs_indexing_finished: past, past_rpc_logs_indexing_finished: past };
      return { body: { finished_past_indexing: past, v06: part, v07_v08: part }, policy: 'volatile' };
    },
  },
  {
    pattern: `${PREFIX}/operations`,
    query: {
      ...PAGING,
      sender: ADDRESS,
      bundler: ADDRESS,
      paymaster: ADDRESS,
      factory: ADDRESS,
      transaction_hash: { kind: 'fullHash' },
      entry_point: ADDRESS,
      bundle_index: { kind: 'int', min: 0n, max: 4294967295n },
      block_number: { kind: 'int', min: 0n, max: 18446744073709551615n },
    },
    async handler({ query, ctx }) {
      const size = pageSizeOf(query);
      const t = tokenParts(query, 2);
      if (t && (!INT_TOKEN.test(t[0]!) || !FULL_HASH_RE.test(t[1]!))) throw badToken();
      const rows = await listUserOperations(
        ctx.ch,
        {
          sender: lowerOrUndefined(query.sender),
          bundler: lowerOrUndefined(query.bundler),
          paymaster: lowerOrUndefined(query.paymaster),
          factory: lowerOrUndefined(query.factory),
          transaction_hash: lowerOrUndefined(query.transaction_hash),
          entry_point: lowerOrUndefined(query.entry_point),
          bundle_index: typeof query.bundle_index === 'bigint' ? Number(query.bundle_index) : undefined,
          block_number: typeof query.block_number === 'bigint' ? query.block_number : undefined,
        },
        t ? { block: BigInt(t[0]!), hash: t[1]!.toLowerCase() } : undefined,
        size + 1,
      );
      const facts = await ctx.addressFacts([...new Set(rows.flatMap((r) => [r.sender, r.entry_point]))]);
      return { body: page(rows, size, (r) => userOperationListJson(r, facts), (r) => `${r.block_number},${r.hash}`), policy: 'volatile' };
    },
  },
  {
    pattern: `${PREFIX}/operations/:operation_hash_param`,
    path: OP_PATH,
    query: COMMON_QUERY,
    async handler({ path, ctx }) {
      const r = await findOperation(ctx, path.operation_hash_param as string);
      const facts = await ctx.addressFacts([...new Set(opAddresses(r))]);
      return { body: userOperationJson(r, facts), policy: 'stable', block: BigInt(r.block_number) };
    },
  },
  {
    pattern: `${PREFIX}/operations/:operation_hash_param/summary`,
    path: OP_PATH,
    query: { ...COMMON_QUERY, just_request_body: { kind: 'enum', values: ['true', 'false'] } },
    async handler({ path, query, ctx }) {
      const r = await findOperation(ctx, path.operation_hash_param as string);
      if (query.just_request_body === 'true') {
        // No interpreter service is asked here: the summary is computed from the operation itself.
        throw new ApiError(422, { message: 'just_request_body is not supported for user operations: the summary is computed here' });
      }
      const facts = await ctx.addressFacts([...new Set(opAddresses(r))]);
      return { body: { success: true, data: { summaries: operationSummary(r, facts) } }, policy: 'stable', block: BigInt(r.block_number) };
    },
  },
  {
    pattern: `${PREFIX}/accounts`,
    query: { ...PAGING, factory: ADDRESS },
    async handler({ query, ctx }) {
      const size = pageSizeOf(query);
      const t = tokenParts(query, 1);
      if (t && !ADDRESS_TOKEN.test(t[0]!)) throw badToken();
      const rows = await listAccounts(ctx.ch, lowerOrUndefined(query.factory), t?.[0]!.toLowerCase(), size + 1);
      const facts = await ctx.addressFacts([...new Set(rows.flatMap((r) => [r.address, r.creation_factory].filter((a) => a !== '')))]);
      return { body: page(rows, size, (r) => accountJson(r, facts), (r) => checksum(r.address)), policy: 'volatile' };
    },
  },
  {
    pattern: `${PREFIX}/accounts/:address_hash_param`,
    path: ADDRESS_PATH,
    query: COMMON_QUERY,
    async handler({ path, ctx }) {
      const a = await accountByAddress(ctx.ch, (path.address_hash_param as string).toLowerCase());
      if (!a) throw new NotFoundError();
      const facts = await ctx.addressFacts([a.address, a.creation_factory].filter((x) => x !== ''));
      return { body: accountJson(a, facts), policy: 'volatile' };
    },
  },
  ...roleRoutes('bundler', 'bundlers', (c, facts) => ({ address: requiredAddress(c.address, facts), total_bundles: Number(c.bundles), total_ops: Number(c.total) })),
  ...roleRoutes('paymaster', 'paymasters', (c, facts) => ({ address: requiredAddress(c.address, facts), total_ops: Number(c.total) })),
  ...roleRoutes('factory', 'factories', (c, facts) => ({ address: requiredAddress(c.address, facts), total_accounts: Number(c.total) })),
  {
    pattern: `${PREFIX}/bundles`,
    query: { ...PAGING, bundler: ADDRESS, entry_point: ADDRESS },
    async handler({ query, ctx }) {
      const size = pageSizeOf(query);
      const t = tokenParts(query, 3);
      if (t && (!INT_TOKEN.test(t[0]!) || !FULL_HASH_RE.test(t[1]!) || !INT_TOKEN.test(t[2]!))) throw badToken();
      const rows = await listBundles(
        ctx.ch,
        { bundler: lowerOrUndefined(query.bundler), entry_point: lowerOrUndefined(query.entry_point) },
        t ? { block: BigInt(t[0]!), hash: t[1]!.toLowerCase(), index: Number(t[2]!) } : undefined,
        size + 1,
      );
      const facts = await ctx.addressFacts([...new Set(rows.map((r) => r.bundler))]);
      const json = (b: (typeof rows)[number]) => ({
        transaction_hash: b.transaction_hash,
        bundler: requiredAddress(b.bundler, facts),
        block_number: b.block_number,
        bundle_index: b.bundle_index,
        timestamp: isoTimestamp(b.ts),
        total_ops: Number(b.total_ops),
      });
      return { body: page(rows, size, json, (b) => `${b.block_number},${b.transaction_hash},${b.bundle_index}`), policy: 'volatile' };
    },
  },
];
