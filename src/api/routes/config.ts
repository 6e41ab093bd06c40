// /config/backend-version: which backend answers (this project's name and version from its
// package.json), which Blockscout's frontend asks on every page and shows in its footer.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../paths.js';
import type { RouteDef } from '../router.js';

let version: string | null | undefined;

/** "<name> v<version>" of the project's package.json, read once; null when it cannot be read. */
export function backendVersion(): string | null {
  if (version !== undefined) return version;
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
    version = typeof pkg.name === 'string' && typeof pkg.version === 'string' ? `${pkg.name} v${pkg.version}` : null;
  } catch {
    version = null;
  }
  return version;
}

export const configRoutes: RouteDef[] = [
  {
    pattern: '/config/backend-version',
    async handler() {
      // Changes only with a new release (a restart): kept until a reorg clears stable entries.
      return { body: { backend_version: backendVersion() }, policy: 'stable' };
    },
  },
];
