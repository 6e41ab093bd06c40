// module=account of the Etherscan-compatible API: balances, an address's transactions, internal
// transactions and token transfers, token balances, pending transactions, mined blocks. Messages and fields as
// Blockscout's API.RPC.AddressController and AddressView; Etherscan's methodId/functionName and
// ERC-1155 tokenValue added where Blockscout has none.
import type { ApiContext } from '../context.js';
import {
  etherscanAddressInternals,
  etherscanAddressTransactions,
  etherscanTokenTransfers,
  etherscanMinedBlocks,
  etherscanTransactionInternals,
  coinBalanceAt,
  type EtherscanInternalRead,
  type EtherscanTransferRead,
  type TxFieldsRead,
} from '../../storage/clickhouse/reads/etherscan.js';
import { coinBalances, pendingTransactionsOf, tokenBalanceOf } from '../../storage/postgres/reads/etherscan.js';
import { withPointInputs } from '../../storage/postgres/points.js';
import { csvTime } from '../serializers/csv.js';
import { RESULT_WINDOW, listOptions, parseAddress, parseHash, parseInteger, type ListOptions, type Params } from './params.js';
import { confirmations, fail, flag, functionName, methodId, notFound, ok, succeeded, txFields, withHead, type ActionReply, type ActionTable } from './actions.js';

/** balancemulti's cap (Blockscout takes the first 20 of the list). */
const BALANCE_MULTI_MAX = 20;

const ADDRESS_REQUIRED = "Query parameter 'address' is required";

/** The list options, or the error reply; null when the block range is empty. */
function options(p: Params): ListOptions | ActionReply | null {
  const o = listOptions(p);
  if (typeof o === 'string') return fail('NOTOK', o);
  // Integer.parse takes a sign: a negative end block (or an end before the start) selects nothing.
  if (o.endBlock !== undefined && (o.endBlock < 0n || (o.startBlock !== undefined && o.endBlock < o.startBlock))) return null;
  return o;
}

/** The required `address` of a list action, or Blockscout's error for it. */
function requiredAddress(p: Params): string | ActionReply {
  const raw = p.get('address');
  if (raw === undefined) return fail(ADDRESS_REQUIRED);
  return parseAddress(raw) ?? fail('Invalid address format');
}

const isReply = (o: ListOptions | ActionReply | null): o is ActionReply => o !== null && 'body' in o;

/** An address list action's address and paging, or the reply that ends it (`none` for an empty range). */
function addressList(p: Params, none: string): { address: string; o: ListOptions } | ActionReply {
  const address = requiredAddress(p);
  if (typeof address !== 'string') return address;
  const o = options(p);
  if (isReply(o)) return o;
  return o ? { address, o } : notFound(none);
}

/** Longest wait for the node's balances. */
const NODE_TIMEOUT_MS = 2_000;

/**
 * eth_getBalance at the node's head for addresses whose balance is not stored: Blockscout fetches
 * such balances on demand too (CoinBalanceOnDemand). Left out when there is no node or it fails.
 */
async function nodeBalances(ctx: ApiContext, addresses: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!ctx.rpc || !addresses.length) return out;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), NODE_TIMEOUT_MS);
    timer.unref();
  });
  try {
    const got = await Promise.race([ctx.rpc.batch<string>(addresses.map((a) => ({ method: 'eth_getBalance', params: [a, 'latest'] }))), timeout]);
    got?.forEach((o, i) => {
      if (o?.ok && typeof o.result === 'string' && /^0x[0-9a-fA-F]+$/.test(o.result)) out.set(addresses[i], BigInt(o.result).toString());
    });
  } catch (e) {
    ctx.log.warn('eth_getBalance for the Etherscan API failed', { error: e instanceof Error ? e.message : String(e) });
  } finally {
    clearTimeout(timer);
  }
  return out;
}

/**
 * balance (one address: the value; several: balancemulti's list): the balance the coin lane
 * stored; for an address it has not read (never seen on chain, e.g. a genesis allocation, or not
 * read yet) the node's current one; null when neither is known (Blockscout renders an unfetched
 * balance as null). `stale`: a newer reading is still queued, or the value is not known.
 */
async function balance(p: Params, ctx: ApiContext, multi: boolean): Promise<ActionReply> {
  const raw = p.get('address');
  if (raw === undefined) return fail(ADDRESS_REQUIRED);
  const addresses = raw.split(',').slice(0, BALANCE_MULTI_MAX).map(parseAddress);
  if (addresses.some((a) => a === null)) return fail('Invalid address hash');
  const list = addresses as string[];
  const known = await coinBalances(ctx.pg, list);
  const fromNode = await nodeBalances(ctx, list.filter((a) => (known.get(a)?.balance ?? null) === null));
  const value = (a: string) => known.get(a)?.balance ?? fromNode.get(a) ?? null;
  if (!multi && list.length === 1) return ok(value(list[0]));
  // In the order asked (Blockscout lists unknown addresses first; the order carries no meaning there).
  return ok(list.map((a) => ({ account: a, balance: value(a), stale: value(a) === null || (known.get(a)?.queued ?? false) })));
}

