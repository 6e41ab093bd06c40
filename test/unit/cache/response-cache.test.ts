// The response cache (src/cache/response-cache.ts): single flight, the byte bound, and nothing
// computed before a block, a derived change or a reorg stored after it.
import t from 'tap';
import { ResponseCache } from '../../../src/cache/response-cache.js';

t.test('response cache', async (t) => {
  const body = (s: string) => Buffer.from(s);
  const c = new ResponseCache({ maxBytes: 10_000 });
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow = async () => {
    runs++;
    await gate;
    return { status: 200, body: body('x'), policy: 'volatile' as const };
  };
  const a = c.get('k', slow);
  const b = c.get('k', slow);
  release();
  const [ra, rb] = await Promise.all([a, b]);
  t.equal(runs, 1, 'single flight');
  t.same([ra.source, rb.source], ['miss', 'shared']);
  t.equal((await c.get('k', slow)).source, 'hit');

  // A computation that started before a block is neither stored nor joined afterwards.
  let release2!: () => void;
  const gate2 = new Promise<void>((r) => (release2 = r));
  const old = c.get('list', async () => {
    await gate2;
    return { status: 200, body: body('old'), policy: 'volatile' };
  });
  c.invalidate('block');
  const fresh = c.get('list', async () => ({ status: 200, body: body('new'), policy: 'volatile' }));
  release2();
  t.equal((await old).body.toString(), 'old', 'the early caller gets what it asked for');
  t.equal((await fresh).body.toString(), 'new', 'a caller after the block does not join the old computation');
  t.equal((await c.get('list', async () => ({ status: 200, body: body('newer'), policy: 'volatile' }))).body.toString(), 'new', 'the new result is cached');

  // Blocks drop volatile entries, keep stable ones; a reorg drops everything.
  await c.get('detail', async () => ({ status: 200, body: body('d'), policy: 'stable' }));
  c.invalidate('block');
  t.equal((await c.get('list', async () => ({ status: 200, body: body('after'), policy: 'volatile' }))).source, 'miss', 'volatile dropped by a block');
  t.equal((await c.get('detail', async () => ({ status: 200, body: body('d2'), policy: 'stable' }))).source, 'hit', 'stable kept across a block');
  c.invalidate('reorg');
  t.equal((await c.get('detail', async () => ({ status: 200, body: body('d3'), policy: 'stable' }))).source, 'miss', 'stable dropped by a reorg');
  t.equal((await c.get('none', async () => ({ status: 200, body: body('n'), policy: 'none' }))).source, 'miss');
  t.equal((await c.get('none', async () => ({ status: 200, body: body('n'), policy: 'none' }))).source, 'miss', "policy 'none' is never stored");

  // Bounded by bytes.
  const small = new ResponseCache({ maxBytes: 4096 });
  for (let i = 0; i < 100; i++) await small.get(`k${i}`, async () => ({ status: 200, body: Buffer.alloc(500), policy: 'stable' }));
  t.ok(small.bytes <= 4096, `at most 4096 bytes held (${small.bytes})`);
  t.ok(small.size < 10, 'old entries evicted');
  // A failed computation is not cached and reaches every waiter.
  await t.rejects(c.get('err', async () => Promise.reject(new Error('boom'))), /boom/);
  t.equal((await c.get('err', async () => ({ status: 200, body: body('ok'), policy: 'volatile' }))).source, 'miss');
});
