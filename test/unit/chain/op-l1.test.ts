// The withdrawal status and challenge period end the OptimismPortal's logs prove (src/chain/op-l1.ts),
// and the portal's logs read into rows: never a status the logs cannot prove.
import t from 'tap';
import { encodeAbiParameters } from 'viem';
import { challengePeriodEnd, portalEvents, withdrawalStatus, WITHDRAWAL_FINALIZED_TOPIC, WITHDRAWAL_PROVEN_EXT1_TOPIC, WITHDRAWAL_PROVEN_TOPIC } from '../../../src/chain/op-l1.js';

const proven = (at: number, delay: number | null) => ({ l1_transaction_hash: '0xp', l1_timestamp: at, proof_maturity_delay: delay });

t.test('statuses: only what the logs prove', async (t) => {
  t.equal(withdrawalStatus({}, 1000), null, 'not proven: "Waiting for state root" or "Ready to prove" need output roots: null');
  t.equal(withdrawalStatus({ proven: proven(1000, 600) }, 1599), 'In challenge period', 'a proof younger than the delay');
  t.equal(challengePeriodEnd({ proven: proven(1000, 600) }), 1600);
  t.equal(withdrawalStatus({ proven: proven(1000, 600) }, 1600), null, 'matured: "Ready for relay" needs the dispute game: null');
  t.equal(withdrawalStatus({ proven: proven(1000, null) }, 1001), null, 'a portal without proofMaturityDelaySeconds: no end, no status');
  t.equal(challengePeriodEnd({ proven: proven(1000, null) }), null);
  t.equal(withdrawalStatus({ proven: proven(1000, 600) }, null), null, 'no L1 time known: null');
  const finalized = { l1_transaction_hash: '0xf', l1_timestamp: 2000, success: false };
  t.equal(withdrawalStatus({ proven: proven(1000, 600), finalized }, 1100), 'Relayed', 'finalized (even a failed call: the portal never replays it)');
  t.equal(challengePeriodEnd({ proven: proven(1000, 600), finalized }), null);
});

t.test("the portal's proof, its submitter and its finalization as rows", async (t) => {
  const portal = '0x' + 'ab'.repeat(20);
  const wh = '0x' + '77'.repeat(32);
  const base = { address: portal, blockNumber: '0x10', blockHash: '0x' + '01'.repeat(32), transactionHash: '0x' + '02'.repeat(32) };
  const addr = (a: string) => '0x' + a.slice(2).padStart(64, '0');
  const ev = portalEvents(
    [
      { ...base, logIndex: '0x1', topics: [WITHDRAWAL_PROVEN_TOPIC, wh, addr('0x' + '11'.repeat(20)), addr('0x' + '22'.repeat(20))], data: '0x' },
      { ...base, logIndex: '0x2', topics: [WITHDRAWAL_PROVEN_EXT1_TOPIC, wh, addr('0x' + '33'.repeat(20))], data: '0x' },
      { ...base, logIndex: '0x3', topics: [WITHDRAWAL_FINALIZED_TOPIC, wh], data: encodeAbiParameters([{ type: 'bool' }], [true]) },
      { ...base, logIndex: '0x4', topics: [WITHDRAWAL_FINALIZED_TOPIC, wh], data: '0x01' },
      { ...base, address: '0x' + 'cd'.repeat(20), logIndex: '0x5', topics: [WITHDRAWAL_FINALIZED_TOPIC, wh], data: encodeAbiParameters([{ type: 'bool' }], [true]) },
    ],
    portal,
  );
  t.same(ev.deposits, []);
  t.match(ev.withdrawals, [
    { withdrawal_hash: wh, kind: 'proven', l1_log_index: 1, proof_submitter: '0x' + '33'.repeat(20), l1_block_number: 16 },
    { withdrawal_hash: wh, kind: 'finalized', l1_log_index: 3, success: 1 },
  ], "the proof with its submitter from the same transaction's extension, the finalization; a malformed log and another address's skipped");
  t.equal(ev.withdrawals.length, 2);
});