/**
 * eth_get_balance: a JSON-RPC-shaped answer (Blockscout's EthRPC view, id 0) from the stored coin
 * balance history: the value after the last change at or below the block.
 */
async function ethGetBalance(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const rpcError = (status: number, error: string): ActionReply => ({ status, body: { jsonrpc: '2.0', error, id: 0 }, policy: 'none' });
  const raw = p.get('address');
  if (raw === undefined) return rpcError(400, ADDRESS_REQUIRED);
  const tag = p.get('block') ?? 'latest';
  let block: bigint | undefined;
  if (tag === 'earliest') block = 0n;
  else if (tag !== 'latest' && tag !== 'pending') {
    const n = parseInteger(tag);
    if (n === null) return rpcError(400, 'Invalid block');
    block = n;
  }
  const address = parseAddress(raw);
  if (!address) return rpcError(400, 'Invalid address hash');
  if (block !== undefined && block < 0n) return { ...rpcError(404, 'Balance not found'), policy: 'volatile' };
  const value = await coinBalanceAt(ctx.ch, address, block);
  if (value === null) return { ...rpcError(404, 'Balance not found'), policy: 'volatile' };
  return { body: { jsonrpc: '2.0', result: `0x${BigInt(value).toString(16)}`, id: 0 }, policy: 'volatile' };
}

async function txlist(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const args = addressList(p, 'No transactions found');
  if ('body' in args) return args;
  const { address, o } = args;
  const [head, read] = await withHead(ctx, etherscanAddressTransactions(ctx.ch, address, o));
  const rows = await withPointInputs(ctx.pg, read, (t) => t.hash);
  if (!rows.length) return notFound('No transactions found');
  return ok(
    rows.map((t) => ({
      blockNumber: t.block_number,
      timeStamp: String(t.ts),
      hash: t.hash,
      nonce: t.nonce,
      blockHash: t.block_hash,
      transactionIndex: String(t.transaction_index),
      from: t.from,
      to: t.to,
      value: t.value,
      gas: t.gas,
      gasPrice: t.effective_gas_price,
      isError: flag(succeeded(t), false),
      txreceipt_status: flag(succeeded(t), true),
      input: t.input,
      contractAddress: t.created_contract,
      cumulativeGasUsed: t.cumulative_gas_used,
      gasUsed: t.gas_used,
      confirmations: confirmations(head, t.block_number),
      methodId: methodId(t.input),
      functionName: functionName(t.input),
    })),
  );
}

function internalJson(it: EtherscanInternalRead) {
  return {
    blockNumber: it.block_number,
    timeStamp: String(it.ts),
    from: it.from,
    to: it.to,
    value: it.value,
    contractAddress: it.created_contract_address,
    transactionHash: it.transaction_hash,
    index: String(it.trace_index),
    input: it.input,
    type: it.type,
    callType: it.call_type,
    gas: it.gas,
    gasUsed: it.gas_used,
    isError: it.error ? '1' : '0',
    errCode: it.error,
  };
}

/**
 * getminedblocks: the blocks the address mined, newest first, paged by page/offset; each its number
 * and its time as Blockscout's view prints a block's timestamp (to_string of the DateTime).
 */
async function getminedblocks(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const args = addressList(p, 'No blocks found');
  if ('body' in args) return args;
  const rows = await etherscanMinedBlocks(ctx.ch, args.address, args.o.skip, args.o.limit);
  if (!rows.length) return notFound('No blocks found');
  return ok(rows.map((b) => ({ blockNumber: b.n, timeStamp: csvTime(b.ts) })));
}

/** txlistinternal by txhash (its frames, Blockscout's 10,000 at most) or by address (paged). */
async function txlistinternal(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const txhash = p.get('txhash');
  const rawAddress = p.get('address');
  if (txhash === undefined && rawAddress === undefined) return fail('Query parameter txhash or address is required');
  let rows: EtherscanInternalRead[];
  if (txhash !== undefined) {
    const hash = parseHash(txhash);
    if (!hash) return fail('Invalid txhash format');
    rows = await etherscanTransactionInternals(ctx.ch, hash, RESULT_WINDOW);
  } else {
    const address = parseAddress(rawAddress);
    if (!address) return fail('Invalid address format');
    const o = options(p);
    if (isReply(o)) return o;
    rows = o ? await etherscanAddressInternals(ctx.ch, address, o) : [];
  }
  rows = await withPointInputs(ctx.pg, rows, (r) => r.transaction_hash);
  if (!rows.length) return notFound('No internal transactions found');
  return ok(rows.map(internalJson));
}

