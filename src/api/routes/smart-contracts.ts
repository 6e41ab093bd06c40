// /smart-contracts (the verified contracts list) and /smart-contracts/counters,
// /smart-contracts/{address}, /smart-contracts/{address}/methods-read and /methods-write, and for
// a proxy /methods-read-proxy and /methods-write-proxy (its implementation's ABI, called on it).
//
// The list holds the verified contracts (newest verified first, or by balance or transaction
// count; filtered by language or a piece of the name or address), and the counters count them
// (src/verify verifies) and every contract of the `contracts` table (those created in the indexed
// history, kept by a trigger: sql/postgres/0009_frontend_reads.sql).
//
// A contract is an address the stores know as one: a creation recorded by the derived lanes
// (`contracts`), a token (`tokens`), or an address that emitted a log; anything else is a 404
// `{"message":"Not found"}` as Blockscout answers for a non-contract. The detail carries the
// deployed code (the code lane's eth_getCode, else the creating trace's output, else the node),
// the creation bytecode (the creating transaction's or CREATE frame's data: init code with the
// constructor arguments) and the creation status, its proxy kind and implementations
// (src/api/proxies.ts, read from the node at its head), and for a verified contract what it was
// verified with (sources, ABI, compiler and settings, match kind, constructor arguments).
//
// The method lists follow Blockscout's earlier endpoints (removed upstream in v8.0.0, kept here
// by the mission, ../shared/spec/blockscout-api-v2.md §3.8): a bare array of ABI function entries
// with `method_id`; read methods without inputs carry their current value (eth_call at the node's
// latest block) in `outputs[].value`, or an `error` string when the call fails. The ABI comes from
// abiFor() (verified or custom ABIs, once they exist), else from the standard token ABI of a
// contract the `tokens` table knows (ERC-20, ERC-721, ERC-1155).
import type { Hex } from 'viem';
import { encodeFunctionData, type AbiFunction } from 'viem';
import { NotFoundError } from '../errors.js';
import { RpcError } from '../../rpc/errors.js';
import { withTimeout } from '../../retry.js';
import type { ApiContext } from '../context.js';
import type { ParamSpec } from '../params.js';
import type { RouteDef } from '../router.js';
import { ADDRESS, ADDRESS_PATH } from './common.js';
import type { Viewer } from './search.js';
import { contractRow, tokenRow, type ContractRow, type TokenAbiRow } from '../../storage/postgres/reads/contracts.js';
import { twinCandidates, verifiedAbi, verifiedCounts, verifiedList, verifiedRow, type VerifiedRow } from '../../storage/postgres/verified.js';
import { maskedHash } from '../../verify/twins.js';
import { creationCode } from '../../storage/clickhouse/reads/search.js';
import { blocksWindow } from '../../storage/clickhouse/reads/daily.js';
import { contractsSince, contractsTotal } from '../../storage/postgres/reads/counts.js';
import { withPointInputs } from '../../storage/postgres/points.js';
import { ITEMS_COUNT } from './common.js';
import { echo, makePage, pageSize, type PageParamValue } from '../paging.js';
import { addressObject } from '../serializers/address.js';
import { checksum, isoDate } from '../serializers/common.js';
import { clock } from './clock.js';
import {
  isReadMethod,
  isWriteMethod,
  outputsWithValues,
  smartContractJson,
  twinJson,
  withMethodId,
  type AbiEntry,
  type AbiParam,
} from '../serializers/smart-contract.js';

/** The largest id PostgreSQL's bigint holds (verified_contracts.id). */
const MAX_ID = 2n ** 63n - 1n;

/** The verified contract whose deployed code equals `code` but for what differs between deployments, or null. */
async function verifiedTwinOf(pg: ApiContext['pg'], code: string): Promise<VerifiedRow | null> {
  const length = (code.length - 2) / 2;
  if (length <= 0) return null;
  for (const c of await twinCandidates(pg, length)) {
    if (maskedHash(code, c.twin_mask) === c.twin_hash) return verifiedRow(pg, c.address_hash);
  }
  return null;
}

/** How long a read method's eth_call may take before it is reported as an error. */
export const READ_CALL_TIMEOUT_MS = 5000;

// ---- ABI sources ----

/**
 * The ABI of `address` for the method lists: its verified ABI, or null when it has none.
 * (A viewer's custom ABI is not used here yet: responses of these routes are shared.)
 */
export async function abiFor(address: string, _viewer: Viewer, ctx: ApiContext): Promise<AbiEntry[] | null> {
  return (await verifiedAbi(ctx.pg, address)) as AbiEntry[] | null;
}

