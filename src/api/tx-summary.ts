// What a transaction did, in Blockscout's summary shape (templates with typed variables, as its
// transaction interpreter answers `/transactions/{h}/summary`), computed here from the
// transaction's own token transfers and logs: swaps on Uniswap v2/v3-style pools, wraps and unwraps
// of WETH-like tokens, approvals, mints, burns, transfers, the coin sent and contracts created. A
// shape it does not know gives no summary: it never guesses.
import { formatUnits, toEventSelector } from 'viem';
import type { AddressJson } from './serializers/address.js';
import type { TokenJson } from './serializers/address.js';
import type { TokenTransferJson } from './serializers/token-transfer.js';

export type SummaryVariable =
  | { type: 'string'; value: string }
  | { type: 'currency'; value: string }
  | { type: 'address'; value: AddressJson }
  | { type: 'token'; value: TokenJson };

export interface TxSummary {
  summary_template: string;
  summary_template_variables: Record<string, SummaryVariable>;
}

export interface SummaryInput {
  status: 'ok' | 'error' | null;
  value: string;
  to: AddressJson | null;
  created_contract: AddressJson | null;
  /** Every token transfer of the transaction, in log order. */
  transfers: readonly TokenTransferJson[];
  /** Every log of the transaction, in order. */
  logs: readonly { address: string; topics: readonly (string | null)[]; data: string; index: number }[];
  /** Token records of the logs' emitters (lower-case address), where the explorer knows them as tokens. */
  tokens: ReadonlyMap<string, TokenJson>;
  /** An address object for an address (lower case). */
  address(a: string): AddressJson;
}

const topic = (sig: string) => toEventSelector(sig).toLowerCase();
const SWAP_V2 = topic('Swap(address,uint256,uint256,uint256,uint256,address)');
const SWAP_V3 = topic('Swap(address,address,int256,int256,uint160,uint128,int24)');
const DEPOSIT = topic('Deposit(address,uint256)');
const WITHDRAWAL = topic('Withdrawal(address,uint256)');
const APPROVAL = topic('Approval(address,address,uint256)');
const APPROVAL_FOR_ALL = topic('ApprovalForAll(address,address,bool)');

const MAX_UINT256 = (1n << 256n) - 1n;

/** The addresses the summary may name beyond the transfers' (approvals' spenders and operators): their facts are read first. */
export function namedInLogs(logs: readonly { topic0: string | null; topic2: string | null }[]): string[] {
  return logs.filter((l) => (l.topic0 === APPROVAL || l.topic0 === APPROVAL_FOR_ALL) && l.topic2).map((l) => topicAddress(l.topic2)!);
}
const ZERO = '0x0000000000000000000000000000000000000000';

const word = (data: string, i: number): bigint => BigInt(`0x${data.slice(2 + i * 64, 2 + (i + 1) * 64) || '0'}`);
const signed = (w: bigint): bigint => (w >= 1n << 255n ? w - (1n << 256n) : w);
const topicAddress = (t: string | null | undefined) => (t ? `0x${t.slice(-40)}`.toLowerCase() : null);
const lower = (a: string) => a.toLowerCase();

/** An amount of a token as the frontend shows currency: in whole units when its decimals are known. */
function amount(raw: bigint | string, token: TokenJson): SummaryVariable {
  const v = BigInt(raw);
  return token.decimals === null || token.decimals === undefined
    ? { type: 'string', value: `${v} base units` }
    : { type: 'currency', value: formatUnits(v, Number(token.decimals)) };
}

const str = (value: string): SummaryVariable => ({ type: 'string', value });
const isFungible = (t: TokenJson) => t.type === 'ERC-20';

