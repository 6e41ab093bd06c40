// Shared API key limits (src/ratelimit/shared-key-limits.ts) on a fake clock with an in-memory
// meeting point: replicas together allow about one key's rate, not the rate per replica; a
// replica that stopped or restarted is not charged again; a failing store leaves limits per replica.
import t from 'tap';
import { RateLimiter, TokenBuckets, type Clock } from '../../../src/ratelimit/rate-limiter.js';
import { SharedKeyLimits, type KeyUsageStore } from '../../../src/ratelimit/shared-key-limits.js';
import type { Logger } from '../../../src/log.js';

class FakeClock implements Clock {
  ms = 1_000_000;
  now() {
    return this.ms;
  }
}

/** The replicas' totals as the PostgreSQL table holds them. */
class MemoryStore implements KeyUsageStore {
  rows = new Map<string, { used: number; at: number }>();
  failing = false;
  constructor(private readonly clock: FakeClock) {}
  async sync(replica: string, totals: ReadonlyMap<string, number>, keys: readonly string[]) {
    if (this.failing) throw new Error('connection refused');
    for (const [k, used] of totals) this.rows.set(`${k}|${replica}`, { used, at: this.clock.ms });
    const out = new Map<string, number>();
    for (const [id, r] of this.rows) {
      const [k, rep] = id.split('|');
      if (rep !== replica && keys.includes(k)) out.set(k, (out.get(k) ?? 0) + r.used);
    }
    return out;
  }
  async forgetIdle(idleSeconds: number) {
    let n = 0;
    for (const [id, r] of this.rows) if (this.clock.ms - r.at > idleSeconds * 1000) (this.rows.delete(id), n++);
    return n;
  }
}

function replicas(n: number, rate: number) {
  const clock = new FakeClock();
  const store = new MemoryStore(clock);
  const list = Array.from({ length: n }, () => {
    const limiter = new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: rate, clock });
    const shared = new SharedKeyLimits(limiter, store, { now: () => clock.ms });
    return { limiter, shared };
  });
  return { clock, store, list };
}

/**
 * Every replica sends `perReplicaPerSecond` requests with `key` for `seconds`, spread evenly, the
 * replicas syncing every 250 ms; returns the requests allowed in all.
 */
async function load(r: ReturnType<typeof replicas>, key: string, perReplicaPerSecond: number, seconds: number, sync = true): Promise<number> {
  let allowed = 0;
  const stepMs = 1000 / perReplicaPerSecond;
  let nextSync = r.clock.ms + 250;
  const end = r.clock.ms + seconds * 1000;
  while (r.clock.ms < end) {
    for (const { limiter } of r.list) if (limiter.check('10.0.0.1', key).allowed) allowed++;
    r.clock.ms += stepMs;
    if (sync && r.clock.ms >= nextSync) {
      for (const { shared } of r.list) await shared.syncOnce();
      nextSync += 250;
    }
  }
  return allowed;
}

t.test('three replicas together allow about one key rate, not three', async (t) => {
  const rate = 20;
  const seconds = 10;
  const r = replicas(3, rate);
  const allowed = await load(r, 'key-1', 100, seconds);
  // One bucket: its burst (1.5 s) plus the rate for the time. Each replica may overshoot by what
  // it allows between two syncs; measured here and bounded below that.
  const one = Math.ceil(rate * 1.5) + rate * seconds;
  t.ok(allowed >= rate * seconds, `at least the rate (${allowed} allowed)`);
  t.ok(allowed <= one * 1.5, `about one limit: ${allowed} allowed, one key's limit is ${one}`);

  // The same load without the exchange: each replica alone allows the whole limit.
  const apart = replicas(3, rate);
  const alone = await load(apart, 'key-1', 100, seconds, false);
  t.ok(alone >= 3 * rate * seconds, `per replica, ${alone} would pass`);
});

t.test('a key used on one replica only is limited exactly as without sharing', async (t) => {
  const r = replicas(2, 10);
  const lone = new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 10, clock: r.clock });
  let allowed = 0;
  let alone = 0;
  for (let i = 0; i < 300; i++) {
    if (r.list[0].limiter.check('ip', 'k').allowed) allowed++;
    if (lone.check('ip', 'k').allowed) alone++;
    r.clock.ms += 10;
    if (i % 25 === 0) for (const { shared } of r.list) await shared.syncOnce();
  }
  t.equal(allowed, alone, `${allowed} allowed in 3 s, as a limiter alone allows`);
  t.ok(alone >= 40 && alone <= 46, 'the burst plus the rate');
});

