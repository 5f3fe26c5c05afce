// The desktop engine's state as the shell reports it (DesktopBridge.onEngineStatus), kept in one
// place: the port transport reads it to know when a port is worth asking for and when the current
// one is dead, and the status banner renders it.
import type { DesktopBridge, DesktopEngineStatus } from '../../../engine/api/desktop-bridge.ts';

export interface EngineStatusStore {
  /** undefined until the shell has answered once */
  readonly current: DesktopEngineStatus | undefined;
  /** called on every change; returns the unsubscribe */
  subscribe(listener: (status: DesktopEngineStatus) => void): () => void;
  /** resolves with the first 'running' status (at once when the engine runs now) */
  whenRunning(): Promise<Extract<DesktopEngineStatus, { state: 'running' }>>;
}

export function engineStatusStore(bridge: Pick<DesktopBridge, 'engineStatus' | 'onEngineStatus'>): EngineStatusStore {
  let current: DesktopEngineStatus | undefined;
  let pushed = false;
  const listeners = new Set<(status: DesktopEngineStatus) => void>();
  const set = (status: DesktopEngineStatus) => {
    current = status;
    for (const listener of [...listeners]) listener(status);
  };
  bridge.onEngineStatus((status) => {
    pushed = true;
    set(status);
  });
  // the first answer may arrive after a change was already pushed: the push is newer
  void bridge.engineStatus().then(
    (status) => {
      if (!pushed) set(status);
    },
    () => undefined, // the shell pushes the status when it changes; nothing better to do here
  );

  const store: EngineStatusStore = {
    get current() {
      return current;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    whenRunning() {
      return new Promise((resolve) => {
        if (current?.state === 'running') return resolve(current);
        const off = store.subscribe((status) => {
          if (status.state !== 'running') return;
          off();
          resolve(status);
        });
      });
    },
  };
  return store;
}
