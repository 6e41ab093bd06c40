import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

/** A fresh temporary directory removed when the test ends. */
export function tmpDir(t: Test, prefix = 'explorer-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
