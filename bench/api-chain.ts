// The data of `make bench-api`: a synthetic chain written straight into ClickHouse as the rows
// the indexer stores (the same TableWriter encoders and TABLE_COLUMNS, the same shapes as
// src/chain/bundle.ts produces: every transaction with its hash_index and address_transactions
// rows, its top-level trace frame and nested frames, ERC-20 Transfer logs with their token
// transfers and per-address/per-token index rows, 16 withdrawals per block), and a token
// catalogue for PostgreSQL. Deterministic (sfc32, fixed seed). It skips JSON-RPC, decoding and
// the worker pool: indexing a million transactions through the full indexer takes longer than
// this benchmark may run (bench/README.md, "make bench-ingest"), and the API reads only rows.
//
// Shape of the chain (per 1,000,000 transactions, 200 per block = 5,000 blocks): 45% native
// transfers, 35% ERC-20 transfers over 300 token contracts, 17% contract calls over 2,000
// contracts (1-2 nested frames, a log half of the time), 1% contract creations, 2% failed; one
// "exchange" address takes part in 10% of all transactions (the busy address), the other senders
// and receivers are drawn from 200,000 accounts with a heavy-tailed (Zipf-like) popularity.
import { TableWriter } from '../src/chain/clickhouse-encode.js';
import type { TableName, RowOf } from '../src/chain/clickhouse-rows.js';

export interface ApiChainOptions {
  txs: number;
  txsPerBlock?: number;
  seed?: number;
  /** Share of transactions the busy address takes part in (default 0.1; tests of one address's long history use more). */
  busyShare?: number;
}

/** sfc32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed | 0;
  const next = () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return next;
}

const HEX = '0123456789abcdef';

/** n random lower-case hex digits. */
function hexDigits(r: () => number, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += HEX[(r() * 16) | 0];
  return s;
}

export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const pad32 = (a: string) => '0x' + '0'.repeat(24) + a.slice(2);
const word = (v: bigint) => v.toString(16).padStart(64, '0');

export interface ApiChain {
  blocks: number;
  txs: number;
  /** The busy ("exchange") address. */
  busy: string;
  /** Its transactions (rows of address_transactions). */
  busyTxs: number;
  /** Token contracts the chain's ERC-20 transfers use. */
  tokens: string[];
  /** Hashes of a sample of transactions spread over the whole chain (for lookups). */
  sampleTxs: string[];
  /** The senders and receivers (or created contracts) of those transactions (for address reads). */
  sampleAddresses: string[];
  /** A cursor deep in the busy address history: (block, index) of its 101st oldest transaction (a full page follows it). */
  deepCursor: { block: number; index: number };
  rows: Record<TableName, number>;
  bytes: number;
}

export interface ChunkSink {
  (tables: Record<TableName, Buffer>): Promise<void>;
}

/**
 * Generates the chain block range by block range (`blocksPerChunk` at a time) and hands each
 * chunk's encoded tables to `sink` (the caller inserts them; blocks are written last per chunk).
 */
