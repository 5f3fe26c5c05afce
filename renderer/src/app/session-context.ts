// What the frame's user menu needs of the session gate: leave this session (the gate then shows
// the sign-in page). Provided by SessionGate; the desktop app has no session and provides none.
import { createContext, useContext } from 'react';

export interface SessionActions {
  /** ends this browser's session (DELETE /auth/session), then back to the sign-in page */
  signOut(): Promise<void>;
  /** after the server ended every session of the person: back to the sign-in page */
  signedOut(): void;
}

export const SessionContext = createContext<SessionActions | undefined>(undefined);

export function useSessionActions(): SessionActions | undefined {
  return useContext(SessionContext);
}
