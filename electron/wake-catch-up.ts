// Waking from sleep: the scheduler looks at every schedule at once — each workflow's misfire
// policy applied to the fires missed while the machine slept — instead of at its next tick, whose
// timer slept too. powerMonitor 'resume' → the engine's catchUpSchedules. With no engine up (it
// is restarting) there is nothing to ask: an engine scans every schedule when it starts.
import type { CatchUpReport, EngineApi } from '../engine/api/engine-api.ts';

/** Electron's powerMonitor, as far as this module uses it (available once the app is ready). */
export interface PowerMonitorLike {
  on(event: 'resume', listener: () => void): unknown;
}

export function catchUpOnWake(
  powerMonitor: PowerMonitorLike,
  engine: () => Pick<EngineApi, 'catchUpSchedules'> | undefined,
  /** what the catch-up did, or why it failed (an engine that died meanwhile: its restart scans anyway) */
  onDone: (outcome: CatchUpReport | Error) => void = () => undefined,
): void {
  powerMonitor.on('resume', () => {
    const client = engine();
    if (!client) return;
    client
      .catchUpSchedules()
      .then(onDone, (err: unknown) => onDone(err instanceof Error ? err : new Error(String(err))));
  });
}
