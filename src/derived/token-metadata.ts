// Token metadata and type from the contract itself (eth_call), tolerant of real-world contracts.
//
// One JSON-RPC batch: ERC-165 detection (supportsInterface(0x01ffc9a7) must be true and
// supportsInterface(0xffffffff) false, exactly as EIP-165 prescribes; then ERC-721 0x80ac58cd,
// ERC-1155 0xd9b67a26 and the pre-final ERC-721 id 0x9a20483d that CryptoKitties answers) plus
// name(), symbol(), decimals(), totalSupply(). The type comes from ERC-165 when the contract
// answers it properly and names an NFT standard, otherwise from the shape of the token's
// transfer logs (given by the caller).
//
// Errors: a revert or any other JSON-RPC error object of one call only makes that field null
// (and is noted in `errors`); a transport failure (HTTP, timeout, connection, malformed
// response, oversize) throws the RpcError so the caller retries later.

import { encodeFunctionData, parseAbi } from 'viem';
import type { CallOutcome, RpcCall, RpcClient } from '../rpc/client.js';
import type { RpcError } from '../rpc/errors.js';
import { decodeAddressWord, decodeBoolStrict, decodeStringLoose, decodeUint256, hexToBytesLoose } from './abi-decode.js';

export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155';

export interface TokenMetadata {
  type: TokenType;
  /** 'erc165' when the contract's supportsInterface decided, 'logs' when the transfer-log shape did. */
  typeSource: 'erc165' | 'logs';
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  /** Decimal digits. */
  totalSupply: string | null;
  /** What went wrong per field (reverts, undecodable data), for the operator; never fatal. */
  errors: string[];
}

export interface FetchTokenMetadataOptions {
  /** Block tag or hex number for every call. Default 'latest'. */
  blockTag?: string;
  /** The type the token's transfer logs have (used when ERC-165 does not decide). */
  shapeType?: TokenType;
}

export const INTERFACE_ERC165 = '0x01ffc9a7';
export const INTERFACE_INVALID = '0xffffffff';
export const INTERFACE_ERC721 = '0x80ac58cd';
export const INTERFACE_ERC1155 = '0xd9b67a26';
/** The ERC-721 draft id CryptoKitties and other early NFTs answer (no 0x80ac58cd). */
export const INTERFACE_ERC721_DRAFT = '0x9a20483d';

/** Names and symbols longer than this (code points) are cut. */
export const MAX_TEXT_CHARS = 256;

const ABI = parseAbi([
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
  'function ownerOf(uint256 tokenId) view returns (address)',
]);

export const SELECTOR = {
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  decimals: '0x313ce567',
  totalSupply: '0x18160ddd',
} as const;

function supportsInterfaceData(id: string): `0x${string}` {
  return encodeFunctionData({ abi: ABI, functionName: 'supportsInterface', args: [id as `0x${string}`] });
}

/** An eth_call as the node and the ethereum-etl recordings expect it: `[{to, data}, tag]`. */
export function ethCall(to: string, data: string, blockTag = 'latest'): RpcCall {
  return { method: 'eth_call', params: [{ to: to.toLowerCase(), data }, blockTag] };
}

/** A failed call: JSON-RPC error objects are per-call results; anything else is rethrown. */
function callError(o: CallOutcome<unknown>): RpcError | null {
  if (o.ok) return null;
  if (o.error.kind !== 'rpc') throw o.error;
  return o.error;
}

function describe(e: RpcError): string {
  const msg = e.detail.length > 200 ? `${e.detail.slice(0, 200)}...` : e.detail;
  return `${e.code !== undefined ? `${e.code} ` : ''}${msg}`;
}

/** The result as a hex string, or null (and why) for a failed call or a non-hex result. */
function resultHex(o: CallOutcome<unknown>): { hex: string | null; why: string | null } {
  const e = callError(o);
  if (e) return { hex: null, why: `call failed: ${describe(e)}` };
  const r = (o as { result: unknown }).result;
  if (typeof r !== 'string' || !hexToBytesLoose(r)) return { hex: null, why: 'result is not hex data' };
  return { hex: r, why: null };
}

