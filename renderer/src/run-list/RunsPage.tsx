// Every run across workflows (issue 24 part 3): the list, the calendar and a day's timeline,
// one filter bar for the three, all of it kept in the address (a reload or a link shows the same).
import { CalendarOutlined, BarsOutlined, FieldTimeOutlined } from '@ant-design/icons';
import { Button, Flex, Segmented } from 'antd';
import { useTranslation } from 'react-i18next';
import { PageHeader } from '../shared/PageHeader.tsx';
import { CalendarView } from './CalendarView.tsx';
import { DayTimeline } from './DayTimeline.tsx';
import { runFilterOf, runsQueryParams, type RunsView } from './run-filters.ts';
import { RunFilters } from './RunFilters.tsx';
import { RunListTable } from './RunListTable.tsx';
import { useRunsQuery } from './use-runs-query.ts';

export default function RunsPage() {
  const { t } = useTranslation('run-list');
  const [query, update] = useRunsQuery();
  const filter = runFilterOf(query);
  const narrowed = Object.values(filter).some((v) => v !== undefined);
  // one day in the list: its timeline is one click away
  const oneDay = query.from && query.from === query.to ? query.from : undefined;
  return (
    <div data-testid="runs-page">
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <Flex justify="space-between" align="center" gap={12} wrap style={{ marginBottom: 12 }}>
        <Segmented<RunsView>
          value={query.view}
          onChange={(view) => update({ view })}
          data-testid="runs-view"
          options={[
            { value: 'list', label: t('view.list'), icon: <BarsOutlined /> },
            { value: 'calendar', label: t('view.calendar'), icon: <CalendarOutlined /> },
            { value: 'day', label: t('view.day'), icon: <FieldTimeOutlined /> },
          ]}
        />
        {query.view === 'list' && oneDay && (
          <Button icon={<FieldTimeOutlined />} onClick={() => update({ view: 'day', day: oneDay })}>
            {t('list.dayTimeline')}
          </Button>
        )}
      </Flex>
      <RunFilters
        query={query}
        update={update}
        showRange={query.view === 'list'}
        showRunFields={query.view !== 'calendar'}
      />
      {query.view === 'list' && (
        <RunListTable
          key={runsQueryParams({ ...query, view: 'list', day: undefined }).toString()}
          filter={filter}
          narrowed={narrowed}
        />
      )}
      {query.view === 'calendar' && <CalendarView query={query} update={update} />}
      {query.view === 'day' && <DayTimeline query={query} update={update} />}
    </div>
  );
}
