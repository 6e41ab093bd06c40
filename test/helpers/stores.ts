// Embedded stores for tests: chDB and PostgreSQL under a temporary data directory, migrated,
// closed (and the PostgreSQL server stopped) when the test ends. One chDB directory per process:
// tap runs every test file in its own process.
import type { Test } from 'tap';
import { openStores, migrateAll, type Stores } from '../../src/storage/stores.js';
import { tmpDir } from './tmp.js';
import { seedEmbeddedPostgres } from './pg-template.js';

export async function embeddedStores(t: Test, opts: { migrate?: boolean; dataDir?: string } = {}): Promise<Stores & { dataDir: string }> {
  let dataDir = opts.dataDir;
  if (!dataDir) {
    dataDir = tmpDir(t);
    await seedEmbeddedPostgres(dataDir);
  }
  const stores = await openStores({ dataDir, clickhouseDatabase: 'explorer' });
  t.teardown(() => stores.close());
  if (opts.migrate !== false) await migrateAll(stores);
  return Object.assign(stores, { dataDir });
}
