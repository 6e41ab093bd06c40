// Parameters of the Etherscan-compatible API (src/api/etherscan/params.ts): where they come from
// (query, form, multipart and JSON bodies) and Blockscout's leniency with paging and bounds.
import t from 'tap';
import { bodyFields, isEtherscanPath, listOptions, parseAddress, parseInteger, requestParams } from '../../../../src/api/etherscan/params.js';

const p = (qs: string) => requestParams(new URLSearchParams(qs), undefined, undefined);

t.test('paths', async (t) => {
  for (const path of ['/api', '/api/', '/api/v1', '/api/v1/']) t.ok(isEtherscanPath(path), path);
  for (const path of ['/api/v2', '/api//', '/api/v1/counters', '/apis']) t.notOk(isEtherscanPath(path), path);
});

t.test('values', async (t) => {
  t.equal(parseAddress('0xABCDEFabcdef0123456789012345678901234567'), '0xabcdefabcdef0123456789012345678901234567');
  t.equal(parseAddress('0xABC'), null);
  t.equal(parseAddress(undefined), null);
  t.equal(parseInteger('+12'), 12n);
  t.equal(parseInteger('-3'), -3n);
  t.equal(parseInteger('12abc'), null, 'Integer.parse must read the whole string');
  t.equal(parseInteger(''), null);
  t.equal(parseInteger('1'.repeat(100)), null, 'absurd lengths are not numbers');
});

t.test('bodies', async (t) => {
  t.same(bodyFields(Buffer.from('a=1&b=x%20y&a=2'), 'application/x-www-form-urlencoded'), [['a', '1'], ['b', 'x y'], ['a', '2']]);
  t.same(bodyFields(Buffer.from('{"a":1,"b":"x","c":null,"d":{"e":true}}'), 'application/json; charset=utf-8'), [['a', '1'], ['b', 'x'], ['d', '{"e":true}']]);
  t.same(bodyFields(Buffer.from('[1,2]'), 'application/json'), [], 'a JSON body that is not an object has no fields');
  t.same(bodyFields(Buffer.from('{nope'), 'application/json'), []);
  const mp = '--XX\r\nContent-Disposition: form-data; name="module"\r\n\r\naccount\r\n--XX\r\nContent-Disposition: form-data; name="code"\r\n\r\nline1\r\nline2\r\n--XX--\r\n';
  t.same(bodyFields(Buffer.from(mp), 'multipart/form-data; boundary=XX'), [['module', 'account'], ['code', 'line1\r\nline2']]);
  const merged = requestParams(new URLSearchParams('module=a&address=q&address=q2'), Buffer.from('address=b'), 'application/x-www-form-urlencoded');
  t.same([...merged], [['module', 'a'], ['address', 'b']], 'the first query value, replaced by the body');
});

t.test('list options as Blockscout reads them', async (t) => {
  t.same(listOptions(p('')), { order: 'desc', startBlock: undefined, endBlock: undefined, skip: 0, limit: 10000, direction: null });
  t.same(listOptions(p('sort=asc&page=3&offset=25&startblock=5&endblock=9&filter_by=to')), { order: 'asc', startBlock: 5n, endBlock: 9n, skip: 50, limit: 25, direction: 'to' });
  t.same(listOptions(p('start_block=7&end_block=8&filterby=from')), { order: 'desc', startBlock: 7n, endBlock: 8n, skip: 0, limit: 10000, direction: 'from' }, 'the other spellings');
  t.same(listOptions(p('sort=up&page=0&offset=-1&startblock=x')), { order: 'desc', startBlock: undefined, endBlock: undefined, skip: 0, limit: 10000, direction: null }, 'unparseable values are ignored');
  t.same(listOptions(p('startblock=-4')), { order: 'desc', startBlock: 0n, endBlock: undefined, skip: 0, limit: 10000, direction: null });
  t.equal(listOptions(p('page=2')), 'Result window is too large, PageNo x Offset size must be less than or equal to 10000', 'page 2 of the default 10,000');
  t.equal(listOptions(p('page=101&offset=100')), 'Result window is too large, PageNo x Offset size must be less than or equal to 10000');
  t.same((listOptions(p('page=100&offset=100')) as { skip: number }).skip, 9900, 'the window edge');
});
