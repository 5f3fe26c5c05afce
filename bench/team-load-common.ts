// The team-load benchmark's shape (bench/team-load.ts), and what /proc says about its processes:
// their CPU ticks and run-queue wait, finding one by name, killing every one it marked.
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO = fileURLToPath(new URL('..', import.meta.url));
export const LOOP_MONITOR = pathToFileURL(fileURLToPath(new URL('./loop-monitor.mjs', import.meta.url))).href;
export const SCHEDULERS = 2;
export const WORKERS = 3;
export const WORKER_CONCURRENCY = 20;
export const SOLO_CONCURRENCY = 8;
export const COMMAND = 'echo x';
export const FINAL_RUN = ['SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED'];
export const CLK_TCK = 100; // USER_HZ: /proc/PID/stat counts in 1/100 s on Linux
export const MARK = 'AXB_TEAM_LOAD';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The engine's shell for task commands (its process runner uses $SHELL, else /bin/sh). */
export function engineShell(): string {
  const shell = process.env.SHELL;
  return shell !== undefined && shell !== '' && fs.existsSync(shell) ? shell : '/bin/sh';
}

// ---------------------------------------------------------------------------------------------
// /proc

export interface CpuTicks {
  /** the process itself, all threads */
  self: number;
  /** its children that it has waited for (a worker's task processes) */
  children: number;
}

/** /proc/PID/stat's fields after "pid (comm) " (state is field 3, so [0]); undefined once it is gone. */
function statFields(pid: number | string): number[] | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
}

export function cpuTicks(pid: number): CpuTicks | undefined {
  const f = statFields(pid);
  // utime (14) … cstime (17) are [11..14]
  return f && { self: (f[11] ?? 0) + (f[12] ?? 0), children: (f[13] ?? 0) + (f[14] ?? 0) };
}

/** The live processes whose parent is one of `parents` (a worker's task launchers). */
export function childrenOf(parents: number[]): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    // ppid is field 4
    if (/^\d+$/.test(entry) && parents.includes(statFields(entry)?.[1] ?? -1)) found.push(Number(entry));
  }
  return found;
}

/** ns the process's main thread has spent runnable but waiting for a CPU (/proc/PID/schedstat). */
export function runQueueWaitNs(pid: number): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The first process whose command name is one of `names` and whose command line contains `arg`. */
export function findProcess(names: string[], arg = ''): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (!names.includes(comm)) continue;
      if (arg && !fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(arg)) continue;
      return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

/** SIGKILLs every live process whose environment carries MARK=id; returns their command lines. */
export function killMarked(id: string): string[] {
  const marker = `${MARK}=${id}`;
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(marker)) continue;
      if (/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue; // a zombie
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim();
      process.kill(Number(entry), 'SIGKILL');
      found.push(cmdline.slice(0, 60));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}
