// Process groups seen from outside: signalling a whole group, judging whether any live member
// is left, and what a task left running outside its group. Shared by both process runners.
//
// Zombies: a group member that has exited but was not reaped still makes kill(-pgid, 0)
// succeed. Orphaned members are reparented to init (or a subreaper), and an init that does not
// reap (as in some containers) leaves them as zombies forever. On Linux the group is therefore
// judged from /proc, where all-zombie counts as gone.
//
// Left running: a process that leaves the group (setsid, a double-forking daemon) escapes the
// group kill. Each task process gets AX_SPAWN_ID, a random id its descendants inherit; on Linux,
// once the task is over, /proc tells which live processes outside the group still carry it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { replaceControls } from '../../core/logs/line-splitter.ts';
import type { LeftRunning, ProcessExit, RunningProcess } from '../../ports/process-runner.ts';

const POLL_MS = 50;

/**
 * Milliseconds on the monotonic clock, for every deadline and elapsed time here: a wall clock
 * stepped during a kill's grace (NTP, a manual date, faketime) would bring the SIGKILL far too
 * early or an hour late. Wall time is only for times recorded for people.
 */
export type MonotonicMs = () => number;
export const monotonicMs: MonotonicMs = () => performance.now();

export const IS_WINDOWS = process.platform === 'win32';
export const HAS_PROC = !IS_WINDOWS && existsSync('/proc/self/stat');

export function validPid(pid: number): boolean {
  // 0 and 1 would signal our own group or every process: never valid here.
  return Number.isInteger(pid) && pid > 1;
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (IS_WINDOWS) {
    // No process groups: taskkill /t ends the tree (best effort; a tree whose root exited is lost).
    if (signal === 'SIGKILL' || signal === 'SIGTERM') {
      spawnSync('taskkill', ['/pid', String(pid), '/t', ...(signal === 'SIGKILL' ? ['/f'] : [])], {
        stdio: 'ignore',
        windowsHide: true,
      });
    }
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: already gone. EPERM: not ours to kill; the alive check keeps reporting it.
  }
}

export function groupAlive(pid: number): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(IS_WINDOWS ? pid : -pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return HAS_PROC ? groupMembers(pid).length > 0 : true;
}

/**
 * SIGTERM, SIGKILL from killAt() on (a time of `now`, the monotonic clock unless a test gives
 * another), until nothing of the group is alive; true if it was alive.
 */
export async function killGroup(pid: number, killAt: () => number, now: MonotonicMs = monotonicMs): Promise<boolean> {
  if (!groupAlive(pid)) return false;
  signalGroup(pid, 'SIGTERM');
  let killed = false;
  while (groupAlive(pid)) {
    if (now() >= killAt()) {
      // Repeated on every poll: a member forked between two signals must not escape.
      signalGroup(pid, 'SIGKILL');
      killed = true;
    }
    await delay(killed ? POLL_MS : Math.min(POLL_MS, Math.max(1, killAt() - now())));
  }
  return true;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Live (non-zombie) processes whose process group is pgid, from /proc. */
export function groupMembers(pgid: number): number[] {
  // The usual case: the leader itself is still running; no need to scan.
  const leader = readStat(pgid);
  if (leader && leader.pgrp === pgid && leader.live) return [pgid];
  const members: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return members;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue; // not a pid
    const pid = Number(entry);
    const stat = readStat(pid);
    if (stat && stat.pgrp === pgid && stat.live) members.push(pid);
  }
  return members;
}

/** What one task asks of a /proc scan: processes outside its group that carry its spawn id. */
interface ScanRequest {
  pgid: number;
  marker: string;
  sinceTicks: number;
  resolve(found: LeftRunning[]): void;
}

let waiting: ScanRequest[] = [];
/** The least time between two scans while tasks keep ending. */
const SCAN_GAP_MS = 100;
let scanning = false;

/**
 * Live processes outside group pgid, started with or after it, that carry AX_SPAWN_ID=spawnId.
 * One /proc scan, asynchronous so that the engine's thread goes on with exits and heartbeats,
 * answers every request made while the previous one ran (tasks ending together). Only group
 * leaders are candidates (a process leaving a group leads a new one; its children stay in it),
 * and only those born since the oldest task started, so few environs are read.
 */
export function leftRunning(pgid: number, spawnId: string, sinceTicks: number): Promise<LeftRunning[]> {
  return new Promise((resolve) => {
    waiting.push({ pgid, marker: `AX_SPAWN_ID=${spawnId}`, sinceTicks, resolve });
    if (!scanning) void drainScans();
  });
}

async function drainScans(): Promise<void> {
  scanning = true;
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    const started = monotonicMs();
    const found = await scanProc(batch).catch(() => batch.map((): LeftRunning[] => []));
    batch.forEach((r, i) => r.resolve(found[i] ?? []));
    // Tasks ending one after another (2,000 `true` tasks) would keep a scan always running: with
    // more to answer, the next scan waits four scans' time, so scanning takes at most a fifth of
    // the engine's thread, and at least SCAN_GAP_MS, so a quick scan answers many tasks at once.
    // The report is after the outcome anyway; it only comes a little later.
    if (waiting.length > 0)
      await new Promise((resolve) => setTimeout(resolve, Math.max(SCAN_GAP_MS, 4 * (monotonicMs() - started))));
  }
  scanning = false;
}