export async function generateApiChain(o: ApiChainOptions, sink: ChunkSink, blocksPerChunk = 100): Promise<ApiChain> {
  const r = rng(o.seed ?? 20_241_122);
  const perBlock = o.txsPerBlock ?? 200;
  const busyShare = o.busyShare ?? 0.1;
  const blocks = Math.max(1, Math.ceil(o.txs / perBlock));
  const addr = () => '0x' + hexDigits(r, 40);
  const accounts = Array.from({ length: Math.min(200_000, Math.max(1000, Math.ceil(o.txs / 5))) }, addr);
  const tokens = Array.from({ length: 300 }, addr);
  const apps = Array.from({ length: 2000 }, addr);
  const builders = Array.from({ length: 20 }, addr);
  const validators = Array.from({ length: 64 }, addr);
  const busy = '0x' + 'e'.repeat(4) + hexDigits(r, 36);
  // Zipf-like popularity: index = floor(n * u^3) favours the first accounts heavily.
  const account = () => accounts[Math.floor(accounts.length * r() ** 3)]!;
  const token = () => tokens[Math.floor(tokens.length * r() ** 2)]!;
  const app = () => apps[Math.floor(apps.length * r() ** 2)]!;
  const rows = {} as Record<TableName, number>;
  let bytes = 0;
  let busyTxs = 0;
  const busyFirst: { block: number; index: number }[] = [];
  const sampleTxs: string[] = [];
  const sampleAddresses: string[] = [];
  // About 10,000 samples from the whole chain, not its first part: a read of the busy tail of a
  // larger chain must not hit only the rows its first blocks wrote.
  const sampleRate = Math.min(0.02, 10_000 / o.txs);
  let parent = '0x' + '0'.repeat(64);
  let written = 0;
  let w = new TableWriter();
  let chunkBlocks = 0;
  const flush = async () => {
    const t = w.toBuffers();
    for (const [k, b] of Object.entries(t) as [TableName, Buffer][]) {
      rows[k] = (rows[k] ?? 0) + w.count(k);
      bytes += b.byteLength;
    }
    await sink(t);
    w = new TableWriter();
    chunkBlocks = 0;
  };
  const add = <T extends TableName>(t: T, row: RowOf<T>) => w.add(t, row);

  for (let n = 0; n < blocks; n++) {
    const hash = '0x' + hexDigits(r, 64);
    const ts = 1_700_000_000 + n * 12;
    const baseFee = 7_000_000_000n + BigInt(Math.floor(r() * 3_000_000_000));
    const count = Math.min(perBlock, o.txs - written);
    let gasUsed = 0;
    let priorityFees = 0n;
    let logIndex = 0;
    for (let i = 0; i < count; i++) {
      const txHash = '0x' + hexDigits(r, 64);
      const sampled = r() < sampleRate && sampleTxs.length < 10_000;
      if (sampled) sampleTxs.push(txHash);
      const u = r();
      const withBusy = r() < busyShare;
      let from = account();
      let to = '';
      let value = 0n;
      let input = '0x';
      let gas = 21_000;
      let used = 21_000;
      let created = '';
      const failed = r() < 0.02;
      const frames: RowOf<'internal_transactions'>[] = [];
      let logs = 0;
      let transfers = 0;
      const tip = BigInt(Math.floor(r() * 2_000_000_000));
      const egp = baseFee + tip;
      const frame = (ti: number, path: number[], f: string, t: string, v: bigint, inp: string, g: number, gu: number, type = 'call', extra: Partial<RowOf<'internal_transactions'>> = {}) =>
        frames.push({
          block_number: n,
          transaction_index: i,
          trace_index: ti,
          transaction_hash: txHash,
          block_hash: hash,
          timestamp: ts,
          trace_address: path,
          type,
          call_type: type === 'call' ? 'call' : '',
          from: f,
          to: t,
          value: v.toString(),
          gas: g,
          gas_used: gu,
          input: inp,
          output: type === 'call' && inp.length > 2 ? '0x' + word(1n) : '0x',
          error: failed && ti === 0 ? 'Reverted' : '',
          created_contract_address: '',
          created_contract_code: '',
          ...extra,
        });
      if (u < 0.45) {
        // Native transfer.
        to = account();
        value = BigInt(Math.floor(r() * 1e9)) * 1_000_000_000n;
        if (withBusy) r() < 0.5 ? (from = busy) : (to = busy);
        frame(0, [], from, to, value, '0x', gas, used);
      } else if (u < 0.8) {
        // ERC-20 transfer(to, amount): one Transfer log, one token transfer.
        const tk = token();
        let rcpt = account();
        if (withBusy) r() < 0.5 ? (from = busy) : (rcpt = busy);
        const amount = BigInt(Math.floor(r() * 1e12)) * 1_000_000n;
        to = tk;
        input = '0xa9059cbb' + '0'.repeat(24) + rcpt.slice(2) + word(amount);
        gas = 65_000;
        used = 34_000 + Math.floor(r() * 20_000);
        frame(0, [], from, to, 0n, input, gas - 21_000, used - 21_000);
        if (!failed) {
          const li = logIndex++;
          logs++;
          transfers++;
          add('logs', {
            block_number: n,
            log_index: li,
            transaction_index: i,
            transaction_hash: txHash,
            block_hash: hash,
            address: tk,
            topic0: TRANSFER_TOPIC,
            topic1: pad32(from),
            topic2: pad32(rcpt),
            topic3: '',
            data: '0x' + word(amount),
            timestamp: ts,
          });
          add('address_logs', { address: tk, block_number: n, log_index: li });
          add('token_transfers', {
            block_number: n,
            log_index: li,
            batch_index: 0,
            transaction_index: i,
            transaction_hash: txHash,
            block_hash: hash,
            timestamp: ts,
            token_address: tk,
            token_type: 'ERC-20',
            from,
            to: rcpt,
            value: amount.toString(),
            token_id: null,
            kind: 'token_transfer',
            method_id: '0xa9059cbb',
          });
          add('token_transfers_by_token', { token_address: tk, block_number: n, log_index: li, batch_index: 0, token_id: null });
          add('address_token_transfers', { address: from, block_number: n, log_index: li, batch_index: 0, token_address: tk, token_type: 'ERC-20', is_from: 1, is_to: from === rcpt ? 1 : 0 });
          if (rcpt !== from) add('address_token_transfers', { address: rcpt, block_number: n, log_index: li, batch_index: 0, token_address: tk, token_type: 'ERC-20', is_from: 0, is_to: 1 });
        }
      } else if (u < 0.99) {
        // A contract call with nested frames, sometimes a log.
        to = app();
        if (withBusy) from = busy;
        input = '0x' + hexDigits(r, 8 + 64 * (1 + Math.floor(r() * 5)));
        gas = 300_000;
        used = 60_000 + Math.floor(r() * 200_000);
        value = r() < 0.2 ? BigInt(Math.floor(r() * 1e6)) * 1_000_000_000_000n : 0n;
        frame(0, [], from, to, value, input, gas - 21_000, used - 21_000);
        const kids = 1 + Math.floor(r() * 2);
        for (let k = 0; k < kids; k++) {
          const callee = r() < 0.5 ? token() : app();
          frame(k + 1, [k], to, callee, 0n, '0x70a08231' + '0'.repeat(24) + from.slice(2), 50_000, 2_600 + Math.floor(r() * 5000));
        }
        if (!failed && r() < 0.5) {
          const li = logIndex++;
          logs++;
          add('logs', {
            block_number: n,
            log_index: li,
            transaction_index: i,
            transaction_hash: txHash,
            block_hash: hash,
            address: to,
            topic0: '0x' + hexDigits(r, 64),
            topic1: pad32(from),
            topic2: '',
            topic3: '',
            data: '0x' + hexDigits(r, 128),
            timestamp: ts,
          });
          add('address_logs', { address: to, block_number: n, log_index: li });
        }
      } else {
        // A contract creation: init code in, runtime code out.
        input = '0x6080604052' + hexDigits(r, 2 * (1000 + Math.floor(r() * 2000)));
        gas = 2_000_000;
        used = 500_000 + Math.floor(r() * 1_000_000);
        if (!failed) created = addr();
        frame(0, [], from, created, 0n, input, gas - 53_000, used - 53_000, 'create', {
          created_contract_address: created,
          created_contract_code: created ? '0x6080604052' + hexDigits(r, 2 * (400 + Math.floor(r() * 800))) : '',
          to: created,
        });
      }
      gasUsed += used;
      priorityFees += tip * BigInt(used);
      const fee = egp * BigInt(used);
      add('transactions', {
        block_number: n,
        transaction_index: i,
        hash: txHash,
        block_hash: hash,
        timestamp: ts,
        from,
        to,
        nonce: Math.floor(r() * 5000),
        value: value.toString(),
        gas,
        gas_price: egp.toString(),
        max_fee_per_gas: (baseFee * 2n + tip).toString(),
        max_priority_fee_per_gas: tip.toString(),
        type: 2,
        input,
        method_id: input.length >= 10 ? input.slice(0, 10) : '',
        status: failed ? 0 : 1,
        gas_used: used,
        cumulative_gas_used: gasUsed,
        effective_gas_price: egp.toString(),
        fee: fee.toString(),
        created_contract: created,
        error: failed ? 'Reverted' : '',
        chain_id: 1,
        v: '0x1',
        r: '0x' + hexDigits(r, 64),
        s: '0x' + hexDigits(r, 64),
        y_parity: 1,
        access_list: '[]',
        max_fee_per_blob_gas: null,
        blob_versioned_hashes: [],
        blob_gas_used: null,
        blob_gas_price: null,
        authorization_list: '',
        log_count: logs,
        token_transfer_count: transfers,
        internal_count: frames.length - 1,
        op: '',
      });
      add('hash_index', { hash: txHash, kind: 'transaction', block_number: n, transaction_index: i });
      if (sampled) sampleAddresses.push(from, ...(to || created ? [to || created] : []));
      add('address_transactions', { address: from, block_number: n, transaction_index: i, is_from: 1, is_to: from === to ? 1 : 0 });
      if (to && to !== from) add('address_transactions', { address: to, block_number: n, transaction_index: i, is_from: 0, is_to: 1 });
      if (created && created !== from && created !== to) add('address_transactions', { address: created, block_number: n, transaction_index: i, is_from: 0, is_to: 1 });
      if (from === busy || to === busy) {
        busyTxs++;
        if (busyFirst.length < 101) busyFirst.push({ block: n, index: i });
      }
      for (const f of frames) {
        add('internal_transactions', f);
        if (f.trace_index === 0) continue;
        add('address_internal_transactions', { address: f.from, block_number: n, transaction_index: i, trace_index: f.trace_index, is_from: 1, is_to: f.from === f.to ? 1 : 0 });
        if (f.to && f.to !== f.from) add('address_internal_transactions', { address: f.to, block_number: n, transaction_index: i, trace_index: f.trace_index, is_from: 0, is_to: 1 });
      }
    }
    written += count;
    for (let k = 0; k < 16; k++) {
      add('withdrawals', {
        block_number: n,
        withdrawal_index: n * 16 + k,
        validator_index: 100_000 + Math.floor(r() * 900_000),
        address: validators[Math.floor(r() * validators.length)]!,
        amount: String(10_000_000 + Math.floor(r() * 10_000_000)),
        timestamp: ts,
      });
    }
    add('blocks', {
      number: n,
      hash,
      parent_hash: parent,
      timestamp: ts,
      miner: builders[Math.floor(r() * builders.length)]!,
      size: 40_000 + count * 150,
      gas_limit: 30_000_000,
      gas_used: gasUsed,
      base_fee_per_gas: baseFee.toString(),
      difficulty: '0',
      total_difficulty: '58750003716598352816469',
      nonce: '0x0000000000000000',
      mix_hash: '0x' + hexDigits(r, 64),
      extra_data: '0x6265617665726275696c642e6f7267',
      state_root: '0x' + hexDigits(r, 64),
      transactions_root: '0x' + hexDigits(r, 64),
      receipts_root: '0x' + hexDigits(r, 64),
      sha3_uncles: '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347',
      uncles: [],
      transaction_count: count,
      withdrawals_root: '0x' + hexDigits(r, 64),
      withdrawal_count: 16,
      blob_gas_used: 0,
      excess_blob_gas: 0,
      parent_beacon_block_root: '0x' + hexDigits(r, 64),
      burnt_fees: (baseFee * BigInt(gasUsed)).toString(),
      priority_fees: priorityFees.toString(),
      op_fees: '0', // an Ethereum chain: no L1 or operator fees
    });
    add('hash_index', { hash, kind: 'block', block_number: n, transaction_index: 0 });
    parent = hash;
    if (++chunkBlocks >= blocksPerChunk) await flush();
  }
  if (chunkBlocks > 0) await flush();
  const deep = busyFirst[busyFirst.length - 1] ?? { block: 0, index: 0 };
  return { blocks, txs: written, busy, busyTxs, tokens, sampleTxs, sampleAddresses, deepCursor: deep, rows, bytes };
}

