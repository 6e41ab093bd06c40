// Icon uploads do not stall other clients (#29 item 9): while two loops post large icons (a noisy
// 1024x1024 JPEG of about 0.9 MB and a 1024x1024 PNG) to POST /account/api/v1/user/public-icons
// from fresh accounts, another client, in a process of its own, asks the public API for a block
// over and over, and its slowest answer stays under a bound. The icons are decoded and re-encoded
// by sharp on libuv's thread pool; decoded on the request thread (the pure-JS decoders before),
// each noisy JPEG held every other request for most of a second.
import t from 'tap';
import { apiWithDerived } from './helpers/api-derived.js';
import { newAccount } from './helpers/account.js';
import { image } from './helpers/images.js';
import { probeLatency } from './helpers/latency-probe.js';

/** Slowest answer allowed to the other client while uploads run (ms), at least: see the check below. */
const BOUND_MS = 400;
const UPLOADS_PER_LOOP = 4;

t.test("icon uploads leave another client's latency alone", async (t) => {
  const f = await apiWithDerived(t, { serve: true, account: { publicUrl: 'https://explorer.test', publicNames: {} } });
  const base = `http://127.0.0.1:${f.server!.port}`;
  const [noisy, flat] = await Promise.all([image('jpeg', 1024, 1024, 'noise'), image('png', 1024, 1024, [0, 0, 0, 0])]);
  t.ok(noisy.length > 800_000 && noisy.length <= 1024 * 1024, `a noisy JPEG of ${noisy.length} bytes, under PUBLIC_ICON_MAX_BYTES`);
  const tokens = await Promise.all(
    Array.from({ length: 2 * UPLOADS_PER_LOOP }, async (_, i) => (await newAccount(f.stores.pg, `uploader-${i}@example.org`)).token),
  );

  const probe = await probeLatency(t, `${base}/api/v2/blocks/1`);
  await new Promise((r) => setTimeout(r, 500));
  const statuses: number[] = [];
  // A fresh account for each upload, as the loops did (no per-account bucket in the way).
  const uploadLoop = async (loop: number) => {
    for (let i = 0; i < UPLOADS_PER_LOOP; i++) {
      const r = await fetch(`${base}/account/api/v1/user/public-icons`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens[loop * UPLOADS_PER_LOOP + i]}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(i % 2 === 0 ? noisy : flat),
      });
      await r.arrayBuffer();
      statuses.push(r.status);
    }
  };
  const from = Date.now();
  await Promise.all([uploadLoop(0), uploadLoop(1)]);
  const to = Date.now();
  const probed = await probe.stop();

  const quiet = probed.filter((p) => p.at < from).map((p) => p.ms);
  const loaded = probed.filter((p) => p.at >= from && p.at <= to).map((p) => p.ms);
  const summary = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${xs.length} answers, p50 ${s[Math.floor(s.length / 2)]!.toFixed(1)} ms, worst ${s[s.length - 1]!.toFixed(1)} ms`;
  };
  t.comment(`before the uploads: ${summary(quiet)}`);
  t.comment(`during ${statuses.length} uploads (${to - from} ms): ${summary(loaded)}`);
  t.same(statuses, Array(2 * UPLOADS_PER_LOOP).fill(201), 'every upload is accepted (and so was decoded and re-encoded)');
  t.ok(loaded.length >= 5, `the other client asked ${loaded.length} times while the uploads ran`);
  // A decode on the request thread would hold an answer for about a whole upload; a machine
  // running two test files at a time can delay one past 400 ms without that (563 ms once).
  const perUpload = (to - from) / UPLOADS_PER_LOOP;
  const bound = Math.max(BOUND_MS, perUpload / 2);
  const worst = Math.max(...loaded);
  t.ok(worst < bound, `the other client's slowest answer (${worst.toFixed(0)} ms) stays under ${bound.toFixed(0)} ms (400, or half an upload's ${perUpload.toFixed(0)} ms)`);
});
