// How the web UI writes numbers (src/ui/format.ts): amounts with the digits that matter and never
// "…" in place of the figure, gas prices in the unit that reads best, hashes cut in even pieces.
import t from 'tap';
import { formatUnits, gwei, gweiShort, hashChunks, readableDecimal, readableUnits } from '../../../src/ui/format.js';

t.test('readableDecimal keeps the digits that matter, rounded half up', async (t) => {
  t.equal(readableDecimal('0.000034491234'), '0.00003449', 'below 1: four significant digits after the zeros');
  t.equal(readableDecimal('0.000044167754106392'), '0.00004417', 'rounded up at a 7');
  t.equal(readableDecimal('0.010485497243479890', 5), '0.010485', 'five significant digits, trailing zero dropped');
  t.equal(readableDecimal('10000.249448069833426025'), '10,000.25', 'from 1 up: the whole integer part and at least two decimals');
  t.equal(readableDecimal('1.019301351'), '1.019', 'four digits in all');
  t.equal(readableDecimal('0.25'), '0.25', 'short values unchanged');
  t.equal(readableDecimal('1490'), '1,490', 'integers grouped');
  t.equal(readableDecimal('0.99999'), '1', 'a carry into the integer part');
  t.equal(readableDecimal('9.9999'), '10', 'a carry that adds an integer digit');
  t.equal(readableDecimal('-0.000123456'), '-0.0001235', 'negative');
  t.equal(readableDecimal('28.71061234'), '28.71');
  t.equal(readableDecimal('0.000000000000000001'), '0.000000000000000001', 'one wei of ether stays a figure');
  t.equal(readableDecimal('abc'), 'abc', 'not a number: as is');
  // Beyond floating point: a 78-digit integer part is kept whole.
  const big = '115792089237316195423570985008687907853269984665640564039457584007913129639935';
  t.equal(readableDecimal(`${big}.125`).replace(/,/g, ''), `${big}.13`, 'huge values round exactly (BigInt)');
  t.equal(readableDecimal(`${big}.995`).replace(/,/g, ''), `${BigInt(big) + 1n}`, 'and carry exactly');
  for (const s of ['0.000034491234', '10000.249448069833426025', '0.99999', '28.71061234']) t.notMatch(readableDecimal(s), /…/, `${s}: no "…"`);
});

t.test('readableUnits shortens base units the same way; formatUnits stays exact', async (t) => {
  t.equal(readableUnits('44167754106392', 18), '0.00004417');
  t.equal(readableUnits('2244785724002', 18, 5), '0.0000022448');
  t.equal(readableUnits('1500000000000000000', 18), '1.5');
  t.equal(readableUnits('0', 18), '0');
  t.equal(readableUnits(null, 18), '');
  t.equal(formatUnits('44167754106392', 18), '0.000044167754106392', 'the exact value beside it');
});

t.test('gas prices in the unit that reads best', async (t) => {
  t.equal(gwei('8'), '8 wei', '8 wei, not 0.000000008 gwei');
  t.equal(gwei('999999'), '999,999 wei');
  t.equal(gwei('1000000'), '0.001 gwei');
  t.equal(gwei('1500000000'), '1.5 gwei');
  t.equal(gwei('11351761'), '0.011351761 gwei', 'exact');
  t.equal(gweiShort('11351761'), '0.01135 gwei', 'short');
  t.equal(gweiShort('8'), '8 wei');
  t.equal(gwei(''), '');
  t.equal(gwei('x'), 'x', 'not a number: as is, never a throw');
});

t.test('hashes cut in even pieces', async (t) => {
  const a = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const parts = hashChunks(a);
  t.equal(parts.join(''), a, 'nothing lost');
  t.same(parts.map((p) => p.length), [12, 10, 10, 10], '"0x" stays with the first piece');
  const h = `0x${'ab'.repeat(32)}`;
  t.same(hashChunks(h).map((p) => p.length), [18, 16, 16, 16]);
  t.same(hashChunks('0x1234'), ['0x1234'], 'short text: one piece');
});
