// The designer's spec read. It may start before the page renders (app/prefetch.ts, when the app
// opens on #/designer/NAME), so the spec and the page's code load while the session is checked.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { useApi, type ApiClient } from '../engine-client/index.ts';
import { emptySpec } from '../dag-designer/model/spec-ops.ts';
import { keys } from './keys.ts';

export function designerSpecQuery(api: ApiClient, name: string | undefined) {
  return {
    queryKey: keys.designerSpec(name),
    queryFn: async (): Promise<WorkflowSpec> => {
      if (name === undefined) return emptySpec();
      performance.mark('ax:designer-asked');
      const spec = await api.exportWorkflow(name);
      performance.mark('ax:designer-answered');
      return spec;
    },
    // the designer works on a copy: a refetch (after a reconnect, another client's apply) must
    // not swap the document under the user's edits
    staleTime: Infinity,
    // long enough for a prefetch to reach the page; the page drops it when it closes
    gcTime: 15_000,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  };
}

/** The spec to edit (an empty one for a new workflow); the next visit loads it afresh. */
export function useDesignerSpec(name: string | undefined) {
  const api = useApi();
  const queryClient = useQueryClient();
  // it may have been saved or changed meanwhile
  useEffect(
    () => () => queryClient.removeQueries({ queryKey: keys.designerSpec(name), exact: true }),
    [queryClient, name],
  );
  return useQuery(designerSpecQuery(api, name));
}

/**
 * The workflow a `call:` task names, for its params (undefined name: nothing is read). A name that
 * is no stored workflow answers with an error, which the task panel shows as "no such workflow".
 */
export function useCalledWorkflow(name: string | undefined) {
  const api = useApi();
  return useQuery({
    queryKey: keys.workflowSpec(name ?? ''),
    queryFn: () => api.exportWorkflow(name as string),
    enabled: !!name,
    retry: false,
    staleTime: 60_000,
  });
}
