// Gives every page the engine: useApi() for calls, useEngineEvents() for live events, and
// useConnectionStatus() for the "reconnecting…" banner (the reads themselves, and their refresh
// on events, are server-state/'s). After a reconnect every query is refetched, since events sent
// while the socket was down are lost.
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useSyncExternalStore, type ReactNode } from 'react';
import type { ApiClient } from '../../../engine/api/client.ts';
import type { EngineEvent, Topic } from '../../../engine/api/events.ts';
import type { ConnectionStatus, EngineConnection } from './connection.ts';

const ConnectionContext = createContext<EngineConnection | null>(null);

export function ApiProvider({
  connection,
  queryClient,
  children,
}: {
  connection: EngineConnection;
  queryClient: QueryClient;
  children: ReactNode;
}) {
  useEffect(() => connection.onReconnect(() => void queryClient.invalidateQueries()), [connection, queryClient]);
  return (
    <ConnectionContext.Provider value={connection}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </ConnectionContext.Provider>
  );
}

function useConnection(): EngineConnection {
  const connection = useContext(ConnectionContext);
  if (!connection) throw new Error('useApi() outside <ApiProvider>');
  return connection;
}

export function useApi(): ApiClient {
  return useConnection().api;
}

export function useConnectionStatus(): ConnectionStatus {
  const connection = useConnection();
  return useSyncExternalStore(
    (notify) => connection.onStatus(notify),
    () => connection.status,
  );
}

/** Why the engine said it stopped, while the status is `stopped`. */
export function useStopReason(): string | undefined {
  const connection = useConnection();
  return useSyncExternalStore(
    (notify) => connection.onStatus(notify),
    () => connection.stopReason,
  );
}

/** Calls `handler` for every event of `topics` while the component is mounted. */
export function useEngineEvents(topics: Topic[], handler: (event: EngineEvent) => void): void {
  const api = useApi();
  const handlerRef = useRef(handler);
  useEffect(() => {
    handlerRef.current = handler;
  });
  const key = [...new Set(topics)].sort().join('|');
  useEffect(() => {
    if (!key) return;
    let unsubscribe: (() => void) | undefined;
    let active = true;
    void api
      .subscribe(key.split('|') as Topic[], (event) => handlerRef.current(event))
      .then((off) => {
        if (active) unsubscribe = off;
        else off();
      })
      .catch(() => undefined); // not connected: the connection replays subscriptions when it is
    return () => {
      active = false;
      unsubscribe?.();
    };
  }, [api, key]);
}
