// The registry mirror this project is built against lacks the other platforms' binary packages
// of anvil and chDB (404), so `npm install` leaves them out of package-lock.json and `npm ci`
// then refuses the lock. This adds them back as optional entries for their own os/cpu, which
// npm ci skips on this platform. Run after every `npm install`: node .ci/fix-lock.cjs
const fs = require('fs');
const file = require('path').join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const P = lock.packages;
const platform = (name) => {
  const os = /darwin/.test(name) ? 'darwin' : /win32/.test(name) ? 'win32' : 'linux';
  const cpu = /arm64/.test(name) ? 'arm64' : /(amd64|x64)/.test(name) ? 'x64' : undefined;
  return { os: [os], ...(cpu ? { cpu: [cpu] } : {}) };
};
let added = 0;
for (const v of Object.values(P)) {
  for (const [dep, version] of Object.entries(v.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (P[key]) continue;
    P[key] = { version, optional: true, ...platform(dep) };
    added++;
  }
}
// In npm's own order (its locale compare, 'en'), so that a later `npm install` leaves the file as it is.
const sorted = Object.fromEntries(Object.entries(P).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'))));
lock.packages = sorted;
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`fix-lock: added ${added} optional platform entries`);
