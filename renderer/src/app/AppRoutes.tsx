// The routes of the conventions file. Heavy pages (designer, run view, instance log) load on
// demand so the dashboard paints without their code. A page that throws is caught by PageBoundary.
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Route, Routes } from 'react-router-dom';
import AlertsPage from '../alerts/AlertsPage.tsx';
import AuditPage from '../audit/AuditPage.tsx';
import DashboardPage from '../dashboard/DashboardPage.tsx';
import SearchPage from '../search/SearchPage.tsx';
import SettingsPage from '../settings/SettingsPage.tsx';
import { EmptyState, LoadingState } from '../shared/feedback.tsx';
import WorkersPage from '../workers/WorkersPage.tsx';
import WorkflowDetailPage from '../workflows/WorkflowDetailPage.tsx';
import WorkflowsPage from '../workflows/WorkflowsPage.tsx';
import { PageBoundary } from './PageBoundary.tsx';

const DesignerPage = lazy(() => import('../dag-designer/DesignerPage.tsx'));
const RunPage = lazy(() => import('../runs/RunPage.tsx'));
const InstancePage = lazy(() => import('../logs/InstancePage.tsx'));
const LineagePage = lazy(() => import('../lineage/LineagePage.tsx'));
const RunsPage = lazy(() => import('../run-list/RunsPage.tsx'));
const BackfillsPage = lazy(() => import('../backfills/BackfillsPage.tsx'));
const BackfillPage = lazy(() => import('../backfills/BackfillPage.tsx'));
const UsersPage = lazy(() => import('../people/UsersPage.tsx'));
const TokensPage = lazy(() => import('../people/TokensPage.tsx'));

export function AppRoutes() {
  return (
    <PageBoundary>
      <Suspense fallback={<LoadingState />}>
        <Routes>
          <Route path="/" element={<DashboardPage />} />
          <Route path="/workflows" element={<WorkflowsPage />} />
          <Route path="/workflows/:name" element={<WorkflowDetailPage />} />
          <Route path="/designer/new" element={<DesignerPage />} />
          <Route path="/designer/:name" element={<DesignerPage />} />
          <Route path="/runs" element={<RunsPage />} />
          <Route path="/runs/:runId" element={<RunPage />} />
          <Route path="/instances/:instanceId" element={<InstancePage />} />
          <Route path="/lineage/:target" element={<LineagePage />} />
          <Route path="/backfills" element={<BackfillsPage />} />
          <Route path="/backfills/:id" element={<BackfillPage />} />
          <Route path="/workers" element={<WorkersPage />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="/alerts" element={<AlertsPage />} />
          <Route path="/audit" element={<AuditPage />} />
          <Route path="/search" element={<SearchPage />} />
          <Route path="/users" element={<UsersPage />} />
          <Route path="/tokens" element={<TokensPage />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </Suspense>
    </PageBoundary>
  );
}

function NotFound() {
  const { t } = useTranslation('common');
  return (
    <EmptyState title={t('notFound.title')}>
      <Link to="/">{t('notFound.home')}</Link>
    </EmptyState>
  );
}
