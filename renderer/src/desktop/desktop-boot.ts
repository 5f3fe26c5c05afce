// Starting the UI inside the desktop app: no sign-in (the shell hands the page a MessagePort to
// its own engine), the landing screen's data requested before the first render (its calls wait
// for the connection DesktopGate starts).
import type { DesktopBridge } from '../../../engine/api/desktop-bridge.ts';
import { prefetchLanding } from '../app/prefetch.ts';
import {
  createQueryClient,
  EngineConnection,
  engineStatusStore,
  openPortTransport,
  PortBroker,
} from '../engine-client/index.ts';
import type { Desktop } from './desktop-context.ts';

declare global {
  interface Window {
    /** the desktop app's preload (engine/api/desktop-bridge.ts); absent in a browser */
    axDesktop?: DesktopBridge;
  }
}

export function desktopBridge(): DesktopBridge | undefined {
  return typeof window === 'undefined' ? undefined : window.axDesktop;
}

// One per page: a second broker on the same window would take (and close) the other's ports.
let shell: (Desktop & { broker: PortBroker }) | undefined;

function desktopShell(bridge: DesktopBridge): Desktop & { broker: PortBroker } {
  shell ??= { bridge, status: engineStatusStore(bridge), broker: new PortBroker(bridge, window) };
  return shell;
}

export function desktopBoot(bridge: DesktopBridge) {
  const { status, broker } = desktopShell(bridge);
  const connection = new EngineConnection({
    connect: () => openPortTransport({ broker, status }),
    checkSession: async () => true, // the shell's port is the credential: there is no session to lose
  });
  const queryClient = createQueryClient();
  prefetchLanding(connection.api, queryClient, location.hash);
  return { desktop: { bridge, status } satisfies Desktop, connection, queryClient };
}
