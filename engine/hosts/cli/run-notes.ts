// What `ax run --wait` says beside each outcome, so that one command answers "why did it fail?":
// a retry as soon as it is scheduled (the engine's "retrying in …" line from the failed
// attempt's log), and for a task that failed for good the last lines of its output and the
// command for the whole log.
import type { EngineApi } from '../../api/engine-api.ts';
import type { InstanceRecord, LogLine } from '../../api/types.ts';

/** Lines of a failed task's output shown under its outcome. */
export const TAIL_LINES = 10;
/** How far back from the end of a log the tail is looked for (stdout may bury stderr). */
const TAIL_WINDOW = 500;
const FAILED = ['FAILED', 'TIMEOUT'];

export interface RunNotes {
  /** before an instance's outcome: the retry that created it, once (`all`: the run's instances known so far) */
  retry(inst: InstanceRecord, all: () => InstanceRecord[]): Promise<void>;
  /** after a pass: the output of those of `seen` that failed for good, once each */
  failures(seen: InstanceRecord[], all: () => InstanceRecord[]): Promise<void>;
}

/** `print`: where a line goes (the follower's buffered stdout). */
export function runNotes(api: EngineApi, print: (line: string) => void = (line) => print(line)): RunNotes {
  const done = new Set<number>();
  return {
    async retry(inst, all) {
      if (inst.attempt < 2 || done.has(inst.id)) return;
      const previous = all().find((i) => i.taskId === inst.taskId && i.attempt === inst.attempt - 1);
      // The engine writes the line, then marks the failure handled: until then, ask again later.
      if (previous && FAILED.includes(previous.state) && !previous.handled) return;
      done.add(inst.id);
      if (!previous || !FAILED.includes(previous.state)) return;
      const line = (await tail(api, previous.id))
        .filter((l) => l.stream === 'system' && l.line.startsWith('retrying '))
        .pop();
      if (line) print(`↻ ${inst.taskName}: ${line.line}`);
    },
    async failures(seen, all) {
      for (const i of seen) {
        // Handled with no later attempt: the scheduler decided there is no retry.
        if (!FAILED.includes(i.state) || !i.handled || done.has(-i.id)) continue;
        if (all().some((j) => j.taskId === i.taskId && j.attempt > i.attempt)) continue;
        done.add(-i.id);
        const lines = await tail(api, i.id);
        const stderr = lines.filter((l) => l.stream === 'stderr');
        const shown = (stderr.length > 0 ? stderr : lines.filter((l) => l.stream === 'stdout')).slice(-TAIL_LINES);
        const stream = stderr.length > 0 ? 'stderr' : 'output';
        if (shown.length > 0) {
          print(
            `  last ${shown.length === 1 ? 'line' : `${shown.length} lines`} of ${i.taskName}'s ${stream}${i.attempt > 1 ? ` (attempt ${i.attempt})` : ''}:`,
          );
          for (const l of shown) print(`  │ ${l.line}`);
        } else {
          print(`  ${i.taskName} printed nothing${i.attempt > 1 ? ` in attempt ${i.attempt}` : ''}`);
        }
        print(`  the whole log: ax logs ${i.runId} ${i.taskName}`);
      }
    },
  };
}

async function tail(api: EngineApi, instanceId: number): Promise<LogLine[]> {
  const { lastSeq } = await api.logInfo(instanceId);
  return api.readLogs(instanceId, Math.max(0, lastSeq - TAIL_WINDOW), TAIL_WINDOW);
}
