// The compile process (a child of the API, src/verify/compiler-pool.ts) that runs solc-js: a
// standard JSON input in, the compiler's output out. It loads only builds of the compiler cache
// (the path comes from src/verify/compilers.ts) and resolves no imports, so a compile can read
// nothing from the server's disk; it keeps the last two builds it loaded (loading one takes
// seconds). It ends with its parent (the IPC channel closes).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const wrapper = require('solc/wrapper.js') as (soljson: unknown) => { compile(input: string, callbacks: { import(path: string): { error: string } }): string };

const loaded = new Map<string, ReturnType<typeof wrapper>>();

function compilerAt(soljsonPath: string) {
  let c = loaded.get(soljsonPath);
  if (!c) {
    c = wrapper(require(soljsonPath));
    loaded.set(soljsonPath, c);
    // Two builds at most: each holds tens of MB.
    if (loaded.size > 2) loaded.delete(loaded.keys().next().value as string);
  }
  return c;
}

const reply = (m: { id: number; output?: string; error?: string }) => process.send!(m);

process.on('message', (m: { id: number; soljsonPath: string; input: string }) => {
  try {
    const output = compilerAt(m.soljsonPath).compile(m.input, {
      import: (p) => ({ error: `${p}: imports are not resolved here; every source must be in the input` }),
    });
    reply({ id: m.id, output });
  } catch (e) {
    reply({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
process.on('disconnect', () => process.exit(0));
