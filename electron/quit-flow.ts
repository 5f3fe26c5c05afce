// Quitting the app stops the engine host cleanly. With tasks running, the person is asked first:
// wait for them (the host drains them), stop them now, or not quit after all. The first Quit is
// held (before-quit prevented) until the host has exited, then the app quits for real.
import type { ShellTexts } from './shell-texts.ts';

/** "Wait for them": how long running tasks may take before the host stops them anyway. */
export const WAIT_DRAIN_MS = 60 * 60_000;
/** Nothing runs: the host still drains briefly, for a task that was just starting. */
export const IDLE_DRAIN_MS = 5_000;

export type QuitChoice = 'wait' | 'stop' | 'cancel';

export interface QuitDeps {
  /** tasks RUNNING now (0 when no engine answers) */
  runningTasks(): Promise<number>;
  /** asks the person; only called when tasks run */
  ask(running: number): Promise<QuitChoice>;
  /** stops the engine host, letting running tasks drainMs; resolves when it has exited */
  stopEngine(drainMs: number): Promise<void>;
  /** quits the app (before-quit fires again and is let through) */
  quit(): void;
}

/** The message box of the question, and how its answer maps to a choice (choiceOf). */
export function quitQuestion(
  running: number,
  texts: ShellTexts,
): { title: string; message: string; detail: string; buttons: string[]; defaultId: number; cancelId: number } {
  return {
    title: texts.quitTitle,
    message: texts.tasksRunning(running),
    detail: texts.quitDetail,
    buttons: [...texts.quitButtons],
    defaultId: 0,
    cancelId: 2,
  };
}

export function choiceOf(response: number): QuitChoice {
  return response === 0 ? 'wait' : response === 1 ? 'stop' : 'cancel';
}

export function drainFor(choice: Exclude<QuitChoice, 'cancel'>, running: number): number {
  if (running === 0) return IDLE_DRAIN_MS;
  return choice === 'wait' ? WAIT_DRAIN_MS : 0;
}

export class QuitFlow {
  private phase: 'idle' | 'deciding' | 'stopping' | 'done' = 'idle';

  constructor(private readonly deps: QuitDeps) {}

  /** true once the app is on its way out (the window's close then closes) */
  quitting(): boolean {
    return this.phase === 'stopping' || this.phase === 'done';
  }

  /** The app's before-quit handler. */
  onBeforeQuit(event: { preventDefault(): void }): void {
    if (this.phase === 'done') return;
    event.preventDefault();
    if (this.phase === 'idle') void this.decide();
  }

  private async decide(): Promise<void> {
    this.phase = 'deciding';
    let choice: QuitChoice = 'stop';
    let running = 0;
    try {
      running = await this.deps.runningTasks();
      if (running > 0) choice = await this.deps.ask(running);
    } catch {
      choice = 'stop';
    }
    if (choice === 'cancel') {
      this.phase = 'idle';
      return;
    }
    this.phase = 'stopping';
    try {
      await this.deps.stopEngine(drainFor(choice, running));
    } finally {
      this.phase = 'done';
      this.deps.quit();
    }
  }
}
