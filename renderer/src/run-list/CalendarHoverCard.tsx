// The counts of the square under the pointer (or focus), in a card above it: one card for the
// whole calendar rather than a tooltip per square (a year × 50 workflows is thousands of them).
import { theme, Typography } from 'antd';
import type { RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { totalOf } from './calendar-cells.ts';
import type { CellHover } from './CalendarCell.tsx';
import { useDayLabel } from './day-label.ts';

export function CalendarHoverCard({
  hover,
  container,
}: {
  hover?: CellHover;
  container: RefObject<HTMLElement | null>;
}) {
  const { t } = useTranslation('run-list');
  const { token } = theme.useToken();
  const dayLabel = useDayLabel();
  const box = container.current?.getBoundingClientRect();
  if (!hover || !box) return null;
  const { counts } = hover;
  const left = hover.rect.left - box.left + hover.rect.width / 2;
  const top = hover.rect.top - box.top - 6;
  const lines = [
    counts.success > 0 && t('calendar.success', { count: counts.success }),
    counts.failed > 0 && t('calendar.failed', { count: counts.failed }),
    counts.active > 0 && t('calendar.active', { count: counts.active }),
    counts.other > 0 && t('calendar.other', { count: counts.other }),
  ].filter((l): l is string => !!l);
  return (
    <div
      role="status"
      data-testid="calendar-hover"
      style={{
        position: 'absolute',
        left: Math.max(90, Math.min(left, box.width - 90)),
        top,
        transform: 'translate(-50%, -100%)',
        pointerEvents: 'none',
        zIndex: 10,
        minWidth: 170,
        padding: '6px 10px',
        borderRadius: token.borderRadius,
        background: token.colorBgElevated,
        boxShadow: token.boxShadowSecondary,
        fontSize: 12,
      }}
    >
      <div style={{ fontWeight: 600 }}>{dayLabel(hover.day, true)}</div>
      {hover.workflow && <div style={{ wordBreak: 'break-word' }}>{hover.workflow}</div>}
      {lines.length === 0 ? (
        <Typography.Text type="secondary">{t('calendar.noRuns')}</Typography.Text>
      ) : (
        lines.map((line) => <div key={line}>{line}</div>)
      )}
      {totalOf(counts) > 0 && <Typography.Text type="secondary">{t('calendar.clickHint')}</Typography.Text>}
    </div>
  );
}
