// Address facts for the API, proven from stored chain data only (no node calls):
// - a contract: it emitted a log, or we stored the successful transaction or internal frame that
//   created it;
// - not a contract: it sent a transaction (only externally owned accounts sign transactions; an
//   EIP-7702 delegation is not detected yet);
// - otherwise unknown (null): e.g. a contract created before the first indexed block that never
//   emitted a log, or an address that only ever received.
// Each probe is a point read of an address-ordered table that stops at its first row (LIMIT 1
// per address), so a busy address costs no more than a quiet one.
import type { ClickHouseStore } from '../store.js';

export interface Creation {
  transactionHash: string;
  /** The account that ran the creating code: the transaction's sender or the creating frame's `from`. */
  creator: string;
  blockNumber: string;
}

export interface AddressFacts {
  isContract: boolean | null;
  creation: Creation | null;
  /** A contract that self-destructed (derived data); absent when not known. */
  selfDestructed?: boolean;
}

interface ProbeRow {
  k: string;
  address: string;
  block_number: string;
  transaction_index: number;
  trace_index: number;
}

function unionPerAddress(addrs: readonly string[], parts: ((p: string) => string)[]): { sql: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const selects: string[] = [];
  addrs.forEach((a, i) => {
    params[`a${i}`] = a;
    for (const part of parts) selects.push(`(${part(`{a${i}:String}`)})`);
  });
  return { sql: selects.join('\nUNION ALL\n'), params };
}

/**
 * Facts for each address (lower-case 0x strings). With `withCreation`, the creating transaction
 * is looked up for contracts too (an address page); without, probing stops at the first proof
 * (list pages).
 */
export async function addressFacts(
  ch: ClickHouseStore,
  addresses: readonly string[],
  opts: { withCreation?: boolean } = {},
): Promise<Map<string, AddressFacts>> {
  const addrs = [...new Set(addresses.filter((a) => /^0x[0-9a-f]{40}$/.test(a)))];
  const out = new Map<string, AddressFacts>();
  for (const a of addrs) out.set(a, { isContract: null, creation: null });
  if (!addrs.length) return out;

  // 1. Emitted a log: a contract. One LIMIT 1 probe per address, so a contract with a hundred
  //    million logs costs what a quiet one does.
  // 2. Sent a transaction: not a contract.
  // Both probes in one query (one round trip); a log wins over a sent transaction.
  const logs = unionPerAddress(addrs, [(a) => `SELECT 'log' AS k, address FROM address_logs WHERE address = ${a} LIMIT 1`]);
  const probes = await ch.query<{ k: string; address: string }>(
    `${logs.sql}
     UNION ALL
     (SELECT 'sent' AS k, address FROM address_transactions WHERE address IN {as:Array(String)} AND is_from = 1 LIMIT 1 BY address)`,
    { ...logs.params, as: addrs },
  );
  for (const r of probes) if (r.k === 'sent') out.get(r.address)!.isContract = false;
  for (const r of probes) if (r.k === 'log') out.get(r.address)!.isContract = true;

  // 3. The first transaction / internal frame that reached the address: its creation, if it was
  //    created in the indexed range (unless it was funded before it existed).
  const probeFor = opts.withCreation ? addrs.filter((a) => out.get(a)!.isContract !== false) : addrs.filter((a) => out.get(a)!.isContract === null);
  if (!probeFor.length) return out;
  const rows = await ch.query<ProbeRow>(
    `SELECT 'tx' AS k, address, block_number, transaction_index, toUInt32(0) AS trace_index FROM address_transactions
     WHERE address IN {as:Array(String)} AND is_to = 1 ORDER BY address, block_number, transaction_index LIMIT 1 BY address
     UNION ALL
     SELECT 'itx' AS k, address, block_number, transaction_index, trace_index FROM address_internal_transactions
     WHERE address IN {as:Array(String)} AND is_to = 1 ORDER BY address, block_number, transaction_index, trace_index LIMIT 1 BY address`,
    { as: probeFor },
  );
  const txCandidates = rows.filter((r) => r.k === 'tx');
  const itxCandidates = rows.filter((r) => r.k === 'itx');

  // 2. Was that first transaction / frame the successful creation of the address?
  if (txCandidates.length) {
    const created = await ch.query<{ created_contract: string; hash: string; from: string; block_number: string }>(
      `SELECT created_contract, hash, "from", block_number FROM transactions
       WHERE block_number IN {bs:Array(UInt64)} AND has(arrayZip({bs:Array(UInt64)}, {is:Array(UInt32)}), (block_number, transaction_index))
         AND created_contract IN {as:Array(String)} AND status = 1`,
      {
        bs: txCandidates.map((r) => BigInt(r.block_number)),
        is: txCandidates.map((r) => r.transaction_index),
        as: txCandidates.map((r) => r.address),
      },
    );
    for (const c of created) {
      const f = out.get(c.created_contract);
      if (f) {
        f.isContract = true;
        f.creation = { transactionHash: c.hash, creator: c.from, blockNumber: c.block_number };
      }
    }
  }
  if (itxCandidates.length) {
    const keyBs = itxCandidates.map((r) => BigInt(r.block_number));
    const keyTs = itxCandidates.map((r) => r.transaction_index);
    // Every frame of those transactions that created one of the addresses or failed: a creation
    // took effect only if no frame on its path (itself, an ancestor, the top level) failed.
    const frames = await ch.query<{
      block_number: string;
      transaction_index: number;
      trace_address: number[];
      error: string;
      created_contract_address: string;
      transaction_hash: string;
      from: string;
    }>(
      `SELECT block_number, transaction_index, trace_address, error, created_contract_address, transaction_hash, "from"
       FROM internal_transactions
       WHERE block_number IN {bs:Array(UInt64)} AND has(arrayZip({bs:Array(UInt64)}, {ts:Array(UInt32)}), (block_number, transaction_index))
         AND (error != '' OR created_contract_address IN {as:Array(String)})`,
      { bs: keyBs, ts: keyTs, as: itxCandidates.map((r) => r.address) },
    );
    const failedPaths = new Map<string, number[][]>();
    for (const f of frames) {
      if (!f.error) continue;
      const k = `${f.block_number}:${f.transaction_index}`;
      const list = failedPaths.get(k) ?? [];
      list.push(f.trace_address);
      failedPaths.set(k, list);
    }
    const isPrefix = (p: number[], of: number[]) => p.length <= of.length && p.every((x, i) => of[i] === x);
    for (const f of frames) {
      if (f.error || !f.created_contract_address) continue;
      const failed = failedPaths.get(`${f.block_number}:${f.transaction_index}`) ?? [];
      if (failed.some((p) => isPrefix(p, f.trace_address))) continue;
      const facts = out.get(f.created_contract_address);
      if (facts && !facts.creation) {
        facts.isContract = true;
        facts.creation = { transactionHash: f.transaction_hash, creator: f.from, blockNumber: f.block_number };
      }
    }
  }

  return out;
}