// ---- the token catalogue ----

const ADJ = `wrapped staked liquid golden silver digital quantum solar lunar cosmic atomic rapid smart meta hyper ultra super mega
 micro nano alpha beta gamma delta omega prime royal ancient future crypto decentral open stable yield bright dark red blue green
 black white frozen burning flying hidden magic mystic noble swift brave happy lucky wild cyber neon pixel based degen chill
 turbo giga baby mini grand little big old new first last true pure rich free smooth sharp bold calm cool epic fair fancy`.split(/\s+/).filter(Boolean);
const NOUN = `ether bitcoin dollar euro yen gold silver oil carbon energy power chain link bridge vault pool farm garden harvest
 dragon tiger lion wolf fox bear bull whale shark eagle falcon phoenix unicorn panda monkey ape frog cat dog doge shiba pepe
 rocket moon star sun planet galaxy nova comet orbit river ocean mountain forest desert island castle tower temple palace
 coin cash credit bond share stake vote guild club dao fund capital bank market exchange swap trade finance lend loan
 game quest hero knight wizard warrior ninja samurai pirate robot android cyborg token protocol network labs world city
 music art film book story dream spirit soul heart mind brain eye hand stone crystal diamond pearl ruby emerald sapphire`.split(/\s+/).filter(Boolean);
