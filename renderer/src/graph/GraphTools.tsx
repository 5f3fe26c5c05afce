// The bar over a run graph: "Find a task" (type to centre and outline it, Enter for the next
// match, Shift+Enter for the one before), the state filter (the rest dimmed) and full screen.
import { FullscreenExitOutlined, FullscreenOutlined, SearchOutlined } from '@ant-design/icons';
import { Button, Flex, Input, Segmented, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { STATE_FILTERS, type StateFilter } from './state-filter.ts';

interface Props {
  query: string;
  onQuery: (q: string) => void;
  /** 0-based index of the match shown, and how many there are */
  match: number;
  matches: number;
  onStep: (by: 1 | -1) => void;
  filter: StateFilter;
  onFilter: (f: StateFilter) => void;
  counts: Record<StateFilter, number>;
  fullScreen: boolean;
  onFullScreen: (on: boolean) => void;
}

export function GraphTools(p: Props) {
  const { t } = useTranslation('runs');
  const none = p.query.trim() !== '' && p.matches === 0;
  return (
    <Flex gap={8} wrap align="center" data-testid="graph-tools">
      <Input
        size="small"
        allowClear
        prefix={<SearchOutlined aria-hidden />}
        placeholder={t('graph.find')}
        aria-label={t('graph.find')}
        value={p.query}
        status={none ? 'warning' : undefined}
        onChange={(e) => p.onQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') p.onStep(e.shiftKey ? -1 : 1);
        }}
        suffix={
          p.query.trim() !== '' ? (
            <Typography.Text type={none ? 'warning' : 'secondary'} style={{ fontSize: 12 }} data-testid="find-count">
              {none ? t('graph.findNone') : t('graph.findCount', { index: p.match + 1, count: p.matches })}
            </Typography.Text>
          ) : undefined
        }
        style={{ width: 260 }}
        data-testid="find-task"
      />
      <Segmented<StateFilter>
        size="small"
        aria-label={t('graph.filter')}
        value={p.filter}
        onChange={p.onFilter}
        data-testid="state-filter"
        options={STATE_FILTERS.map((f) => ({
          value: f,
          label: f === 'all' ? t('graph.filterAll') : t(`graph.filter_${f}`, { count: p.counts[f] }),
        }))}
      />
      <span style={{ flex: 1 }} />
      <Tooltip title={p.fullScreen ? t('graph.exitFullScreenHint') : undefined}>
        <Button
          size="small"
          icon={p.fullScreen ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
          onClick={() => p.onFullScreen(!p.fullScreen)}
          data-testid="graph-full-screen"
          aria-pressed={p.fullScreen}
        >
          {p.fullScreen ? t('graph.exitFullScreen') : t('graph.fullScreen')}
        </Button>
      </Tooltip>
    </Flex>
  );
}