/** The summaries of a transaction, in the order things happened; empty when nothing here is known. */
export function summarize(x: SummaryInput): TxSummary[] {
  if (x.status !== 'ok') return [];
  const out: TxSummary[] = [];
  const used = new Set<TokenTransferJson>();
  const free = (pred: (t: TokenTransferJson) => boolean) => x.transfers.find((t) => !used.has(t) && pred(t));
  const valueOf = (t: TokenTransferJson): bigint | null => ('value' in t.total && t.total.value !== null ? BigInt(t.total.value as string) : null);
  let coinExplained = false;

  if (x.created_contract) out.push({ summary_template: '{action_type} contract {contract_address}', summary_template_variables: { action_type: str('Deploy'), contract_address: { type: 'address', value: x.created_contract } } });

  for (const log of x.logs) {
    const t0 = log.topics[0]?.toLowerCase();
    const emitter = lower(log.address);
    if (t0 === SWAP_V2 || t0 === SWAP_V3) {
      // Into the pool and out of it, by the event's own amounts; matched with the transfers that moved them.
      let inAmount: bigint;
      let outAmount: bigint;
      if (t0 === SWAP_V2) {
        if (log.topics.length !== 3 || log.data.length !== 2 + 4 * 64) continue;
        inAmount = word(log.data, 0) || word(log.data, 1);
        outAmount = word(log.data, 2) || word(log.data, 3);
      } else {
        if (log.topics.length !== 3 || log.data.length !== 2 + 5 * 64) continue;
        const a0 = signed(word(log.data, 0));
        const a1 = signed(word(log.data, 1));
        if ((a0 > 0n) === (a1 > 0n)) continue;
        inAmount = a0 > 0n ? a0 : a1;
        outAmount = a0 > 0n ? -a1 : -a0;
      }
      const tin = free((t) => lower(t.to.hash) === emitter && isFungible(t.token) && valueOf(t) === inAmount);
      const tout = free((t) => lower(t.from.hash) === emitter && isFungible(t.token) && valueOf(t) === outAmount && t !== tin);
      if (!tin || !tout || inAmount === 0n) continue;
      used.add(tin);
      used.add(tout);
      out.push({
        summary_template: '{action_type} {amount_in} {token_in} for {amount_out} {token_out}',
        summary_template_variables: {
          action_type: str('Swap'),
          amount_in: amount(inAmount, tin.token),
          token_in: { type: 'token', value: tin.token },
          amount_out: amount(outAmount, tout.token),
          token_out: { type: 'token', value: tout.token },
        },
      });
      continue;
    }
    const token = x.tokens.get(emitter);
    if (!token) continue;
    if ((t0 === DEPOSIT || t0 === WITHDRAWAL) && isFungible(token) && log.topics.length === 2 && log.data.length === 66) {
      // WETH9's own events (its deposit emits no Transfer): the coin wrapped into the token, or back.
      const wad = word(log.data, 0);
      if (t0 === DEPOSIT) {
        if (x.to && lower(x.to.hash) === emitter && BigInt(x.value) === wad) coinExplained = true;
        out.push({ summary_template: '{action_type} {amount} {native} to {token}', summary_template_variables: { action_type: str('Wrap'), amount: amount(wad, { ...token, decimals: '18' }), token: { type: 'token', value: token } } });
      } else {
        out.push({ summary_template: '{action_type} {amount} {token} to {native}', summary_template_variables: { action_type: str('Unwrap'), amount: amount(wad, token), token: { type: 'token', value: token } } });
      }
      continue;
    }
    if (t0 === APPROVAL && isFungible(token) && log.topics.length === 3 && log.data.length === 66) {
      const spender = { type: 'address' as const, value: x.address(topicAddress(log.topics[2])!) };
      const v = word(log.data, 0);
      const vars = { action_type: str(v === 0n ? 'Revoke' : 'Approve'), spender, token: { type: 'token' as const, value: token } };
      if (v === 0n) out.push({ summary_template: '{action_type} the allowance of {spender} for {token}', summary_template_variables: vars });
      else if (v === MAX_UINT256) out.push({ summary_template: '{action_type} {spender} to spend unlimited {token}', summary_template_variables: vars });
      else out.push({ summary_template: '{action_type} {spender} to spend {amount} {token}', summary_template_variables: { ...vars, amount: amount(v, token) } });
      continue;
    }
    if (t0 === APPROVAL && token.type === 'ERC-721' && log.topics.length === 4 && log.data === '0x') {
      const approved = topicAddress(log.topics[2])!;
      const id = BigInt(log.topics[3]!).toString();
      if (approved === ZERO) {
        out.push({ summary_template: '{action_type} the approval for {token} #{token_id}', summary_template_variables: { action_type: str('Revoke'), token: { type: 'token', value: token }, token_id: str(id) } });
      } else {
        out.push({
          summary_template: '{action_type} {spender} to transfer {token} #{token_id}',
          summary_template_variables: { action_type: str('Approve'), spender: { type: 'address', value: x.address(approved) }, token: { type: 'token', value: token }, token_id: str(id) },
        });
      }
      continue;
    }
    if (t0 === APPROVAL_FOR_ALL && (token.type === 'ERC-721' || token.type === 'ERC-1155') && log.topics.length === 3 && log.data.length === 66) {
      const on = word(log.data, 0) === 1n;
      const operator = { type: 'address' as const, value: x.address(topicAddress(log.topics[2])!) };
      out.push({
        summary_template: on ? '{action_type} {operator} to transfer all of {token}' : '{action_type} the approval of {operator} for all of {token}',
        summary_template_variables: { action_type: str(on ? 'Approve' : 'Revoke'), operator, token: { type: 'token', value: token } },
      });
    }
  }

  for (const t of x.transfers) {
    if (used.has(t)) continue;
    const from = lower(t.from.hash);
    const to = lower(t.to.hash);
    const action = from === ZERO ? 'Mint' : to === ZERO ? 'Burn' : 'Transfer';
    const vars: Record<string, SummaryVariable> = { action_type: str(action), token: { type: 'token', value: t.token } };
    const id = 'token_id' in t.total && t.total.token_id !== null && t.total.token_id !== undefined ? String(t.total.token_id) : null;
    const v = valueOf(t);
    let what: string;
    if (t.token.type === 'ERC-20' && v !== null) {
      vars.amount = amount(v, t.token);
      what = '{amount} {token}';
    } else if (t.token.type === 'ERC-721' && id !== null) {
      vars.token_id = str(id);
      what = '{token} #{token_id}';
    } else if (t.token.type === 'ERC-1155' && id !== null && v !== null) {
      vars.token_id = str(id);
      vars.amount = str(v.toString());
      what = '{amount} of {token} #{token_id}';
    } else continue;
    if (action === 'Mint') {
      vars.to_address = { type: 'address', value: t.to };
      out.push({ summary_template: `{action_type} ${what} to {to_address}`, summary_template_variables: vars });
    } else if (action === 'Burn') {
      vars.from_address = { type: 'address', value: t.from };
      out.push({ summary_template: `{action_type} ${what} from {from_address}`, summary_template_variables: vars });
    } else {
      vars.from_address = { type: 'address', value: t.from };
      vars.to_address = { type: 'address', value: t.to };
      out.push({ summary_template: `{action_type} ${what} from {from_address} to {to_address}`, summary_template_variables: vars });
    }
  }

  if (BigInt(x.value) > 0n && !coinExplained && x.to) {
    out.unshift({
      summary_template: '{action_type} {amount} {native} to {to_address}',
      summary_template_variables: { action_type: str('Transfer'), amount: { type: 'currency', value: formatUnits(BigInt(x.value), 18) }, to_address: { type: 'address', value: x.to } },
    });
  }
  return out;
}
