// The API's in-memory token search (src/api/token-search.ts) against PostgreSQL's own search
// (src/storage/postgres/reads/search.ts) on the same tokens: every query of a random sample
// (pieces, whole names and symbols in other cases, 1-2 characters, LIKE's special characters,
// non-ASCII letters that the C locale does not fold, names that sort by their UTF-8 bytes,
// misses), the first page and every later page by cursor, equal row for row; then again after
// holder counts, names and supplies change, tokens are removed and added, including by a writer
// that commits after a later one (the change must still be seen). Then the freshness rule at the
// default bound: a search answers from memory while the last read began within it, starts the next
// read in the background after half of it (and does not wait for it), and past it waits for a read
// that began after it arrived; a background read past TOKEN_SEARCH_MEMORY_MAX leaves nothing to
// answer from.
import t, { type Test } from 'tap';
import { embeddedStores } from './helpers/stores.js';
import { TOKEN_SEARCH_STALE_MS, TokenSearchIndex, compareBytes, foldAscii } from '../src/api/token-search.js';
import { createApiApp } from '../src/api/app.js';
import { createLogger } from '../src/log.js';
import { request } from './helpers/api.js';
import { searchTokens, textIsBytes, type TokenCursor, type TokenSearchRow } from '../src/storage/postgres/reads/search.js';
import type { PgStore } from '../src/storage/postgres/store.js';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = ['Token', 'token', 'Wrapped', 'Ether', 'USD', 'Coin', 'Dai', 'Élan', 'élan', 'Ünï', 'ÜNÏ', 'Moon', '100%', 'a_b', 'back\\slash', 'Ωmega', '🚀Rocket', 'Ｆull', 'x', 'Ab', 'ab', 'AB', 'zz', 'Zz'];

function randomName(r: () => number): string | null {
  if (r() < 0.06) return null;
  const n = 1 + Math.floor(r() * 3);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(WORDS[Math.floor(r() * WORDS.length)]!);
  return parts.join(r() < 0.5 ? ' ' : '');
}

function randomSymbol(r: () => number): string | null {
  if (r() < 0.05) return null;
  const w = WORDS[Math.floor(r() * WORDS.length)]!;
  return r() < 0.5 ? w.toUpperCase() : w.slice(0, 1 + Math.floor(r() * 4));
}

const address = (i: number) => `0x${(0xabc00000 + i).toString(16).padStart(40, '0')}`;

async function insert(pg: PgStore, rows: { address: string; name: string | null; symbol: string | null; holders: number }[]) {
  await pg.query(
    `INSERT INTO tokens (address, type, name, symbol, decimals, total_supply, holder_count, first_seen_block)
     SELECT a, 'ERC-20', n, s, 18, 1000, h, 0 FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS x(a, n, s, h)`,
    [rows.map((x) => x.address), rows.map((x) => x.name), rows.map((x) => x.symbol), rows.map((x) => x.holders)],
  );
}

function queries(r: () => number, names: (string | null)[], n: number): string[] {
  const out = ['tok', 'TOKEN', 'token', 'élan', 'ÉLAN', 'Élan', 'ünï', 'ÜNÏ', '100%', '%', '_', 'a_b', 'a%b', '\\', 'back\\', 'x', 'X', 'ab', 'aB', 'zz', '🚀', '🚀Ro', 'Ｆ', 'ｆull', 'nothing here', 'qqq'];
  while (out.length < n) {
    const name = names[Math.floor(r() * names.length)] ?? 'Nameless';
    const at = Math.floor(r() * Math.max(1, name.length - 2));
    let piece = name.slice(at, at + 1 + Math.floor(r() * 8));
    if (r() < 0.3) piece = piece.toUpperCase();
    else if (r() < 0.3) piece = piece.toLowerCase();
    if (piece.trim()) out.push(piece.trim());
  }
  return out;
}

