// The runs page's filters read from and written to the address. Each change is a history entry
// (back undoes a filter), except typing-speed changes callers mark `replace`.
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router-dom';
import { parseRunsQuery, runsQueryParams, type RunsQuery } from './run-filters.ts';

export function useRunsQuery(): [RunsQuery, (change: Partial<RunsQuery>, options?: { replace?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => parseRunsQuery(params), [params]);
  const update = useCallback(
    (change: Partial<RunsQuery>, options: { replace?: boolean } = {}) =>
      setParams((current) => runsQueryParams({ ...parseRunsQuery(current), ...change }), {
        replace: options.replace,
      }),
    [setParams],
  );
  return [query, update];
}
