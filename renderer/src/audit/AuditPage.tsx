// Who changed what and who started what, newest first: who (and, with accounts, their role and
// source address), the action, the object, when. Filters by person, action, text and since when,
// in the address (audit-filter.ts); they sift the newest entries the engine answered.
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { SearchOutlined } from '@ant-design/icons';
import { Flex, Input, Select, Table, Tag, Typography } from 'antd';
import { useDeferredValue, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import type { AuditEntry } from '../../../engine/api/types.ts';
import { ROLES, type Role } from '../../../engine/api/access.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { OwnerFilter, useOwnedWorkflows } from '../shared/OwnerFilter.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { When } from '../shared/When.tsx';
import { useAudit, useWorkflows } from '../server-state/index.ts';
import {
  distinct,
  filterAudit,
  filterFromParams,
  hasPeople,
  paramsOfFilter,
  SINCE_OPTIONS,
  type AuditFilter,
} from './audit-filter.ts';

const LIMIT = 1_000;

export default function AuditPage() {
  const { t } = useTranslation('audit');
  const [params, setParams] = useSearchParams();
  const filter = filterFromParams(params);
  const setFilter = (change: Partial<AuditFilter>) =>
    setParams(paramsOfFilter({ ...filter, ...change }), { replace: true });
  const text = useDeferredValue(filter.text);
  const audit = useAudit(LIMIT);
  // "My workflows": the entries about the remembered owner's workflows
  const workflows = useWorkflows({ slow: true });
  const { owner, owners, setOwner, shows } = useOwnedWorkflows(workflows.data);
  const entries = useMemo(() => audit.data ?? [], [audit.data]);
  const { user, action, since } = filter;
  const rows = useMemo(
    () => filterAudit(entries, { user, action, since, text }, owner === undefined ? undefined : shows),
    [entries, user, action, since, text, owner, shows],
  );
  const people = hasPeople(entries);
  const filtered = !!(user || action || since || text.trim());

  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={t('subtitle', { limit: LIMIT })}
        extra={<OwnerFilter owners={owners} value={owner} onChange={setOwner} />}
      />
      <Flex gap={8} wrap style={{ marginBottom: 12 }}>
        <Input
          aria-label={t('filter.label')}
          placeholder={t('filter.placeholder')}
          prefix={<SearchOutlined aria-hidden />}
          allowClear
          value={filter.text}
          onChange={(e) => setFilter({ text: e.target.value })}
          style={{ maxWidth: 340 }}
        />
        <Select<string>
          allowClear
          showSearch
          aria-label={t('filter.user')}
          placeholder={t('filter.anyone')}
          value={user}
          onChange={(value) => setFilter({ user: value })}
          options={distinct(entries, 'actor').map((a) => ({ value: a, label: showBidiControls(a) }))}
          style={{ minWidth: 180 }}
          data-testid="audit-user-filter"
        />
        <Select<string>
          allowClear
          showSearch
          aria-label={t('filter.action')}
          placeholder={t('filter.anyAction')}
          value={action}
          onChange={(value) => setFilter({ action: value })}
          options={distinct(entries, 'action').map((a) => ({ value: a, label: a }))}
          style={{ minWidth: 180 }}
          data-testid="audit-action-filter"
        />
        <Select<string>
          allowClear
          aria-label={t('filter.since')}
          placeholder={t('filter.anyTime')}
          value={since}
          onChange={(value) => setFilter({ since: value as AuditFilter['since'] })}
          options={SINCE_OPTIONS.map((s) => ({ value: s, label: t(`since.${s}`) }))}
          style={{ minWidth: 160 }}
          data-testid="audit-since-filter"
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
          // the columns' widths and Detail's 140: narrower than that, the table scrolls instead of
          // squeezing Detail into a column of one word per line
          scroll={{ x: 760 }}
          tableLayout="fixed"
          locale={{
            emptyText: (
              <EmptyState
                title={
                  filtered
                    ? text.trim()
                      ? t('filter.noMatch', { text })
                      : t('filter.noneMatch')
                    : t('filter.noneOfOwner', { owner })
                }
              />
            ),
          }}
          pagination={{ pageSize: 50, showSizeChanger: false, showTotal: (total) => t('total', { count: total }) }}
          columns={[
            { title: t('col.at'), key: 'at', width: 140, render: (_, e) => <When ms={e.at} /> },
            {
              title: t('col.actor'),
              key: 'actor',
              width: 190,
              // the identity the server authenticated, with the role and address it had (where the
              // server has accounts); what the client said of itself below
              render: (_, e) => (
                <>
                  <Flex gap={4} align="center" wrap>
                    <span style={{ wordBreak: 'break-word' }}>{showBidiControls(e.actor)}</span>
                    {people && e.role ? (
                      <Tag style={{ marginInlineEnd: 0 }} data-testid="audit-role">
                        {ROLES.includes(e.role as Role) ? t(`people:role.${e.role}`) : e.role}
                      </Tag>
                    ) : null}
                  </Flex>
                  {people && e.address ? (
                    <Typography.Text type="secondary" style={{ display: 'block' }} data-testid="audit-address">
                      {t('from', { address: e.address })}
                    </Typography.Text>
                  ) : null}
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
              width: 140,
              render: (_, e) => <Typography.Text code>{e.action}</Typography.Text>,
            },
            {
              title: t('col.object'),
              dataIndex: 'object',
              width: 150,
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
