// Desktop notifications from the engine's `desktop` alert channel: the engine host
// posts each alert routed there (`desktop-alert`), after the engine's grouping, so a job failing
// every minute raises one notice and one summary per window, not one per failure. A failed run
// names the task that failed or timed out, a recovery says so, in the shell's language; other
// alerts (a lost worker, a summary) say what the engine said. A click opens the instance, or the run.
import type { EngineApi } from '../engine/api/engine-api.ts';
import type { DesktopAlert } from '../engine/api/host-protocol.ts';
import { SHELL_TEXTS, type ShellTexts } from './shell-texts.ts';

export interface DesktopNotice {
  title: string;
  body: string;
  /** the UI page a click opens: '/instances/34', '/runs/12', or '/' */
  path: string;
}

export interface NotifierOptions {
  notify(notice: DesktopNotice): void;
  /** the shell's texts in the current language; default English */
  texts?: () => ShellTexts;
}

export type NotifierEngine = Pick<EngineApi, 'getInstance'>;

export class FailureNotifier {
  private readonly texts: () => ShellTexts;

  constructor(private readonly options: NotifierOptions) {
    this.texts = options.texts ?? (() => SHELL_TEXTS.en);
  }

  /** One alert of the desktop channel; `engine` (when connected) names a failed run's task. */
  async onAlert(engine: NotifierEngine | undefined, alert: DesktopAlert): Promise<void> {
    const texts = this.texts();
    const { workflow, runId } = alert;
    const runPath = runId === undefined ? '/' : `/runs/${runId}`;
    if (alert.kind !== 'summary' && workflow !== undefined && runId !== undefined) {
      if (alert.rule === 'recovered')
        return this.options.notify({
          title: texts.recovered(workflow),
          body: texts.recoveredBody(runId),
          path: runPath,
        });
      if (alert.rule === 'run_failed') {
        const culprit =
          alert.instanceId === undefined
            ? undefined
            : await engine?.getInstance(alert.instanceId).catch(() => undefined);
        if (!culprit)
          return this.options.notify({
            title: texts.runFailed(workflow),
            body: texts.runFailedBody(runId),
            path: runPath,
          });
        return this.options.notify({
          title: texts.runFailed(workflow),
          body: texts
            .taskFailedBody(runId, culprit.taskName, culprit.state === 'TIMEOUT', culprit.reason)
            .slice(0, 200),
          path: `/instances/${culprit.id}`,
        });
      }
    }
    this.options.notify({
      title: alert.title.slice(0, 120),
      body: alert.message.split('\n').slice(0, 3).join('\n').slice(0, 200),
      path: alert.instanceId !== undefined && alert.kind !== 'summary' ? `/instances/${alert.instanceId}` : runPath,
    });
  }
}
