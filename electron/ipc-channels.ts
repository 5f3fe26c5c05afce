// The IPC channel names between the main process and the preload. Bundled into both; the UI never
// sees them (it sees only window.axDesktop, engine/api/desktop-bridge.ts).

/** renderer → main, send: a fresh engine port, please */
export const REQUEST_ENGINE_PORT = 'ax:request-engine-port';
/** main → renderer, postMessage with one transferred port: the engine port asked for */
export const ENGINE_PORT = 'ax:deliver-engine-port';
/** renderer → main, invoke: the DesktopEngineStatus now */
export const ENGINE_STATUS = 'ax:engine-status';
/** main → renderer, send: the DesktopEngineStatus changed */
export const ENGINE_STATUS_CHANGED = 'ax:engine-status-changed';
/** renderer → main, invoke: start the engine again (resets the backoff) */
export const RESTART_ENGINE = 'ax:restart-engine';
/** renderer → main, send: the UI's language */
export const SET_LANGUAGE = 'ax:set-language';
/** main → renderer, send: open this page of the UI */
export const NAVIGATE = 'ax:navigate';
/** renderer → main, invoke: the DesktopSecretsStatus (backend, what is stored, the data dir) */
export const SECRETS_STATUS = 'ax:secrets-status';
/** renderer → main, invoke (key, value | null): store a team connection value (server, token, CA file, MySQL, Redis) encrypted, or forget it */
export const SET_SECRET = 'ax:set-secret';
/** renderer → main, invoke: the DesktopTeamStatus */
export const TEAM_STATUS = 'ax:team-status';
/** renderer → main, invoke (labels?: string[]): join the team as a temporary worker */
export const TEAM_JOIN = 'ax:team-join';
/** renderer → main, invoke: the team worker drains and leaves */
export const TEAM_LEAVE = 'ax:team-leave';
/** main → renderer, send: the DesktopTeamStatus changed */
export const TEAM_STATUS_CHANGED = 'ax:team-status-changed';
/** renderer → main, invoke (name, value | null): store a task secret encrypted, or forget it */
export const SET_TASK_SECRET = 'ax:set-task-secret';
/** renderer → main, invoke: the DesktopLocalApiStatus */
export const LOCAL_API_STATUS = 'ax:local-api-status';
/** renderer → main, invoke (enabled: boolean): the local API on or off (the engine restarts) */
export const SET_LOCAL_API = 'ax:set-local-api';