function isErcCallOk(o: CallOutcome<unknown>): boolean | null {
  const e = callError(o);
  if (e) return null;
  const r = (o as { result: unknown }).result;
  return typeof r === 'string' ? decodeBoolStrict(r) : null;
}

/** name()/symbol() return data -> text + notes. */
function readText(field: string, o: CallOutcome<unknown>, errors: string[], report: boolean): string | null {
  const { hex, why } = resultHex(o);
  if (hex === null) {
    if (report) errors.push(`${field}: ${why}`);
    return null;
  }
  const s = decodeStringLoose(hex, { maxChars: MAX_TEXT_CHARS });
  if (s.encoding === 'empty') {
    if (report) errors.push(`${field}: empty return data`);
    return null;
  }
  if (s.encoding === 'invalid') {
    errors.push(`${field}: undecodable return data (${(hex.length - 2) / 2} bytes)`);
    return null;
  }
  if (s.replaced) errors.push(`${field}: invalid UTF-8 replaced`);
  if (s.stripped) errors.push(`${field}: control characters dropped`);
  if (s.truncated) errors.push(`${field}: cut to ${MAX_TEXT_CHARS} characters`);
  if (s.value === null && report) errors.push(`${field}: nothing printable in ${s.encoding} return`);
  return s.value;
}

function readUint(field: string, o: CallOutcome<unknown>, errors: string[], report: boolean): bigint | null {
  const { hex, why } = resultHex(o);
  if (hex === null) {
    if (report) errors.push(`${field}: ${why}`);
    return null;
  }
  const v = decodeUint256(hex);
  if (v === null && (report || hex.length > 2)) {
    errors.push(`${field}: ${hex.length <= 2 ? 'empty return data' : `undecodable return data (${(hex.length - 2) / 2} bytes)`}`);
  }
  return v;
}

/**
 * Name, symbol, decimals, total supply and type of a token contract, in one JSON-RPC batch.
 * Throws an RpcError only for a transport failure (kind != 'rpc').
 */
