// The L1 side of an OP Stack chain, from the OptimismPortal's logs on L1 (README.md, "OP Stack"):
// a deposit's TransactionDeposited log and the L2 source hash it becomes, a withdrawal's proof and
// finalization, and the withdrawal status those allow to tell. Pure: no I/O.
import { concatHex, decodeAbiParameters, keccak256, toEventSelector, toFunctionSelector, type Hex } from 'viem';
import { lower } from './hex.js';

export const TRANSACTION_DEPOSITED_TOPIC = toEventSelector('TransactionDeposited(address,address,uint256,bytes)');
export const WITHDRAWAL_PROVEN_TOPIC = toEventSelector('WithdrawalProven(bytes32,address,address)');
/** OptimismPortal2's second proof event (the proof submitter), in the same transaction as WithdrawalProven. */
export const WITHDRAWAL_PROVEN_EXT1_TOPIC = toEventSelector('WithdrawalProvenExtension1(bytes32,address)');
export const WITHDRAWAL_FINALIZED_TOPIC = toEventSelector('WithdrawalFinalized(bytes32,bool)');
export const PORTAL_TOPICS = [TRANSACTION_DEPOSITED_TOPIC, WITHDRAWAL_PROVEN_TOPIC, WITHDRAWAL_PROVEN_EXT1_TOPIC, WITHDRAWAL_FINALIZED_TOPIC];
/** proofMaturityDelaySeconds() of OptimismPortal2 (the OptimismPortal before it has none). */
export const PROOF_MATURITY_DELAY_SELECTOR = toFunctionSelector('proofMaturityDelaySeconds()');

/** The indexer fact of the follower: its checkpoint and what the API needs to judge a status. */
export const OP_L1_FACT = 'op_l1';

export interface OpL1Fact {
  portal: string;
  /** The last L1 block whose portal logs are stored (-1: none yet). */
  checkpoint: number;
  /** The newest L1 block the follower saw, and its time (unix seconds): "now" on L1 for a withdrawal's status. */
  l1_head: number;
  l1_head_timestamp: number;
  /** The portal's proofMaturityDelaySeconds() at the checkpoint; null where the portal has none. */
  proof_maturity_delay: number | null;
}

/** An eth_getLogs entry as the L1 node gives it. */
export interface L1Log {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  logIndex: string;
}

/**
 * The source hash of the L2 deposit a user deposit's log becomes (deposit domain 0,
 * https://specs.optimism.io/protocol/deposits.html#source-hash-computation):
 * keccak256(bytes32(0) ++ keccak256(l1BlockHash ++ bytes32(l1LogIndex))).
 */
export function userDepositSourceHash(l1BlockHash: string, logIndex: number | bigint): string {
  const inner = keccak256(concatHex([l1BlockHash as Hex, `0x${BigInt(logIndex).toString(16).padStart(64, '0')}`]));
  return keccak256(concatHex([`0x${'00'.repeat(32)}`, inner]));
}

const wordAddress = (w: string | undefined) => (w && w.length === 66 ? lower(`0x${w.slice(26)}`) : '');

export interface L1DepositRow {
  source_hash: string;
  l1_block_number: number;
  l1_block_hash: string;
  l1_log_index: number;
  /** Unix seconds. */
  l1_timestamp: number;
  l1_transaction_hash: string;
  l1_transaction_origin: string;
  portal: string;
  deposit_from: string;
  deposit_to: string;
  version: string;
  opaque_data: string;
}

export interface L1WithdrawalEventRow {
  withdrawal_hash: string;
  kind: 'proven' | 'finalized';
  l1_block_number: number;
  l1_block_hash: string;
  l1_log_index: number;
  l1_timestamp: number;
  l1_transaction_hash: string;
  portal: string;
  success: number;
  proof_submitter: string;
  proof_maturity_delay: number | null;
}

/** What a range of the portal's logs holds, before the L1 blocks' times and transactions' senders are known. */
export interface PortalEvents {
  deposits: Omit<L1DepositRow, 'l1_timestamp' | 'l1_transaction_origin'>[];
  withdrawals: Omit<L1WithdrawalEventRow, 'l1_timestamp' | 'proof_maturity_delay'>[];
}

