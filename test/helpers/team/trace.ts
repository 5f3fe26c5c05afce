// What task processes really did, as they tell it themselves: every task command of a team test
// sources a small shell library and appends lines to one trace file. A line is
// `EVENT TASK RUN INSTANCE ATTEMPT PID PGID EPOCH_MS WORKER`, WORKER from the env of the `ax serve`
// that ran the task (so the task itself says where it ran, not only the database). EVENT is
// `start`, `end`, or `overlap:G1,G2,` when an attempt starts while process groups of earlier
// attempts of its task in its run still have a live member.
import fs from 'node:fs';

/** The trace file and the library, both in the team's dir ($AXT_DIR). */
export const TRACE_FILE = 'trace';
export const TASK_LIB_FILE = 'lib.sh';

/** Sourced by traced task commands (`. "$AXT_DIR/lib.sh"`). */
export const TASK_LIB = String.raw`
# The line carries the shell's process group (field 5 of /proc/$$/stat, read with builtins: the
# shell's name has no spaces); a fork of ps per line would slow every task of a burst.
ax_event() {
  ax_e=$1; ax_w=$AXT_WORKER; [ -n "$ax_w" ] || ax_w=none
  read -r ax_s < /proc/$$/stat; set -- $ax_s
  echo "$ax_e $AX_TASK $AX_RUN_ID $AX_INSTANCE_ID $AX_ATTEMPT $$ $5 $(date +%s%3N) $ax_w" >> "$AXT_DIR/${TRACE_FILE}"
}
# process groups of earlier attempts of this task in this run that still have a live member
ax_prev_alive() {
  for g in $(awk -v t="$AX_TASK" -v r="$AX_RUN_ID" -v a="$AX_ATTEMPT" '$1 == "start" && $2 == t && $3 == r && $5 < a { print $7 }' "$AXT_DIR/${TRACE_FILE}" 2>/dev/null); do
    if ps -e -o pgid=,stat= | awk -v g="$g" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; then printf '%s,' "$g"; fi
  done
}
# start: records the start, after checking that no earlier attempt's group lives on
ax_start() {
  live=
  # only a later attempt has earlier ones to look for
  if [ "$AX_ATTEMPT" -gt 1 ]; then live=$(ax_prev_alive); fi
  ax_event start
  if [ -n "$live" ]; then ax_event "overlap:$live"; fi
}
ax_end() { ax_event end; }
`;

/** A command that records its start and its end (whatever its exit code) around body. */
export function traced(body: string): string {
  return `. "$AXT_DIR/${TASK_LIB_FILE}"; ax_start; ${body}; rc=$?; ax_end; exit $rc`;
}

export interface TaskEvent {
  event: string;
  task: string;
  runId: number;
  instanceId: number;
  attempt: number;
  pid: number;
  pgid: number;
  at: number;
  worker: string;
}

export function readTrace(file: string): TaskEvent[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const [event, task, runId, instanceId, attempt, pid, pgid, at, worker] = l.trim().split(' ');
      return {
        event: event ?? '',
        task: task ?? '',
        runId: Number(runId),
        instanceId: Number(instanceId),
        attempt: Number(attempt),
        pid: Number(pid),
        pgid: Number(pgid),
        at: Number(at),
        worker: worker ?? '',
      };
    });
}

/** One process a task attempt ran as: its start event and, once written, its end. */
export interface Execution {
  runId: number;
  task: string;
  instanceId: number;
  attempt: number;
  pid: number;
  pgid: number;
  worker: string;
  start: number;
  /** undefined: it never wrote its end line (killed, or still running) */
  end?: number;
}

export function executions(events: TaskEvent[]): Execution[] {
  const open = new Map<string, Execution>();
  const all: Execution[] = [];
  for (const e of events) {
    const key = `${e.instanceId}:${e.pid}`;
    if (e.event === 'start') {
      const x: Execution = {
        runId: e.runId,
        task: e.task,
        instanceId: e.instanceId,
        attempt: e.attempt,
        pid: e.pid,
        pgid: e.pgid,
        worker: e.worker,
        start: e.at,
      };
      open.set(key, x);
      all.push(x);
    } else if (e.event === 'end') {
      const x = open.get(key);
      if (x) x.end = e.at;
    }
  }
  return all;
}

/** The most executions alive at one moment (an end and a start at the same millisecond do not overlap). */
export function peakConcurrency(list: Execution[]): number {
  const edges = list.flatMap((e) => [
    { at: e.start, d: 1 },
    { at: e.end ?? Infinity, d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let live = 0;
  let max = 0;
  for (const e of edges) max = Math.max(max, (live += e.d));
  return max;
}
