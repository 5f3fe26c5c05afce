// The log viewer's controls: find in the whole log (Enter = next, Shift+Enter = previous,
// Escape = clear), the match counter, which stream to show, wrap, timestamps, and download.
import { DownloadOutlined, DownOutlined, SearchOutlined, UpOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Segmented, Space, Spin, Switch, theme, Tooltip, Typography } from 'antd';
import { memo, useId, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { STREAM_FILTERS, type StreamFilter } from './log-filter.ts';
import type { LogPages } from './log-pages.ts';
import type { SearchSnapshot } from './log-search.ts';

interface Props {
  instanceId: number;
  pages: LogPages;
  search: SearchSnapshot | undefined;
  showTime: boolean;
  onShowTime: (on: boolean) => void;
  wrap: boolean;
  onWrap: (on: boolean) => void;
  filter: StreamFilter;
  onFilter: (filter: StreamFilter) => void;
  onSearch: (query: string) => void;
  onNext: () => void;
  onPrevious: () => void;
  onClear: () => void;
}

// Memoised, and the line count renders on its own: a following viewer re-renders every frame,
// the toolbar's widgets need not.
export const LogToolbar = memo(function LogToolbar({
  instanceId,
  pages,
  search,
  showTime,
  onShowTime,
  wrap,
  onWrap,
  filter,
  onFilter,
  onSearch,
  onNext,
  onPrevious,
  onClear,
}: Props) {
  const { t, i18n } = useTranslation('logs');
  const [text, setText] = useState('');
  const timeId = useId();
  const wrapId = useId();
  const active = search !== undefined && search.query === text && text !== '';
  const counter = !search
    ? ''
    : search.loading && search.hits.length === 0
      ? t('search.searching')
      : search.error
        ? t('search.failed')
        : search.hits.length === 0
          ? t('search.none')
          : t('search.position', {
              n: (search.index + 1).toLocaleString(i18n.language),
              total: search.hits.length.toLocaleString(i18n.language) + (search.complete ? '' : '+'),
            });

  const submit = (backwards: boolean) => {
    if (!text) return onClear();
    if (!active) onSearch(text);
    else if (backwards) onPrevious();
    else onNext();
  };

  return (
    <Flex gap={8} wrap align="center" justify="space-between" style={{ marginBottom: 8 }}>
      <Flex gap={8} align="center">
        <Space.Compact>
          <Input
            allowClear
            prefix={<SearchOutlined aria-hidden />}
            placeholder={t('search.placeholder')}
            aria-label={t('search.label')}
            value={text}
            style={{ width: 240 }}
            data-testid="log-search"
            onChange={(e) => {
              setText(e.target.value);
              if (!e.target.value) onClear();
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                submit(e.shiftKey);
              } else if (e.key === 'Escape') {
                setText('');
                onClear();
              }
            }}
          />
          <Tooltip title={t('search.previous')}>
            <Button
              icon={<UpOutlined />}
              aria-label={t('search.previous')}
              disabled={!search?.hits.length}
              onClick={() => (active ? onPrevious() : submit(true))}
            />
          </Tooltip>
          <Tooltip title={t('search.next')}>
            <Button
              icon={<DownOutlined />}
              aria-label={t('search.next')}
              disabled={!text}
              onClick={() => submit(false)}
            />
          </Tooltip>
        </Space.Compact>
        <Typography.Text
          type="secondary"
          aria-live="polite"
          data-testid="log-search-counter"
          style={{ whiteSpace: 'nowrap' }}
        >
          {search?.loading && search.hits.length > 0 ? <Spin size="small" /> : null} {counter}
        </Typography.Text>
      </Flex>
      <Flex gap={12} wrap align="center" style={{ marginInlineStart: 'auto' }}>
        <Segmented<StreamFilter>
          size="small"
          value={filter}
          onChange={onFilter}
          aria-label={t('filter.label')}
          data-testid="log-filter"
          options={STREAM_FILTERS.map((f) => ({
            value: f,
            label: t(`filter.${f}`),
            title: t(`filter.${f}Hint`),
          }))}
        />
        <Flex gap={6} align="center">
          <Switch id={wrapId} size="small" checked={wrap} onChange={onWrap} data-testid="log-wrap" />
          <label htmlFor={wrapId} style={{ cursor: 'pointer', whiteSpace: 'nowrap' }}>
            {t('wrap')}
          </label>
        </Flex>
        <Flex gap={6} align="center">
          <Switch id={timeId} size="small" checked={showTime} onChange={onShowTime} />
          <label htmlFor={timeId} style={{ cursor: 'pointer', whiteSpace: 'nowrap' }}>
            {t('timestamps')}
          </label>
        </Flex>
        <LineCount pages={pages} />
        <Button
          icon={<DownloadOutlined />}
          href={`/download/logs/${instanceId}`}
          download={`instance-${instanceId}.log`}
        >
          {t('download')}
        </Button>
      </Flex>
    </Flex>
  );
});

/** a plain span: it re-renders with every batch of live lines */
function LineCount({ pages }: { pages: LogPages }) {
  const { t, i18n } = useTranslation('logs');
  const { token } = theme.useToken();
  const lines = useSyncExternalStore(
    (notify) => pages.subscribe(notify),
    () => pages.count,
  );
  return (
    <span data-testid="log-line-count" style={{ color: token.colorTextSecondary, whiteSpace: 'nowrap' }}>
      {t('lines', { count: lines, n: lines.toLocaleString(i18n.language) })}
    </span>
  );
}
