// The Coalescer (src/storage/clickhouse/coalesce.ts): a key alone is read at once; keys that
// arrive while reads run go together in the next read; each caller gets its own key's value (or
// undefined), a failed read rejects exactly its callers, and nothing is left waiting.
import t from 'tap';
import { Coalescer } from '../../../../src/storage/clickhouse/coalesce.js';

/** A read that records its keys and finishes when the test says so. */
function controlledRead() {
  const calls: { keys: string[]; finish(found: Record<string, number>): void; fail(e: Error): void }[] = [];
  const read = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve, reject) => {
      calls.push({ keys, finish: (found) => resolve(new Map(Object.entries(found))), fail: reject });
    });
  return { calls, read };
}

const tick = () => new Promise((r) => setImmediate(r));

t.test('a key alone is read at once, by itself', async (t) => {
  const { calls, read } = controlledRead();
  const c = new Coalescer(read, { maxInFlight: 2, maxKeys: 8 });
  const p = c.get('a');
  t.same(calls.map((x) => x.keys), [['a']], 'read without waiting for company');
  calls[0].finish({ a: 1 });
  t.equal(await p, 1);
});

t.test('keys that arrive while reads run wait, then go in one read', async (t) => {
  const { calls, read } = controlledRead();
  const c = new Coalescer(read, { maxInFlight: 2, maxKeys: 8 });
  const pa = c.get('a');
  const pb = c.get('b');
  const rest = ['c', 'd', 'c', 'e'].map((k) => c.get(k));
  t.same(calls.map((x) => x.keys), [['a'], ['b']], 'two reads in flight, the others wait');
  calls[1].finish({ b: 2 });
  await tick();
  t.same(calls[2]?.keys, ['c', 'd', 'e'], 'the waiting keys in one read, a key asked twice once');
  calls[2].finish({ c: 3, e: 5 });
  t.same(await Promise.all(rest), [3, undefined, 3, 5], 'each caller its own value; a key without one gets undefined');
  t.equal(await pb, 2);
  calls[0].finish({ a: 1 });
  t.equal(await pa, 1);
  t.equal(calls.length, 3, 'no read more');
});

t.test('at most maxKeys keys a read', async (t) => {
  const { calls, read } = controlledRead();
  const c = new Coalescer(read, { maxInFlight: 1, maxKeys: 2 });
  const ps = ['a', 'b', 'c', 'd', 'e'].map((k) => c.get(k));
  calls[0].finish({ a: 1 });
  await tick();
  calls[1].finish({ b: 2, c: 3 });
  await tick();
  calls[2].finish({ d: 4, e: 5 });
  t.same(await Promise.all(ps), [1, 2, 3, 4, 5]);
  t.same(calls.map((x) => x.keys), [['a'], ['b', 'c'], ['d', 'e']]);
});

t.test('a failed read rejects its own callers only, and later keys are still read', async (t) => {
  const { calls, read } = controlledRead();
  const c = new Coalescer(read, { maxInFlight: 1, maxKeys: 8 });
  const pa = c.get('a');
  const pb = c.get('b');
  const pc = c.get('c');
  calls[0].fail(new Error('engine down'));
  await t.rejects(pa, /engine down/);
  await tick();
  t.same(calls[1].keys, ['b', 'c']);
  calls[1].finish({ b: 2 });
  t.equal(await pb, 2);
  t.equal(await pc, undefined);
  // A read that throws instead of rejecting is a failed read too.
  const throwing = new Coalescer<number>(() => {
    throw new Error('bad keys');
  });
  await t.rejects(throwing.get('x'), /bad keys/);
});

t.test('options are checked', async (t) => {
  t.throws(() => new Coalescer(async () => new Map(), { maxInFlight: 0, maxKeys: 1 }), RangeError);
  t.throws(() => new Coalescer(async () => new Map(), { maxInFlight: 1, maxKeys: 0 }), RangeError);
});

t.test("one caller's keys go in one read", async (t) => {
  const { calls, read } = controlledRead();
  const c = new Coalescer(read, { maxInFlight: 2, maxKeys: 8 });
  const p = c.getMany(['a', 'b', 'a']);
  t.same(calls.map((x) => x.keys), [['a', 'b']], 'not the first key alone and the rest later');
  calls[0].finish({ b: 2 });
  t.same(await p, [undefined, 2, undefined], 'in the order asked');
});
