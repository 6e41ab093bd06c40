import t from 'tap';
import { RateLimiter, TokenBuckets, clientIp, rateLimitHeaders, requestMeter, type Clock } from '../../../src/ratelimit/rate-limiter.js';

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

t.test('rows read after admission are charged in whole tokens; the debt is waited out', async (t) => {
  const clock = new FakeClock();
  const rl = new RateLimiter({ anonymousPerSecond: 10, keyPerSecond: 50, clock });
  t.equal(rl.check('1.2.3.4').remaining, 14, 'admitted: one token');
  const meter = requestMeter(rl, '1.2.3.4', undefined);
  t.equal(meter.client, 'ip:1.2.3.4');
  t.equal(meter.read(150, 100), 0, 'the first token worth of rows is the admission token');
  t.equal(meter.read(49, 100), 0, 'still under two tokens: nothing more');
  t.equal(rl.check('1.2.3.4').remaining, 13, '199 rows: nothing charged yet, only this request');
  t.equal(meter.read(1, 100), 0, 'the 200th row: one token more, not in debt');
  t.equal(rl.check('1.2.3.4').remaining, 11);
  // 2,100 rows more: 21 tokens, the bucket (11) goes 10 into debt.
  t.equal(meter.read(2100, 100), 1000, 'into debt: a second until it is repaid at 10 per second');
  const refused = rl.check('1.2.3.4');
  t.equal(refused.allowed, false, 'the next request waits');
  t.equal(refused.retryAfterSeconds, 2, 'until the debt and its own token are refilled');
  clock.ms += 1000;
  t.equal(meter.read(0, 100), 0, 'repaid a second later');
  t.equal(rl.check('5.6.7.8').remaining, 14, 'another client is not charged');

  const counted: [string, number][] = [];
  rl.onKeyTokens = (key, n) => counted.push([key, n]);
  rl.check('1.2.3.4', 'k1');
  const keyed = requestMeter(rl, '1.2.3.4', 'k1');
  t.equal(keyed.client, 'k:k1');
  keyed.read(1000, 100);
  t.same(counted, [['k1', 1], ['k1', 9]], 'a key counts its tokens for the replicas to share: 1, then 9');
  t.equal(rl.check('1.2.3.4', 'k1').remaining, 75 - 1 - 9 - 1, "the key's bucket paid, not the IP's");
  const off = new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 });
  t.equal(requestMeter(off, 'ip', undefined).read(1e9, 1), 0, 'limits off: nothing to wait for');
});
