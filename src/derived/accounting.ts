// The accounting lane's pure part: what a committed block range changes in derived state
// (token balances, holders, NFT owners, counters, first-seen records, contracts, the addresses
// whose coin balance may have changed). Applying and journaling: storage/postgres/derived.ts.
import type { RangeFacts } from '../storage/clickhouse/derived.js';
import type { AccountingChanges, BalanceDelta, CounterDelta, LaneCursor, OwnerChange } from '../storage/postgres/derived.js';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** Small deterministic hash for picking a reproducible sample. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function accountingChanges(f: RangeFacts, to: LaneCursor, sampleSize = 8): AccountingChanges {
  const balances = new Map<string, BalanceDelta>();
  const addBal = (block: number, token: string, holder: string, tokenId: string, delta: bigint) => {
    if (holder === ZERO_ADDRESS || holder === '' || delta === 0n) return;
    const k = `${block}|${token}|${holder}|${tokenId}`;
    const cur = balances.get(k);
    if (cur) cur.delta += delta;
    else balances.set(k, { block, token, holder, tokenId, delta });
  };
  const counters = new Map<string, CounterDelta>();
  const addCounter = (block: number, kind: CounterDelta['kind'], key: string, delta: bigint) => {
    if (delta === 0n) return;
    const k = `${block}|${kind}|${key}`;
    const cur = counters.get(k);
    if (cur) cur.delta += delta;
    else counters.set(k, { block, kind, key, delta });
  };
  const tokens = new Map<string, { block: number; address: string; type: string }>();
  const nfts = new Map<string, { block: number; token: string; tokenId: string }>();
  const owners: OwnerChange[] = [];
  const supply = new Map<string, { block: number; token: string }>();

  for (const t of f.transfers) {
    if (!tokens.has(t.token_address)) tokens.set(t.token_address, { block: t.block_number, address: t.token_address, type: t.token_type });
    addCounter(t.block_number, 'tok_tc', t.token_address, 1n);
    if (t.kind === 'token_minting' || t.kind === 'token_burning') supply.set(`${t.block_number}|${t.token_address}`, { block: t.block_number, token: t.token_address });
    if (t.token_type === 'ERC-20') {
      const v = BigInt(t.value);
      addBal(t.block_number, t.token_address, t.from, '', -v);
      addBal(t.block_number, t.token_address, t.to, '', v);
    } else if (t.token_type === 'ERC-721') {
      addBal(t.block_number, t.token_address, t.from, '', -1n);
      addBal(t.block_number, t.token_address, t.to, '', 1n);
      if (t.token_id != null) {
        const k = `${t.token_address}|${t.token_id}`;
        if (!nfts.has(k)) nfts.set(k, { block: t.block_number, token: t.token_address, tokenId: t.token_id });
        owners.push({ block: t.block_number, token: t.token_address, tokenId: t.token_id, owner: t.to === ZERO_ADDRESS ? null : t.to });
      }
    } else if (t.token_type === 'ERC-1155' && t.token_id != null) {
      const v = BigInt(t.value);
      addBal(t.block_number, t.token_address, t.from, t.token_id, -v);
      addBal(t.block_number, t.token_address, t.to, t.token_id, v);
      const k = `${t.token_address}|${t.token_id}`;
      if (!nfts.has(k)) nfts.set(k, { block: t.block_number, token: t.token_address, tokenId: t.token_id });
    }
  }
  for (const r of f.addressTxs) addCounter(r.block_number, 'addr_tx', r.address, BigInt(r.n));
  for (const r of f.addressTransfers) addCounter(r.block_number, 'addr_tt', r.address, BigInt(r.n));
  for (const r of f.senderGas) {
    addCounter(r.block_number, 'addr_gas', r.address, BigInt(r.gas));
    addCounter(r.block_number, 'addr_sent', r.address, BigInt(r.n));
  }
  // What an address page says it has (logs, validated blocks, withdrawals) without asking ClickHouse.
  for (const r of f.addressLogs) addCounter(r.block_number, 'addr_logs', r.address, BigInt(r.n));
  for (const r of f.addressWithdrawals) addCounter(r.block_number, 'addr_wd', r.address, BigInt(r.n));
  for (const b of f.blocks) if (b.miner) addCounter(b.number, 'addr_mined', b.miner, 1n);
  for (const b of f.blocks) addCounter(b.number, 'chain', 'blocks', 1n);
  for (const r of f.txCounts) addCounter(r.block_number, 'chain', 'transactions', BigInt(r.n));

  // A reproducible sample of changed balances to compare with balanceOf.
  const keys = new Map<string, { token: string; holder: string; tokenId: string }>();
  for (const b of balances.values()) keys.set(`${b.token}|${b.holder}|${b.tokenId}`, { token: b.token, holder: b.holder, tokenId: b.tokenId });
  const sample = [...keys.entries()]
    .sort((a, b) => fnv(a[0]) - fnv(b[0]))
    .slice(0, sampleSize)
    .map(([, v]) => v);

  return {
    to,
    seen: f.seen.map((s) => ({ block: s.block_number, address: s.address })),
    tokens: [...tokens.values()],
    nftInstances: [...nfts.values()],
    balances: [...balances.values()],
    counters: [...counters.values()],
    owners,
    supplyChanged: [...supply.values()],
    creations: f.creations.map((c) => ({ block: c.block_number, address: c.address, creator: c.creator, tx: c.tx })),
    selfDestructs: f.selfDestructs.map((s) => ({ block: s.block_number, address: s.address })),
    touched: f.touched.map((x) => ({ block: x.block_number, address: x.address })),
    sample,
  };
}
