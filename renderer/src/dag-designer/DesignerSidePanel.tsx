// The side panel: the selected task's form, the workflow's form and the problems list, as tabs
// that scroll on their own while the canvas stays in place.
import { Badge, Tabs, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export type PanelTab = 'task' | 'workflow' | 'problems';

export interface DesignerSidePanelProps {
  tab: PanelTab;
  onTab: (tab: PanelTab) => void;
  /** CSS height of the panel */
  height: string;
  problemCount: number;
  task: ReactNode;
  workflow: ReactNode;
  problems: ReactNode;
}

export function DesignerSidePanel({
  tab,
  onTab,
  height,
  problemCount,
  task,
  workflow,
  problems,
}: DesignerSidePanelProps) {
  const { t } = useTranslation('designer');
  const { token } = theme.useToken();
  const pane = (children: ReactNode) => (
    <div style={{ padding: 16, overflow: 'auto', height: `calc(${height} - 48px)` }}>{children}</div>
  );
  return (
    <aside
      aria-label={t('panel.label')}
      style={{
        width: 400,
        flex: 'none',
        height,
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadiusLG,
        background: token.colorBgContainer,
        display: 'flex',
        flexDirection: 'column',
      }}
    >
      <Tabs
        activeKey={tab}
        onChange={(k) => onTab(k as PanelTab)}
        style={{ flex: 1, minHeight: 0 }}
        tabBarStyle={{ padding: '0 16px', marginBottom: 0 }}
        items={[
          { key: 'task', label: t('panel.task'), children: pane(task) },
          { key: 'workflow', label: t('panel.workflow'), children: pane(workflow) },
          {
            key: 'problems',
            label: (
              <span data-testid="problems-tab">
                {t('panel.problems')} {problemCount > 0 && <Badge count={problemCount} size="small" />}
              </span>
            ),
            children: pane(problems),
          },
        ]}
      />
    </aside>
  );
}
