// Another client, in a process of its own, that asks one URL over and over and keeps how long
// each answer took: a server stalled by work on its event loop shows as slow answers here, which a
// client in the test's own process would miss (its timers stall with the server it shares the
// loop with). Run as a script it probes argv[2] until its stdin closes, then prints the latencies.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

/** One request of the probe: when it was sent (Date.now()) and how long its answer took (ms). */
export interface Probed {
  at: number;
  ms: number;
}

export interface LatencyProbe {
  /** Stops the probing; every request, in order. */
  stop(): Promise<Probed[]>;
}

/** Starts probing `url` (GET, each answer must be 200) every `gapMs` from a child process. */
export async function probeLatency(t: Test, url: string, gapMs = 10): Promise<LatencyProbe> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), url, String(gapMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.teardown(() => {
    if (child.exitCode === null) child.kill();
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  // The first line says it runs (its first answer came back).
  await new Promise<void>((resolve, reject) => {
    const check = () => (out.includes('\n') ? resolve() : undefined);
    child.stdout!.on('data', check);
    void exited.then((code) => reject(new Error(`the latency probe exited (${code}) before answering`)));
  });
  return {
    async stop() {
      child.stdin!.end();
      const code = await exited;
      if (code !== 0) throw new Error(`the latency probe exited ${code}`);
      return JSON.parse(out.split('\n')[1]!) as Probed[];
    },
  };
}

async function main(url: string, gapMs: number): Promise<void> {
  let running = true;
  process.stdin.on('end', () => (running = false)).resume();
  const latencies: Probed[] = [];
  const once = async (): Promise<Probed> => {
    const at = Date.now();
    const started = performance.now();
    const r = await fetch(url);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    return { at, ms: performance.now() - started };
  };
  await once();
  process.stdout.write('ready\n');
  while (running) {
    latencies.push(await once());
    await new Promise((r) => setTimeout(r, gapMs));
  }
  process.stdout.write(`${JSON.stringify(latencies)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv[2]!, Number(process.argv[3])).catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
