// Engine events → refetches, through the one EventThrottle. Every page that reads again on
// events does it with these two hooks, so the throttling is the same everywhere.
import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useEngineEvents, type EngineEvent, type Topic } from '../engine-client/index.ts';
import { EventThrottle, type ThrottleOptions } from './event-throttle.ts';

/** A throttled `fn` for this component's life: call the result on every event. */
export function useEventThrottle(fn: () => void, options: Omit<ThrottleOptions, 'now'>): () => void {
  const fnRef = useRef(fn);
  useEffect(() => {
    fnRef.current = fn;
  });
  const [throttle] = useState(() => new EventThrottle(() => fnRef.current(), options));
  useEffect(() => () => throttle.cancel(), [throttle]);
  return () => throttle.poke();
}

export interface RefreshOptions extends Omit<ThrottleOptions, 'now'> {
  /** only events this accepts count (e.g. those of one run) */
  filter?: (event: EngineEvent) => boolean;
}

/** Invalidates `queryKeys` (prefixes) after events of `topics`, throttled. */
export function useRefreshOn(topics: Topic[], queryKeys: readonly QueryKey[], options: RefreshOptions): void {
  const queryClient = useQueryClient();
  const poke = useEventThrottle(() => {
    for (const queryKey of queryKeys) void queryClient.invalidateQueries({ queryKey });
  }, options);
  useEngineEvents(topics, (event) => {
    if (!options.filter || options.filter(event)) poke();
  });
}
