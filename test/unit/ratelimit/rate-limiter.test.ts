import t from 'tap';
import { RateLimiter, TokenBuckets, clientIp, rateLimitHeaders, type Clock } from '../../../src/ratelimit/rate-limiter.js';

class FakeClock implements Clock {
  ms = 1_000_000;
  now() {
    return this.ms;
  }
}

t.test('a bucket allows its burst, then refuses until it refills at its rate', async (t) => {
  const clock = new FakeClock();
  const b = new TokenBuckets({ ratePerSecond: 10 }, clock);
  t.equal(b.capacity, 15, 'burst of one and a half seconds');
  let allowed = 0;
  for (let i = 0; i < 20; i++) if (b.take('a').allowed) allowed++;
  t.equal(allowed, 15);
  const refused = b.take('a');
  t.equal(refused.allowed, false);
  t.equal(refused.remaining, 0);
  t.equal(refused.retryAfterSeconds, 1);
  t.equal(refused.resetMs, 1500);
  clock.ms += 100; // one token
  t.equal(b.take('a').allowed, true);
  t.equal(b.take('a').allowed, false);
  clock.ms += 60_000;
  t.equal(b.take('a').remaining, 14, 'refilled to capacity, not beyond');
});

t.test('steady load at the rate passes, above it is cut to the rate', async (t) => {
  const clock = new FakeClock();
  const b = new TokenBuckets({ ratePerSecond: 10 }, clock);
  let ok = 0;
  for (let i = 0; i < 1000; i++) {
    clock.ms += 50; // 20 req/s offered
    if (b.take('x').allowed) ok++;
  }
  // 50 s at 10/s plus the initial burst
  t.ok(ok >= 500 && ok <= 516, `passed ${ok}`);
});

t.test('keys have their own buckets, separate from the IP', async (t) => {
  const clock = new FakeClock();
  const rl = new RateLimiter({ anonymousPerSecond: 10, keyPerSecond: 50, clock });
  let anon = 0;
  let keyed = 0;
  for (let i = 0; i < 100; i++) {
    if (rl.check('1.2.3.4').allowed) anon++;
    if (rl.check('1.2.3.4', 'key-1').allowed) keyed++;
  }
  t.equal(anon, 15);
  t.equal(keyed, 75);
  t.equal(rl.check('5.6.7.8').allowed, true, 'another IP is not affected');
  t.equal(rl.check('1.2.3.4', 'key-2').allowed, true, 'another key is not affected');
});

t.test('limits can be switched off', async (t) => {
  const rl = new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 });
  for (let i = 0; i < 1000; i++) t.equal(rl.check('ip').allowed, true);
  t.same(rateLimitHeaders(rl.check('ip')), { 'x-ratelimit-limit': '-1', 'x-ratelimit-remaining': '-1', 'x-ratelimit-reset': '-1' });
});

t.test('headers', async (t) => {
  const clock = new FakeClock();
  const b = new TokenBuckets({ ratePerSecond: 2, burst: 1 }, clock);
  t.same(rateLimitHeaders(b.take('k')), { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '500' });
  t.same(rateLimitHeaders(b.take('k')), { 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '500', 'retry-after': '1' });
});

t.test('memory stays bounded', async (t) => {
  const b = new TokenBuckets({ ratePerSecond: 1, maxKeys: 100 }, new FakeClock());
  for (let i = 0; i < 10_000; i++) b.take(`ip${i}`);
  t.equal((b as unknown as { buckets: { size: number } }).buckets.size, 100);
});

t.test('client IP honours X-Forwarded-For only from trusted proxies', async (t) => {
  const trusted = new Set(['10.0.0.1', '10.0.0.2']);
  t.equal(clientIp('9.9.9.9', '1.1.1.1', trusted), '9.9.9.9', 'untrusted socket: header ignored');
  t.equal(clientIp('10.0.0.1', '1.1.1.1', trusted), '1.1.1.1');
  t.equal(clientIp('10.0.0.1', '6.6.6.6, 1.1.1.1, 10.0.0.2', trusted), '1.1.1.1', 'right-most untrusted hop');
  t.equal(clientIp('10.0.0.1', undefined, trusted), '10.0.0.1');
});
