// The alerts the engine raised, newest first: what happened to what, and how each
// channel's delivery went (sent, or failed after its retries, with why). Kept fresh by the
// `alerts` topic. With no channel configured, it says so and how to configure one.
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { BellOutlined } from '@ant-design/icons';
import { Alert, Button, Flex, Segmented, Space, Table, Tag, theme, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { AlertChannelInfo, AlertRecord, AlertState } from '../../../engine/api/alerts.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { OwnerFilter, useOwnedWorkflows } from '../shared/OwnerFilter.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { When } from '../shared/When.tsx';
import { AlertMessage } from './AlertMessage.tsx';
import { OutcomeTag } from './OutcomeTag.tsx';
import { useAlertChannels, useAlerts, useEngineInfo, useWorkflows } from '../server-state/index.ts';

const PAGE = 100;
/** the API's largest page */
const MAX = 1_000;
const FILTERS = ['all', 'sent', 'failed', 'grouped', 'unsent'] as const;
type Filter = (typeof FILTERS)[number];

const EXAMPLE = `"alerts": {
  "channels": {
    "ops": {
      "type": "webhook",
      "template": "slack",
      "url": "https://hooks.slack.com/services/…"
    }
  },
  "workflows": { "channels": ["ops"] }
}`;

/** Channel lines of one alert: its deliveries, or, with none, one line with the alert's own state. */
function deliveryLines(
  a: AlertRecord,
): { key: string; channel?: string; state: AlertState | 'sending'; attempts?: number; error?: string }[] {
  if (a.deliveries.length === 0) return [{ key: 'none', state: a.state }];
  return a.deliveries.map((d) => ({
    key: d.channel,
    channel: d.channel,
    state: d.state,
    attempts: d.attempts,
    error: d.error,
  }));
}

function Lines({ children }: { children: React.ReactNode[] }) {
  return (
    <Flex vertical gap={6}>
      {children}
    </Flex>
  );
}

function Channels({ channels, file }: { channels: AlertChannelInfo[]; file: string }) {
  const { t } = useTranslation('alerts');
  if (channels.length === 0) {
    return (
      <Alert
        type="info"
        showIcon
        style={{ marginBottom: 12 }}
        data-testid="alerts-no-channels"
        title={t('channels.none')}
        description={
          <>
            {t('channels.help', { file })} <Typography.Text code>ax alerts test CHANNEL</Typography.Text>
          </>
        }
      />
    );
  }
  return (
    <Flex gap={8} wrap align="center" style={{ marginBottom: 12 }} data-testid="alerts-channels">
      <Typography.Text type="secondary">{t('channels.label')}:</Typography.Text>
      {channels.map((c) => (
        <Tooltip key={c.name} title={c.target}>
          <Tag icon={<BellOutlined aria-hidden />}>
            {c.name} · {c.kind}
            {c.template && c.template !== 'json' ? ` (${c.template})` : ''}
          </Tag>
        </Tooltip>
      ))}
    </Flex>
  );
}

export default function AlertsPage() {
  const { t } = useTranslation('alerts');
  const { token } = theme.useToken();
  const [filter, setFilter] = useState<Filter>('all');
  const [limit, setLimit] = useState(PAGE);
  const state = filter === 'all' ? undefined : filter;
  const alerts = useAlerts(state, limit);
  const channels = useAlertChannels();
  const info = useEngineInfo();
  const file = info.data?.settingsFile ?? 'DATA_DIR/settings.json';
  // "My workflows": the alerts about the remembered owner's workflows
  const workflows = useWorkflows({ slow: true });
  const { owner, owners, setOwner, shows } = useOwnedWorkflows(workflows.data);
  const rows = (alerts.data ?? []).filter(
    (a) => owner === undefined || (a.workflow !== undefined && shows(a.workflow)),
  );
  const none = alerts.data?.length === 0 && filter === 'all';
  const configured = channels.data ?? [];

  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle')}
        extra={
          <>
            <OwnerFilter owners={owners} value={owner} onChange={setOwner} />
            <Segmented<Filter>
              aria-label={t('filter.label')}
              value={filter}
              onChange={(v) => {
                setFilter(v);
                setLimit(PAGE);
              }}
              options={FILTERS.map((f) => ({ value: f, label: t(`filter.${f}`) }))}
            />
          </>
        }
      />
      {channels.data && <Channels channels={channels.data} file={file} />}
      {alerts.error && !alerts.data ? (
        <ErrorState error={alerts.error} onRetry={() => void alerts.refetch()} />
      ) : none ? (
        <div data-testid="alerts-empty">
          <EmptyState title={t('empty.title')}>
            <Typography.Paragraph style={{ textAlign: 'start' }}>{t('empty.when')}</Typography.Paragraph>
            {configured.length > 0 ? (
              <Typography.Paragraph style={{ textAlign: 'start', marginBottom: 0 }}>
                {t('empty.toChannels')} <Typography.Text code>ax alerts test {configured[0]?.name}</Typography.Text>
              </Typography.Paragraph>
            ) : (
              <>
                <Typography.Paragraph style={{ textAlign: 'start' }}>
                  {t('empty.configure', { file })}
                </Typography.Paragraph>
                <pre
                  style={{
                    textAlign: 'start',
                    margin: 0,
                    padding: 12,
                    borderRadius: 6,
                    background: 'rgba(127,127,127,0.1)',
                    color: token.colorText,
                    fontSize: 12,
                    overflow: 'auto',
                  }}
                >
                  {EXAMPLE}
                </pre>
                <Typography.Paragraph style={{ textAlign: 'start', marginTop: 8, marginBottom: 0 }}>
                  {t('empty.test')} <Typography.Text code>ax alerts test ops</Typography.Text>
                </Typography.Paragraph>
              </>
            )}
          </EmptyState>
        </div>
      ) : (
        <Space orientation="vertical" size={12} style={{ width: '100%' }}>
          <Table<AlertRecord>
            rowKey="id"
            size="small"
            data-testid={alerts.data ? 'alerts-loaded' : undefined}
            loading={alerts.isPending}
            dataSource={rows}
            locale={{ emptyText: <EmptyState title={t('empty.filtered')} /> }}
            pagination={{
              pageSize: 50,
              showSizeChanger: false,
              hideOnSinglePage: true,
              showTotal: (total) => t('total', { count: total }),
            }}
            columns={[
              { title: t('col.at'), key: 'at', width: 150, render: (_, a) => <When ms={a.at} /> },
              {
                title: t('col.rule'),
                key: 'rule',
                width: 130,
                render: (_, a) => (
                  <Flex vertical gap={4} align="flex-start">
                    <span data-rule={a.rule}>{t(`rule.${a.rule}`, { defaultValue: a.rule })}</span>
                    {(a.kind === 'summary' || a.kind === 'test') && (
                      <Tag style={{ marginInlineEnd: 0 }}>
                        {t(`kind.${a.kind}`)}
                        {a.kind === 'summary' && a.repeats ? ` · ${t('repeats', { count: a.repeats })}` : ''}
                      </Tag>
                    )}
                  </Flex>
                ),
              },
              {
                title: t('col.subject'),
                key: 'subject',
                width: 150,
                render: (_, a) => (
                  <Flex vertical gap={2}>
                    {a.workflow ? (
                      <Link to={`/workflows/${encodeURIComponent(a.workflow)}`}>{a.workflow}</Link>
                    ) : (
                      <Typography.Text>{showBidiControls(a.subject)}</Typography.Text>
                    )}
                    {a.runId !== undefined && <Link to={`/runs/${a.runId}`}>{t('run', { id: a.runId })}</Link>}
                  </Flex>
                ),
              },
              {
                title: t('col.message'),
                key: 'message',
                render: (_, a) => <AlertMessage alert={a} />,
              },
              {
                title: t('col.channel'),
                key: 'channel',
                width: 110,
                render: (_, a) => (
                  <Lines>
                    {deliveryLines(a).map((l) => (
                      <span key={l.key}>{l.channel ?? '—'}</span>
                    ))}
                  </Lines>
                ),
              },
              {
                title: t('col.outcome'),
                key: 'outcome',
                width: 120,
                render: (_, a) => (
                  <Lines>
                    {deliveryLines(a).map((l) => (
                      <OutcomeTag key={l.key} state={l.state} error={l.error} />
                    ))}
                  </Lines>
                ),
              },
              {
                title: t('col.attempts'),
                key: 'attempts',
                width: 90,
                align: 'end',
                render: (_, a) => (
                  <Lines>
                    {deliveryLines(a).map((l) => (
                      <span key={l.key}>{l.attempts ?? '—'}</span>
                    ))}
                  </Lines>
                ),
              },
            ]}
          />
          {(alerts.data?.length ?? 0) === limit && limit < MAX && (
            <Button onClick={() => setLimit((n) => Math.min(MAX, n + PAGE))}>{t('older')}</Button>
          )}
        </Space>
      )}
    </>
  );
}
