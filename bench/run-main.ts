// Runs a benchmark's main() when its file is the process's entry point (not when a test imports
// it), and exits with the code main() returns, or 1 with the error's stack.
import { pathToFileURL } from 'node:url';

export function runIfMain(moduleUrl: string, name: string, main: () => Promise<number>): void {
  if (!process.argv[1] || pathToFileURL(process.argv[1]).href !== moduleUrl) return;
  main().then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`${name} failed: ${e.stack ?? e.message}\n`);
      process.exit(1);
    },
  );
}
