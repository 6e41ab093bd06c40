// A child process for memory tests of the websocket: the real server (uWS, Phoenix endpoint, hub)
// with nothing behind it, so the parent reads this process's memory alone. Prints {"port":N} on
// stdout once listening, then takes one JSON command per stdin line:
//   {"cmd":"flood","topic":T,"messages":N,"bytes":B,"everyMs":D}  publish N frames of about B
//     bytes on T, one every D ms (0: yielding to the event loop only; sockets drain meanwhile); answers
//     {"published":N,"maxBufferedBytes":M,"open":O} (M: the largest queue of one socket seen)
//   {"cmd":"stats"}  answers {"open":O,"bufferedBytes":X}
// Exits when stdin closes.
import readline from 'node:readline';
import { startServer } from '../../src/api/server.js';
import { Hub } from '../../src/api/socket/hub.js';
import { SocketAdmitter } from '../../src/api/socket/admission.js';
import { createSocketEndpoint } from '../../src/api/socket/endpoint.js';
import { RateLimiter } from '../../src/ratelimit/rate-limiter.js';
import { createLogger } from '../../src/log.js';

const hub = new Hub();
const admitter = new SocketAdmitter({ limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }), maxSocketsPerClient: 0 });
const server = await startServer({
  handle: async () => ({ status: 404, headers: {}, body: '{}' }),
  host: '127.0.0.1',
  port: 0,
  log: createLogger('socket-server'),
  socket: createSocketEndpoint({ hub, admitter }),
});
process.stdout.write(JSON.stringify({ port: server.port }) + '\n');

const tick = (ms: number) => new Promise((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', async (line) => {
  const c = JSON.parse(line);
  if (c.cmd === 'stats') {
    process.stdout.write(JSON.stringify(server.sockets()) + '\n');
    return;
  }
  if (c.cmd === 'flood') {
    const payload = JSON.stringify({ pad: 'x'.repeat(c.bytes) });
    let maxBufferedBytes = 0;
    for (let i = 0; i < c.messages; i++) {
      hub.broadcast(c.topic, 'new_block', payload);
      maxBufferedBytes = Math.max(maxBufferedBytes, server.sockets().maxBufferedBytes);
      await tick(c.everyMs ?? 0);
    }
    process.stdout.write(JSON.stringify({ published: c.messages, maxBufferedBytes, open: server.sockets().open }) + '\n');
  }
});
rl.on('close', () => {
  void server.close().then(() => process.exit(0));
});
