// An initialised embedded PostgreSQL data directory copied into a test's data directory instead
// of running initdb in each test file (1.6 s on a quiet 2-core machine, more beside a parallel
// test; a copy takes a tenth of that). The template is made once per machine, by the same start
// the explorer runs (startEmbeddedPostgres initialises an empty directory), then stopped.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { embeddedBinaries, startEmbeddedPostgres } from '../../src/storage/postgres/store.js';

/** Where the template lives: named after the embedded binaries it was made with, and who runs. */
async function templateDir(): Promise<string> {
  const { initdb } = await embeddedBinaries();
  // The module that runs initdb (its flags) counts too: a change to it makes a new template.
  const starter = fs.readFileSync(fileURLToPath(new URL('../../src/storage/postgres/store.js', import.meta.url)));
  const stamp = `${fs.realpathSync(initdb)}:${fs.statSync(initdb).mtimeMs}:${process.getuid?.() ?? ''}:${crypto.createHash('sha256').update(starter).digest('hex')}`;
  return path.join(os.tmpdir(), `explorer-test-pg-template-${crypto.createHash('sha256').update(stamp).digest('hex').slice(0, 12)}`);
}

async function ensureTemplate(): Promise<string> {
  const dir = await templateDir();
  if (fs.existsSync(path.join(dir, 'postgres', 'PG_VERSION'))) return dir;
  // Built aside and renamed into place: a parallel test file may build one at the same time.
  const building = fs.mkdtempSync(`${dir}.building-`);
  try {
    const server = await startEmbeddedPostgres(path.join(building, 'postgres'));
    await server.stop();
    fs.renameSync(building, dir);
  } catch (e) {
    fs.rmSync(building, { recursive: true, force: true });
    // Another file's template took the place first; anything else is a failure.
    if (!fs.existsSync(path.join(dir, 'postgres', 'PG_VERSION'))) throw e;
  }
  return dir;
}

/**
 * Fills `dataDir` (a fresh, empty data directory) with an initialised, unmigrated PostgreSQL
 * directory and its password, as the explorer's first start leaves them.
 */
export async function seedEmbeddedPostgres(dataDir: string): Promise<void> {
  const template = await ensureTemplate();
  fs.mkdirSync(dataDir, { recursive: true });
  // cp -a keeps the owner (the postgres user when running as root) and the 0700 mode.
  execFileSync('cp', ['-a', path.join(template, 'postgres'), path.join(template, 'postgres.secret'), dataDir]);
}
