// The logger's two line formats: text for people, one JSON object per line for collectors (every
// field kept, bigints and errors as strings, the line's own keys never overwritten).
import t from 'tap';
import { createLogger, setLogFormat, setLogLevel } from '../../src/log.js';

function capture(fn: () => void): string[] {
  const lines: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const grab = (chunk: string | Uint8Array) => (lines.push(String(chunk)), true);
  process.stdout.write = grab as typeof process.stdout.write;
  process.stderr.write = grab as typeof process.stderr.write;
  try {
    fn();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return lines;
}

t.test('text and JSON lines', async (t) => {
  setLogLevel('info');
  t.teardown(() => setLogFormat('text'));
  const log = createLogger('api').child('verify');
  setLogFormat('text');
  const [text] = capture(() => log.info('contract verified', { address: '0xab', n: 12n, skipped: undefined }));
  t.match(text, /^\d{4}-\d\d-\d\dT[\d:.]+Z info  \[api:verify\] contract verified address=0xab n=12\n$/);

  setLogFormat('json');
  const lines = capture(() => {
    log.warn('slow', { ms: 12.5, n: 12n, error: new Error('boom'), msg: 'not mine', nested: { a: [1, 2n] }, skipped: undefined });
    log.debug('below the level');
  });
  t.equal(lines.length, 1, 'one line; debug is below the level');
  t.ok(lines[0]!.endsWith('\n'));
  const j = JSON.parse(lines[0]!);
  t.match(j, { level: 'warn', scope: 'api:verify', msg: 'slow', ms: 12.5, n: '12', error: 'boom', nested: { a: [1, '2'] } });
  t.match(j.time, /^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  t.notOk('skipped' in j, 'undefined fields are left out');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const [c] = capture(() => log.error('cycle', { cyclic }));
  t.match(JSON.parse(c!), { level: 'error', msg: 'cycle' }, 'a field JSON cannot hold does not lose the line');
});
