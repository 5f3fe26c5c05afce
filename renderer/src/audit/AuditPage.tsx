// Who changed what and who started what, newest first, filterable by any text.
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { SearchOutlined } from '@ant-design/icons';
import { Flex, Input, Table, Typography } from 'antd';
import { useDeferredValue, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AuditEntry } from '../../../engine/api/types.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { OwnerFilter, useOwnedWorkflows } from '../shared/OwnerFilter.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { When } from '../shared/When.tsx';
import { useAudit, useWorkflows } from '../server-state/index.ts';

const LIMIT = 1_000;

/**
 * Newest first, those containing `text`; with `ofWorkflow` ("my workflows"), only the entries
 * about a workflow it accepts (their object is `workflow:NAME`).
 */
export function filterAudit(entries: AuditEntry[], text: string, ofWorkflow?: (name: string) => boolean): AuditEntry[] {
  const needle = text.trim().toLowerCase();
  const sorted = [...entries].sort((a, b) => b.at - a.at || b.id - a.id);
  return sorted.filter(
    (e) =>
      (!ofWorkflow || (e.object.startsWith('workflow:') && ofWorkflow(e.object.slice('workflow:'.length)))) &&
      (!needle ||
        [e.actor, e.note ?? '', e.action, e.object, e.detail ?? ''].some((field) =>
          field.toLowerCase().includes(needle),
        )),
  );
}

export default function AuditPage() {
  const { t } = useTranslation('audit');
  const [filter, setFilter] = useState('');
  const deferred = useDeferredValue(filter);
  const audit = useAudit(LIMIT);
  // "My workflows": the entries about the remembered owner's workflows
  const workflows = useWorkflows({ slow: true });
  const { owner, owners, setOwner, shows } = useOwnedWorkflows(workflows.data);
  const rows = useMemo(
    () => filterAudit(audit.data ?? [], deferred, owner === undefined ? undefined : shows),
    [audit.data, deferred, owner, shows],
  );

  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle', { limit: LIMIT })}
        extra={<OwnerFilter owners={owners} value={owner} onChange={setOwner} />}
      />
      <Flex style={{ marginBottom: 12 }}>
        <Input
          aria-label={t('filter.label')}
          placeholder={t('filter.placeholder')}
          prefix={<SearchOutlined aria-hidden />}
          allowClear
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          style={{ maxWidth: 420 }}
        />
      </Flex>
      {audit.error && !audit.data ? (
        <ErrorState error={audit.error} onRetry={() => void audit.refetch()} />
      ) : audit.data?.length === 0 ? (
        <EmptyState title={t('empty.title')}>{t('empty.help')}</EmptyState>
      ) : (
        <Table<AuditEntry>
          rowKey="id"
          size="small"
          loading={audit.isPending}
          dataSource={rows}
          locale={{
            emptyText: (
              <EmptyState
                title={deferred.trim() ? t('filter.noMatch', { text: deferred }) : t('filter.noneOfOwner', { owner })}
              />
            ),
          }}
          pagination={{ pageSize: 50, showSizeChanger: false, showTotal: (total) => t('total', { count: total }) }}
          columns={[
            { title: t('col.at'), key: 'at', width: 170, render: (_, e) => <When ms={e.at} /> },
            {
              title: t('col.actor'),
              key: 'actor',
              width: 180,
              // the identity the server authenticated; what the client said of itself, beside it
              render: (_, e) => (
                <>
                  {showBidiControls(e.actor)}
                  {e.note ? (
                    <Typography.Text
                      type="secondary"
                      style={{ display: 'block', wordBreak: 'break-word' }}
                      data-testid="audit-note"
                    >
                      {t('note', { note: showBidiControls(e.note) })}
                    </Typography.Text>
                  ) : null}
                </>
              ),
            },
            {
              title: t('col.action'),
              key: 'action',
              width: 150,
              render: (_, e) => <Typography.Text code>{e.action}</Typography.Text>,
            },
            {
              title: t('col.object'),
              dataIndex: 'object',
              width: 220,
              render: (v: string) => <span style={{ wordBreak: 'break-word' }}>{showBidiControls(v)}</span>,
            },
            {
              title: t('col.detail'),
              key: 'detail',
              render: (_, e) =>
                e.detail ? (
                  <Typography.Text type="secondary" style={{ wordBreak: 'break-word' }}>
                    {showBidiControls(e.detail)}
                  </Typography.Text>
                ) : (
                  '—'
                ),
            },
          ]}
        />
      )}
    </>
  );
}
