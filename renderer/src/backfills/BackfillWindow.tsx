// A backfill's window as dates ("2026-11-01 → 2026-11-30"), the full instants in the tooltip.
import { Tooltip } from 'antd';
import type { BackfillRecord } from '../../../engine/api/backfill.ts';
import { dayjs } from '../shared/day.ts';
import { useTimeFormat } from '../shared/use-time-format.ts';

export function BackfillWindow({ backfill }: { backfill: Pick<BackfillRecord, 'from' | 'to' | 'every'> }) {
  const fmt = useTimeFormat();
  const day = (ms: number) => dayjs(ms).format('YYYY-MM-DD');
  return (
    <Tooltip title={`${fmt.dateTime(backfill.from)} → ${fmt.dateTime(backfill.to)}`}>
      <span style={{ whiteSpace: 'nowrap' }}>
        {day(backfill.from)} → {day(backfill.to)}
        {backfill.every ? ` · ${backfill.every}` : ''}
      </span>
    </Tooltip>
  );
}
