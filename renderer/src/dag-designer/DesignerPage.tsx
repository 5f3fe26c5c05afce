// #/designer/new and #/designer/:name — the DAG designer. Loads the stored spec (exactly as
// `ax export` sees it), the engine's zone (default for a new schedule) and the observed runtimes
// (timeout suggestions), then hands them to the editor.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ReactFlowProvider } from '@xyflow/react';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { useApi } from '../engine-client/index.ts';
import { warmLayoutWorker } from '../graph/layout-async.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { viewerZone } from '../shared/time.ts';
import { DesignerEditor } from './DesignerEditor.tsx';
import { designerSpecQuery } from './designer-query.ts';

export default function DesignerPage() {
  const { name } = useParams();
  const { t } = useTranslation('designer');
  const api = useApi();
  const isNew = name === undefined;
  const spec = useQuery(designerSpecQuery(api, name));
  // the next visit loads the workflow afresh (it may have been saved or changed meanwhile)
  const queryClient = useQueryClient();
  useEffect(() => () => queryClient.removeQueries({ queryKey: designerSpecQuery(api, name).queryKey, exact: true }), [queryClient, api, name]);
  // the layout worker loads its script while the spec is on its way
  useEffect(() => {
    if (!isNew) warmLayoutWorker();
  }, [isNew]);
  const info = useQuery({ queryKey: ['engineInfo'], queryFn: () => api.engineInfo(), staleTime: 60_000 });
  const stats = useQuery({ queryKey: ['designer', 'taskStats', name ?? ''], queryFn: () => (isNew ? Promise.resolve([]) : api.taskStats(name)), enabled: !isNew, staleTime: 60_000 });

  if (spec.error) {
    if ((spec.error as { code?: string }).code === 'not_found') {
      return (
        <EmptyState title={t('notFound', { name })}>
          <Link to="/designer/new">{t('createNew')}</Link>
        </EmptyState>
      );
    }
    return <ErrorState error={spec.error} onRetry={() => void spec.refetch()} />;
  }
  if (!spec.data) return <LoadingState />;
  return (
    <ReactFlowProvider>
      <DesignerEditor key={name ?? ''} initial={spec.data} loadedName={name} stats={stats.data ?? []} defaultTimezone={info.data?.timezone ?? viewerZone()} />
    </ReactFlowProvider>
  );
}
