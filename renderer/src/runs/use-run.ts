// A run with its instances, kept live: every run or instance event of this run refetches it, at
// most once per REFRESH_MS (a 1,000-task run emits thousands of events; the page needs the
// latest state, not every step). The events carry states only, the reread brings the times.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useApi, useEngineEvents } from '../engine-client/index.ts';

const REFRESH_MS = 250;

export const runKey = (runId: number) => ['run', runId] as const;

export function useRun(runId: number | undefined) {
  const api = useApi();
  const client = useQueryClient();
  const query = useQuery({
    queryKey: runKey(runId ?? 0),
    queryFn: () => api.getRun(runId as number),
    enabled: runId !== undefined && Number.isFinite(runId),
  });

  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastAt = useRef(0);
  useEngineEvents(runId === undefined ? [] : ['runs'], (event) => {
    if ((event.type !== 'run' && event.type !== 'instance') || event.runId !== runId) return;
    if (event.type === 'instance') void client.invalidateQueries({ queryKey: ['instance', event.instanceId] });
    if (timer.current) return;
    // leading edge at once when quiet, otherwise one trailing refetch per window
    const wait = Math.max(0, lastAt.current + REFRESH_MS - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      lastAt.current = Date.now();
      void client.invalidateQueries({ queryKey: runKey(runId as number) });
    }, wait);
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  return query;
}
