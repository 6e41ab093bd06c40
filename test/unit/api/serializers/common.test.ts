// The serializers' shared helpers (src/api/serializers/common.ts) and revert data decoding (transaction.ts).
import t from 'tap';
import { isoTimestamp, checksum, percent } from '../../../../src/api/serializers/common.js';
import { decodeRevert } from '../../../../src/api/serializers/transaction.js';

t.test('serializer helpers', async (t) => {
  t.equal(isoTimestamp(1665412470), '2022-10-10T14:34:30.000000Z');
  t.equal(checksum('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'), '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  t.equal(percent(1n, 4n), 25);
  t.equal(percent(1n, 0n), 0);
  const reason = decodeRevert('0x08c379a0' + '0'.repeat(62) + '20' + '0'.repeat(63) + '2' + '6869'.padEnd(64, '0'));
  t.same(reason, { method_id: '08c379a0', method_call: 'Error(string reason)', parameters: [{ name: 'reason', type: 'string', value: 'hi' }] });
  t.same(decodeRevert('0xdeadbeef'), { raw: '0xdeadbeef' }, 'a custom error stays raw');
  t.same(decodeRevert('0x08c379a0ff'), { raw: '0x08c379a0ff' }, 'malformed Error(string) stays raw');
});
