// The dashboard's figures: runs and tasks running, queue, today's outcomes, workers.
import {
  CheckCircleOutlined,
  CloseCircleOutlined,
  ClusterOutlined,
  HourglassOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import { Card, Col, Flex, Row, Statistic, Typography, theme } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { DashboardSummary } from '../../../engine/api/engine-api.ts';

function Figure({
  title,
  value,
  icon,
  color,
  note,
  to,
}: {
  title: string;
  value: number;
  icon: ReactNode;
  color?: string;
  note?: ReactNode;
  to?: string;
}) {
  const body = (
    <Card size="small" hoverable={!!to} style={{ height: '100%' }}>
      <Statistic title={title} value={value} prefix={icon} styles={{ content: { color } }} />
      {note && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {note}
        </Typography.Text>
      )}
    </Card>
  );
  return to ? (
    <Link to={to} aria-label={`${title}: ${value}`} style={{ display: 'block', height: '100%' }}>
      {body}
    </Link>
  ) : (
    body
  );
}

export function SummaryCards({ summary }: { summary: DashboardSummary }) {
  const { t } = useTranslation('dashboard');
  const { token } = theme.useToken();
  const w = summary.workers;
  return (
    <Row gutter={[16, 16]}>
      <Col xs={12} md={8} xl={4}>
        <Figure
          title={t('figure.running')}
          value={summary.running.length}
          icon={<SyncOutlined aria-hidden spin={summary.running.length > 0} />}
          color={token.colorInfo}
          note={t('figure.runningTasks', { count: summary.runningTasks })}
        />
      </Col>
      <Col xs={12} md={8} xl={4}>
        <Figure
          title={t('figure.queue')}
          value={summary.queueLength}
          icon={<HourglassOutlined aria-hidden />}
          note={t('figure.queueNote')}
        />
      </Col>
      <Col xs={12} md={8} xl={5}>
        <Figure
          title={t('figure.succeeded')}
          value={summary.today.success}
          icon={<CheckCircleOutlined aria-hidden />}
          color={token.colorSuccess}
          note={t('figure.todayOf', { count: summary.today.total })}
        />
      </Col>
      <Col xs={12} md={8} xl={5}>
        <Figure
          title={t('figure.failed')}
          value={summary.today.failed}
          icon={<CloseCircleOutlined aria-hidden />}
          color={summary.today.failed ? token.colorError : undefined}
          note={t('figure.failedTasks', { count: summary.failuresToday.length })}
        />
      </Col>
      <Col xs={24} md={16} xl={6}>
        <Figure
          title={t('figure.workers')}
          value={w.online}
          to="/workers"
          icon={<ClusterOutlined aria-hidden />}
          color={w.online ? undefined : token.colorWarning}
          note={
            <Flex gap={12} wrap component="span">
              <span>{t('figure.online', { count: w.online })}</span>
              <span>{t('figure.draining', { count: w.draining })}</span>
              <Typography.Text type={w.lost ? 'danger' : 'secondary'} style={{ fontSize: 12 }}>
                {t('figure.lost', { count: w.lost })}
              </Typography.Text>
            </Flex>
          }
        />
      </Col>
    </Row>
  );
}
