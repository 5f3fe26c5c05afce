// Signs in (a #code= link, or an existing session cookie), then shows the app over the one engine
// connection; without a session, the sign-in screen. If the session ends while the app is open
// (the engine restarted, the cookie expired), back to the sign-in screen.
import { useEffect, useState } from 'react';
import { HashRouter } from 'react-router-dom';
import {
  ApiProvider,
  codeFromHash,
  useConnectionStatus,
  type EngineConnection,
  signOut,
  type SessionState,
} from '../engine-client/index.ts';
import type { QueryClient } from '@tanstack/react-query';
import { LoadingState } from '../shared/feedback.tsx';
import { AppLayout } from './AppLayout.tsx';
import { boot, type Boot } from './boot.ts';
import { SessionContext, type SessionActions } from './session-context.ts';
import { SignInScreen } from './SignInScreen.tsx';

export function SessionGate() {
  const [current, setCurrent] = useState<Boot>(boot);
  const [session, setSession] = useState<SessionState | undefined>();
  useEffect(() => {
    let active = true;
    void current.session.then((state) => active && setSession(state));
    return () => {
      active = false;
    };
  }, [current]);
  const restart = () => {
    current.connection.stop();
    setSession(undefined);
    setCurrent(boot());
  };
  // a sign-in link pasted into this tab changes only the hash: sign in with it
  useEffect(() => {
    const onHash = () => {
      if (codeFromHash(location.hash)) restart();
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  });

  const actions: SessionActions = {
    signOut: async () => {
      await signOut().catch(() => undefined); // an engine that is away has no session to end
      restart();
    },
    signedOut: restart,
  };

  if (!session) return <LoadingState />;
  if (session.kind !== 'signed-in') {
    return (
      <SignInScreen
        reason={session.kind === 'unreachable' ? 'unreachable' : session.reason}
        detail={session.kind === 'unreachable' ? session.message : undefined}
        onRetry={restart}
      />
    );
  }
  return (
    <SessionContext.Provider value={actions}>
      <ConnectedApp
        connection={current.connection}
        queryClient={current.queryClient}
        onSignedOut={() => setSession({ kind: 'signed-out', reason: 'no-session' })}
      />
    </SessionContext.Provider>
  );
}

function ConnectedApp({
  connection,
  queryClient,
  onSignedOut,
}: {
  connection: EngineConnection;
  queryClient: QueryClient;
  onSignedOut: () => void;
}) {
  useEffect(() => {
    connection.start(); // already started by boot(); again after a StrictMode remount
    return () => connection.stop();
  }, [connection]);
  return (
    <ApiProvider connection={connection} queryClient={queryClient}>
      <SignedOutWatcher onSignedOut={onSignedOut} />
      <HashRouter>
        <AppLayout />
      </HashRouter>
    </ApiProvider>
  );
}

function SignedOutWatcher({ onSignedOut }: { onSignedOut: () => void }) {
  const status = useConnectionStatus();
  useEffect(() => {
    if (status === 'signed-out') onSignedOut();
  }, [status, onSignedOut]);
  return null;
}