/** Clock ticks per second in /proc (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * Which pids can belong to a process started since the batch's tasks: the kernel gives pids out
 * in increasing order, wrapping at pid_max, so those above the lowest task pid and up to the last
 * one given out (or, after a wrap, above it or up to the last). A task that began more than a
 * minute ago may have seen the whole range go round (a small pid_max, a busy machine): then all.
 * On a machine of long-lived processes this skips almost every stat read of a scan.
 */
function pidFilter(batch: ScanRequest[]): (pid: number) => boolean {
  const all = () => true;
  const floor = Math.min(...batch.map((r) => r.pgid));
  if (!(floor > 0)) return all;
  // Two one-line files: read at once, cheaper than two round trips through the thread pool.
  const read = (file: string): string => {
    try {
      return readFileSync(file, 'latin1');
    } catch {
      return '';
    }
  };
  const last = Number(read('/proc/sys/kernel/ns_last_pid').trim() || NaN);
  const uptime = Number(read('/proc/uptime').split(' ')[0] || NaN);
  if (!Number.isInteger(last) || !(last > 0) || !Number.isFinite(uptime)) return all;
  const oldest = Math.min(...batch.map((r) => r.sinceTicks));
  if (uptime * TICKS_PER_SECOND - oldest > 60 * TICKS_PER_SECOND) return all;
  return pidsSince(floor, last);
}

/** Pids given out after `floor` when the last one given out is `last` (below floor: it wrapped). */
export function pidsSince(floor: number, last: number): (pid: number) => boolean {
  return last >= floor ? (pid) => pid > floor && pid <= last : (pid) => pid > floor || pid <= last;
}

async function scanProc(batch: ScanRequest[]): Promise<LeftRunning[][]> {
  const found = batch.map((): LeftRunning[] => []);
  const since = pidFilter(batch);
  const entries = await readdir('/proc').catch((): string[] => []);
  const pids = entries
    .filter((e) => e.charCodeAt(0) >= 48 && e.charCodeAt(0) <= 57)
    .map(Number)
    .filter(since);
  const oldest = Math.min(...batch.map((r) => r.sinceTicks));
  for (let at = 0; at < pids.length; at += 128) {
    await Promise.all(
      pids.slice(at, at + 128).map(async (pid) => {
        const text = await readFile(`/proc/${pid}/stat`, 'latin1').catch(() => undefined);
        const stat = text === undefined ? undefined : parseStat(text);
        if (!stat || !stat.live || stat.pgrp !== pid || stat.startTicks < oldest) return;
        let environ: string[] | undefined;
        for (const [i, r] of batch.entries()) {
          if (stat.pgrp === r.pgid || stat.startTicks < r.sinceTicks) continue;
          environ ??= (await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '')).split('\0');
          if (environ.includes(r.marker)) found[i]?.push({ pid, command: commandLine(pid) });
        }
      }),
    );
  }
  return found;
}

/** A process's command line for a log line (at most 200 characters), or its name in brackets. */
function commandLine(pid: number): string {
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
  } catch {
    // gone meanwhile
  }
  if (text === '') {
    try {
      text = `[${readFileSync(`/proc/${pid}/comm`, 'utf8').trim()}]`;
    } catch {
      text = '?';
    }
  }
  text = replaceControls(text);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

export function readStat(pid: number): { pgrp: number; live: boolean; startTicks: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // gone meanwhile, or not readable
  }
  return parseStat(text);
}

function parseStat(text: string): { pgrp: number; live: boolean; startTicks: number } {
  // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  // fields[0] is field 3 of proc(5): pgrp is field 5, starttime (clock ticks after boot) field 22.
  return {
    pgrp: Number(fields[2]),
    live: state !== 'Z' && state !== 'X' && state !== 'x',
    startTicks: Number(fields[19]),
  };
}

/** The initial environment of a process as NAME=value entries; empty if unreadable. */
export function readEnviron(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
  } catch {
    return [];
  }
}

/**
 * The RunningProcess of a task whose group leader is pid: terminate kills the group (concurrent
 * calls share one kill sequence; a shorter grace brings the SIGKILL forward, as a second Ctrl-C).
 */
export function runningGroup(
  pid: number,
  spawnId: string,
  exited: Promise<ProcessExit>,
  /** the leader's start time (/proc ticks); default: read now, which only works before it can be reaped */
  startedTicks = HAS_PROC && validPid(pid) ? readStat(pid)?.startTicks : undefined,
  now: MonotonicMs = monotonicMs,
): RunningProcess {
  let terminating: Promise<void> | undefined;
  let killAt = Infinity;
  return {
    pid,
    exited,
    terminate(graceMs: number): Promise<void> {
      // A later call re-checks (cheap if all gone).
      killAt = Math.min(killAt, now() + graceMs);
      terminating ??= killGroup(pid, () => killAt, now).then(() => {
        terminating = undefined;
        killAt = Infinity;
      });
      return terminating;
    },
    leftRunning: () => (startedTicks === undefined ? Promise.resolve([]) : leftRunning(pid, spawnId, startedTicks)),
  };
}
