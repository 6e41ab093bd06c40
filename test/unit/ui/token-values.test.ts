// Shares of a supply computed exactly (src/ui/token-values.ts), and which NFT media URLs from
// untrusted metadata the pages may load.
import t from 'tap';
import { attributes, httpUrl, imageSrc, sharePercent, text, videoSrc } from '../../../src/ui/token-values.js';

t.test('a share of a supply is exact, cut and marked, never rounded up or guessed', async (t) => {
  t.equal(sharePercent('750', '1490'), '50.3355…%', '750/1490 = 50.33557…: cut at 4 decimals, marked');
  t.equal(sharePercent('1', '4'), '25%', 'exact: no mark');
  t.equal(sharePercent('1', '8'), '12.5%');
  t.equal(sharePercent('1490', '1490'), '100%');
  t.equal(sharePercent('0', '1490'), '0%');
  t.equal(sharePercent('2', '3'), '66.6666…%', 'cut, not rounded up to 66.6667');
  t.equal(sharePercent('1', '10000000'), '<0.0001%', 'too small to show: below the last digit');
  t.equal(sharePercent('1', '1000000'), '0.0001%', 'the smallest shown share');
  // Beyond floating point: 10^30 + 1 of 3·10^30 is 33.3333…, and 2^255 of 2^256 exactly 50.
  t.equal(sharePercent(10n ** 30n + 1n, 3n * 10n ** 30n), '33.3333…%');
  t.equal(sharePercent(2n ** 255n, 2n ** 256n), '50%');
  t.equal(sharePercent('99999999999999999999999999999', '100000000000000000000000000000'), '99.9999…%', 'a float would say 100%');
  t.equal(sharePercent('5', null), null, 'no supply: no share');
  t.equal(sharePercent('5', '0'), null, 'zero supply: no share');
  t.equal(sharePercent('x', '5'), null, 'not a number: no share');
  t.equal(sharePercent('-1', '5'), null);
  t.equal(sharePercent('1', '3', 0), '33…%', 'no decimals');
});

t.test('media URLs: http(s) and data:image only', async (t) => {
  t.equal(imageSrc('https://example.com/a.png'), 'https://example.com/a.png');
  t.equal(imageSrc('http://example.com/a.png'), 'http://example.com/a.png');
  t.equal(imageSrc('data:image/svg+xml;base64,PHN2Zz48L3N2Zz4='), 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=');
  t.equal(imageSrc('data:image/png,xyz'), 'data:image/png,xyz');
  t.equal(imageSrc('javascript:alert(1)'), null);
  t.equal(imageSrc('JavaScript:alert(1)'), null);
  t.equal(imageSrc('data:text/html,<script>alert(1)</script>'), null);
  t.equal(imageSrc('ipfs://bafy/1.png'), null, 'no gateway configured: not loadable');
  t.equal(imageSrc('/relative.png'), null);
  t.equal(imageSrc(42), null);
  t.equal(imageSrc(null), null);
  t.equal(httpUrl('https://x.test/p?q=1'), 'https://x.test/p?q=1');
  t.equal(httpUrl('ftp://x.test/'), null);
  t.equal(videoSrc('https://x.test/a.mp4'), 'https://x.test/a.mp4');
  t.equal(videoSrc('https://x.test/a.webm?x=1'), 'https://x.test/a.webm?x=1');
  t.equal(videoSrc('https://x.test/page.html'), null, 'not a video file');
  t.equal(videoSrc('https://x.test/stream', 'video/mp4'), 'https://x.test/stream', 'the media type says video');
  t.equal(videoSrc('data:video/mp4;base64,AAAA'), null, 'videos only over http(s)');
  t.equal(videoSrc('javascript:alert(1)//.mp4'), null);
});

t.test('attributes of untrusted metadata', async (t) => {
  t.same(attributes({ attributes: [{ trait_type: 'origin', value: 'devnet scenario' }] }), [{ trait: 'origin', value: 'devnet scenario' }]);
  t.same(attributes({ attributes: [{ trait_type: 'level', value: 5, display_type: 'number' }, { value: 'plain' }, 'loose'] }), [
    { trait: 'level', value: '5' },
    { trait: '', value: 'plain' },
    { trait: '', value: 'loose' },
  ]);
  t.same(attributes({ attributes: { color: 'red', size: { w: 1 } } }), [
    { trait: 'color', value: 'red' },
    { trait: 'size', value: '{"w":1}' },
  ]);
  t.same(attributes({ attributes: 'nonsense' }), []);
  t.same(attributes(null), []);
  t.same(attributes({ attributes: [null, 7, { unrelated: 1 }] }), [{ trait: '', value: '7' }]);
  t.equal(attributes({ attributes: Array.from({ length: 1000 }, (_, i) => ({ trait_type: 't', value: i })) }).length, 200, 'at most 200 rows');
  t.equal(text('x'.repeat(600)).length, 500);
  t.equal(text(undefined), '');
});
