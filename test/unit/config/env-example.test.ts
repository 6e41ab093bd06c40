// deploy/.env.example is what the generator makes from the settings table (nobody edits it by
// hand): every setting, with its default, so an operator's copy names everything the explorer reads.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { GENERATED_FILE, envExampleSource, COMPOSE_VARIABLES } from '../../../src/config/generate-env-example.js';
import { SETTINGS } from '../../../src/config/settings.js';
import { PROJECT_ROOT } from '../../helpers/fixtures.js';

t.test('the committed deploy/.env.example is a fresh generation', async (t) => {
  t.equal(fs.readFileSync(path.join(PROJECT_ROOT, GENERATED_FILE), 'utf8'), envExampleSource(), `${GENERATED_FILE} is up to date (npm run gen:env)`);
});

t.test('it lists every setting once, with its default', async (t) => {
  const text = envExampleSource();
  const names = [...text.matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1], m[2]] as const);
  t.same(names.map(([n]) => n), [...COMPOSE_VARIABLES.map((v) => v.name), ...SETTINGS.map((d) => d.env)], 'every setting, in the table\'s order');
  for (const d of SETTINGS) {
    const shown = names.find(([n]) => n === d.env)![1];
    const want = d.default === undefined ? '' : Array.isArray(d.default) ? d.default.join(',') : String(d.default);
    t.equal(shown, want, `${d.env} shows its default`);
  }
  for (const line of text.split('\n')) if (line && !line.startsWith('#')) t.fail(`an uncommented line: ${line}`);
});