/** The portal's logs (of `portal` only; others and malformed ones are skipped) as rows. */
export function portalEvents(logs: readonly L1Log[], portal: string): PortalEvents {
  const out: PortalEvents = { deposits: [], withdrawals: [] };
  const p = lower(portal);
  const submitters = new Map<string, string>();
  for (const l of logs) {
    if (lower(l.address) !== p || l.topics[0] !== WITHDRAWAL_PROVEN_EXT1_TOPIC || l.topics.length < 3) continue;
    submitters.set(`${lower(l.transactionHash)}:${lower(l.topics[1]!)}`, wordAddress(l.topics[2]));
  }
  for (const l of logs) {
    if (lower(l.address) !== p) continue;
    const base = {
      l1_block_number: Number(BigInt(l.blockNumber)),
      l1_block_hash: lower(l.blockHash),
      l1_log_index: Number(BigInt(l.logIndex)),
      l1_transaction_hash: lower(l.transactionHash),
      portal: p,
    };
    const t0 = l.topics[0];
    if (t0 === TRANSACTION_DEPOSITED_TOPIC && l.topics.length === 4) {
      let opaque = '0x';
      try {
        [opaque] = decodeAbiParameters([{ type: 'bytes' }], l.data as Hex);
      } catch {
        continue; // Not the portal's event after all.
      }
      const version = BigInt(l.topics[3]!);
      // Only version 0 is a user deposit with this source hash (the only version there is).
      if (version !== 0n) continue;
      out.deposits.push({
        ...base,
        source_hash: userDepositSourceHash(l.blockHash, BigInt(l.logIndex)),
        deposit_from: wordAddress(l.topics[1]),
        deposit_to: wordAddress(l.topics[2]),
        version: version.toString(),
        opaque_data: lower(opaque),
      });
    } else if (t0 === WITHDRAWAL_PROVEN_TOPIC && l.topics.length === 4) {
      const hash = lower(l.topics[1]!);
      out.withdrawals.push({ ...base, withdrawal_hash: hash, kind: 'proven', success: 0, proof_submitter: submitters.get(`${base.l1_transaction_hash}:${hash}`) ?? '' });
    } else if (t0 === WITHDRAWAL_FINALIZED_TOPIC && l.topics.length === 2 && l.data.length === 66) {
      out.withdrawals.push({ ...base, withdrawal_hash: lower(l.topics[1]!), kind: 'finalized', success: BigInt(l.data) === 0n ? 0 : 1, proof_submitter: '' });
    }
  }
  return out;
}

/** Blockscout's withdrawal statuses; this explorer answers only those the portal's logs prove (README.md, "OP Stack"). */
export type WithdrawalStatus = 'Waiting for state root' | 'Ready to prove' | 'In challenge period' | 'Ready for relay' | 'Relayed';

export interface WithdrawalL1Facts {
  /** The finalization's L1 transaction, when finalized. */
  finalized?: { l1_transaction_hash: string; l1_timestamp: number; success: boolean };
  /** The latest proof (OptimismPortal2 keeps one per submitter; a later one restarts the wait). */
  proven?: { l1_transaction_hash: string; l1_timestamp: number; proof_maturity_delay: number | null };
}

/** When the proof matures: the proof's L1 time + the portal's proofMaturityDelaySeconds (null where unknown). */
export function challengePeriodEnd(f: WithdrawalL1Facts): number | null {
  if (f.finalized || !f.proven || f.proven.proof_maturity_delay == null) return null;
  return f.proven.l1_timestamp + f.proven.proof_maturity_delay;
}

/**
 * The status the portal's logs prove, as of L1 time `l1Now` (unix seconds of the newest L1 block
 * the follower saw), or null when they cannot tell: "Relayed" once finalized, "In challenge
 * period" while a proof is younger than the portal's proof maturity delay. A withdrawal not proven
 * ("Waiting for state root" or "Ready to prove") or proven and matured ("Ready for relay" only
 * once its dispute game has resolved and its finality delay passed) would need output roots or
 * dispute games, which are not read: null.
 */
export function withdrawalStatus(f: WithdrawalL1Facts, l1Now: number | null): WithdrawalStatus | null {
  if (f.finalized) return 'Relayed';
  const end = challengePeriodEnd(f);
  if (end != null && l1Now != null && l1Now < end) return 'In challenge period';
  return null;
}
