// One workflow: how and when it starts (the next 5 fires in its zone and the viewer's), its
// actions, its recent runs, then its history grid (tasks × runs), graph, trends and YAML in tabs.
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { ApartmentOutlined } from '@ant-design/icons';
import { Button, Card, Col, Descriptions, Flex, List, Row, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router-dom';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import { BackfillButton } from '../backfills/BackfillModal.tsx';
import { EmptyState, ErrorState, LoadingState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { StateTag } from '../shared/StateTag.tsx';
import { When } from '../shared/When.tsx';
import { RunNowButton } from './RunNowModal.tsx';
import { RunStrip } from './RunStrip.tsx';
import { ScheduleText } from './ScheduleText.tsx';
import { DeleteButton, EditButton, EnableSwitch } from './WorkflowActions.tsx';
import { useWorkflowList } from './WorkflowsPage.tsx';
import { useNextFires } from '../server-state/index.ts';
import { WorkflowTabs } from './detail/WorkflowTabs.tsx';

export default function WorkflowDetailPage() {
  const { name = '' } = useParams();
  const { t } = useTranslation('workflows');
  const list = useWorkflowList();
  if (list.error && !list.data) return <ErrorState error={list.error} onRetry={() => void list.refetch()} />;
  if (!list.data) return <LoadingState />;
  const workflow = list.data.find((w) => w.name === name);
  if (!workflow) {
    return (
      <EmptyState title={t('detail.notFound', { name })}>
        <Link to="/workflows">{t('detail.backToList')}</Link>
      </EmptyState>
    );
  }
  return <WorkflowDetail workflow={workflow} />;
}

function WorkflowDetail({ workflow }: { workflow: WorkflowListing }) {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  return (
    <>
      <PageHeader
        title={workflow.name}
        subtitle={workflow.description && showBidiControls(workflow.description)}
        extra={
          <>
            <EnableSwitch name={workflow.name} enabled={workflow.enabled} />
            {!workflow.monitor && <RunNowButton name={workflow.name} />}
            {!workflow.monitor && <BackfillButton workflow={workflow} />}
            <Button
              icon={<ApartmentOutlined />}
              onClick={() => navigate(`/lineage/${encodeURIComponent(workflow.name)}`)}
              data-testid="open-lineage"
            >
              {t('action.lineage')}
            </Button>
            <EditButton name={workflow.name} owner={workflow.owner} withText />
            <DeleteButton
              name={workflow.name}
              owner={workflow.owner}
              withText
              onDeleted={() => navigate('/workflows')}
            />
          </>
        }
      />
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={14}>
          <Card title={t('detail.about')} size="small" style={{ height: '100%' }}>
            <Descriptions
              column={1}
              size="small"
              styles={{ label: { width: 160 } }}
              items={[
                { key: 'schedule', label: t('col.schedule'), children: <ScheduleText workflow={workflow} /> },
                {
                  key: 'state',
                  label: t('detail.status'),
                  children: workflow.enabled ? t('detail.enabled') : t('detail.disabled'),
                },
                {
                  key: 'last',
                  label: t('detail.lastRun'),
                  children: workflow.lastRun ? (
                    <Flex gap={8} align="center" wrap>
                      <Link to={`/runs/${workflow.lastRun.id}`}>{t('common:run', { id: workflow.lastRun.id })}</Link>
                      <StateTag state={workflow.lastRun.state} />
                      <When ms={workflow.lastRun.finishedAt ?? workflow.lastRun.logicalTime} />
                    </Flex>
                  ) : (
                    t('list.noRuns')
                  ),
                },
                {
                  key: 'recent',
                  label: t('list.recentRuns'),
                  children: <RunStrip workflow={workflow.name} count={20} />,
                },
                { key: 'tasks', label: t('detail.tasks'), children: workflow.taskCount },
                { key: 'version', label: t('detail.version'), children: workflow.version },
                ...(workflow.owner
                  ? [{ key: 'owner', label: t('detail.owner'), children: showBidiControls(workflow.owner) }]
                  : []),
              ]}
            />
          </Card>
        </Col>
        <Col xs={24} xl={10}>
          <NextFires workflow={workflow} />
        </Col>
        <Col span={24}>
          <Card size="small" styles={{ body: { paddingTop: 0 } }}>
            <WorkflowTabs workflow={workflow.name} />
          </Card>
        </Col>
      </Row>
    </>
  );
}

function NextFires({ workflow }: { workflow: WorkflowListing }) {
  const { t } = useTranslation('workflows');
  const schedule = workflow.schedule;
  const fires = useNextFires(schedule);
  return (
    <Card title={t('detail.nextFires')} size="small" style={{ height: '100%' }}>
      {!schedule ? (
        <Typography.Text type="secondary">
          {t(workflow.onEngineStart ? 'detail.noScheduleEngineStart' : 'detail.noSchedule')}
        </Typography.Text>
      ) : fires.error ? (
        <ErrorState error={fires.error} />
      ) : !fires.data ? (
        <LoadingState />
      ) : (
        <>
          {!workflow.enabled && <Typography.Paragraph type="warning">{t('detail.pausedFires')}</Typography.Paragraph>}
          <List
            size="small"
            dataSource={fires.data.times}
            renderItem={(ms) => (
              <List.Item>
                <When ms={ms} zone={fires.data.timezone} />
              </List.Item>
            )}
          />
        </>
      )}
    </Card>
  );
}
