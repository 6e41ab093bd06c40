// The verification queue alone (src/verify/verification-queue.ts), with a clock that moves only
// when told: the caps per client, per network and in all, the order networks are served in, and
// the Retry-After estimates from the jobs ahead and the timeout.
import t from 'tap';
import { QueueRefused, VerificationQueue, type Ticket } from '../../../src/verify/verification-queue.js';
import { clientNetwork } from '../../../src/ratelimit/rate-limiter.js';

const T = 10_000;

function queue(limits: { maxWaiting?: number; perNetwork?: number } = {}) {
  let now = 1_000_000;
  const q = new VerificationQueue({ maxWaiting: limits.maxWaiting ?? 8, perNetwork: limits.perNetwork ?? 2, timeoutMs: T }, () => now);
  const started: string[] = [];
  const enter = (client: string, network: string): Ticket => {
    const ticket = q.enter(client, network);
    void ticket.turn.then(() => started.push(client));
    return ticket;
  };
  const refusal = (client: string, network: string): QueueRefused => {
    try {
      q.enter(client, network);
    } catch (e) {
      if (e instanceof QueueRefused) return e;
      throw e;
    }
    throw new Error(`${client} got a place`);
  };
  return { q, enter, refusal, started, tick: (ms: number) => (now += ms), settle: () => new Promise((r) => setImmediate(r)) };
}

t.test('networks are served in turn: a new one before one served already', async (t) => {
  const { q, enter, started, settle } = queue({ perNetwork: 3 });
  const a1 = enter('a1', 'A');
  const a2 = enter('a2', 'A');
  const a3 = enter('a3', 'A');
  const b1 = enter('b1', 'B');
  const c1 = enter('c1', 'C');
  await settle();
  t.same(started, ['a1'], 'the first runs at once, alone');
  q.leave(a1);
  await settle();
  t.same(started, ['a1', 'b1'], 'then B, not A again (A was just served)');
  q.leave(b1);
  await settle();
  t.same(started, ['a1', 'b1', 'c1'], 'then C');
  q.leave(c1);
  await settle();
  t.same(started, ['a1', 'b1', 'c1', 'a2'], 'then A');
  const b2 = enter('b2', 'B');
  q.leave(a2);
  await settle();
  t.same(started.at(-1), 'b2', 'B, which came back, before A goes on');
  q.leave(b2);
  await settle();
  t.same(started.at(-1), 'a3');
  q.leave(a3);
  t.same(q.size, { waiting: 0, running: false });
});

t.test('caps: one job per client, perNetwork per network, maxWaiting in all; leaving frees them', async (t) => {
  const { q, enter, refusal, tick } = queue({ maxWaiting: 3, perNetwork: 2 });
  const a1 = enter('a1', 'A');
  tick(4000);
  const mine = refusal('a1', 'A');
  t.match(mine.message, /of yours/);
  t.equal(mine.retryAfterSeconds, 6, 'its own job: the rest of the running timeout (10 s - 4 s)');
  const a2 = enter('a2', 'A');
  const net = refusal('a3', 'A');
  t.match(net.message, /your network \(A\)/);
  t.equal(net.retryAfterSeconds, 6, "the network's first job to end: the running one");
  t.equal(refusal('a2', 'A').retryAfterSeconds, 16, 'a waiting job ends after the running one and its own timeout');
  enter('b1', 'B');
  const c1 = enter('c1', 'C');
  const full = refusal('d1', 'D');
  t.match(full.message, /queue is full/);
  t.equal(full.retryAfterSeconds, 6, 'a place frees when the running job ends');
  t.equal(refusal('c1', 'C').retryAfterSeconds, 6 + 20, 'C waits behind B (A was served): two timeouts after the running one');
  q.leave(c1);
  t.doesNotThrow(() => enter('d1', 'D'), 'a job that leaves before its turn frees its place');
  q.leave(a1);
  q.leave(a2);
  t.doesNotThrow(() => enter('a3', 'A'), 'and a finished one its network’s');
});

t.test('client networks: /24 for IPv4, /64 for IPv6', async (t) => {
  t.equal(clientNetwork('203.0.113.77'), '203.0.113.0/24');
  t.equal(clientNetwork('::ffff:203.0.113.9'), '203.0.113.0/24', 'IPv4-mapped');
  t.equal(clientNetwork('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  t.equal(clientNetwork('2001:0db8:0001:0002::9'), '2001:db8:1:2::/64', 'written shorter or longer: the same network');
  t.equal(clientNetwork('::1'), '0:0:0:0::/64');
  t.equal(clientNetwork('not-an-ip'), 'not-an-ip', 'anything else stands for itself');
});
