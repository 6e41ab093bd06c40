// The public API's router on the shared path matcher (src/api/router.ts, path-match.ts).
import t from 'tap';
import { Router } from '../../../src/api/router.js';

t.test('router: literals before parameters', async (t) => {
  const r = new Router([
    { pattern: '/transactions/:transaction_hash_param', handler: async () => ({ body: 'param', policy: 'none' }) },
    { pattern: '/transactions/stats', handler: async () => ({ body: 'literal', policy: 'none' }) },
  ]);
  t.equal(r.match(['transactions', 'stats'])?.def.pattern, '/transactions/stats');
  t.same(r.match(['transactions', '0x%41'])?.pathValues, { transaction_hash_param: '0xA' }, 'segments are percent-decoded');
  t.same(r.match(['transactions', '%ZZ'])?.pathValues, { transaction_hash_param: '%ZZ' }, 'a malformed escape stays as is');
  t.equal(r.match(['transactions']), null);
});