const cursorOf = (row: TokenSearchRow): TokenCursor => ({
  exact: row.exact,
  holders: BigInt(row.holder_count),
  nameIsNull: row.name === null,
  name: row.name ?? '',
  address: row.address,
});

/** Both searches for each query, the first page and (for some) every page after, compared. */
async function compareAll(t: Test, pg: PgStore, index: TokenSearchIndex, qs: string[], label: string) {
  let compared = 0;
  let pages = 0;
  let mismatch = 0;
  for (const [i, q] of qs.entries()) {
    const limit = i % 3 === 0 ? 7 : 50;
    let after: TokenCursor | undefined;
    for (let page = 0; page < (i % 5 === 0 ? 40 : 1); page++) {
      const want = await searchTokens(pg, q, { after, limit });
      const got = await index.search(q, { after, limit });
      pages++;
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        if (mismatch++ < 3) t.same(got, want, `${label}: ${JSON.stringify(q)} page ${page}`);
        break;
      }
      compared += want.length;
      if (want.length < limit) break;
      after = cursorOf(want[want.length - 1]!);
    }
  }
  t.equal(mismatch, 0, `${label}: ${qs.length} queries, ${pages} pages, ${compared} rows: the same rows in the same order`);
  t.ok(compared > 1000, `${label}: the sample matched many tokens (${compared})`);
}

t.test('byte order and folding helpers', async (t) => {
  t.equal(foldAscii('ÀbC'), 'Àbc', 'A-Z only');
  t.ok(compareBytes('a', 'B') > 0, 'bytes: a after B');
  t.ok(compareBytes('é', 'z') > 0, 'bytes: é after z');
  t.ok(compareBytes('\uffff', '🚀') < 0, 'U+FFFF before a character beyond it (UTF-16 would say after)');
  t.ok(compareBytes('ab', 'abc') < 0, 'a prefix first');
});

t.test('the in-memory search answers as PostgreSQL does, and stays current', async (t) => {
  const stores = await embeddedStores(t);
  const pg = stores.pg;
  t.ok(await textIsBytes(pg), 'the embedded server compares text as bytes (C locale)');
  const r = rng(7);
  const N = 3000;
  const rows = Array.from({ length: N }, (_, i) => ({
    address: address(i),
    name: randomName(r),
    symbol: randomSymbol(r),
    // Many ties: few distinct holder counts, so names and addresses decide the order.
    holders: Math.floor(r() * r() * 6),
  }));
  await insert(pg, rows);
  // Every search current (the bound is covered by its own test below).
  const index = new TokenSearchIndex(pg, undefined, { staleMs: 0 });
  const qs = queries(r, rows.map((x) => x.name), 300);
  await compareAll(t, pg, index, qs, 'loaded');
  t.equal(index.size, N, 'every token held');

  // Changes: holder counts, names (a rename leaves stale trigrams behind), supplies, removals, additions.
  await pg.query(`UPDATE tokens SET holder_count = holder_count + 3 WHERE address = ANY($1)`, [rows.filter((_, i) => i % 7 === 0).map((x) => x.address)]);
  await pg.query(`UPDATE tokens SET name = 'Renamed Moon ' || substr(address, 35), symbol = 'RNM' WHERE address = ANY($1)`, [rows.filter((_, i) => i % 11 === 0).map((x) => x.address)]);
  await pg.query(`UPDATE tokens SET total_supply = 5 WHERE address = ANY($1)`, [rows.filter((_, i) => i % 13 === 0).map((x) => x.address)]);
  await pg.query(`DELETE FROM tokens WHERE address = ANY($1)`, [rows.filter((_, i) => i % 17 === 0).map((x) => x.address)]);
  await insert(pg, Array.from({ length: 200 }, (_, i) => ({ address: address(N + i), name: randomName(r), symbol: randomSymbol(r), holders: Math.floor(r() * 9) })));
  await compareAll(t, pg, index, [...qs, 'renamed', 'RNM', 'moon 0'], 'after changes');
  t.equal(index.size, N - Math.ceil(N / 17) + 200, 'removed tokens gone, new ones held');

  // A writer that began first and commits after a later writer's commit was read.
  const slow = await pg.pool.connect();
  try {
    await slow.query('BEGIN');
    await slow.query(`UPDATE tokens SET holder_count = 1000, name = 'Slowpoke' WHERE address = $1`, [address(1)]);
    await pg.query(`UPDATE tokens SET holder_count = 999, name = 'Quickstep' WHERE address = $1`, [address(2)]);
    t.same((await index.search('quickstep', { limit: 5 })).map((x) => x.address), [address(2)], 'the later writer seen');
    t.same(await index.search('slowpoke', { limit: 5 }), [], 'the running writer not yet');
    await slow.query('COMMIT');
  } finally {
    slow.release();
  }
  t.same((await index.search('slowpoke', { limit: 5 })).map((x) => x.address), [address(1)], 'the earlier writer seen once it commits');
  await compareAll(t, pg, index, [...qs, 'slowpoke', 'quickstep'], 'after out-of-order commits');

  // Searches at once share reads and all see what was committed before they began.
  await pg.query(`UPDATE tokens SET name = 'Together' WHERE address = $1`, [address(3)]);
  const together = await Promise.all(Array.from({ length: 8 }, () => index.search('together', { limit: 5 })));
  t.ok(together.every((x) => x.length === 1 && x[0]!.address === address(3)), 'eight searches at once, each current');
});

