// Locating and reading the shared mainnet fixtures (../shared/fixtures, or $SHARED_DIR/fixtures).
// Tests that need them skip with a one-line reason when they are absent.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Project root (this file is build/test/helpers/fixtures.js or test/helpers/fixtures.ts). */
// (kept local: fixtures must be found the same way from src and build)
function projectRoot(): string {
  let d = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(d, 'package.json'))) return d;
    d = dirname(d);
  }
  return process.cwd();
}

export const PROJECT_ROOT = projectRoot();
export const SHARED_DIR = resolve(process.env.SHARED_DIR ?? join(PROJECT_ROOT, '..', 'shared'));
export const FIXTURES_DIR = join(SHARED_DIR, 'fixtures');
export const ETL_DIR = join(FIXTURES_DIR, 'ethereum-etl');
export const MAINNET_18M_DIR = join(FIXTURES_DIR, 'mainnet-18000000');

/** undefined when the fixtures are there, else the one-line reason to skip. */
export function fixturesMissing(): string | undefined {
  if (!existsSync(ETL_DIR) || !existsSync(MAINNET_18M_DIR)) {
    return `shared fixtures not found at ${FIXTURES_DIR} (set SHARED_DIR)`;
  }
  return undefined;
}

export function readJson<T = unknown>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export function etl(...parts: string[]): string {
  return join(ETL_DIR, ...parts);
}

export function listDir(path: string): string[] {
  return readdirSync(path);
}

/** The `result` of a recorded ethereum-etl response file. */
export function etlResult<T = unknown>(...parts: string[]): T {
  return readJson<{ result: T }>(etl(...parts)).result;
}

/** The `result` of the mainnet-18000000 recording for `method`. */
export function mainnet18m<T = unknown>(method: 'eth_getBlockByNumber' | 'eth_getBlockReceipts'): T {
  const recs = readJson<{ response: { result: T } }[]>(join(MAINNET_18M_DIR, `${method}.json`));
  return recs[0]!.response.result;
}

/** Minimal RFC 4180 CSV parser (quoted fields, doubled quotes, newlines in quotes). */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  const header = rows.shift() ?? [];
  return rows
    .filter((r) => r.length > 1 || r[0] !== '')
    .map((r) => Object.fromEntries(header.map((h, k) => [h, r[k] ?? ''])));
}

export function readCsv(path: string): Record<string, string>[] {
  return parseCsv(readFileSync(path, 'utf8'));
}

/**
 * JSON-lines file (ethereum-etl expected_*.json) -> objects. Integers of 16+ digits become
 * strings so they keep every digit.
 */
export function readJsonLines<T = Record<string, unknown>>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l.replace(/([:\[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"')) as T);
}
