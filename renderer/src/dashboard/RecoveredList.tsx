// Today's tasks that failed and then succeeded on a retry or a re-run: not failures any more,
// but worth a glance (which attempt failed, which one succeeded).
import { CheckCircleOutlined } from '@ant-design/icons';
import { Flex, List, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { FailureItem } from '../../../engine/api/engine-api.ts';

export function RecoveredList({ recovered }: { recovered: FailureItem[] }) {
  const { t } = useTranslation('dashboard');
  if (recovered.length === 0) return null;
  return (
    <section aria-label={t('recovered.title', { count: recovered.length })} style={{ marginTop: 12 }}>
      <Typography.Text type="secondary" strong>
        {t('recovered.title', { count: recovered.length })}
      </Typography.Text>
      <List<FailureItem>
        size="small"
        dataSource={recovered}
        rowKey="instanceId"
        renderItem={(f) => (
          <List.Item>
            <Flex gap={8} wrap align="center">
              <Tag color="success" icon={<CheckCircleOutlined aria-hidden />}>
                {t('recovered.tag')}
              </Tag>
              <Link to={`/instances/${f.recoveredBy?.instanceId ?? f.instanceId}`} style={{ fontWeight: 500 }}>
                {f.taskName}
              </Link>
              <Link to={`/runs/${f.run.id}`}>
                {f.run.workflowName} ({t('common:run', { id: f.run.id })})
              </Link>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                <Link to={`/instances/${f.instanceId}`}>
                  {t('recovered.failedAttempt', { attempt: f.attempt, state: f.state })}
                </Link>
                {f.recoveredBy && ` · ${t('recovered.succeededOn', { attempt: f.recoveredBy.attempt })}`}
              </Typography.Text>
            </Flex>
          </List.Item>
        )}
      />
    </section>
  );
}