const SUFFIX = ['', '', '', ' Token', ' Coin', ' Finance', ' Protocol', ' Inu', ' AI', ' DAO', ' Swap', ' V2', ' 2.0', ' Classic', ' X'];
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

export interface TokenRowSpec {
  address: string;
  type: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  holders: number;
}

/**
 * `n` tokens: names "Adjective Noun[ Suffix]" from small vocabularies (so pieces of words match
 * hundreds of tokens, as on a real chain), symbols of 3-5 letters, heavy-tailed holder counts
 * (most tokens have a handful of holders, a few have hundreds of thousands). The chain's own
 * token contracts come first, as ERC-20s.
 */
export function tokenCatalogue(n: number, chainTokens: readonly string[], seed = 7): TokenRowSpec[] {
  const r = rng(seed);
  const out: TokenRowSpec[] = [];
  for (let i = 0; i < n; i++) {
    const a = ADJ[Math.floor(r() * ADJ.length)]!;
    const b = NOUN[Math.floor(r() * NOUN.length)]!;
    const name = `${cap(a)} ${cap(b)}${SUFFIX[Math.floor(r() * SUFFIX.length)]}`;
    const symLen = 3 + Math.floor(r() * 3);
    let symbol = (a.slice(0, 1) + b.slice(0, symLen - 1)).toUpperCase();
    if (r() < 0.3) symbol += String(Math.floor(r() * 100));
    const u = r();
    const type = i < chainTokens.length ? 'ERC-20' : u < 0.8 ? 'ERC-20' : u < 0.95 ? 'ERC-721' : 'ERC-1155';
    const holders = Math.floor(1 / (1 - r() * 0.999999) ** 1.2) - 1;
    out.push({
      address: i < chainTokens.length ? chainTokens[i]! : '0x' + hexDigits(r, 40),
      type,
      name: r() < 0.02 ? null : name,
      symbol,
      decimals: type === 'ERC-20' ? 18 : null,
      totalSupply: String(BigInt(Math.floor(r() * 1e9)) * 10n ** 18n),
      holders,
    });
  }
  return out;
}

/** Queries someone typing into the search box would send: pieces of names, symbols, misses. */
export function searchQueries(tokens: readonly TokenRowSpec[], n: number, seed = 11): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = tokens[Math.floor(r() * tokens.length)]!;
    const name = t.name ?? 'Nameless';
    const u = r();
    if (u < 0.4) {
      // A word being typed: its first 3-7 letters.
      const words = name.split(' ');
      const wd = words[Math.floor(r() * words.length)]!;
      out.push(wd.slice(0, Math.min(wd.length, 3 + Math.floor(r() * 5))));
    } else if (u < 0.6) {
      out.push(t.symbol ?? 'XYZ');
    } else if (u < 0.8) {
      // A piece across the words.
      const at = Math.floor(r() * Math.max(1, name.length - 5));
      out.push(name.slice(at, at + 4 + Math.floor(r() * 6)));
    } else if (u < 0.9) {
      out.push(hexDigits(r, 3 + Math.floor(r() * 3)).replace(/[0-9]/g, (d) => 'qwxzjkvbyu'[Number(d)]!));
    } else {
      out.push(name.slice(0, 1 + Math.floor(r() * 2)));
    }
  }
  return out;
}
