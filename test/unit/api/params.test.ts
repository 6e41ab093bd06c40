// Parameters cast as OpenApiSpex does (src/api/params.ts), with Blockscout's 422 bodies.
import t from 'tap';
import { castParams, canonicalParams } from '../../../src/api/params.js';
import { ValidationError } from '../../../src/api/errors.js';

function errorsOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    if (e instanceof ValidationError) return e.body;
    throw e;
  }
  return null;
}

t.test('parameters cast as OpenApiSpex does, with its error bodies', async (t) => {
  const q = (s: string) => new URLSearchParams(s);
  const specs = { items_count: { kind: 'int', min: 1n, max: 50n }, filter: { kind: 'enum', values: ['a', 'b'] } } as const;
  t.same(castParams({}, {}, q('items_count=5&filter=a'), specs).query, { items_count: 5n, filter: 'a' });
  t.same(castParams({}, {}, q('items_count=5&items_count=7'), specs).query, { items_count: 7n }, 'repeated key: last wins');
  t.same(errorsOf(() => castParams({}, {}, q('foo=1&items_count=x'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/foo' }, detail: 'Unexpected field: foo' }],
  }, 'an unknown parameter is reported alone');
  t.same(errorsOf(() => castParams({}, {}, q('items_count=x'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/items_count' }, detail: 'Invalid integer. Got: string' }],
  });
  t.same(errorsOf(() => castParams({}, {}, q('items_count=0'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/items_count' }, detail: '0 is smaller than inclusive minimum 1' }],
  });
  t.same(errorsOf(() => castParams({}, {}, q('filter=c'), specs)), {
    errors: [{ title: 'Invalid value', source: { pointer: '/filter' }, detail: 'Invalid value for enum' }],
  });
  t.same(castParams({}, {}, q('apikey=k&key=s'), specs).query, { apikey: 'k', key: 's' }, 'apikey and key are declared everywhere');
  t.ok(errorsOf(() => castParams({}, {}, q('__proto__=1'), specs)), '__proto__ is just an unknown field');
  const addr = { address_hash_param: { kind: 'address' } } as const;
  t.same(errorsOf(() => castParams({ address_hash_param: '0x12' }, addr, q(''), {})), {
    errors: [{ title: 'Invalid value', source: { pointer: '/address_hash_param' }, detail: 'Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/' }],
  });
  t.same(castParams({ address_hash_param: '0xABCDEFabcdef0000000000000000000000000000' }, addr, q(''), {}).path, {
    address_hash_param: '0xabcdefabcdef0000000000000000000000000000',
  }, 'hashes are lower-cased');
  const block = { id: { kind: 'blockId' } } as const;
  t.same(castParams({ id: '12' }, block, q(''), {}).path, { id: { number: 12n } });
  t.equal((errorsOf(() => castParams({ id: 'x' }, block, q(''), {})) as { errors: unknown[] }).errors.length, 3, 'block id: three errors');
  const dt = { inserted_at: { kind: 'datetime' } } as const;
  t.ok(castParams({}, {}, q('inserted_at=2024-01-01T00:00:00.123456Z'), dt));
  for (const bad of ['2024-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '2024-01-01T24:00:00Z', '2024-01-01', 'yesterday']) {
    t.ok(errorsOf(() => castParams({}, {}, q(`inserted_at=${bad}`), dt)), `not a date-time: ${bad}`);
  }
  const types = { type: { kind: 'tokenTypes' } } as const;
  t.same(castParams({}, {}, q('type=[erc-20,ERC-721]'), types).query, { type: ['ERC-20', 'ERC-721'] });
  t.same(castParams({}, {}, q('type='), types).query, { type: [] });
  const a = castParams({}, {}, q('filter=a&items_count=05'), specs);
  const b = castParams({}, {}, q('items_count=5&filter=a&apikey=z'), specs);
  t.equal(canonicalParams(a), canonicalParams(b), 'cache key: sorted, cast, without apikey');
});
