// The gas tracker's arithmetic (src/api/gas-prices.ts): the next base fee by EIP-1559, the levels
// from per-block percentiles as Blockscout's oracle averages them, its rounding, and the cases
// without transactions or without priority fees.
import t from 'tap';
import { gasPrices, nextBaseFee } from '../../../src/api/gas-prices.js';

const G = 1_000_000_000n;

t.test('next base fee (EIP-1559)', async (t) => {
  t.equal(nextBaseFee(100n * G, 15_000_000n, 30_000_000n), 100n * G, 'at the target: unchanged');
  t.equal(nextBaseFee(100n * G, 30_000_000n, 30_000_000n), 112_500_000_000n, 'full: +12.5%');
  t.equal(nextBaseFee(100n * G, 0n, 30_000_000n), 87_500_000_000n, 'empty: -12.5%');
  t.equal(nextBaseFee(7n, 15_000_001n, 30_000_000n), 8n, 'above the target: at least +1 wei');
  t.equal(nextBaseFee(7n, 0n, 0n), 7n, 'no gas limit: unchanged');
});

t.test('levels from per-block percentiles', async (t) => {
  const blocks = [
    { block_number: '10', prices: ['3000000000', '4000000000', '9000000000'], priorities: ['1000000000', '2000000000', '5000000000'] },
    { block_number: '9', prices: ['5000000000', '6000000000', '7000000000'], priorities: ['2000000000', '3000000001', '4000000000'] },
    // Legacy transactions only: no priority fee, it counts for the prices alone.
    { block_number: '8', prices: ['1000000000', '2000000000', '3000000000'], priorities: [] },
  ];
  const base = 10n * G;
  const p = gasPrices(blocks, base, 12_000);
  // slow: priority mean (1 + 2) / 2 = 1.5 gwei, plus the base fee 10.
  t.same(p.slow, { price: 11.5, time: 60_000, fiat_price: null, base_fee: 10, priority_fee: 1.5, priority_fee_wei: '1500000000', wei: '11500000000' });
  // average: (2 + 3.000000001) / 2 = 2.5000000005 gwei: rounded up to 2.51, the wei half up.
  t.same(p.average, { price: 12.51, time: 36_000, fiat_price: null, base_fee: 10, priority_fee: 2.51, priority_fee_wei: '2500000001', wei: '12500000001' });
  t.same(p.fast, { price: 14.5, time: 12_000, fiat_price: null, base_fee: 10, priority_fee: 4.5, priority_fee_wei: '4500000000', wei: '14500000000' });

  const legacy = gasPrices([blocks[2]!], base, null);
  t.same(legacy.average, { price: 2, time: null, fiat_price: null, base_fee: null, priority_fee: null, priority_fee_wei: null, wei: '2000000000' }, 'no priority fees: the price paid');
  const beforeLondon = gasPrices(blocks, null, 12_000);
  t.same(beforeLondon.slow?.wei, '3000000000', 'no base fee: the price paid, averaged over every block ((3 + 5 + 1) / 3 gwei)');
  t.equal(beforeLondon.slow?.base_fee, null);
});

t.test('no transactions in the window', async (t) => {
  const p = gasPrices([], 10n * G, 12_000);
  for (const l of ['slow', 'average', 'fast'] as const) {
    t.same(p[l], { price: 10, time: 12_000, fiat_price: null, base_fee: 10, priority_fee: 0, priority_fee_wei: '0', wei: '10000000000' }, `${l}: the next base fee alone`);
  }
  t.same(gasPrices([], null, null), { slow: null, average: null, fast: null }, 'nor a base fee: nothing');
});
