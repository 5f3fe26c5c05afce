// A quarter or a year as one heatmap of days (weeks across, Monday to Sunday down), over the
// workflows the filter keeps: where a year of runs fits on one screen. A square lists that
// day's runs; its tooltip has the counts.
import { theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { NO_RUNS, type CalendarGrid, type DayCounts } from './calendar-cells.ts';
import { CalendarCell, type CellHover } from './CalendarCell.tsx';
import { dayStart } from './run-filters.ts';

const CELL = 14;

/** Monday 0 … Sunday 6 */
const weekday = (day: string) => (new Date(dayStart(day)).getDay() + 6) % 7;

export function CalendarYear({
  days,
  grid,
  onPick,
  onHover,
  countsLabel,
}: {
  days: string[];
  grid: CalendarGrid;
  onPick: (day: string) => void;
  onHover: (hover: CellHover | undefined) => void;
  countsLabel: (counts: DayCounts, day: string) => string;
}) {
  const { i18n } = useTranslation('run-list');
  const { token } = theme.useToken();
  const locale = i18n.language === 'zh-CN' ? 'zh-CN' : 'en-GB';
  const month = new Intl.DateTimeFormat(locale, { month: 'short' });
  const weekdayName = new Intl.DateTimeFormat(locale, { weekday: 'short' });
  const first = days[0] ? weekday(days[0]) : 0;
  const weeks = Math.ceil((first + days.length) / 7);
  const labelStyle = { fontSize: 11, color: token.colorTextTertiary, whiteSpace: 'nowrap' } as const;
  return (
    <div
      data-testid="calendar-year"
      style={{
        display: 'grid',
        gridTemplateColumns: `36px repeat(${weeks}, minmax(${CELL}px, 1fr))`,
        gridTemplateRows: `16px repeat(7, ${CELL}px)`,
        gap: 3,
        overflowX: 'auto',
      }}
    >
      {/* weekday names: Monday, Wednesday, Friday (2024-01-01 was a Monday) */}
      {[0, 2, 4].map((d) => (
        <span key={d} style={{ ...labelStyle, gridColumn: 1, gridRow: d + 2, lineHeight: `${CELL}px` }}>
          {weekdayName.format(new Date(2024, 0, 1 + d))}
        </span>
      ))}
      {days.map((day, i) => {
        const column = Math.floor((first + i) / 7) + 2;
        const date = new Date(dayStart(day));
        return date.getDate() === 1 || i === 0 ? (
          <span key={`m${day}`} style={{ ...labelStyle, gridColumn: `${column} / span 3`, gridRow: 1 }}>
            {month.format(date)}
          </span>
        ) : null;
      })}
      {days.map((day, i) => {
        const counts = grid.byDay.get(day) ?? NO_RUNS;
        return (
          <div key={day} style={{ gridColumn: Math.floor((first + i) / 7) + 2, gridRow: weekday(day) + 2 }}>
            <CalendarCell
              counts={counts}
              max={grid.maxDay}
              day={day}
              size={CELL}
              label={countsLabel(counts, day)}
              onPick={() => onPick(day)}
              onHover={onHover}
            />
          </div>
        );
      })}
    </div>
  );
}
