// `npm start`'s build step: runs `npm run build` only when a source or build setting changed since
// the last build finished, so starting an up-to-date checkout does not spend a minute compiling.
// Plain JavaScript: it must run before anything is compiled.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** What the build reads: the sources it compiles and the settings and packages it compiles with. */
const INPUTS = ['src', 'workers', 'tsconfig.json', 'package.json', 'package-lock.json'];
/** Written when a build finished, with the time it started (an edit during the build is newer). */
const STAMP = path.join('build', '.build-started-at');

/** The newest modification time under `p` (0 when it does not exist). */
function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) if (entry !== 'node_modules') max = Math.max(max, newest(path.join(p, entry)));
  return max;
}

function builtAt() {
  try {
    return Number(fs.readFileSync(STAMP, 'utf8'));
  } catch {
    return 0;
  }
}

const last = builtAt();
const changed = Math.max(...INPUTS.map(newest));
if (last > 0 && changed < last) {
  console.log('build/ is up to date: not compiling (a source changed since makes npm start compile again)');
  process.exit(0);
}
const started = Date.now();
// The first build of a checkout takes about a minute with nothing else printed: say so first.
console.log(
  last > 0
    ? 'building the explorer (a source changed since the last build)...'
    : 'building the explorer (TypeScript; about a minute the first time, later starts skip this)...',
);
const r = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
if (r.status !== 0) {
  console.error('the build failed (above); nothing was started');
  process.exit(r.status ?? 1);
}
console.log(`built in ${Math.round((Date.now() - started) / 1000)} s; starting`);
fs.mkdirSync('build', { recursive: true });
fs.writeFileSync(STAMP, String(started));
