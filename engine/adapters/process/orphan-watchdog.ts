// Team mode: when a worker dies (kill -9, crash), the process groups of its tasks must not run
// on beside the re-runs that fail-over starts elsewhere. One small detached shell per worker
// watches the worker's pid; when it is gone, it stops every group listed in a file the worker
// keeps current (SIGTERM, SIGKILL after the grace). A clean exit stops the watchdog first.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRIPT = [
  'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
  'groups=$(cat "$2" 2>/dev/null)',
  'for g in $groups; do kill -TERM -"$g" 2>/dev/null; done',
  'sleep "$3"',
  'for g in $groups; do kill -KILL -"$g" 2>/dev/null; done',
  'rm -f "$2"',
].join('; ');

export class OrphanWatchdog {
  private readonly groups = new Set<number>();
  private readonly file: string;
  private watcher: number | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;

  constructor(
    private readonly workerPid: number,
    private readonly graceMs: number,
  ) {
    this.file = path.join(os.tmpdir(), `ax-watchdog-${workerPid}-${Date.now()}.groups`);
  }

  start(): void {
    if (process.platform === 'win32' || this.watcher !== undefined) return;
    fs.writeFileSync(this.file, '');
    const child = spawn('/bin/sh', ['-c', SCRIPT, 'ax-watchdog', String(this.workerPid), this.file, String(Math.ceil(this.graceMs / 1000))], {
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
    this.watcher = child.pid;
  }

  add(pgid: number): void {
    this.groups.add(pgid);
    this.write();
  }

  remove(pgid: number): void {
    if (this.groups.delete(pgid)) this.write();
  }

  stop(): void {
    if (this.watcher !== undefined) {
      try {
        process.kill(this.watcher, 'SIGKILL');
      } catch {
        // already gone
      }
      this.watcher = undefined;
    }
    fs.rmSync(this.file, { force: true });
    // A write still under way would bring the file back: remove it once that one is done.
    void this.writing?.finally(() => {
      fs.rmSync(this.file, { force: true });
      fs.rmSync(`${this.file}.tmp`, { force: true });
    });
  }

  /**
   * Rewrites the list off the main thread's critical path (synchronous writes cost ~11 ms a task
   * under load): one write at a time, and changes made meanwhile go out in the next one.
   */
  private write(): void {
    if (this.watcher === undefined) return;
    this.dirty = true;
    if (this.writing) return;
    this.writing = (async () => {
      while (this.dirty && this.watcher !== undefined) {
        this.dirty = false;
        // Write then rename: the watchdog never reads a half-written list.
        await fs.promises.writeFile(`${this.file}.tmp`, [...this.groups].join('\n'));
        await fs.promises.rename(`${this.file}.tmp`, this.file);
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        this.writing = undefined;
      });
  }
}
