// A task's `when:`, checked by its worker just before the task's process would start, with the
// environment the task would get: a comparison is evaluated against that environment
// (core/model/task-condition.ts); a command runs as a short process like the task's own (same
// shell, cwd and environment, its own process group), its output kept in the task's log and,
// trimmed, as the reason when it says no.
import { because, reasonText, type Reason, type ReasonKey } from '../../api/reasons.ts';
import type { TaskCondition } from '../../api/types.ts';
import type { LineMask, ProcessRunner, ProcessSpec, RunningProcess } from '../../ports/process-runner.ts';
import { evaluateComparison, parseComparison } from '../model/task-condition.ts';

/** The most of a `when:` command's output a SKIPPED reason keeps. */
export const WHEN_REASON_MAX = 1024;

export type Precondition = { run: true } | ({ run: false } & Reason);

/** What a `when:` command needs from its task's execution. */
export interface PreconditionRun {
  runner: ProcessRunner;
  /** the task's process spec: its cwd, environment and files; the command is the condition's */
  spec: Omit<ProcessSpec, 'command'>;
  /** each line of the condition's output, as the task's log takes them */
  onLine(stream: 'stdout' | 'stderr', line: string, bytes: number): void;
  /** told the condition's process, so a cancel or a stop ends it like the task's */
  started(process: RunningProcess): void;
  /** the task's secret values, masked in the condition's output as in the task's */
  mask?: LineMask;
}

/**
 * A SKIPPED reason from a condition's output: `quiet` (how it ended) alone, or `loud` with the
 * lines joined as its `output` argument, the whole text cut to WHEN_REASON_MAX characters.
 */
export function outputReason(
  quiet: ReasonKey,
  loud: ReasonKey,
  args: Record<string, string | number>,
  lines: string[],
): Reason {
  const text = lines.join(' ').replace(/\s+/g, ' ').trim();
  if (text === '') return because(quiet, args);
  // `${head}: ${output}`: the output is what is cut, so the English reads as it always did.
  const room = WHEN_REASON_MAX - 1 - reasonText({ code: quiet, args }).length - 2;
  const full = because(loud, { ...args, output: text });
  return full.reason.length <= WHEN_REASON_MAX ? full : because(loud, { ...args, output: `${text.slice(0, room)}…` });
}

/** Whether the task runs, by its `when:`; a task without one runs. */
export async function checkPrecondition(
  when: TaskCondition | undefined,
  env: Record<string, string>,
  command: PreconditionRun,
): Promise<Precondition> {
  if (!when) return { run: true };
  if ('expr' in when) {
    const parsed = parseComparison(when.expr);
    // Checked at apply; a spec stored before cannot be judged, and the task does not run on a guess.
    if ('error' in parsed)
      return { run: false, ...because('when_unreadable', { expr: when.expr, error: parsed.error }) };
    const verdict = evaluateComparison(parsed, env);
    return verdict.holds ? { run: true } : { run: false, reason: verdict.reason, reasonCode: verdict.reasonCode };
  }
  const lines: string[] = [];
  let kept = 0;
  const process = await command.runner.start(
    { ...command.spec, command: when.command },
    {
      onLine: (stream, line, bytes) => {
        command.onLine(stream, line, bytes);
        if (kept < WHEN_REASON_MAX) {
          lines.push(line);
          kept += line.length + 1;
        }
      },
      ...(command.mask && { mask: command.mask }),
    },
  );
  command.started(process);
  const exit = await process.exited;
  await process.terminate(0);
  if (exit.code === 0) return { run: true };
  const said =
    exit.code === null
      ? outputReason('when_killed', 'when_killed_output', { signal: exit.signal ?? 'a signal' }, lines)
      : outputReason('when_exited', 'when_exited_output', { code: exit.code }, lines);
  return { run: false, ...said };
}
