// The one engine client of the UI: sign-in, the reconnecting connection (over a WebSocket in a
// browser, over the shell's MessagePort in the desktop app), and the hooks every page uses.
export { ApiProvider, useApi, useConnectionStatus, useEngineEvents, useStopReason } from './ApiProvider.tsx';
export { EngineConnection, type ConnectionStatus } from './connection.ts';
export {
  establishSession,
  hasSession,
  codeFromHash,
  fetchAuthConfig,
  signInWithPassword,
  signOut,
  ssoStartUrl,
  type PasswordSignIn,
  type SessionState,
} from './auth.ts';
export { openWebSocketTransport, apiSocketUrl } from './ws-transport.ts';
export { openPortTransport, PortBroker } from './port-transport.ts';
export { engineStatusStore, type EngineStatusStore } from './desktop-status.ts';
export { createQueryClient } from './query-client.ts';
export { UI_ACTOR } from './ui-actor.ts';
export type { ApiClient } from '../../../engine/api/client.ts';
export type { EngineEvent, Topic } from '../../../engine/api/events.ts';
export { AxError } from '../../../engine/api/errors.ts';
