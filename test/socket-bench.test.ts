// `make bench-socket` kept working: the fan-out benchmark run tiny (50 sockets, 2 rounds) as a
// child process, every socket getting every frame, its table printed. No timing is asserted.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

t.test('the websocket fan-out benchmark runs', async (t) => {
  const script = fileURLToPath(new URL('../bench/socket-fanout.js', import.meta.url));
  const r = spawnSync(process.execPath, [script], { env: { ...process.env, BENCH_SOCKETS: '50', BENCH_SOCKET_ROUNDS: '2' }, encoding: 'utf8', timeout: 120_000 });
  t.equal(r.status, 0, `exit 0 (stderr: ${r.stderr.slice(0, 500)})`);
  t.match(r.stdout, /50 sockets subscribed to blocks:new_block/);
  t.match(r.stdout, /\| explorer \/socket\/v2 \(hub\.broadcast\) \| [\d.]+ \| [\d.]+ \| [\d.]+ \| [\d.]+ \|/);
  t.match(r.stdout, /\| ceiling: bare uWS app\.publish \|/);
  t.match(r.stdout, /target: the last socket within 1000 ms of the publish .*: (MET|NOT MET)/);
  const bad = spawnSync(process.execPath, [script], { env: { ...process.env, BENCH_SOCKETS: 'many' }, encoding: 'utf8', timeout: 30_000 });
  t.equal(bad.status, 1, 'a bad setting: exit 1');
  t.match(bad.stderr, /BENCH_SOCKETS and BENCH_SOCKET_ROUNDS must be positive integers/);
});
