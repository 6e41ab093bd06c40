// The load generator's alternating windows (bench/api-load.ts runAlternating): each server is
// counted only in its own slices, the two get the same measured time, and a slower server shows
// as slower while the same server against itself does not. A window's timeline (runLoad with
// `timeline`) places a slow stretch of the server in the part of the window it fell in.
import t from 'tap';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runAlternating, runLoad, timelineSegments } from '../../../bench/api-load.js';

/** A server answering every request after `delayMs`, counting what it answered. */
async function server(delayMs: number) {
  const s = { answered: 0, port: 0, srv: undefined as unknown as http.Server };
  s.srv = http.createServer((_req, res) => {
    const send = () => {
      s.answered++;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      res.end('ok');
    };
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  });
  await new Promise<void>((r) => s.srv.listen(0, '127.0.0.1', () => r()));
  s.port = (s.srv.address() as AddressInfo).port;
  return s;
}

t.test('a slower server is measured slower; each side gets half of the measured time', async (t) => {
  const fast = await server(0);
  const slow = await server(4);
  t.teardown(() => {
    fast.srv.closeAllConnections();
    slow.srv.closeAllConnections();
    fast.srv.close();
    slow.srv.close();
  });
  const [a, b] = await runAlternating({ host: '127.0.0.1', ports: [fast.port, slow.port], paths: ['/x'], connections: 2, warmupMs: 100, durationMs: 800, sliceMs: 50 });
  t.equal(a.statuses['200'], a.requests, 'every counted request of the first is a 200');
  t.equal(b.statuses['200'], b.requests, 'and of the second');
  t.equal(a.errors + b.errors, 0, 'no connection errors');
  // 16 slices of 50 ms, 8 each: each side's time is its slices'. Node's timers count whole
  // milliseconds, so a slice can end up to 1 ms early by the high-resolution clock.
  t.ok(a.seconds >= 0.39 && a.seconds < 0.6, `the first side measured ${a.seconds} s`);
  t.ok(b.seconds >= 0.39 && b.seconds < 0.6, `the second side measured ${b.seconds} s`);
  // 2 connections at 4 ms a request: at most ~500 req/s; the fast one answers far more.
  t.ok(b.rps < 600, `the slow server: ${b.rps} req/s`);
  t.ok(a.rps > 3 * b.rps, `the fast server: ${a.rps} req/s`);
  t.ok(a.p50ms < b.p50ms, 'latencies are counted per side');
  // Served beyond what was counted: warm-up slices and the drain after each slice.
  t.ok(fast.answered >= a.requests && slow.answered >= b.requests, 'each side counts only its own server');
});

t.test('the same server against itself measures alike', async (t) => {
  const s = await server(2);
  t.teardown(() => {
    s.srv.closeAllConnections();
    s.srv.close();
  });
  const [a, b] = await runAlternating({ host: '127.0.0.1', ports: [s.port, s.port], paths: ['/x'], connections: 2, warmupMs: 0, durationMs: 800, sliceMs: 50 });
  // A timer-paced server: ~2 connections / ~2 ms each; both sides within a third of each other.
  t.ok(a.requests > 50 && b.requests > 50, `both sides served (${a.requests}, ${b.requests})`);
  t.ok(Math.abs(1 - b.rps / a.rps) < 0.34, `${a.rps} against ${b.rps} req/s`);
});

t.test("a window's timeline places a slow stretch in its part of the window", async (t) => {
  // Answers at once, except for 200 ms starting 300 ms into the measured window, when each
  // request waits 50 ms.
  let slowFrom = Infinity;
  const stretchMs = 200;
  const srv = http.createServer((_req, res) => {
    const now = Date.now();
    const send = () => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      res.end('ok');
    };
    if (now >= slowFrom && now < slowFrom + stretchMs) setTimeout(send, 50);
    else send();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => {
    srv.closeAllConnections();
    srv.close();
  });
  const port = (srv.address() as AddressInfo).port;
  const warmupMs = 100;
  slowFrom = Date.now() + warmupMs + 300;
  const res = await runLoad({ host: '127.0.0.1', port, paths: ['/x'], connections: 2, warmupMs, durationMs: 900, timeline: true });
  const tl = res.timeline!;
  t.ok(tl, 'the result has a timeline');
  t.equal(tl.at.length, res.requests, 'one completion time per counted request');
  t.equal(tl.ms.length, res.requests, 'and one latency');
  t.ok(tl.at.every((x, i) => i === 0 || x >= tl.at[i - 1]!), 'in completion order');
  // Cut around the slow stretch: 30 ms of slack before it for the timers, and after it the last
  // waits' 50 ms and 30 more.
  const cuts = [slowFrom - 30, slowFrom + stretchMs + 80];
  const [before, slow, after] = timelineSegments(tl, res.seconds, cuts);
  t.equal(before!.requests + slow!.requests + after!.requests, res.requests, 'every request falls in one part');
  t.ok(Math.abs(slow!.seconds - (cuts[1]! - cuts[0]!) / 1000) < 0.001, `the slow part is as long as its cuts (${slow!.seconds} s)`);
  // Requests that waited (>= 40 ms), inside the slow part and outside it. A loaded machine can
  // hold an ordinary request that long now and then; the server's waits are most of them.
  let inside = 0;
  let outside = 0;
  for (let i = 0; i < tl.at.length; i++) {
    if (tl.ms[i]! < 40) continue;
    const when = tl.startMs + tl.at[i]!;
    if (when >= cuts[0]! && when < cuts[1]!) inside++;
    else outside++;
  }
  t.ok(inside >= 2 && inside > outside, `the requests that waited are in the slow part (${inside} there, ${outside} elsewhere)`);
  t.ok(slow!.maxMs >= 40, `its longest is a wait (${slow!.maxMs} ms)`);
  t.ok(before!.p50ms < 10 && after!.p50ms < 10, `the other parts are fast (p50 ${before!.p50ms}, ${after!.p50ms} ms)`);
  const slowest = tl.ms.filter((x) => x >= res.p99ms).length;
  t.equal(before!.slowest + slow!.slowest + after!.slowest, slowest, "the window's slowest 1% are counted once");
});
