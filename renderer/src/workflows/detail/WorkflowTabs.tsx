// The workflow page's lower half (issue 24): its run history (tasks × runs), its graph, its
// duration trends and its YAML, one tab each; the tab is kept in the URL (?tab=) so a link or a
// reload opens the same one. Tabs render only when chosen: the graph lays out on first view.
import { Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import { DurationTrendsView } from '../../history/DurationTrendsView.tsx';
import { RunHistory } from '../../history/RunHistory.tsx';
import { useWorkflowSpec } from '../../server-state/index.ts';
import { ErrorState, LoadingState } from '../../shared/feedback.tsx';
import { WorkflowGraphView } from './WorkflowGraphView.tsx';
import { WorkflowYaml } from './WorkflowYaml.tsx';

const TABS = ['history', 'graph', 'trends', 'yaml'] as const;
type Tab = (typeof TABS)[number];

export function WorkflowTabs({ workflow }: { workflow: string }) {
  const { t } = useTranslation('history');
  const [params, setParams] = useSearchParams();
  const asked = params.get('tab');
  const tab: Tab = TABS.includes(asked as Tab) ? (asked as Tab) : 'history';
  return (
    <Tabs
      activeKey={tab}
      destroyOnHidden
      onChange={(key) =>
        setParams(
          (p) => {
            const next = new URLSearchParams(p);
            if (key === 'history') next.delete('tab');
            else next.set('tab', key);
            return next;
          },
          { replace: true },
        )
      }
      items={[
        { key: 'history', label: t('tabs.history'), children: <RunHistory workflow={workflow} /> },
        { key: 'graph', label: t('tabs.graph'), children: <WithSpec workflow={workflow} view="graph" /> },
        { key: 'trends', label: t('tabs.trends'), children: <DurationTrendsView workflow={workflow} /> },
        { key: 'yaml', label: t('tabs.yaml'), children: <WithSpec workflow={workflow} view="yaml" /> },
      ]}
    />
  );
}

function WithSpec({ workflow, view }: { workflow: string; view: 'graph' | 'yaml' }) {
  const spec = useWorkflowSpec(workflow);
  if (spec.error && !spec.data) return <ErrorState error={spec.error} onRetry={() => void spec.refetch()} />;
  if (!spec.data) return <LoadingState />;
  return view === 'graph' ? <WorkflowGraphView spec={spec.data} /> : <WorkflowYaml spec={spec.data} />;
}
