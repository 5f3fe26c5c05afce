// Days × workflows (a week or a month): each workflow a row, each day a column, "All workflows"
// on top. A square lists that workflow's runs of that day; a day's heading opens its timeline.
import { theme, Tooltip, Typography } from 'antd';
import { Fragment } from 'react';
import { useTranslation } from 'react-i18next';
import { cellKey, NO_RUNS, type CalendarGrid, type DayCounts } from './calendar-cells.ts';
import { CalendarCell, type CellHover } from './CalendarCell.tsx';
import { useDayLabel } from './day-label.ts';
import { dayStart } from './run-filters.ts';

const CELL = 20;

export function CalendarMatrix({
  days,
  grid,
  onPick,
  onOpenDay,
  onHover,
  countsLabel,
}: {
  days: string[];
  grid: CalendarGrid;
  onPick: (day: string, workflow?: string) => void;
  onOpenDay: (day: string) => void;
  onHover: (hover: CellHover | undefined) => void;
  countsLabel: (counts: DayCounts, day: string, workflow?: string) => string;
}) {
  const { t, i18n } = useTranslation('run-list');
  const { token } = theme.useToken();
  const dayLabel = useDayLabel();
  const locale = i18n.language === 'zh-CN' ? 'zh-CN' : 'en-GB';
  const month = new Intl.DateTimeFormat(locale, { month: 'short' });
  const rows: { workflow?: string; label: string }[] = [
    { label: t('calendar.allWorkflows') },
    ...grid.workflows.map((w) => ({ workflow: w, label: w })),
  ];
  return (
    <div
      data-testid="calendar-matrix"
      style={{
        display: 'grid',
        gridTemplateColumns: `minmax(120px, 200px) repeat(${days.length}, minmax(14px, 1fr))`,
        gap: 3,
        alignItems: 'center',
        overflowX: 'auto',
      }}
    >
      <span />
      {days.map((day, i) => {
        const date = new Date(dayStart(day));
        const weekend = date.getDay() === 0 || date.getDay() === 6;
        return (
          <Tooltip key={day} title={t('calendar.openDay', { day: dayLabel(day, true) })}>
            <button
              type="button"
              onClick={() => onOpenDay(day)}
              data-testid="calendar-day"
              data-day={day}
              aria-label={t('calendar.openDay', { day: dayLabel(day, true) })}
              style={{
                border: 0,
                background: 'none',
                padding: 0,
                cursor: 'pointer',
                fontSize: 11,
                lineHeight: 1.2,
                color: weekend ? token.colorTextTertiary : token.colorTextSecondary,
                textAlign: 'center',
                whiteSpace: 'nowrap',
              }}
            >
              <div style={{ height: 13, fontWeight: 600 }}>
                {i === 0 || date.getDate() === 1 ? month.format(date) : ''}
              </div>
              {date.getDate()}
            </button>
          </Tooltip>
        );
      })}
      {rows.map((row) => (
        <Fragment key={row.workflow ?? ''}>
          <Typography.Text
            ellipsis={{ tooltip: row.label }}
            strong={row.workflow === undefined}
            style={{ fontSize: 13, paddingInlineEnd: 8 }}
          >
            {row.label}
          </Typography.Text>
          {days.map((day) => {
            const counts =
              (row.workflow === undefined ? grid.byDay.get(day) : grid.byCell.get(cellKey(row.workflow, day))) ??
              NO_RUNS;
            return (
              <CalendarCell
                key={day}
                counts={counts}
                max={row.workflow === undefined ? grid.maxDay : grid.maxCell}
                day={day}
                workflow={row.workflow}
                size={CELL}
                label={countsLabel(counts, day, row.workflow)}
                onPick={() => onPick(day, row.workflow)}
                onHover={onHover}
              />
            );
          })}
        </Fragment>
      ))}
    </div>
  );
}
