// What boot() starts before the first render: the landing screen's data, and on a designer link
// (#/designer/NAME) the designer's code chunk with the workflow's spec, so they load while the
// session is checked and the shell renders instead of after.
import type { QueryClient } from '@tanstack/react-query';
import type { ApiClient } from '../engine-client/index.ts';
import { dashboardQuery, designerSpecQuery } from '../server-state/index.ts';

/** The workflow name of a designer address, e.g. "#/designer/nightly-etl". */
export function designerNameOf(hash: string): string | undefined {
  const match = /^#\/designer\/([^/?#]+)$/.exec(hash);
  if (!match || match[1] === 'new') return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return undefined;
  }
}

export function prefetchLanding(api: ApiClient, queryClient: QueryClient, hash: string): void {
  if (hash === '' || hash === '#/' || hash === '#') void queryClient.prefetchQuery(dashboardQuery(api));
  const name = designerNameOf(hash);
  if (name === undefined) return;
  void import('../dag-designer/DesignerPage.tsx');
  void queryClient.prefetchQuery(designerSpecQuery(api, name));
}