export interface AddressActivity {
  hasLogs: boolean;
  hasTokenTransfers: boolean;
  hasValidatedBlocks: boolean;
  hasWithdrawals: boolean;
  /** Token standard when the address is a token contract seen in transfers. */
  tokenType: string | null;
  /** Any stored trace of the address at all. */
  seen: boolean;
}

/**
 * What an address page needs beyond AddressFacts. `blocks.miner` and `withdrawals.address` have
 * no index: those two probes scan (see the report's proposed skip indexes).
 */
export async function addressActivity(ch: ClickHouseStore, address: string): Promise<AddressActivity> {
  const rows = await ch.query<{ k: string; v: string }>(
    `(SELECT 'logs' AS k, '' AS v FROM address_logs WHERE address = {a:String} LIMIT 1)
     UNION ALL (SELECT 'tt' AS k, '' AS v FROM address_token_transfers WHERE address = {a:String} LIMIT 1)
     UNION ALL (SELECT 'miner' AS k, '' AS v FROM blocks WHERE miner = {a:String} LIMIT 1)
     UNION ALL (SELECT 'wd' AS k, '' AS v FROM withdrawals WHERE address = {a:String} LIMIT 1)
     UNION ALL (SELECT 'token' AS k, token_type AS v FROM token_transfers
                WHERE (block_number, log_index, batch_index) IN (
                  SELECT block_number, log_index, batch_index FROM token_transfers_by_token WHERE token_address = {a:String} LIMIT 1)
                LIMIT 1)
     UNION ALL (SELECT 'tx' AS k, '' AS v FROM address_transactions WHERE address = {a:String} LIMIT 1)
     UNION ALL (SELECT 'itx' AS k, '' AS v FROM address_internal_transactions WHERE address = {a:String} LIMIT 1)`,
    { a: address },
  );
  const has = (k: string) => rows.some((r) => r.k === k);
  return {
    hasLogs: has('logs'),
    hasTokenTransfers: has('tt'),
    hasValidatedBlocks: has('miner'),
    hasWithdrawals: has('wd'),
    tokenType: rows.find((r) => r.k === 'token')?.v ?? null,
    seen: rows.length > 0,
  };
}

/** Token standard of each address that is a token contract seen in transfers. */
export async function tokenTypes(ch: ClickHouseStore, addresses: readonly string[]): Promise<Map<string, string>> {
  const addrs = [...new Set(addresses)];
  if (!addrs.length) return new Map();
  const q = unionPerAddress(addrs, [
    (a) => `SELECT token_address, token_type FROM token_transfers
            WHERE (block_number, log_index, batch_index) IN (
              SELECT block_number, log_index, batch_index FROM token_transfers_by_token WHERE token_address = ${a} LIMIT 1)
            LIMIT 1`,
  ]);
  const rows = await ch.query<{ token_address: string; token_type: string }>(q.sql, q.params);
  return new Map(rows.map((r) => [r.token_address, r.token_type]));
}

/** Blocks the address mined (its validations). `blocks.miner` has no index: this scans it. */
export async function validationsCount(ch: ClickHouseStore, address: string): Promise<string> {
  const [r] = await ch.query<{ n: string }>('SELECT count() AS n FROM blocks WHERE miner = {a:String}', { a: address });
  return r?.n ?? '0';
}
