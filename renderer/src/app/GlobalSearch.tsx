// The header's search: task names and commands across all workflows (api.search). Suggestions
// open the workflow; Enter opens the full results page #/search?q=.
import { SearchOutlined } from '@ant-design/icons';
import { AutoComplete, Input, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';
import { useSearch } from '../server-state/index.ts';

function useDebounced<T>(value: T, ms: number): T {
  const [current, setCurrent] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setCurrent(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return current;
}

export function GlobalSearch() {
  const { t } = useTranslation('common');
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const query = useDebounced(text.trim(), 200);
  const hits = useSearch(query, 8, query.length >= 2);
  const options = (hits.data ?? []).map((hit, i) => ({
    value: `${i}`,
    workflow: hit.workflow,
    label: (
      <div style={{ minWidth: 0 }}>
        <div style={{ overflow: 'hidden', textOverflow: 'ellipsis' }}>
          <Typography.Text strong>{hit.task}</Typography.Text>
          <Typography.Text type="secondary"> · {hit.workflow}</Typography.Text>
        </div>
        <Typography.Text type="secondary" code ellipsis style={{ fontSize: 12, maxWidth: '100%' }}>
          {showBidiControls(hit.command)}
        </Typography.Text>
      </div>
    ),
  }));
  const openResults = (q: string) => {
    if (!q.trim()) return;
    navigate(`/search?q=${encodeURIComponent(q.trim())}`);
    setText(''); // the results page has its own box with the query
  };
  return (
    <AutoComplete
      value={text}
      options={options}
      onChange={(value) => setText(value)}
      onSelect={(_value, option) => {
        setText('');
        navigate(`/workflows/${encodeURIComponent((option as { workflow: string }).workflow)}`);
      }}
      defaultActiveFirstOption={false}
      popupMatchSelectWidth={420}
      style={{ width: '100%', maxWidth: 420 }}
      notFoundContent={query.length >= 2 && hits.isFetched ? t('search.noHits') : undefined}
    >
      <Input
        aria-label={t('search.label')}
        placeholder={t('search.placeholder')}
        prefix={<SearchOutlined aria-hidden />}
        allowClear
        onPressEnter={(e) => {
          // Enter with a suggestion highlighted selects it (AutoComplete); otherwise: all results
          if (!document.querySelector('.ant-select-item-option-active'))
            openResults((e.target as HTMLInputElement).value);
        }}
      />
    </AutoComplete>
  );
}
