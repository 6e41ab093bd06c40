// Embedded chDB's threads at a lower CPU priority than the process's own, so reads and the indexer come first on short cores.
//
// chDB runs its merges, inserts and query pipelines on threads of its own inside this process
// (named BgSchPool, MergeMutate, ThreadPool and so on); Node's threads (the event loop, libuv's
// pool, V8's helpers, worker threads) are all named `node`. On 2 cores shared with the indexer,
// a block's inserts and merges took the CPU from the API's event loop and moved the uncached
// reads' p99 by 30-47% (bench/README.md, issue #30). A nice of 10 gives a `node` thread about
// ten times the CPU share of an engine thread when both want it, and changes nothing when the
// cores are free. Linux only: elsewhere there is no /proc/self/task, and this does nothing.
import fs from 'node:fs';
import os from 'node:os';

const TASKS = '/proc/self/task';

export interface EngineThreads {
  /** Engine threads set to the nice so far (threads that ended included). */
  readonly lowered: number;
  stop(): void;
}

/**
 * Sets every thread of this process not named `node` to `nice`, now and every `everyMs` after
 * (chDB starts threads as it needs them). A nice of 0 does nothing. Threads chDB starts from an
 * already lowered thread inherit its nice; the pass catches the rest.
 */
export function lowerEngineThreads(nice: number, everyMs = 1000): EngineThreads {
  const done = new Set<number>();
  let lowered = 0;
  const supported = nice !== 0 && fs.existsSync(TASKS);
  const sweep = () => {
    if (!supported) return;
    let tids: string[];
    try {
      tids = fs.readdirSync(TASKS);
    } catch {
      return;
    }
    const live = new Set<number>();
    for (const t of tids) {
      const tid = Number(t);
      live.add(tid);
      if (done.has(tid)) continue;
      try {
        // A thread is named after it starts: one still called `node` is looked at again next pass.
        if (fs.readFileSync(`${TASKS}/${t}/comm`, 'utf8').trim() === 'node') continue;
        // On Linux, setpriority on a thread id sets that thread alone.
        os.setPriority(tid, nice);
        done.add(tid);
        lowered++;
      } catch {
        // The thread ended between the listing and the read: nothing to do.
      }
    }
    for (const tid of done) if (!live.has(tid)) done.delete(tid);
  };
  sweep();
  const timer = supported ? setInterval(sweep, everyMs) : undefined;
  timer?.unref();
  return {
    get lowered() {
      return lowered;
    },
    stop: () => clearInterval(timer),
  };
}
