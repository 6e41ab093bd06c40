// The coin lane: native balances by eth_getBalance at every block that touched an address (and just
// before a new address first appears: its opening balance), one history entry per block where the
// value changed (ClickHouse coin_balance_history), the current value in PostgreSQL `addresses`.
// Pairs are read in chain order per address. A node without historical state is asked at its head
// instead (src/derived/node-history.ts); balances a reorg invalidated are restored first.
import { isStateUnavailable } from '../../rpc/errors.js';
import type { CallOutcome } from '../../rpc/client.js';
import { blockTimestamps, deleteCoinBalances, insertCoinBalances, latestCoinBalances, type CoinBalanceEntry } from '../../storage/clickhouse/derived.js';
import { ACCOUNTING, getLaneCursor } from '../../storage/postgres/derived.js';
import * as lanes from '../../storage/postgres/lanes.js';
import type { LaneEnv, LaneFactory } from '../lane.js';

/** Addresses claimed per step. */
const BATCH = 200;
/**
 * Pairs of one address a step reads, in chain order: an address touched in every block (the
 * miner, a busy contract) keeps up with the chain only if a step takes many of its blocks.
 */
const RUN = 16;

/** The node refuses eth_getBalance: nothing to read, and the balances not read stay unknown (null), never 0. */
const refused = (env: LaneEnv) => env.history.refuses('eth_getBalance');

export const coinLane: LaneFactory = (env) => ({
  name: 'coin',
  // The pairs stay queued for a node that answers (another NODE_URL, another run).
  due: async () => (refused(env) ? 0 : lanes.dueCoinBalances(env.pg)),

  async run() {
    if (refused(env)) return 0;
    await restore(env);
    const cur = await getLaneCursor(env.pg.pool, ACCOUNTING);
    if (!cur) return 0;
    const due = await lanes.claimCoinBalances(env.pg, cur.blockNumber, BATCH, RUN);
    if (!due.length) return 0;
    try {
      return await readings(env, due);
    } catch (e) {
      // Not finished (a node or store error): the claimed pairs are due again at once rather
      // than when their lease runs out, so the lane's own backoff is the only wait.
      await lanes.releaseCoinBalances(env.pg, due).catch(() => undefined);
      throw e;
    }
  },

  unwind: (tx, above) => lanes.unwindCoinBalances(tx, above),
});

/** Coin balances a reorg invalidated (marked -1) come back from the surviving history. */
async function restore(env: LaneEnv): Promise<void> {
  const { pg, ch } = env;
  const tried = new Set<string>();
  for (;;) {
    // An address whose balance could not be read at the head stays marked: next step.
    const list = (await lanes.coinBalancesToRestore(pg, 500)).filter((a) => !tried.has(a));
    if (!list.length) return;
    for (const a of list) tried.add(a);
    const cur = await getLaneCursor(pg.pool, ACCOUNTING);
    const latest = await latestCoinBalances(ch, list, cur?.blockNumber ?? 0);
    // Without historical state a balance may have been read at the head, with no entry to
    // restore from: read it at the head again.
    const fromHead = env.history.missing ? list.filter((a) => !latest.has(a)) : [];
    if (fromHead.length) await atHead(env, fromHead);
    await lanes.restoreCoinBalances(
      pg,
      // No entry at or below the cursor: it was read and never changed from zero.
      list.filter((a) => !fromHead.includes(a)).map((a) => ({ address: a, value: latest.get(a)?.value ?? '0', block: latest.get(a)?.block_number ?? null })),
    );
  }
}

/**
 * Reads the claimed pairs (in chain order per address, as claimed) and records them. An address's
 * pairs after one that failed are given back unread: each delta is taken from the reading before.
 */
