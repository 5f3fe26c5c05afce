// Beyond GRAPH_DRAW_LIMIT tasks a graph is not drawn whole (no one can read it and the browser
// would crawl): the user filters first, and the matches are drawn with their neighbours.
import { FilterOutlined } from '@ant-design/icons';
import { Alert, Flex, Input, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FilterResult } from './filter-graph.ts';

export const GRAPH_DRAW_LIMIT = 5_000;

export function TooLargeToDraw({
  total,
  query,
  onQuery,
  result,
}: {
  total: number;
  query: string;
  onQuery: (q: string) => void;
  result: FilterResult;
}) {
  const { t, i18n } = useTranslation('designer');
  return (
    <Flex vertical gap={8} style={{ padding: 12 }} data-testid="too-large">
      <Alert
        type="info"
        showIcon
        title={t('large.title', {
          count: total,
          total: total.toLocaleString(i18n.language),
          limit: GRAPH_DRAW_LIMIT.toLocaleString(i18n.language),
        })}
        description={t('large.help')}
      />
      <Input.Search
        allowClear
        autoFocus
        prefix={<FilterOutlined aria-hidden />}
        aria-label={t('large.filterLabel')}
        placeholder={t('large.filterPlaceholder')}
        defaultValue={query}
        onSearch={onQuery}
        enterButton={t('large.filterButton')}
        style={{ maxWidth: 560 }}
      />
      {query.trim() !== '' && (
        <Typography.Text type={result.matches ? 'secondary' : 'warning'} role="status">
          {result.matches
            ? t(result.truncated ? 'large.matchesTruncated' : 'large.matches', {
                count: result.matches,
                shown: result.ids.length,
              })
            : t('large.noMatch')}
        </Typography.Text>
      )}
    </Flex>
  );
}
