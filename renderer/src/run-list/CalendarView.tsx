// The runs calendar: a week or a month as days × workflows, a quarter or a year as one heatmap
// of days. Squares are coloured by how the runs of that day ended; a click lists them.
import { Flex, Segmented, theme, Typography } from 'antd';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useRunCalendar } from '../server-state/index.ts';
import { ErrorState, LoadingState } from '../shared/feedback.tsx';
import { viewerZone } from '../shared/time.ts';
import { calendarGrid, daysEnding, type DayCounts } from './calendar-cells.ts';
import type { CellHover } from './CalendarCell.tsx';
import { CalendarHoverCard } from './CalendarHoverCard.tsx';
import { CalendarMatrix } from './CalendarMatrix.tsx';
import { CalendarYear } from './CalendarYear.tsx';
import { useDayLabel } from './day-label.ts';
import { CALENDAR_RANGES, dayEnd, dayOf, dayStart, type CalendarRange, type RunsQuery } from './run-filters.ts';

function Legend() {
  const { t } = useTranslation('run-list');
  const { token } = theme.useToken();
  const swatch = (color: string | undefined, label: string) => (
    <Flex key={label} align="center" gap={6}>
      <span
        aria-hidden
        style={{
          width: 12,
          height: 12,
          borderRadius: 3,
          background: color ? `color-mix(in srgb, ${color} 85%, transparent)` : token.colorFillTertiary,
        }}
      />
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {label}
      </Typography.Text>
    </Flex>
  );
  return (
    <Flex gap={16} wrap data-testid="calendar-legend">
      {swatch(token.colorSuccess, t('legend.success'))}
      {swatch(token.colorError, t('legend.failed'))}
      {swatch(token.colorInfo, t('legend.active'))}
      {swatch(token.colorTextQuaternary, t('legend.other'))}
      {swatch(undefined, t('legend.none'))}
    </Flex>
  );
}

export function CalendarView({ query, update }: { query: RunsQuery; update: (change: Partial<RunsQuery>) => void }) {
  const { t } = useTranslation('run-list');
  const dayLabel = useDayLabel();
  const zone = viewerZone();
  const today = dayOf(Date.now());
  const days = useMemo(() => daysEnding(today, query.range), [today, query.range]);
  const asked = {
    from: dayStart(days[0] as string),
    to: dayEnd(today),
    zone,
    workflow: query.workflow,
    owner: query.owner,
  };
  const calendar = useRunCalendar(asked);
  const grid = useMemo(() => calendarGrid(calendar.data?.cells ?? []), [calendar.data]);
  const [hover, setHover] = useState<CellHover>();
  const box = useRef<HTMLDivElement>(null);
  const countsLabel = (c: DayCounts, day: string, workflow?: string) =>
    [
      workflow ?? t('calendar.allWorkflows'),
      dayLabel(day, true),
      t('calendar.counts', { success: c.success, failed: c.failed, active: c.active, other: c.other }),
    ].join(' · ');
  const pick = (day: string, workflow?: string) =>
    update({ view: 'list', from: day, to: day, workflow: workflow ?? query.workflow });
  const year = query.range > 31;
  return (
    <div data-testid="run-calendar">
      <Flex justify="space-between" align="center" gap={12} wrap style={{ marginBottom: 12 }}>
        <Segmented<CalendarRange>
          value={query.range}
          onChange={(range) => update({ range })}
          options={CALENDAR_RANGES.map((r) => ({ value: r, label: t('calendar.range', { count: r }) }))}
          data-testid="calendar-range"
        />
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {t('calendar.explain', { zone })}
        </Typography.Text>
      </Flex>
      {calendar.error ? (
        <ErrorState error={calendar.error} onRetry={() => void calendar.refetch()} />
      ) : !calendar.data ? (
        <LoadingState />
      ) : (
        <div ref={box} style={{ position: 'relative' }} data-testid="calendar-loaded">
          {grid.workflows.length === 0 && (
            <Typography.Paragraph type="secondary">{t('calendar.empty')}</Typography.Paragraph>
          )}
          {year ? (
            <CalendarYear days={days} grid={grid} onPick={pick} onHover={setHover} countsLabel={countsLabel} />
          ) : (
            <CalendarMatrix
              days={days}
              grid={grid}
              onPick={pick}
              onOpenDay={(day) => update({ view: 'day', day })}
              onHover={setHover}
              countsLabel={countsLabel}
            />
          )}
          <CalendarHoverCard hover={hover} container={box} />
        </div>
      )}
      <Flex justify="space-between" gap={12} wrap style={{ marginTop: 16 }}>
        <Legend />
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          {year ? t('calendar.yearHint') : t('calendar.monthHint')}
        </Typography.Text>
      </Flex>
    </div>
  );
}