t.test('the others spent since the last look is charged once; a replica whose total fell is a new baseline', async (t) => {
  const r = replicas(2, 10);
  const [a, b] = r.list;
  a.limiter.check('ip', 'k'); // a knows the key
  b.limiter.check('ip', 'k');
  await a.shared.syncOnce();
  await b.shared.syncOnce();
  await a.shared.syncOnce(); // charged b's first request
  for (let i = 0; i < 10; i++) b.limiter.check('ip', 'k');
  await b.shared.syncOnce();
  await a.shared.syncOnce();
  t.equal(a.limiter.check('ip', 'k').remaining, 15 - 1 - 1 - 10 - 1, "a's bucket was charged b's ten requests");
  await a.shared.syncOnce();
  t.equal(a.limiter.check('ip', 'k').remaining, 1, 'not charged twice');
  // b restarts: a new replica id, its old row dropped by the idle sweep.
  r.store.rows.delete(`k|${b.shared.replica}`);
  await a.shared.syncOnce();
  t.equal(a.limiter.check('ip', 'k').remaining, 0, 'a smaller sum charges nothing');
});

t.test('charging may take a bucket below zero, down to minus its burst, and it refills from there', async (t) => {
  const clock = new FakeClock();
  const b = new TokenBuckets({ ratePerSecond: 10 }, clock);
  b.take('a');
  b.charge('a', 1000);
  t.equal(b.take('a').allowed, false);
  clock.ms += 1500;
  t.equal(b.take('a').allowed, false, 'from -15, 1.5 s gives back 15 tokens: zero, still refused');
  clock.ms += 100;
  t.equal(b.take('a').allowed, true);
  b.charge('unknown', 5);
  t.equal(b.take('unknown').remaining, 14, 'a key without a bucket here is not charged');
});

t.test('a key unused here for a minute is forgotten: the others’ past traffic is not charged when it returns', async (t) => {
  const r = replicas(2, 10);
  const [a, b] = r.list;
  a.limiter.check('ip', 'k');
  await a.shared.syncOnce();
  r.clock.ms += 61_000;
  for (let i = 0; i < 10; i++) b.limiter.check('ip', 'k');
  await b.shared.syncOnce();
  await a.shared.syncOnce(); // a forgets k
  a.limiter.check('ip', 'k');
  await a.shared.syncOnce(); // a new baseline
  t.equal(a.limiter.check('ip', 'k').remaining, 13, 'nothing charged for traffic before it came back');
});

t.test('a failing store: limits stay per replica, one warning, and a notice when it works again', async (t) => {
  const r = replicas(1, 10);
  const said: string[] = [];
  const log = { warn: (m: string) => said.push(`warn ${m}`), info: (m: string) => said.push(`info ${m}`) } as unknown as Logger;
  const shared = new SharedKeyLimits(r.list[0].limiter, r.store, { now: () => r.clock.ms, log });
  r.list[0].limiter.check('ip', 'k');
  r.store.failing = true;
  await shared.syncOnce();
  await shared.syncOnce();
  r.store.failing = false;
  await shared.syncOnce();
  t.same(said, ['warn shared API key limits: sync failed; limits are per replica until it works', 'info shared API key limits: sync works again']);
  t.equal(r.list[0].limiter.check('ip', 'k').remaining, 13, 'requests are still limited meanwhile');
});

t.test('replicas silent for an hour are swept every ten minutes', async (t) => {
  const r = replicas(2, 10);
  const [a, b] = r.list;
  b.limiter.check('ip', 'k');
  await b.shared.syncOnce();
  t.equal(r.store.rows.size, 1);
  r.clock.ms += 3601_000;
  a.limiter.check('ip', 'k');
  await a.shared.syncOnce();
  t.equal(r.store.rows.size, 1, "b's row is gone, a's is there");
  t.ok(r.store.rows.has(`k|${a.shared.replica}`));
});
