// The run page's own reads: what its held tasks wait for in other workflows (refreshed while the
// run is active: the other workflow's progress sends no event about this run), and the last
// stderr lines of the attempt a failed run's banner names.
import { useQuery } from '@tanstack/react-query';
import type { LogLine } from '../../../engine/api/types.ts';
import { useApi } from '../engine-client/index.ts';
import { keys } from './keys.ts';

/** How often an active run's waits are read again: the upstream run moves on its own. */
const WAITS_POLL_MS = 5_000;
/** How far back from a log's end the banner looks for stderr lines. */
const TAIL_WINDOW = 400;

export function useRunWaits(runId: number, active: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: keys.runWaits(runId),
    queryFn: () => api.runWaits(runId),
    enabled: active,
    refetchInterval: active ? WAITS_POLL_MS : false,
  });
}

/** The last `count` stderr lines among the final TAIL_WINDOW lines of an attempt's log. */
export function useStderrTail(instanceId: number | undefined, count = 5) {
  const api = useApi();
  return useQuery({
    queryKey: keys.stderrTail(instanceId ?? 0, count),
    queryFn: async (): Promise<LogLine[]> => {
      const id = instanceId as number;
      const info = await api.logInfo(id);
      if (info.lines === 0) return [];
      const after = Math.max(info.firstSeq - 1, info.lastSeq - TAIL_WINDOW);
      const lines = await api.readLogs(id, after, TAIL_WINDOW);
      return lines.filter((l) => l.stream === 'stderr').slice(-count);
    },
    enabled: instanceId !== undefined,
    staleTime: Infinity,
  });
}
