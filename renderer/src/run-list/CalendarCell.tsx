// One square of the calendar: coloured by how the runs ended (calendar-cells.ts), the failed
// count written in it when it is large enough (so a failure is not told by colour alone), its
// counts in its accessible name and in the hover card.
import { theme } from 'antd';
import type { CSSProperties } from 'react';
import { cellTone, totalOf, type DayCounts } from './calendar-cells.ts';

export interface CellHover {
  counts: DayCounts;
  day: string;
  workflow?: string;
  /** the square's box, for placing the hover card */
  rect: DOMRect;
}

export function CalendarCell({
  counts,
  max,
  day,
  workflow,
  size,
  label,
  onPick,
  onHover,
}: {
  counts: DayCounts;
  max: number;
  day: string;
  workflow?: string;
  size: number;
  label: string;
  onPick: () => void;
  onHover: (hover: CellHover | undefined) => void;
}) {
  const { token } = theme.useToken();
  const { tone, strength } = cellTone(counts, max);
  const base =
    tone === 'failed'
      ? token.colorError
      : tone === 'success'
        ? token.colorSuccess
        : tone === 'active'
          ? token.colorInfo
          : tone === 'other'
            ? token.colorTextQuaternary
            : undefined;
  const style: CSSProperties = {
    width: '100%',
    height: size,
    padding: 0,
    border: 0,
    borderRadius: 3,
    cursor: totalOf(counts) > 0 ? 'pointer' : 'default',
    background: base
      ? `color-mix(in srgb, ${base} ${Math.round(strength * 100)}%, transparent)`
      : token.colorFillTertiary,
    // white on a strong square, the error text colour on a pale one (contrast in both themes)
    color: strength >= 0.75 ? '#fff' : token.colorErrorText,
    fontSize: 10,
    fontWeight: 600,
    lineHeight: `${size}px`,
    overflow: 'hidden',
  };
  const show = (el: HTMLElement) => onHover({ counts, day, workflow, rect: el.getBoundingClientRect() });
  return (
    <button
      type="button"
      style={style}
      aria-label={label}
      data-day={day}
      data-workflow={workflow}
      data-tone={tone}
      data-testid="calendar-cell"
      onClick={totalOf(counts) > 0 ? onPick : undefined}
      onMouseEnter={(e) => show(e.currentTarget)}
      onFocus={(e) => show(e.currentTarget)}
      onMouseLeave={() => onHover(undefined)}
      onBlur={() => onHover(undefined)}
    >
      {tone === 'failed' && size >= 16 ? counts.failed : null}
    </button>
  );
}
