// The desktop app's shell, for the components that differ there: undefined in a browser.
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { DesktopBridge, DesktopEngineStatus } from '../../../engine/api/desktop-bridge.ts';
import type { EngineStatusStore } from '../engine-client/index.ts';

export interface Desktop {
  bridge: DesktopBridge;
  status: EngineStatusStore;
}

export const DesktopContext = createContext<Desktop | undefined>(undefined);

export function useDesktop(): Desktop | undefined {
  return useContext(DesktopContext);
}

const noStatus = { subscribe: () => () => undefined, current: undefined };

/** the engine's status as the shell reports it; undefined in a browser or before the first answer */
export function useDesktopEngineStatus(): DesktopEngineStatus | undefined {
  const store = useDesktop()?.status ?? noStatus;
  return useSyncExternalStore(
    (notify) => store.subscribe(notify),
    () => store.current,
  );
}