t.test('a search answers from memory at most TOKEN_SEARCH_STALE_MS old, and never waits for a read while it is fresh', async (t) => {
  const stores = await embeddedStores(t);
  const pg = stores.pg;
  await insert(pg, [
    { address: address(1), name: 'Alpha', symbol: 'ALP', holders: 5 },
    { address: address(2), name: 'Beta', symbol: 'BET', holders: 3 },
  ]);
  // The change reads, counted, each held until `gate` opens (when set) or failed with `fail`.
  let reads = 0;
  let gate: Promise<void> | null = null;
  let fail: Error | null = null;
  let last: Promise<unknown> = Promise.resolve();
  const pool = {
    query: (...a: unknown[]) => {
      reads++;
      const e = fail;
      const held = gate;
      last = (async () => {
        if (held) await held;
        if (e) throw e;
        return (pg.pool.query as (...x: unknown[]) => Promise<unknown>)(...a);
      })();
      return last;
    },
  };
  const counted = { ...pg, pool } as unknown as PgStore;
  /** Until the background read has ended (its query, then what follows it). */
  const settled = async () => {
    await last.catch(() => undefined);
    await new Promise((r) => setImmediate(r));
  };
  let clock = 0;
  const index = new TokenSearchIndex(counted, 10, { now: () => clock });
  const names = async (q: string) => (await index.search(q, { limit: 5 })).map((x) => x.name);

  t.same(await names('alp'), ['Alpha'], 'the first search waits for the load');
  t.equal(reads, 1, 'one read');
  await pg.query(`UPDATE tokens SET name = 'Gamma' WHERE address = $1`, [address(2)]);
  clock = TOKEN_SEARCH_STALE_MS / 2;
  t.same(await names('gamma'), [], 'within half the bound: the memory, no read');
  t.equal(reads, 1, 'no read started');
  clock = TOKEN_SEARCH_STALE_MS / 2 + 1;
  t.same(await names('gamma'), [], 'past half the bound: still the memory, answered at once');
  t.equal(reads, 2, 'and the next read started in the background');
  t.same(await names('gamma'), [], 'a search meanwhile starts no second one');
  t.equal(reads, 2);
  await settled();
  t.same(await names('gamma'), ['Gamma'], 'once it ends, its changes are answered, with no read');
  t.equal(reads, 2);

  // A slow read: searches within the bound do not wait for it; past the bound they do.
  let open!: () => void;
  gate = new Promise((r) => (open = r));
  await pg.query(`UPDATE tokens SET name = 'Delta' WHERE address = $1`, [address(1)]);
  clock += TOKEN_SEARCH_STALE_MS * 0.75;
  t.same(await names('delta'), [], 'the read is held: the search answers from memory');
  t.equal(reads, 3, 'the held read is under way');
  clock += TOKEN_SEARCH_STALE_MS;
  let answered = false;
  const waiting = names('delta').then((x) => ((answered = true), x));
  await new Promise((r) => setTimeout(r, 50));
  t.notOk(answered, 'past the bound the search waits');
  gate = null;
  open();
  t.same(await waiting, ['Delta'], 'and answers from a read that began after it arrived');

  // A background read past TOKEN_SEARCH_MEMORY_MAX (10) leaves nothing held: the next search waits
  // and is told, rather than answered from an empty index.
  await insert(pg, Array.from({ length: 10 }, (_, i) => ({ address: address(100 + i), name: `Filler ${i}`, symbol: 'FIL', holders: 1 })));
  clock += TOKEN_SEARCH_STALE_MS * 0.75;
  t.same(await names('delta'), ['Delta'], 'answered from memory while the background read loads too many');
  await settled();
  t.equal(index.size, 0, 'that read let go of everything');
  await t.rejects(index.search('delta', { limit: 5 }), { name: 'TooManyTokens' }, 'the next search, within the bound, waits and is told');

  // A failed background read: memory within the bound still answers; past it the search sees the error.
  await pg.query(`DELETE FROM tokens WHERE name LIKE 'Filler %'`);
  const fresh = new TokenSearchIndex(counted, 10, { now: () => clock });
  t.same((await fresh.search('delta', { limit: 5 })).map((x) => x.name), ['Delta'], 'a new index loads');
  fail = new Error('connection lost');
  clock += TOKEN_SEARCH_STALE_MS * 0.75;
  t.same((await fresh.search('delta', { limit: 5 })).map((x) => x.name), ['Delta'], 'the background read fails: memory still answers within the bound');
  await settled();
  clock += TOKEN_SEARCH_STALE_MS;
  await t.rejects(fresh.search('delta', { limit: 5 }), { message: 'connection lost' }, 'past it, the search waits for a read and sees its error');
  fail = null;
  t.same((await fresh.search('delta', { limit: 5 })).map((x) => x.name), ['Delta'], 'and the next read recovers');
});

