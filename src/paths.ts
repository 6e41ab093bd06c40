// Locations inside the project, found from this module's own place (works from src/ and build/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder holding the project's package.json. */
export function projectRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the project root (no package.json above this module)');
    dir = up;
  }
  return (root = dir);
}

export const sqlDir = (engine: 'clickhouse' | 'postgres'): string => path.join(projectRoot(), 'sql', engine);
