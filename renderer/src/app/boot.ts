// Starting the app as early as possible: the engine socket is opened at the same time as the
// session check (the upgrade authenticates by the same cookie), so the dashboard's data is on its
// way while React renders the frame. Without a session the socket simply fails and is stopped.
import type { QueryClient } from '@tanstack/react-query';
import {
  codeFromHash,
  createQueryClient,
  EngineConnection,
  establishSession,
  hasSession,
  openWebSocketTransport,
  type SessionState,
} from '../engine-client/index.ts';
import { prefetchLanding } from './prefetch.ts';

export interface Boot {
  session: Promise<SessionState>;
  connection: EngineConnection;
  queryClient: QueryClient;
}

export function boot(): Boot {
  const connection = new EngineConnection({
    connect: () => openWebSocketTransport(),
    checkSession: () => hasSession(),
  });
  // with a sign-in code, the cookie only exists once the code is traded, so wait for that
  const optimistic = codeFromHash(location.hash) === undefined;
  if (optimistic) connection.start();
  const session = establishSession().then((state) => {
    // marks for bench/ui-dashboard.ts: where the time to a painted screen goes
    performance.mark(`ax:session-${state.kind}`);
    if (state.kind === 'signed-in') connection.start();
    else connection.stop();
    return state;
  });
  const queryClient = createQueryClient();
  // the landing screen's data (requested as soon as the socket is up, not after the first render)
  // and a designer link's code and spec
  if (optimistic) prefetchLanding(connection.api, queryClient, location.hash);
  return { session, connection, queryClient };
}
