// What the derived figures lack when the indexed history or the node is partial, worded from what
// is stored, never from what was hoped: the facts the indexer learned (FIRST_BLOCK, a node without
// historical state, methods the node refuses, balance checks the node answered) and the balance
// checks still queued. The indexing status words the whole (partialNotes); the API's token and
// address answers word their own figures (`caveats`, keyed by the figure they qualify); the web UI
// shows these beside the figures. Here so that the API and the indexer can both use it.
import type { PgStore } from './postgres/store.js';
import { getFact } from './postgres/indexer.js';
import { holderChecks, queuedChecks, tokenChecks } from './postgres/reads/balance-checks.js';

/** Fact 'refused_methods' (src/derived/node-history.ts): what the node at `url` refuses. */
export interface RefusedMethodsFact {
  url: string;
  methods: Record<string, { code: number; error: string; since: string }>;
}

/** What a refused method leaves unknown (the log and the indexing status say it). */
export const REFUSED_METHOD_EFFECTS: Readonly<Record<string, string>> = {
  eth_getBalance: 'coin balances it has not given are unknown',
  eth_getCode: 'contract code it has not given is unknown',
  eth_getStorageAt: 'proxy implementations are unknown',
  eth_call: 'token metadata and supplies it has not given are unknown, and token balances are not checked',
};

export interface HistoryFacts {
  /** FIRST_BLOCK: where the indexed history starts. */
  firstBlock: number;
  /** The node keeps no historical state (since when, its words); null when not known to. */
  noState: { since: string; error: string } | null;
  /** Methods the node refuses, by name. */
  refused: RefusedMethodsFact['methods'];
  /** Balance checks (balanceOf) of tokens older than the indexed history the node answered so far, and the checks still queued. */
  checks: { answered: number; queued: number };
}

export async function historyFacts(pg: PgStore): Promise<HistoryFacts> {
  const [caps, state, refused, checks] = await Promise.all([
    getFact<{ firstBlock?: number }>(pg, 'capabilities'),
    getFact<{ available: boolean; since: string; error: string }>(pg, 'state_history'),
    getFact<RefusedMethodsFact>(pg, 'refused_methods'),
    getFact<{ answered?: number }>(pg, 'balance_checks'),
  ]);
  const firstBlock = caps?.firstBlock ?? 0;
  return {
    firstBlock,
    noState: state?.available === false ? { since: state.since, error: state.error } : null,
    refused: refused?.methods ?? {},
    checks: { answered: Number(checks?.answered ?? 0), queued: firstBlock > 0 ? await queuedChecks(pg) : 0 },
  };
}

/** Whether anything is partial (else there is no caveat to look for). */
export const isPartial = (f: HistoryFacts): boolean => f.firstBlock > 0 || f.noState !== null || Object.keys(f.refused).length > 0;

/** Why queued balance checks are not answered: what the node refuses, else nothing known. */
export function uncheckedWhy(f: HistoryFacts): string {
  if (f.refused.eth_call) return ': the node refuses eth_call';
  if (f.noState) return ': the node keeps no historical state, so they wait until the indexed data is near its head';
  return f.checks.answered === 0 ? ': the node has answered none so far' : '';
}

/** Caveats of a token's figures (GET /tokens/{hash}): holders_count, and its holders' balances. */
export interface TokenCaveats {
  holders_count: string;
  balances: string;
}

/** A token's caveats; null when its whole history is indexed (FIRST_BLOCK 0, or created since). */
export async function tokenCaveats(pg: PgStore, f: HistoryFacts, token: string): Promise<TokenCaveats | null> {
  if (f.firstBlock === 0) return null;
  const c = await tokenChecks(pg, token);
  if (c.createdInHistory) return null;
  const from = f.firstBlock;
  let balances: string;
  if (c.unchecked > 0) {
    balances =
      `${c.unchecked} holders' balances count only transfers since block ${from} and may miss what was held before it: ` +
      `not checked with the node (balanceOf) yet${uncheckedWhy(f)}.`;
  } else if (f.checks.answered > 0) {
    balances = `Balances of holders first seen since block ${from} were checked with the node (balanceOf), where the contract answers it.`;
  } else balances = `Balances count only transfers since block ${from}: none was checked with the node (balanceOf).`;
  return {
    holders_count: `History starts at block ${from}: holders from before it who have not moved the token since are not counted.`,
    balances,
  };
}

/** Caveats of an address's figures (GET /addresses/{hash}): its coin balance, its token balances. */
export interface AddressCaveats {
  coin_balance?: string;
  token_balances?: string;
}

/** An address's caveats; null when its figures are complete. `coinBalanceKnown`: the answer has a coin balance. */
export async function addressCaveats(pg: PgStore, f: HistoryFacts, address: string, coinBalanceKnown: boolean): Promise<AddressCaveats | null> {
  const out: AddressCaveats = {};
  if (f.refused.eth_getBalance) {
    out.coin_balance = coinBalanceKnown
      ? 'As last read: the node now refuses eth_getBalance, so it is not read again.'
      : 'Unknown: the node refuses eth_getBalance.';
  } else if (f.noState) {
    out.coin_balance =
      "The node keeps no historical state: where it could not answer for a past block the balance was read at its head, and the history of changes before that is missing.";
  }
  if (f.firstBlock > 0) {
    const from = f.firstBlock;
    const c = await holderChecks(pg, address);
    let more = '';
    if (c.unchecked > 0) {
      more =
        `; ${c.unchecked} of its balances of tokens older than block ${from} count only transfers since then and may miss what was held before: ` +
        `not checked with the node (balanceOf) yet${uncheckedWhy(f)}`;
    } else if (c.older > 0) {
      more =
        f.checks.answered > 0
          ? `; its balances of tokens older than block ${from} were checked with the node (balanceOf), where the contract answers it`
          : `; its balances of tokens older than block ${from} count only transfers since then: none was checked with the node (balanceOf)`;
    }
    out.token_balances = `History starts at block ${from}: a token held before it and not moved since is not listed${more}.`;
  }
  return out.coin_balance || out.token_balances ? out : null;
}
