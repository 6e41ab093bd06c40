// Watchlist matching with 100,000 watched addresses (BENCH_WATCHED), over a mainnet-like stream
// of value transfers (~170 transactions and ~230 token transfers per block, BENCH_MATCH_BLOCKS
// blocks), some of which touch watched addresses. Prints transfers/s, µs per block and the
// matches found; the matcher is the one the indexer runs in its commit step.
import crypto from 'node:crypto';
import os from 'node:os';
import { WatchIndex, type WatchEntry } from '../src/notify/matcher.js';
import type { ValueTransfer } from '../src/chain/bundle.js';

const envInt = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);
const watched = envInt('BENCH_WATCHED', 100_000);
const blocks = envInt('BENCH_MATCH_BLOCKS', 2_000);

let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const addr = () => '0x' + crypto.randomBytes(20).toString('hex');

const all = { incoming: true, outgoing: true };
const watchedAddrs: string[] = [];
const index = new WatchIndex();
const t0 = performance.now();
for (let i = 0; i < watched; i++) {
  const a = addr();
  watchedAddrs.push(a);
  const e: WatchEntry = {
    id: String(i),
    userId: String(i % 5000),
    address: a,
    name: `w${i}`,
    settings: { native: all, 'ERC-20': all, 'ERC-721': { incoming: true, outgoing: false }, 'ERC-1155': all },
    methods: { email: false, webhook: true },
  };
  index.upsert(e);
}
const loadMs = performance.now() - t0;

// A pool of active addresses; 1% of the transfers touch a watched one.
const active = Array.from({ length: 50_000 }, addr);
const pick = () => (rnd() < 0.005 ? watchedAddrs[Math.floor(rnd() * watchedAddrs.length)] : active[Math.floor(rnd() * active.length)]);
const kinds = ['native', 'native', 'ERC-20', 'ERC-20', 'ERC-721', 'ERC-1155'] as const;
const stream: ValueTransfer[][] = [];
for (let b = 0; b < blocks; b++) {
  const list: ValueTransfer[] = [];
  for (let i = 0; i < 400; i++) {
    const kind = kinds[Math.floor(rnd() * kinds.length)];
    list.push({
      kind,
      from: pick(),
      to: pick(),
      value: String(1 + Math.floor(rnd() * 1e9)),
      tokenId: kind === 'ERC-721' || kind === 'ERC-1155' ? String(i) : null,
      tokenAddress: kind === 'native' ? null : active[i],
      txHash: '0x' + b.toString(16).padStart(32, '0') + i.toString(16).padStart(32, '0'),
      blockNumber: b,
      timestamp: 1_700_000_000 + b * 12,
      logIndex: kind === 'native' ? null : i,
      traceIndex: null,
    });
  }
  stream.push(list);
}

let matches = 0;
const t1 = performance.now();
for (const list of stream) matches += index.match(list).length;
const ms = performance.now() - t1;
const transfers = blocks * 400;
const out = (s: string) => process.stdout.write(s + '\n');
out(`watchlist matching: ${watched.toLocaleString('en')} watched addresses loaded in ${loadMs.toFixed(0)} ms (${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB heap)`);
out(`watchlist matching: ${blocks} blocks, ${transfers.toLocaleString('en')} value transfers, ${matches} matches in ${ms.toFixed(1)} ms`);
out(`watchlist matching: ${Math.round(transfers / (ms / 1000)).toLocaleString('en')} transfers/s, ${((ms * 1000) / blocks).toFixed(1)} µs per block of 400 transfers`);
out(`machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.availableParallelism()} cores, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}, node ${process.version}`);
