// The engine's effective configuration, read-only: the settings are changed with the CLI and
// take effect when the engine restarts, which the page says.
import { InfoCircleOutlined } from '@ant-design/icons';
import { Alert, Card, Col, Descriptions, Row, Typography, type DescriptionsProps } from 'antd';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { EngineInfo } from '../../../engine/api/engine-api.ts';
import { EmptyState, QueryView } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';
import { DesktopSettings } from './DesktopSettings.tsx';
import { TeamSecretsCard } from './TeamSecretsCard.tsx';
import { useEngineInfo } from '../server-state/index.ts';

const labelStyle = { styles: { label: { width: 200 } } };

function Mono({ children }: { children: ReactNode }) {
  return (
    <Typography.Text code copyable style={{ wordBreak: 'break-all' }}>
      {children}
    </Typography.Text>
  );
}

export default function SettingsPage() {
  const { t } = useTranslation('settings');
  const info = useEngineInfo();
  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <Alert
        type="info"
        showIcon
        icon={<InfoCircleOutlined />}
        style={{ marginBottom: 16 }}
        title={<Trans t={t} i18nKey="howToChange" components={{ cmd: <code className="ax-cmd" /> }} />}
      />
      <QueryView query={info}>{(data) => <SettingsCards info={data} />}</QueryView>
    </>
  );
}

/** one card of the page: a title and its settings, label column aligned across the cards */
function Section({
  title,
  items,
  children,
}: {
  title: ReactNode;
  items: DescriptionsProps['items'];
  children?: ReactNode;
}) {
  return (
    <Col xs={24} xl={12}>
      <Card title={title} size="small" style={{ height: '100%' }}>
        <Descriptions column={1} size="small" {...labelStyle} items={items} />
        {children}
      </Card>
    </Col>
  );
}

function SettingsCards({ info }: { info: EngineInfo }) {
  const { t } = useTranslation('settings');
  const fmt = useTimeFormat();
  const none = <Typography.Text type="secondary">{t('none')}</Typography.Text>;
  const stored = Object.entries(info.settings);
  return (
    <Row gutter={[16, 16]}>
      <DesktopSettings />
      <Section
        title={t('section.engine')}
        items={[
          { key: 'mode', label: t('field.mode'), children: t(`mode.${info.mode}`) },
          { key: 'role', label: t('field.role'), children: t(`role.${info.role}`, { defaultValue: info.role }) },
          { key: 'version', label: t('field.version'), children: info.version },
          { key: 'node', label: t('field.nodeId'), children: <Mono>{info.nodeId}</Mono> },
          { key: 'worker', label: t('field.workerId'), children: info.workerId ? <Mono>{info.workerId}</Mono> : none },
          { key: 'concurrency', label: t('field.concurrency'), children: info.maxConcurrency ?? none },
          { key: 'tz', label: t('field.timezone'), children: info.timezone },
          { key: 'data', label: t('field.dataDir'), children: info.dataDir ? <Mono>{info.dataDir}</Mono> : none },
          ...(info.sqliteDriver
            ? [{ key: 'sqlite', label: t('field.sqliteDriver'), children: <Mono>{info.sqliteDriver}</Mono> }]
            : []),
        ]}
      />
      <Section
        title={t('section.connections')}
        items={[
          // The team database: PostgreSQL when the team runs on it, else MySQL (or none, solo).
          info.postgres
            ? { key: 'postgres', label: t('field.postgres'), children: <Mono>{info.postgres}</Mono> }
            : { key: 'mysql', label: t('field.mysql'), children: info.mysql ? <Mono>{info.mysql}</Mono> : none },
          { key: 'redis', label: t('field.redis'), children: info.redis ? <Mono>{info.redis}</Mono> : none },
          {
            key: 'prefix',
            label: t('field.redisPrefix'),
            children: info.redisPrefix ? <Mono>{info.redisPrefix}</Mono> : none,
          },
        ]}
      >
        {info.mode === 'solo' && (
          <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
            {t('soloNote')}
          </Typography.Paragraph>
        )}
      </Section>
      <Section
        title={t('section.timing')}
        items={[
          { key: 'retention', label: t('field.logRetention'), children: t('days', { count: info.logRetentionDays }) },
          { key: 'whb', label: t('field.workerHeartbeat'), children: fmt.duration(info.workerHeartbeatMs) },
          { key: 'thb', label: t('field.taskHeartbeat'), children: fmt.duration(info.taskHeartbeatMs) },
          { key: 'queue', label: t('field.queueAlert'), children: t('tasks', { count: info.queueAlertThreshold }) },
        ]}
      />
      <Section
        title={t('section.stored')}
        items={[
          {
            key: 'file',
            label: t('field.settingsFile'),
            children: info.settingsFile ? <Mono>{info.settingsFile}</Mono> : none,
          },
        ]}
      >
        {stored.length === 0 ? (
          <EmptyState title={t('storedEmpty')} />
        ) : (
          <Descriptions
            column={1}
            size="small"
            bordered
            style={{ marginTop: 12 }}
            {...labelStyle}
            items={stored.map(([key, value]) => ({ key, label: <code>{key}</code>, children: <Mono>{value}</Mono> }))}
          />
        )}
      </Section>
      {info.mode === 'team' && <TeamSecretsCard />}
    </Row>
  );
}