async function readings(env: LaneEnv, claimed: { address: string; block_number: number; attempts: number }[]): Promise<number> {
  const { pg, ch, rpc } = env;
  const prev = await lanes.currentCoinBalances(pg, [...new Set(claimed.map((d) => d.address))]);
  // A balance already read at a later block (at the node's head, see atHead) covers these.
  const covered = claimed.filter((d) => (prev.get(d.address)?.block ?? -1) >= d.block_number);
  await lanes.dropCoinPending(pg, covered);
  const due = claimed.filter((d) => !covered.includes(d));
  const outcomes = new Map<(typeof due)[number], CallOutcome<string>>();
  const ask = async (pairs: typeof due) => {
    const got = await rpc.batch<string>(pairs.map((d) => ({ method: 'eth_getBalance', params: [d.address, `0x${d.block_number.toString(16)}`] })));
    pairs.forEach((d, i) => outcomes.set(d, got[i]));
  };
  // Each address's first pair, then the rest of the runs: a node without historical state refuses
  // every past block, and is asked once per address (as before runs), not once per pair.
  const firsts = new Set(due.filter((d, i) => i === 0 || due[i - 1].address !== d.address));
  await ask([...firsts]);
  const noState = [...outcomes.values()].some((o) => !o.ok && o.error.kind === 'rpc' && isStateUnavailable(o.error));
  const readFirst = new Set([...firsts].filter((d) => outcomes.get(d)!.ok).map((d) => d.address));
  // (A refused method leaves no first read, so nothing more is asked.)
  if (!noState && !env.history.missing) await ask(due.filter((d) => readFirst.has(d.address) && !firsts.has(d)));
  if (refused(env)) {
    // Refused (said once by env.history): not an attempt that failed, nothing to retry.
    await lanes.releaseCoinBalances(pg, due);
    return 0;
  }
  const ts = await blockTimestamps(ch, due.map((d) => d.block_number));
  const entries: CoinBalanceEntry[] = [];
  const done: { address: string; block: number; value: string; changed: boolean }[] = [];
  const headReads = new Set<string>();
  /** Addresses whose run stopped at a pair not read: their later pairs go back unread. */
  const stopped = new Set<string>();
  const unread: typeof due = [];
  /** Each address's balance after the last pair read in this step. */
  const last = new Map<string, string>();
  for (const d of due) {
    const o = outcomes.get(d);
    const block = d.block_number;
    if (stopped.has(d.address) || !o) {
      // Not asked (the node lacks historical state) or after a pair not read.
      stopped.add(d.address);
      unread.push(d);
      continue;
    }
    if (!o.ok) {
      if (o.error.kind !== 'rpc') throw o.error;
      stopped.add(d.address);
      if (isStateUnavailable(o.error)) {
        // The node keeps no state for that block: asking again will not help.
        await env.history.refused(o.error, block);
        headReads.add(d.address);
        unread.push(d);
      } else await lanes.failCoinBalance(pg, d.address, block, d.attempts);
      continue;
    }
    const value = BigInt(o.result).toString();
    // The current balance is the value after its last change; a first reading of zero is no change.
    const before = last.get(d.address) ?? prev.get(d.address)?.value ?? '0';
    last.set(d.address, value);
    const changed = value !== before;
    if (changed) {
      entries.push({ address: d.address, block_number: block, value, delta: (BigInt(value) - BigInt(before)).toString(), timestamp: ts.get(block) ?? 0 });
    }
    done.push({ address: d.address, block, value, changed });
  }
  await insertCoinBalances(ch, entries);
  const kept = await lanes.saveCoinBalances(pg, done);
  // A reorg that removed the pending row meanwhile orphaned the entry just written: take it back.
  const orphaned = entries.filter((e) => !kept.has(`${e.address}|${e.block_number}`));
  if (orphaned.length) await deleteCoinBalances(ch, orphaned);
  await lanes.releaseCoinBalances(pg, unread);
  if (headReads.size) await atHead(env, [...headReads]);
  return done.length + headReads.size + covered.length;
}

/**
 * Current balances from the node's head for addresses whose balance at a past block the node
 * cannot give (no historical state): right now, with no history entry for the blocks between.
 */
async function atHead(env: LaneEnv, addresses: string[]): Promise<void> {
  const { pg, rpc } = env;
  // The head first: each balance is then at least as new as the block it is recorded at.
  const head = Number(await rpc.request<string>('eth_blockNumber'));
  const outcomes = await rpc.batch<string>(addresses.map((a) => ({ method: 'eth_getBalance', params: [a, `0x${head.toString(16)}`] })));
  const rows: { address: string; value: string }[] = [];
  outcomes.forEach((o, i) => {
    if (o.ok) rows.push({ address: addresses[i], value: BigInt(o.result).toString() });
    else if (o.error.kind !== 'rpc') throw o.error;
  });
  await lanes.saveCoinBalancesAtHead(pg, rows, head);
}
