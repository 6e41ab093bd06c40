// A child process for memory tests of the HTTP server: the real server and gateway in front of a
// stand-in Account API (one valid key, given as BODY_SERVER_KEY; its handler reports the body
// length it got) and a stand-in public API, so the parent can read this process's memory alone.
// Prints {"port":N} on stdout once listening; exits when stdin closes.
import { startServer } from '../../src/api/server.js';
import { createGateway } from '../../src/api/gateway.js';
import { RateLimiter } from '../../src/ratelimit/rate-limiter.js';
import { createLogger } from '../../src/log.js';
import type { ApiReply, ApiRequest } from '../../src/api/http.js';

const VALID_KEY = process.env.BODY_SERVER_KEY ?? '';
if (!/^ek_[A-Za-z0-9_-]{43}$/.test(VALID_KEY)) throw new Error('BODY_SERVER_KEY must be an API key');

const json = (status: number, body: unknown): ApiReply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const account = {
  async handle(req: ApiRequest) {
    return json(req.headers['authorization'] === `Bearer ${VALID_KEY}` ? 200 : 401, { data: { bytes: req.body?.length ?? 0 } });
  },
  async identify(req: Pick<ApiRequest, 'headers' | 'query'>) {
    return req.headers['authorization'] === `Bearer ${VALID_KEY}` ? { userId: '1', keyId: 'k1' } : null;
  },
};
const gateway = createGateway({
  api: { handle: async () => json(200, { ok: true }) },
  account,
  limiter: new RateLimiter({ anonymousPerSecond: 0, keyPerSecond: 0 }),
});
const server = await startServer({ front: gateway, handle: gateway, host: '127.0.0.1', port: 0, log: createLogger('body-server') });
process.stdout.write(JSON.stringify({ port: server.port }) + '\n');
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0));
});