t.test('past TOKEN_SEARCH_MEMORY_MAX, or at 0, the API asks PostgreSQL and answers the same', async (t) => {
  const stores = await embeddedStores(t);
  const r = rng(9);
  const rows = Array.from({ length: 400 }, (_, i) => ({ address: address(i), name: randomName(r), symbol: randomSymbol(r), holders: Math.floor(r() * 4) }));
  await insert(stores.pg, rows);
  const small = new TokenSearchIndex(stores.pg, 100);
  await t.rejects(small.search('token', { limit: 5 }), { name: 'TooManyTokens' }, 'a load past the bound stops');
  t.equal(small.size, 0, 'and holds nothing');
  const log = createLogger('api');
  const apps = [undefined, 100, 0].map((max) => createApiApp({ ch: stores.ch, pg: stores.pg, log, cacheMaxMb: 0, tokenSearchMemoryMax: max }));
  for (const q of ['token', 'TOK', 'élan', 'ab', 'x', 'moon', 'nothing']) {
    const bodies: string[] = [];
    for (const app of apps) {
      const reply = await app.handle(request(`/api/v2/search/quick?q=${encodeURIComponent(q)}`));
      t.equal(reply.status, 200);
      bodies.push(reply.body.toString());
    }
    t.equal(bodies[1], bodies[0], `${q}: past the bound, the same answer`);
    t.equal(bodies[2], bodies[0], `${q}: at 0, the same answer`);
  }
});