export async function fetchTokenMetadata(
  client: RpcClient,
  address: string,
  opts: FetchTokenMetadataOptions = {},
): Promise<TokenMetadata> {
  const tag = opts.blockTag ?? 'latest';
  const to = address.toLowerCase();
  const calls: RpcCall[] = [
    ethCall(to, supportsInterfaceData(INTERFACE_ERC165), tag),
    ethCall(to, supportsInterfaceData(INTERFACE_INVALID), tag),
    ethCall(to, supportsInterfaceData(INTERFACE_ERC721), tag),
    ethCall(to, supportsInterfaceData(INTERFACE_ERC1155), tag),
    ethCall(to, supportsInterfaceData(INTERFACE_ERC721_DRAFT), tag),
    ethCall(to, SELECTOR.name, tag),
    ethCall(to, SELECTOR.symbol, tag),
    ethCall(to, SELECTOR.decimals, tag),
    ethCall(to, SELECTOR.totalSupply, tag),
  ];
  const out = await client.batch<unknown>(calls);
  // Any transport failure throws here, before anything is decoded.
  for (const o of out) callError(o);
  const [o165, oInvalid, o721, o1155, o721Draft, oName, oSymbol, oDecimals, oSupply] = out as [
    CallOutcome<unknown>,
    CallOutcome<unknown>,
    CallOutcome<unknown>,
    CallOutcome<unknown>,
    CallOutcome<unknown>,
    CallOutcome<unknown>,
    CallOutcome<unknown>,
    CallOutcome<unknown>,
    CallOutcome<unknown>,
  ];
  const errors: string[] = [];

  // --- type --------------------------------------------------------------------------------
  let type: TokenType;
  let typeSource: TokenMetadata['typeSource'];
  const erc165 = isErcCallOk(o165) === true && isErcCallOk(oInvalid) === false;
  if (isErcCallOk(o165) === true && isErcCallOk(oInvalid) !== false) {
    errors.push('erc165: supportsInterface(0xffffffff) is not false; ERC-165 answers ignored');
  }
  const is721 = erc165 && (isErcCallOk(o721) === true || isErcCallOk(o721Draft) === true);
  const is1155 = erc165 && isErcCallOk(o1155) === true;
  if (is721 || is1155) {
    typeSource = 'erc165';
    if (is721 && is1155) type = opts.shapeType === 'ERC-1155' ? 'ERC-1155' : 'ERC-721';
    else type = is721 ? 'ERC-721' : 'ERC-1155';
  } else if (opts.shapeType) {
    type = opts.shapeType;
    typeSource = 'logs';
  } else if (erc165) {
    // ERC-165 answered properly and named neither NFT standard.
    type = 'ERC-20';
    typeSource = 'erc165';
  } else {
    type = 'ERC-20';
    typeSource = 'logs';
    errors.push('type: no ERC-165 answer and no transfer-log shape; assumed ERC-20');
  }

  // --- fields (report failures only where the type is expected to have the field) -----------
  const fungible = type === 'ERC-20';
  const name = readText('name', oName, errors, type !== 'ERC-1155');
  const symbol = readText('symbol', oSymbol, errors, type !== 'ERC-1155');
  const rawDecimals = readUint('decimals', oDecimals, errors, fungible);
  let decimals: number | null = null;
  if (rawDecimals !== null) {
    if (rawDecimals > 255n) errors.push(`decimals: ${rawDecimals > 10n ** 30n ? 'huge value' : rawDecimals.toString()} is not a plausible decimals value`);
    else decimals = Number(rawDecimals);
  }
  const supply = readUint('totalSupply', oSupply, errors, fungible);
  return { type, typeSource, name, symbol, decimals, totalSupply: supply === null ? null : supply.toString(), errors };
}

/** totalSupply() alone (to refresh after mints/burns); null when the call reverts or is undecodable. */
export async function fetchTotalSupply(client: RpcClient, address: string, blockTag = 'latest'): Promise<string | null> {
  const [o] = await client.batch<unknown>([ethCall(address, SELECTOR.totalSupply, blockTag)]);
  const { hex } = resultHex(o!);
  const v = hex === null ? null : decodeUint256(hex);
  return v === null ? null : v.toString();
}

/** balanceOf(holder) of an ERC-20 or ERC-721 token, as decimal digits; null on revert/garbage. */
export async function fetchBalanceOf(client: RpcClient, token: string, holder: string, blockTag = 'latest'): Promise<string | null> {
  const data = encodeFunctionData({ abi: ABI, functionName: 'balanceOf', args: [holder.toLowerCase() as `0x${string}`] });
  const [o] = await client.batch<unknown>([ethCall(token, data, blockTag)]);
  const { hex } = resultHex(o!);
  const v = hex === null ? null : decodeUint256(hex);
  return v === null ? null : v.toString();
}

/**
 * ownerOf(tokenId) of an ERC-721 token, lower-case; null when the call reverts (no such token,
 * burned), returns garbage, or returns the zero address (old contracts' "no owner").
 * `tokenId`: decimal digits or 0x-hex.
 */
export async function fetchOwnerOf(client: RpcClient, token: string, tokenId: string | bigint, blockTag = 'latest'): Promise<string | null> {
  const id = typeof tokenId === 'bigint' ? tokenId : BigInt(tokenId);
  const data = encodeFunctionData({ abi: ABI, functionName: 'ownerOf', args: [id] });
  const [o] = await client.batch<unknown>([ethCall(token, data, blockTag)]);
  const { hex } = resultHex(o!);
  const a = hex === null ? null : decodeAddressWord(hex);
  return a === null || /^0x0{40}$/.test(a) ? null : a;
}