const p = (type: string, name = '', internalType = type): AbiParam => ({ internalType, name, type });
const fn = (name: string, inputs: AbiParam[], outputs: AbiParam[], stateMutability: 'view' | 'pure' | 'nonpayable' | 'payable'): AbiEntry => ({
  inputs,
  name,
  outputs,
  stateMutability,
  type: 'function',
});

const NAME = fn('name', [], [p('string')], 'view');
const SYMBOL = fn('symbol', [], [p('string')], 'view');
const TOTAL_SUPPLY = fn('totalSupply', [], [p('uint256')], 'view');
const SUPPORTS_INTERFACE = fn('supportsInterface', [p('bytes4', 'interfaceId')], [p('bool')], 'view');

/** EIP-20. */
export const ERC20_ABI: readonly AbiEntry[] = [
  NAME,
  SYMBOL,
  fn('decimals', [], [p('uint8')], 'view'),
  TOTAL_SUPPLY,
  fn('balanceOf', [p('address', 'account')], [p('uint256')], 'view'),
  fn('allowance', [p('address', 'owner'), p('address', 'spender')], [p('uint256')], 'view'),
  fn('transfer', [p('address', 'to'), p('uint256', 'value')], [p('bool')], 'nonpayable'),
  fn('approve', [p('address', 'spender'), p('uint256', 'value')], [p('bool')], 'nonpayable'),
  fn('transferFrom', [p('address', 'from'), p('address', 'to'), p('uint256', 'value')], [p('bool')], 'nonpayable'),
];

/** EIP-721 with its metadata extension (name, symbol, tokenURI); totalSupply (enumerable) when the token answers it. */
export function erc721Abi(withTotalSupply: boolean): AbiEntry[] {
  return [
    NAME,
    SYMBOL,
    ...(withTotalSupply ? [TOTAL_SUPPLY] : []),
    fn('balanceOf', [p('address', 'owner')], [p('uint256')], 'view'),
    fn('ownerOf', [p('uint256', 'tokenId')], [p('address')], 'view'),
    fn('getApproved', [p('uint256', 'tokenId')], [p('address')], 'view'),
    fn('isApprovedForAll', [p('address', 'owner'), p('address', 'operator')], [p('bool')], 'view'),
    fn('tokenURI', [p('uint256', 'tokenId')], [p('string')], 'view'),
    SUPPORTS_INTERFACE,
    fn('approve', [p('address', 'to'), p('uint256', 'tokenId')], [], 'nonpayable'),
    fn('setApprovalForAll', [p('address', 'operator'), p('bool', 'approved')], [], 'nonpayable'),
    fn('transferFrom', [p('address', 'from'), p('address', 'to'), p('uint256', 'tokenId')], [], 'nonpayable'),
    fn('safeTransferFrom', [p('address', 'from'), p('address', 'to'), p('uint256', 'tokenId')], [], 'nonpayable'),
    fn('safeTransferFrom', [p('address', 'from'), p('address', 'to'), p('uint256', 'tokenId'), p('bytes', 'data')], [], 'nonpayable'),
  ];
}

/** EIP-1155 with its metadata URI; name/symbol (not in the standard) when the token answers them. */
export function erc1155Abi(withName: boolean, withSymbol: boolean): AbiEntry[] {
  return [
    ...(withName ? [NAME] : []),
    ...(withSymbol ? [SYMBOL] : []),
    fn('balanceOf', [p('address', 'account'), p('uint256', 'id')], [p('uint256')], 'view'),
    fn('balanceOfBatch', [p('address[]', 'accounts'), p('uint256[]', 'ids')], [p('uint256[]')], 'view'),
    fn('isApprovedForAll', [p('address', 'account'), p('address', 'operator')], [p('bool')], 'view'),
    fn('uri', [p('uint256', 'id')], [p('string')], 'view'),
    SUPPORTS_INTERFACE,
    fn('setApprovalForAll', [p('address', 'operator'), p('bool', 'approved')], [], 'nonpayable'),
    fn('safeTransferFrom', [p('address', 'from'), p('address', 'to'), p('uint256', 'id'), p('uint256', 'value'), p('bytes', 'data')], [], 'nonpayable'),
    fn(
      'safeBatchTransferFrom',
      [p('address', 'from'), p('address', 'to'), p('uint256[]', 'ids'), p('uint256[]', 'values'), p('bytes', 'data')],
      [],
      'nonpayable',
    ),
  ];
}

