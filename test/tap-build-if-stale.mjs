// `npm test`'s last pretest step: rebuilds tap's plugin set (`tap build`) when it is not the one
// package.json's "tap" settings name, before the runner starts. tap does the same check itself, but
// after its runner has read the old set's loaders: in a fresh install every test file was then
// started with the TypeScript loader our settings leave out (`!@tapjs/typescript`), 1.5-2.5 s more
// a file, some 7 minutes over the suite on a 2-core machine.
import { spawnSync } from 'node:child_process';
import { TapConfig } from '@tapjs/config';
import { signature } from '@tapjs/test';

const config = await TapConfig.load();
if (signature !== config.pluginSignature) {
  console.log('tap: building its plugin set (package.json "tap".plugin changed it)');
  const r = spawnSync('npx', ['tap', 'build'], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
