// A stand-in for src/verify/compile-worker.ts (CompilerPool's `worker` option): a compile process
// that holds itself as long as a real compile would (via-IR inputs 1.5 s, others 100 ms), then
// answers that the sources do not compile. Tests of the verification queue use it: a real via-IR
// compile takes too long to flood the queue with. It ends with its parent, as the real one does.
process.on('message', (m: { id: number; input: string }) => {
  const settings = (JSON.parse(m.input) as { settings?: { viaIR?: boolean } }).settings ?? {};
  // Blocks the process, as solc does.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, settings.viaIR ? 1500 : 100);
  const error = { severity: 'error', type: 'ParserError', message: 'stand-in compiler', formattedMessage: 'stand-in compiler' };
  process.send!({ id: m.id, output: JSON.stringify({ errors: [error] }) });
});
process.on('disconnect', () => process.exit(0));
