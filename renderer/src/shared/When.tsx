// An instant as people read it: the viewer's local time, the schedule's zone beside it when it
// differs, and "12 s ago" in the tooltip (or inline with `relative`).
import { Tooltip, Typography } from 'antd';
import { useTimeFormat } from './use-time-format.ts';

/** `stacked` puts the schedule's zone on its own line (narrow table cells) */
export function When({
  ms,
  zone,
  relative,
  now,
  stacked,
}: {
  ms?: number;
  zone?: string;
  relative?: boolean;
  now?: number;
  stacked?: boolean;
}) {
  const fmt = useTimeFormat();
  if (ms === undefined || ms === null) return <Typography.Text type="secondary">—</Typography.Text>;
  const { main, other } = fmt.inZones(ms, zone);
  const rel = fmt.relative(ms, now);
  return (
    <Tooltip title={`${rel} · ${fmt.zone}`}>
      <time dateTime={new Date(ms).toISOString()} style={{ whiteSpace: 'nowrap' }}>
        {relative ? rel : main}
      </time>
      {other && (
        <Typography.Text
          type="secondary"
          style={stacked ? { display: 'block', fontSize: 12 } : { marginInlineStart: 6, whiteSpace: 'nowrap' }}
        >
          {stacked ? other : `(${other})`}
        </Typography.Text>
      )}
    </Tooltip>
  );
}
