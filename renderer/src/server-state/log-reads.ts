// What the log viewer asks the engine for, besides the cached extent (useLogInfo): pages of
// lines, search hits, a fresh extent while polling, and the live lines of one instance. The
// viewer keeps its own page cache (logs/log-pages.ts), far larger than a query cache should hold.
import { useMemo } from 'react';
import type { EngineEvent } from '../../../engine/api/events.ts';
import { useApi, type ApiClient } from '../engine-client/index.ts';

export interface LogReader extends Pick<ApiClient, 'readLogs' | 'logInfo' | 'searchLog'> {
  /** The `log:ID` events; resolves to the way to stop them. */
  watchLog(instanceId: number, handler: (event: EngineEvent) => void): Promise<() => void>;
}

export function useLogReader(): LogReader {
  const api = useApi();
  return useMemo(
    () => ({
      readLogs: (instanceId, afterSeq, limit) => api.readLogs(instanceId, afterSeq, limit),
      logInfo: (instanceId) => api.logInfo(instanceId),
      searchLog: (instanceId, query, options) => api.searchLog(instanceId, query, options),
      watchLog: (instanceId, handler) => api.subscribe([`log:${instanceId}`], handler),
    }),
    [api],
  );
}
