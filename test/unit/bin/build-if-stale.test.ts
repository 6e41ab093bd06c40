// npm start's build step compiles a fresh checkout, skips an up-to-date one, and compiles again
// after a source changes or when the last build failed (a project whose "build" counts its runs).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tmpDir } from '../../helpers/tmp.js';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../src/bin/build-if-stale.mjs');

t.test('builds only when something changed', async (t) => {
  const dir = tmpDir(t);
  const build = `node -e "const f=require('fs');const n=(f.existsSync('runs')?+f.readFileSync('runs','utf8'):0)+1;f.writeFileSync('runs',String(n));process.exit(f.existsSync('fail')?1:0)"`;
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { build } }));
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'a.ts'), 'export {};\n');
  const run = () => spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: 'utf8' });
  const runs = () => Number(fs.readFileSync(path.join(dir, 'runs'), 'utf8'));

  const first = run();
  t.equal(first.status, 0);
  t.equal(runs(), 1, 'a checkout never built is built');
  t.match(first.stdout, /^building the explorer \(TypeScript; about a minute the first time, later starts skip this\)\.\.\.\n/, 'saying so before it builds');
  t.match(first.stdout, /built in \d+ s; starting\n$/, 'and when it is done');
  const skipped = run();
  t.equal(skipped.status, 0);
  t.equal(runs(), 1, 'an up-to-date build is not built again');
  t.match(skipped.stdout, /up to date/);

  const later = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(dir, 'src', 'a.ts'), later, later);
  run();
  t.equal(runs(), 2, 'a changed source is built');

  fs.writeFileSync(path.join(dir, 'fail'), '');
  const again = new Date(Date.now() + 10_000);
  fs.utimesSync(path.join(dir, 'src', 'a.ts'), again, again);
  const failed = run();
  t.not(failed.status, 0, 'a failed build fails the start');
  t.match(failed.stdout, /^building the explorer \(a source changed since the last build\)\.\.\./);
  t.match(failed.stderr, /the build failed \(above\); nothing was started/);
  fs.rmSync(path.join(dir, 'fail'));
  run();
  t.equal(runs(), 4, 'and is tried again next time');
});
