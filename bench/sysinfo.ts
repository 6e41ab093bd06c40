// What the benchmark says about the machine and where CPU time went: the machine's identity,
// machine-wide CPU from /proc/stat, CPU per thread of this process and per child process from
// /proc (Linux; elsewhere these come back empty and the report says less).

import fs from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  cpu: string;
  cores: number;
  memGiB: number;
  os: string;
  node: string;
}

export function machineInfo(): MachineInfo {
  let cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1]!.trim();
  } catch {
    /* not Linux */
  }
  return {
    cpu,
    cores: os.availableParallelism(),
    memGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
  };
}

export const loadavg = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

/** Busy and total CPU seconds of the whole machine (all cores, every process) from /proc/stat. */
export function machineCpu(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busy: (total - idle) / 100, total: total / 100 };
  } catch {
    return null;
  }
}

export interface ProcCpu {
  comm: string;
  /** user + system seconds */
  cpu: number;
}

function readStat(file: string): { comm: string; ppid: number; cpu: number } | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const rest = text.slice(close + 2).split(' ');
    // rest[0] is field 3 (state): ppid = field 4, utime = field 14, stime = field 15.
    return { comm: text.slice(open + 1, close), ppid: Number(rest[1]), cpu: (Number(rest[11]) + Number(rest[12])) / 100 };
  } catch {
    return null;
  }
}

/** CPU seconds per thread of this process, by thread id. */
export function threadCpu(): Map<number, ProcCpu> {
  const out = new Map<number, ProcCpu>();
  try {
    for (const tid of fs.readdirSync('/proc/self/task')) {
      const st = readStat(`/proc/self/task/${tid}/stat`);
      if (st) out.set(Number(tid), { comm: st.comm, cpu: st.cpu });
    }
  } catch {
    /* not Linux */
  }
  return out;
}

/** CPU seconds of every live descendant process of `root` (PostgreSQL, the replay server). */
export function descendantCpu(root: number): Map<number, ProcCpu> {
  const out = new Map<number, ProcCpu>();
  const all = new Map<number, { comm: string; ppid: number; cpu: number }>();
  try {
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      const st = readStat(`/proc/${d}/stat`);
      if (st) all.set(Number(d), st);
    }
  } catch {
    return out;
  }
  for (const [pid, st] of all) {
    let p = st.ppid;
    for (let i = 0; i < 10 && p > 1; i++) {
      if (p === root) {
        out.set(pid, { comm: st.comm, cpu: st.cpu });
        break;
      }
      p = all.get(p)?.ppid ?? 0;
    }
  }
  return out;
}

/** CPU seconds between two snapshots, summed per name, largest first. */
export function cpuDelta(
  before: Map<number, ProcCpu>,
  after: Map<number, ProcCpu>,
  name: (id: number, p: ProcCpu) => string,
): [string, number][] {
  const sums = new Map<string, number>();
  for (const [id, p] of after) {
    const d = p.cpu - (before.get(id)?.cpu ?? 0);
    if (d <= 0) continue;
    const k = name(id, p);
    sums.set(k, (sums.get(k) ?? 0) + d);
  }
  return [...sums].sort((a, b) => b[1] - a[1]);
}

/** A CPU account of one phase: this process's threads (named by `label`), children, machine. */
export class CpuAccount {
  private readonly t0 = threadCpu();
  private readonly p0 = descendantCpu(process.pid);
  private readonly m0 = machineCpu();
  private readonly c0 = process.cpuUsage();

  constructor(private readonly label: (tid: number, p: ProcCpu) => string, private readonly childLabel: (pid: number, p: ProcCpu) => string = (_, p) => p.comm) {}

  end(): { threads: [string, number][]; children: [string, number][]; process: number; machineBusy: number } {
    const c = process.cpuUsage(this.c0);
    const m1 = machineCpu();
    return {
      threads: cpuDelta(this.t0, threadCpu(), this.label),
      children: cpuDelta(this.p0, descendantCpu(process.pid), this.childLabel),
      process: (c.user + c.system) / 1e6,
      machineBusy: this.m0 && m1 ? m1.busy - this.m0.busy : NaN,
    };
  }
}

export function sumCpu(xs: [string, number][]): number {
  return xs.reduce((a, [, v]) => a + v, 0);
}

export function listCpu(xs: [string, number][]): string {
  const shown = xs.filter(([, v]) => v >= 0.05);
  return shown.length ? shown.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ') : '(none measurable)';
}
