// Ctrl-C on a command that waits for runs (README: "Ctrl-C"). When the runs are this process's
// own (no server: an embedded engine runs them), the first Ctrl-C cancels them — their tasks get
// SIGTERM, SIGKILL after the grace, and are recorded CANCELLED, never retried — and the command
// ends once their process groups are gone; a second Ctrl-C SIGKILLs the groups at once. When a
// server runs them, Ctrl-C only stops waiting: the run goes on there, and the hint says how to
// stop it.
import { because } from '../../api/reasons.ts';
import type { Engine } from '../../core/engine.ts';

/** The exit code after Ctrl-C: 128 + SIGINT, as shells report it. */
export const INTERRUPTED = 130;

export interface Interrupt {
  /** a run this command waits for: cancelled at once if Ctrl-C came already */
  track(runId: number): void;
  readonly interrupted: boolean;
  /** removes the handler; sets exit code 130 if Ctrl-C came */
  dispose(): void;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const runList = (ids: number[]) =>
  ids.length === 0 ? 'the run' : `${ids.length === 1 ? 'run' : 'runs'} ${ids.map((id) => `#${id}`).join(', ')}`;

/** Ctrl-C stops the work this process runs (see the file comment). */
export function cancelOnInterrupt(engine: Engine, actor: string): Interrupt {
  const runs: number[] = [];
  let presses = 0;
  const cancel = (runId: number) => void engine.cancelRun(runId, { actor }).catch(() => undefined); // ended meanwhile: nothing to stop
  const onSigint = () => {
    presses += 1;
    const running = engine.worker?.record().running ?? 0;
    if (presses === 1) {
      process.stderr.write(
        `ax: stopping ${runList(runs)}: ${plural(running, 'task')} running — Ctrl-C again to stop immediately\n`,
      );
      runs.forEach(cancel);
      return;
    }
    process.stderr.write(
      `ax: killing ${plural(running, 'task')} now (SIGKILL to ${running === 1 ? 'its process group' : 'their process groups'})\n`,
    );
    // The command then ends by itself once the groups are gone; should anything else hang
    // (a store that does not answer), it exits anyway.
    void engine.worker
      ?.killAll(because('stop_ctrl_c'))
      .finally(() => setTimeout(() => process.exit(INTERRUPTED), 2_000).unref());
  };
  process.on('SIGINT', onSigint);
  return {
    track(runId) {
      runs.push(runId);
      if (presses > 0) cancel(runId);
    },
    get interrupted() {
      return presses > 0;
    },
    dispose() {
      process.off('SIGINT', onSigint);
      if (presses > 0) process.exitCode = INTERRUPTED;
    },
  };
}

/** Ctrl-C stops waiting for runs a server runs (see the file comment). */
export function detachOnInterrupt(where: string): Interrupt {
  const runs: number[] = [];
  const onSigint = () => {
    const how = runs.map((id) => `"ax cancel ${id}"`).join(', ');
    process.stderr.write(
      `ax: stopped waiting; ${runList(runs)} ${runs.length > 1 ? 'go' : 'goes'} on ${where}${how ? ` — ${how} stops ${runs.length > 1 ? 'them' : 'it'}` : ''}\n`,
    );
    process.exit(INTERRUPTED);
  };
  process.on('SIGINT', onSigint);
  return {
    track: (runId) => void runs.push(runId),
    interrupted: false,
    dispose: () => void process.off('SIGINT', onSigint),
  };
}