/** tokentx (ERC-20), tokennfttx (ERC-721), token1155tx (ERC-1155): by address and/or token contract. */
function tokenTransfers(type: 'ERC-20' | 'ERC-721' | 'ERC-1155') {
  return async (p: Params, ctx: ApiContext): Promise<ActionReply> => {
    const rawAddress = p.get('address');
    const rawContract = p.get('contractaddress');
    if (rawAddress === undefined && rawContract === undefined) return fail('Query parameter address is required');
    const address = rawAddress === undefined ? undefined : parseAddress(rawAddress);
    if (address === null) return fail('Invalid address format');
    const contract = rawContract === undefined ? undefined : parseAddress(rawContract);
    if (contract === null) return fail('Invalid contract address format');
    const o = options(p);
    if (isReply(o)) return o;
    if (!o) return notFound('No token transfers found');
    const [head, rows] = await withHead(ctx, etherscanTokenTransfers(ctx.ch, { ...o, address, contract, type }));
    if (!rows.length) return notFound('No token transfers found');
    const keys = [...new Map(rows.map((r) => [`${r.block_number}:${r.transaction_index}`, { block: r.block_number, index: r.transaction_index }])).values()];
    const [txs, tokens] = await Promise.all([txFields(ctx, keys), ctx.tokens(rows.map((r) => r.token_address))]);
    return ok(rows.map((r) => transferJson(r, type, head, txs.get(`${r.block_number}:${r.transaction_index}`), tokens.get(r.token_address))));
  };
}

function transferJson(
  r: EtherscanTransferRead,
  type: string,
  head: bigint | null,
  tx: TxFieldsRead | undefined,
  token: { name: string | null; symbol: string | null; decimals: number | null } | undefined,
) {
  const input = tx?.input ?? '';
  const common = {
    blockNumber: r.block_number,
    timeStamp: String(r.ts),
    hash: r.transaction_hash,
    nonce: tx?.nonce ?? '',
    blockHash: r.block_hash,
    from: r.from,
    contractAddress: r.token_address,
    to: r.to,
    logIndex: String(r.log_index),
    tokenName: token?.name ?? null,
    tokenSymbol: token?.symbol ?? null,
    // to_string(nil) is "" in Blockscout's view.
    tokenDecimal: token?.decimals === null || token?.decimals === undefined ? '' : String(token.decimals),
    transactionIndex: String(r.transaction_index),
    gas: tx?.gas ?? '',
    gasPrice: tx?.effective_gas_price ?? '',
    gasUsed: tx?.gas_used ?? '',
    cumulativeGasUsed: tx?.cumulative_gas_used ?? '',
    input,
    methodId: methodId(input),
    functionName: functionName(input),
    confirmations: confirmations(head, r.block_number),
  };
  if (type === 'ERC-20') return { ...common, value: r.value };
  if (type === 'ERC-721') return { ...common, tokenID: r.token_id ?? '' };
  return { ...common, tokenID: r.token_id ?? '', tokenValue: r.value };
}

async function tokenbalance(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const missing = ['address', 'contractaddress'].filter((n) => !p.has(n));
  if (missing.length) return fail(`Required query parameters missing: ${missing.join(', ')}`);
  const contract = parseAddress(p.get('contractaddress'));
  if (!contract) return fail('Invalid contractaddress format');
  const address = parseAddress(p.get('address'));
  if (!address) return fail('Invalid address format');
  // No stored balance is 0, as Blockscout's get_token_balance answers for a missing row.
  return ok((await tokenBalanceOf(ctx.pg, contract, address)) ?? '0');
}

/** pendingtxlist: the node's pending pool as the indexer last mirrored it. */
async function pendingtxlist(p: Params, ctx: ApiContext): Promise<ActionReply> {
  const address = requiredAddress(p);
  if (typeof address !== 'string') return address;
  const o = listOptions(p);
  if (typeof o === 'string') return fail('NOTOK', o);
  const rows = await pendingTransactionsOf(ctx.pg, address, o.skip, o.limit);
  if (!rows.length) return notFound('No transactions found');
  return ok(
    rows.map((t) => ({
      hash: t.hash,
      nonce: t.nonce,
      from: t.from,
      to: t.to ?? '',
      value: t.value,
      gas: t.gas,
      gasPrice: t.gas_price ?? t.max_fee_per_gas ?? '',
      input: t.input,
      // Not mined: no receipt yet (Blockscout prints these fields of a pending row as "").
      contractAddress: '',
      cumulativeGasUsed: '',
      gasUsed: '',
    })),
  );
}

export const accountActions: ActionTable = {
  balance: (p, ctx) => balance(p, ctx, false),
  balancemulti: (p, ctx) => balance(p, ctx, true),
  eth_get_balance: ethGetBalance,
  txlist,
  txlistinternal,
  getminedblocks,
  tokentx: tokenTransfers('ERC-20'),
  tokennfttx: tokenTransfers('ERC-721'),
  token1155tx: tokenTransfers('ERC-1155'),
  tokenbalance,
  pendingtxlist,
};
