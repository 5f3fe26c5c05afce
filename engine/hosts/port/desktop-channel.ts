// The desktop app's alert channel: an alert routed to `desktop` goes to the shell as a
// `desktop-alert` message, which shows it as a notification (electron/failure-notifier.ts). The
// post is local and cannot hang; the shell, not the engine, decides how the notice reads.
import type { DesktopAlert } from '../../api/host-protocol.ts';
import type { AlertChannel } from '../../ports/alert-channel.ts';

export function desktopChannel(post: (alert: DesktopAlert) => void): AlertChannel {
  return {
    name: 'desktop',
    kind: 'desktop',
    target: 'this desktop app',
    retries: 0,
    send: async (a) => {
      post({
        id: a.id,
        rule: a.rule,
        severity: a.severity,
        title: a.title,
        message: a.message,
        kind: a.kind,
        ...(a.workflow !== undefined && { workflow: a.workflow }),
        ...(a.runId !== undefined && { runId: a.runId }),
        ...(a.instanceId !== undefined && { instanceId: a.instanceId }),
        ...(a.repeats !== undefined && { repeats: a.repeats }),
      });
    },
  };
}
