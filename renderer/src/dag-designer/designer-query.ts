// The designer's spec query, shared by DesignerPage and by whoever can start it earlier: the
// app's boot() can call prefetchDesigner() when it opens on #/designer/NAME, so the spec and the
// page's code load while the session is checked instead of after the shell has rendered.
import type { QueryClient } from '@tanstack/react-query';
import type { ApiClient } from '../../../engine/api/client.ts';
import type { WorkflowSpec } from '../../../engine/api/types.ts';
import { emptySpec } from './model/spec-ops.ts';

export function designerSpecQuery(api: ApiClient, name: string | undefined) {
  return {
    queryKey: ['designer', 'spec', name ?? ''] as const,
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

/** For boot(): the workflow name of a designer address, e.g. "#/designer/nightly-etl". */
export function designerNameOf(hash: string): string | undefined {
  const match = /^#\/designer\/([^/?#]+)$/.exec(hash);
  if (!match || match[1] === 'new') return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return undefined;
  }
}

/** Starts loading the designer's code and the workflow's spec before the page renders. */
export function prefetchDesigner(api: ApiClient, queryClient: QueryClient, hash: string): void {
  const name = designerNameOf(hash);
  if (name === undefined) return;
  void import('./DesignerPage.tsx');
  void queryClient.prefetchQuery(designerSpecQuery(api, name));
}
