// Watches, from the test process, the process groups that task attempts record in the trace,
// so that a test can prove that an old attempt's processes were gone before something else
// happened (a retry, a fail-over's re-run).
import fs from 'node:fs';
import { groupMembers } from '../processes.ts';
import { waitFor } from '../wait-for.ts';
import type { TaskEvent } from './trace.ts';

/**
 * Polls /proc for the process groups tasks record in the trace, and keeps for each the
 * last time it was seen with a live (non-zombie) member and the first time it was seen with none.
 * Times are taken after the read that saw the group alive, so `lastAliveAt < t` is proof that the
 * group was not seen alive at or after t only when the read itself finished before t: the check
 * errs towards reporting an overlap, never towards hiding one.
 */
export class GroupWatch {
  private readonly groups = new Map<number, { lastAliveAt: number; deadAt?: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly trace: { events(): TaskEvent[] },
    private readonly intervalMs = 25,
  ) {}

  start(): this {
    const tick = () => {
      this.sample();
      this.timer = setTimeout(tick, this.intervalMs);
    };
    tick();
    return this;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  sample(): void {
    for (const e of this.trace.events())
      if (e.event === 'start' && !this.groups.has(e.pgid)) this.groups.set(e.pgid, { lastAliveAt: e.at });
    for (const [pgid, g] of this.groups) {
      if (g.deadAt !== undefined) continue;
      // The leader is cheap to look at; only a dead leader needs the scan for other members.
      const alive = leadsLiveGroup(pgid) || groupMembers(pgid).length > 0;
      const now = Date.now();
      if (alive) g.lastAliveAt = now;
      else g.deadAt = now;
    }
  }

  /** When the group was last seen alive and first seen dead (undefined: still alive). */
  get(pgid: number): { lastAliveAt: number; deadAt?: number } {
    this.sample();
    const g = this.groups.get(pgid);
    if (!g) throw new Error(`group ${pgid} is not known: no task recorded it`);
    return g;
  }

  /** Waits until the group has no live member; returns when it was first seen so. */
  async waitDead(pgid: number, timeoutMs: number): Promise<number> {
    return waitFor(() => this.get(pgid).deadAt, {
      timeoutMs,
      intervalMs: this.intervalMs,
      message: `process group ${pgid} still has a live member`,
    });
  }
}

/** Whether pid is alive (not a zombie) and still leads process group pid (not a reused pid). */
function leadsLiveGroup(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] !== 'Z' && fields[0] !== 'X' && Number(fields[2]) === pid;
  } catch {
    return false;
  }
}
