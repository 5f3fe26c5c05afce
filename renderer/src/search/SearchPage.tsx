// All matches of a text in task names, commands and workflow names (#/search?q=).
import { Input, Table, Tag, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router-dom';
import type { SearchHit } from '../../../engine/api/engine-api.ts';
import { EmptyState, ErrorState } from '../shared/feedback.tsx';
import { OwnerFilter, useOwnedWorkflows } from '../shared/OwnerFilter.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { pagerPast } from '../shared/pager.ts';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { useSearch, useWorkflows } from '../server-state/index.ts';

/** the text with every case-insensitive occurrence of `needle` marked (as React text, never HTML) */
export function Highlight({ text, needle }: { text: string; needle: string }) {
  if (!needle) return <>{text}</>;
  const parts: React.ReactNode[] = [];
  const lower = text.toLowerCase();
  const n = needle.toLowerCase();
  let at = 0;
  for (let i = lower.indexOf(n); i >= 0 && n; i = lower.indexOf(n, at)) {
    if (i > at) parts.push(text.slice(at, i));
    parts.push(<mark key={i}>{text.slice(i, i + n.length)}</mark>);
    at = i + n.length;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}

export default function SearchPage() {
  const { t } = useTranslation('search');
  const [params, setParams] = useSearchParams();
  const q = (params.get('q') ?? '').trim();
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const hits = useSearch(q, 200, q.length > 0);
  // "My workflows": the hits in the remembered owner's workflows
  const workflows = useWorkflows({ slow: true });
  const { owner, owners, setOwner, shows } = useOwnedWorkflows(workflows.data);
  const shown = useMemo(() => hits.data?.filter((h) => shows(h.workflow)), [hits.data, shows]);
  return (
    <>
      <PageHeader
        title={t('title')}
        subtitle={q ? t('subtitle', { q }) : t('subtitleEmpty')}
        extra={<OwnerFilter owners={owners} value={owner} onChange={setOwner} />}
      />
      <Input.Search
        aria-label={t('label')}
        placeholder={t('placeholder')}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onSearch={(value) => setParams(value.trim() ? { q: value.trim() } : {})}
        enterButton={t('button')}
        style={{ maxWidth: 560, marginBottom: 16 }}
      />
      {!q ? null : hits.error ? (
        <ErrorState error={hits.error} onRetry={() => void hits.refetch()} />
      ) : hits.data?.length === 0 ? (
        <EmptyState title={t('none', { q })}>{t('noneHelp')}</EmptyState>
      ) : (
        <Table<SearchHit>
          rowKey={(h) => `${h.workflow}/${h.task}`}
          loading={hits.isPending}
          dataSource={shown}
          pagination={pagerPast(hits.data?.length ?? 0, 50)}
          columns={[
            {
              title: t('col.task'),
              key: 'task',
              width: 200,
              render: (_, h) => (
                <Typography.Text strong>
                  <Highlight text={h.task} needle={q} />
                </Typography.Text>
              ),
            },
            {
              title: t('col.workflow'),
              key: 'workflow',
              width: 200,
              render: (_, h) => (
                <Link to={`/workflows/${encodeURIComponent(h.workflow)}`}>
                  <Highlight text={h.workflow} needle={q} />
                </Link>
              ),
            },
            {
              title: t('col.command'),
              key: 'command',
              render: (_, h) => (
                <Typography.Text code style={{ wordBreak: 'break-all' }}>
                  <Highlight text={showBidiControls(h.command)} needle={q} />
                </Typography.Text>
              ),
            },
            { title: t('col.field'), key: 'field', width: 120, render: (_, h) => <Tag>{t(`field.${h.field}`)}</Tag> },
          ]}
        />
      )}
    </>
  );
}