/** The standard ABI of a token the `tokens` table knows, by its proven standard. */
export function tokenAbi(t: TokenAbiRow): AbiEntry[] | null {
  switch (t.type) {
    case 'ERC-20':
      return [...ERC20_ABI];
    case 'ERC-721':
      return erc721Abi(t.total_supply !== null);
    case 'ERC-1155':
      return erc1155Abi(t.name !== null, t.symbol !== null);
    default:
      return null;
  }
}

// ---- the contract ----

interface Known {
  contract: ContractRow | null;
  token: TokenAbiRow | null;
}

/** What the stores know about `address` as a contract, or 404 when it is not one. */
async function knownContract(ctx: ApiContext, address: string): Promise<Known> {
  const [contract, token] = await Promise.all([contractRow(ctx.pg, address), tokenRow(ctx.pg, address)]);
  if (contract || token) return { contract, token };
  const facts = await ctx.addressFacts([address]);
  if (facts.get(address)?.isContract === true) return { contract: null, token: null };
  // A contract may only appear with a new block (its creation): the 404 is dropped with it.
  throw new NotFoundError('volatile');
}

async function nodeCode(ctx: ApiContext, address: string): Promise<string | null> {
  if (!ctx.rpc) return null;
  try {
    const code = await withTimeout(ctx.rpc.request<string>('eth_getCode', [address, 'latest']), READ_CALL_TIMEOUT_MS);
    return typeof code === 'string' ? code.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** The ABI used for the method lists: abiFor(), else the token's standard ABI, else none. */
async function methodsAbi(ctx: ApiContext, address: string, viewer: Viewer, known: Known): Promise<AbiEntry[]> {
  const abi = await abiFor(address, viewer, ctx);
  if (abi) return abi;
  return (known.token && tokenAbi(known.token)) ?? [];
}

/**
 * The ABI a proxy is used with ("read/write as proxy"): its implementations' verified ABIs, in
 * order. Empty when it is not a proxy or no implementation is verified (Blockscout answers [] too).
 */
async function implementationAbi(ctx: ApiContext, address: string): Promise<AbiEntry[]> {
  const proxy = (await ctx.addressFacts([address])).get(address)?.proxy;
  const out: AbiEntry[] = [];
  for (const i of proxy?.implementations ?? []) {
    if (i.verified) out.push(...((await abiFor(i.address, null, ctx)) ?? []));
  }
  return out;
}

function callError(e: unknown): string {
  if (e instanceof RpcError) {
    // The node's own error (a revert...) is shown; its address never is.
    return e.kind === 'rpc' ? `(${e.code ?? 'error'}) ${e.detail}` : `the JSON-RPC node is unavailable (${e.kind})`;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Read methods with the current values of those without inputs (one batch of eth_calls).
 * `transient`: a call failed for want of a node answer (not a revert): not worth caching.
 */
async function readMethods(ctx: ApiContext, address: string, abi: AbiEntry[], from: string | undefined): Promise<{ methods: AbiEntry[]; transient: boolean }> {
  let transient = false;
  const reads = abi.filter(isReadMethod).map(withMethodId);
  const zeroArg = reads.filter((e) => (e.inputs ?? []).length === 0 && typeof e.name === 'string');
  const results = new Map<AbiEntry, { ok: true; raw: Hex } | { ok: false; error: string }>();
  if (zeroArg.length) {
    if (!ctx.rpc) {
      for (const e of zeroArg) results.set(e, { ok: false, error: 'no JSON-RPC node is configured for this API' });
    } else {
      const calls = zeroArg.map((e) => ({
        method: 'eth_call',
        params: [{ to: address, ...(from ? { from } : {}), data: encodeFunctionData({ abi: [e as unknown as AbiFunction], functionName: e.name! }) }, 'latest'],
      }));
      try {
        const outcomes = await withTimeout(ctx.rpc.batch<Hex>(calls), READ_CALL_TIMEOUT_MS);
        zeroArg.forEach((e, i) => {
          const o = outcomes[i]!;
          if (!o.ok && o.error.kind !== 'rpc') transient = true;
          results.set(e, o.ok ? { ok: true, raw: o.result } : { ok: false, error: callError(o.error) });
        });
      } catch (err) {
        transient = true;
        for (const e of zeroArg) results.set(e, { ok: false, error: callError(err) });
      }
    }
  }
  const methods = reads.map((e) => {
    const r = results.get(e);
    if (!r) return e;
    if (!r.ok) return { ...e, error: r.error };
    try {
      return { ...e, outputs: outputsWithValues(e, r.raw) };
    } catch (err) {
      // 0x from a contract without the method, or bytes that do not decode as the outputs.
      return { ...e, error: `cannot decode ${JSON.stringify(r.raw.slice(0, 130))}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
    }
  });
  return { methods, transient };
}

const IS_CUSTOM_ABI: ParamSpec = { kind: 'enum', values: ['true', 'false'] };

export const smartContractRoutes: RouteDef[] = [
  {
    pattern: '/smart-contracts',
    query: {
      sort: { kind: 'enum', values: ['balance', 'transactions_count'] },
      order: { kind: 'enum', values: ['asc', 'desc'] },
      q: { kind: 'nullableString' },
      filter: { kind: 'enum', values: ['solidity', 'vyper', 'yul', 'geas'] },
      smart_contract_id: { kind: 'int' },
      coin_balance: { kind: 'intOrEmpty' },
      hash: ADDRESS,
      transactions_count: { kind: 'intOrEmpty' },
      items_count: ITEMS_COUNT,
    },
    async handler({ query, ctx }) {
      const size = pageSize(query);
      const sort = query.sort === 'balance' ? 'balance' : query.sort === 'transactions_count' ? 'transactions_count' : 'id';
      const order = query.order === 'asc' ? 'asc' : 'desc';
      const value = sort === 'balance' ? query.coin_balance : sort === 'transactions_count' ? query.transactions_count : undefined;
      const after =
        sort === 'id'
          ? typeof query.smart_contract_id === 'bigint'
            ? // A cursor past the largest id there can be means "from the top"; one below every
              // id (ids start at 1), below them all: clamped into PostgreSQL's bigint.
              { id: (query.smart_contract_id > MAX_ID ? MAX_ID : query.smart_contract_id < -1n ? -1n : query.smart_contract_id).toString() }
            : null
          : value !== undefined && value !== null && value !== '' && typeof query.hash === 'string'
            ? { value: String(value), hash: query.hash }
            : null;
      const rows = await verifiedList(ctx.pg, {
        limit: size + 1,
        sort,
        order,
        after,
        language: typeof query.filter === 'string' ? query.filter : undefined,
        q: typeof query.q === 'string' && query.q.trim() ? query.q.trim().slice(0, 100) : undefined,
      });
      const facts = await ctx.addressFacts(rows.map((r) => r.address_hash));
      const body = makePage(
        rows,
        size,
        (page) =>
          page.map((r) => ({
            address: addressObject(r.address_hash, facts),
            certified: false,
            coin_balance: r.coin_balance ?? '0',
            compiler_version: r.compiler_version,
            has_constructor_args: r.has_constructor_args,
            language: r.language,
            license_type: r.license_type,
            // A token contract's circulating market cap, where the price source knows the token (Blockscout's).
            market_cap: ctx.prices.token(r.address_hash)?.marketCap ?? null,
            optimization_enabled: r.optimization,
            transactions_count: Number(r.tx_count),
            verified_at: isoDate(r.verified_at),
          })),
        (last): Record<string, PageParamValue> => {
          if (sort === 'id') return { smart_contract_id: Number(last.id) };
          if (sort === 'balance') return { hash: checksum(last.address_hash), coin_balance: last.coin_balance ?? '0' };
          return { hash: checksum(last.address_hash), transactions_count: Number(last.tx_count) };
        },
        { echo: echo(query, ['sort', 'order', 'filter', 'q']) },
      );
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/smart-contracts/counters',
    async handler({ ctx }) {
      const [total, day, verified] = await Promise.all([
        contractsTotal(ctx.pg),
        blocksWindow(ctx.ch, (clock.now() - 86_400_000) / 1000),
        verifiedCounts(ctx.pg, new Date(clock.now() - 86_400_000)),
      ]);
      const recent = day.firstNumber === null ? '0' : await contractsSince(ctx.pg, BigInt(day.firstNumber));
      const body = { smart_contracts: total, new_smart_contracts_24h: recent, verified_smart_contracts: verified.total, new_verified_smart_contracts_24h: verified.recent };
      return { body, policy: 'volatile' };
    },
  },
  {
    pattern: '/smart-contracts/:address_hash_param/audit-reports',
    path: ADDRESS_PATH,
    async handler() {
      // Blockscout lists the audit reports projects submitted to it; nothing takes submissions
      // here, so none is known for any address: an empty list, never an invented one.
      return { body: { items: [], next_page_params: null }, policy: 'stable' };
    },
  },
  {
    pattern: '/smart-contracts/:address_hash_param',
    path: ADDRESS_PATH,
    async handler({ path, ctx }) {
      const address = path.address_hash_param as string;
      const known = await knownContract(ctx, address);
      const c = known.contract;
      let creationTx = c?.creation_tx ?? null;
      if (!creationTx) {
        const facts = await ctx.addressFacts([address], { withCreation: true });
        creationTx = facts.get(address)?.creation?.transactionHash ?? null;
      }
      const read = creationTx ? await creationCode(ctx.ch, creationTx, address) : null;
      const [creation] = read && creationTx ? await withPointInputs(ctx.pg, [read], () => creationTx) : [null];
      let deployed: string | null = c?.code ?? (creation?.deployed || null);
      let destroyed = false;
      if (c?.self_destructed_block !== null && c?.self_destructed_block !== undefined) {
        // A SELFDESTRUCT ran. Since EIP-6780 (Cancun) it removes the code only inside the
        // creating transaction; the node says whether the code is still there.
        const now = await nodeCode(ctx, address);
        destroyed = now === null || now === '0x';
        deployed = destroyed ? null : now;
      } else if (deployed === null) {
        deployed = await nodeCode(ctx, address);
      }
      const proxy = destroyed ? undefined : (await ctx.addressFacts([address])).get(address)?.proxy;
      const facts = {
        deployedBytecode: deployed,
        creationBytecode: creation?.input ?? null,
        creationStatus: destroyed ? 'selfdestructed' : creation || c || deployed ? 'success' : null,
        proxy,
      } as const;
      const verified = await verifiedRow(ctx.pg, address);
      // Not verified itself: a verified contract deployed from the same build (a bytecode twin) lends its source, marked as such.
      const twin = verified || !deployed ? null : await verifiedTwinOf(ctx.pg, deployed);
      const body = twin ? twinJson(facts, twin) : smartContractJson(facts, verified);
      return { body, policy: 'volatile' };
    },
  },
  methodsReadRoute('/smart-contracts/:address_hash_param/methods-read', ownAbi),
  methodsWriteRoute('/smart-contracts/:address_hash_param/methods-write', ownAbi),
  // A proxy's own address with its implementation's methods: the proxy's storage holds the state.
  methodsReadRoute('/smart-contracts/:address_hash_param/methods-read-proxy', proxyAbi),
  methodsWriteRoute('/smart-contracts/:address_hash_param/methods-write-proxy', proxyAbi),
];

/** Where a method list takes its ABI from (404 for an address that is not a contract). */
type AbiSource = (ctx: ApiContext, address: string, isCustomAbi: boolean) => Promise<AbiEntry[]>;

/** The contract's own ABI, or the viewer's custom one for it (none without a signed-in viewer). */
async function ownAbi(ctx: ApiContext, address: string, isCustomAbi: boolean): Promise<AbiEntry[]> {
  const known = await knownContract(ctx, address);
  const viewer: Viewer = null;
  return isCustomAbi ? ((await abiFor(address, viewer, ctx)) ?? []) : methodsAbi(ctx, address, viewer, known);
}

/** The ABI of a proxy's implementations (the custom-ABI flag does not apply). */
async function proxyAbi(ctx: ApiContext, address: string): Promise<AbiEntry[]> {
  await knownContract(ctx, address);
  return implementationAbi(ctx, address);
}

/** Read methods with their current values, called on the address itself. */
function methodsReadRoute(pattern: string, abiOf: AbiSource): RouteDef {
  return {
    pattern,
    path: ADDRESS_PATH,
    query: { is_custom_abi: IS_CUSTOM_ABI, from: ADDRESS },
    async handler({ path, query, ctx }) {
      const address = path.address_hash_param as string;
      const abi = await abiOf(ctx, address, query.is_custom_abi === 'true');
      const from = typeof query.from === 'string' ? query.from : undefined;
      // Current values change with every block; a node that did not answer may answer next time.
      const { methods, transient } = await readMethods(ctx, address, abi, from);
      return { body: methods, policy: transient ? 'none' : 'volatile' };
    },
  };
}

/** Write methods (the ABI's entries that change state), each with its selector. */
function methodsWriteRoute(pattern: string, abiOf: AbiSource): RouteDef {
  return {
    pattern,
    path: ADDRESS_PATH,
    query: { is_custom_abi: IS_CUSTOM_ABI },
    async handler({ path, query, ctx }) {
      const abi = await abiOf(ctx, path.address_hash_param as string, query.is_custom_abi === 'true');
      return { body: abi.filter(isWriteMethod).map(withMethodId), policy: 'volatile' };
    },
  };
}
