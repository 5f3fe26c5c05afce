// Desktop notifications from the engine's run events: one when a run fails for good (its retries
// spent), naming the task that failed or timed out, and one when a workflow that failed succeeds
// again. A workflow failing again within the quiet window raises nothing more, so a job failing
// every minute does not bury the desktop. A click opens the instance (or the run) in the UI.
import type { EngineApi } from '../engine/api/engine-api.ts';
import type { EngineEvent } from '../engine/api/events.ts';
import { SHELL_TEXTS, type ShellTexts } from './shell-texts.ts';

export interface DesktopNotice {
  title: string;
  body: string;
  /** the UI page a click opens: '/instances/34' or '/runs/12' */
  path: string;
}

export interface NotifierOptions {
  notify(notice: DesktopNotice): void;
  /** after a workflow's failure notice, how long its further failures stay quiet */
  quietMs?: number;
  now?: () => number;
  /** the shell's texts in the current language; default English */
  texts?: () => ShellTexts;
}

/** How long a workflow's repeated failures stay quiet after one notice. */
export const FAILURE_QUIET_MS = 10 * 60_000;

export type NotifierEngine = Pick<EngineApi, 'getRun' | 'subscribe'>;

export class FailureNotifier {
  private readonly lastNotice = new Map<string, number>();
  private readonly failing = new Set<string>();
  private readonly quietMs: number;
  private readonly now: () => number;
  private readonly texts: () => ShellTexts;

  constructor(private readonly options: NotifierOptions) {
    this.quietMs = options.quietMs ?? FAILURE_QUIET_MS;
    this.now = options.now ?? Date.now;
    this.texts = options.texts ?? (() => SHELL_TEXTS.en);
  }

  /** Follows one engine's run events (a new engine host: call again with its client). */
  async follow(engine: NotifierEngine): Promise<() => void> {
    return engine.subscribe(['runs'], (event) => void this.onEvent(engine, event).catch(() => undefined));
  }

  async onEvent(engine: Pick<EngineApi, 'getRun'>, event: EngineEvent): Promise<void> {
    if (event.type !== 'run') return;
    const workflow = event.workflowName;
    const texts = this.texts();
    if (event.state === 'SUCCESS' && this.failing.delete(workflow)) {
      this.lastNotice.delete(workflow);
      this.options.notify({ title: texts.recovered(workflow), body: texts.recoveredBody(event.runId), path: `/runs/${event.runId}` });
      return;
    }
    if (event.state !== 'FAILED') return;
    this.failing.add(workflow);
    const last = this.lastNotice.get(workflow);
    if (last !== undefined && this.now() - last < this.quietMs) return;
    this.lastNotice.set(workflow, this.now());
    const detail = await engine.getRun(event.runId).catch(() => undefined);
    const culprit = detail?.instances.filter((i) => i.state === 'FAILED' || i.state === 'TIMEOUT').at(-1);
    if (!culprit) {
      this.options.notify({ title: texts.runFailed(workflow), body: texts.runFailedBody(event.runId), path: `/runs/${event.runId}` });
      return;
    }
    this.options.notify({
      title: texts.runFailed(workflow),
      body: texts.taskFailedBody(event.runId, culprit.taskName, culprit.state === 'TIMEOUT', culprit.reason).slice(0, 200),
      path: `/instances/${culprit.id}`,
    });
  }
}
