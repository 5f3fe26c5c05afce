// The filter bar shared by the list, the calendar and the day timeline. Every control writes the
// address (use-runs-query.ts); "Clear" appears once something narrows the runs.
import { ClearOutlined } from '@ant-design/icons';
import { Button, DatePicker, Flex, Select } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { RUN_STATES, TRIGGER_TYPES } from '../../../engine/api/types.ts';
import { useWorkflows } from '../server-state/index.ts';
import { dayjs } from '../shared/day.ts';
import { useStateLabel } from '../shared/StateTag.tsx';
import type { RunsQuery } from './run-filters.ts';

export function RunFilters({
  query,
  update,
  showRange,
  showRunFields,
}: {
  query: RunsQuery;
  update: (change: Partial<RunsQuery>) => void;
  /** the list's time range (the calendar and the timeline pick their own days) */
  showRange: boolean;
  /** state and trigger (the calendar counts every state, of every trigger) */
  showRunFields: boolean;
}) {
  const { t } = useTranslation('run-list');
  const stateLabel = useStateLabel();
  const workflows = useWorkflows({ slow: true }).data;
  const owners = useMemo(
    () => [...new Set((workflows ?? []).flatMap((w) => (w.owner ? [w.owner] : [])))].sort(),
    [workflows],
  );
  const names = useMemo(
    () =>
      (workflows ?? [])
        .filter((w) => !query.owner || w.owner === query.owner)
        .map((w) => w.name)
        .sort(),
    [workflows, query.owner],
  );
  const narrowed =
    query.states.length > 0 ||
    query.triggers.length > 0 ||
    !!query.workflow ||
    !!query.owner ||
    !!query.from ||
    !!query.to;
  return (
    <Flex gap={8} wrap align="center" style={{ marginBottom: 12 }} data-testid="run-filters">
      <Select
        showSearch
        allowClear
        style={{ width: 200 }}
        placeholder={t('filter.allWorkflows')}
        aria-label={t('filter.workflow')}
        data-testid="filter-workflow"
        value={query.workflow}
        onChange={(workflow?: string) => update({ workflow })}
        options={names.map((n) => ({ value: n, label: n }))}
      />
      {owners.length > 0 && (
        <Select
          allowClear
          style={{ width: 160 }}
          placeholder={t('filter.allOwners')}
          aria-label={t('filter.owner')}
          data-testid="filter-owner"
          value={query.owner}
          onChange={(owner?: string) => update({ owner })}
          options={owners.map((o) => ({ value: o, label: o }))}
        />
      )}
      {showRunFields && (
        <Select
          mode="multiple"
          allowClear
          maxTagCount="responsive"
          style={{ width: 220 }}
          placeholder={t('filter.allStates')}
          aria-label={t('filter.state')}
          data-testid="filter-state"
          value={query.states}
          onChange={(states) => update({ states })}
          options={RUN_STATES.map((s) => ({ value: s, label: stateLabel(s) }))}
        />
      )}
      {showRunFields && (
        <Select
          mode="multiple"
          allowClear
          maxTagCount="responsive"
          style={{ width: 200 }}
          placeholder={t('filter.allTriggers')}
          aria-label={t('filter.trigger')}
          data-testid="filter-trigger"
          value={query.triggers}
          onChange={(triggers) => update({ triggers })}
          options={TRIGGER_TYPES.map((tt) => ({ value: tt, label: t(`common:trigger.${tt}`) }))}
        />
      )}
      {showRange && (
        <DatePicker.RangePicker
          allowEmpty={[true, true]}
          aria-label={t('filter.range')}
          data-testid="filter-range"
          placeholder={[t('filter.fromDay'), t('filter.toDay')]}
          value={[query.from ? dayjs(query.from) : null, query.to ? dayjs(query.to) : null]}
          onChange={(range) => update({ from: range?.[0]?.format('YYYY-MM-DD'), to: range?.[1]?.format('YYYY-MM-DD') })}
        />
      )}
      {narrowed && (
        <Button
          icon={<ClearOutlined />}
          onClick={() =>
            update({ states: [], triggers: [], workflow: undefined, owner: undefined, from: undefined, to: undefined })
          }
          data-testid="filter-clear"
        >
          {t('filter.clear')}
        </Button>
      )}
    </Flex>
  );
}
