// SIGHUP on `ax serve` (and team nodes), one convention by where it runs, as tmux, screen and
// many daemons read it: on a terminal, SIGHUP is the terminal going away (a closed window, a
// dropped SSH session), so the server drains exactly as on SIGTERM; run as a service (no
// terminal: systemd, launchd, docker, nohup), SIGHUP is `systemctl reload`, so it reads its
// settings again (alerts and their channels, the API token) and keeps serving, tasks untouched.
// Node's default for SIGHUP is to die at once, which left running instances RUNNING.

/** Whether this process started attached to a terminal (checked once, at start: the hangup closes it). */
export function attachedToTerminal(): boolean {
  return Boolean(process.stdin.isTTY || process.stdout.isTTY || process.stderr.isTTY);
}

export interface HangupActions {
  /** drain and stop, as SIGTERM does */
  drain: () => void;
  /** read the settings again; what was reloaded, in words (throws on a bad file: the old ones stay) */
  reload: () => string[];
}

/** Installs the SIGHUP handler; `attached` is decided now, not when the signal comes. */
export function onHangup(actions: HangupActions, attached = attachedToTerminal()): void {
  process.on('SIGHUP', () => {
    if (attached) return actions.drain();
    try {
      console.log(`ax serve: SIGHUP received: settings reloaded (${actions.reload().join('; ')}); running tasks go on`);
    } catch (err) {
      console.error(
        `ax serve: SIGHUP received: settings NOT reloaded, the previous ones stay: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  });
}
