// #/designer/new and #/designer/:name — the DAG designer. Loads the stored spec (exactly as
// `ax export` sees it), the engine's zone (default for a new schedule) and the observed runtimes
// (timeout suggestions), then hands them to the editor.
import { ReactFlowProvider } from '@xyflow/react';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router-dom';
import { warmLayoutWorker } from '../graph/layout-async.ts';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { viewerZone } from '../shared/time.ts';
import { DesignerEditor } from './DesignerEditor.tsx';
import { useDesignerSpec, useEngineInfo, useTaskStats } from '../server-state/index.ts';

export default function DesignerPage() {
  const { name } = useParams();
  const { t } = useTranslation('designer');
  const isNew = name === undefined;
  // the next visit loads the workflow afresh (it may have been saved or changed meanwhile)
  const spec = useDesignerSpec(name);
  // the layout worker loads its script while the spec is on its way
  useEffect(() => {
    if (!isNew) warmLayoutWorker();
  }, [isNew]);
  const info = useEngineInfo({ slow: true });
  const stats = useTaskStats(name);

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
      <DesignerEditor
        key={name ?? ''}
        initial={spec.data}
        loadedName={name}
        stats={stats.data ?? []}
        defaultTimezone={info.data?.timezone ?? viewerZone()}
      />
    </ReactFlowProvider>
  );
}
