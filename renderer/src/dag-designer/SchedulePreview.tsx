// The schedule "in words" and its next five fires, live while the cron is typed (useFirePreview
// in server-state/): the engine computes them (its own cron reader and zone rules), so the
// preview cannot disagree with what will run. Times are in the viewer's zone, with the schedule's zone beside them when it differs.
import { ClockCircleOutlined } from '@ant-design/icons';
import { Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FirePreview } from '../../../engine/api/engine-api.ts';
import { describeSchedule } from '../shared/schedule-words.ts';
import { useTimeFormat } from '../shared/use-time-format.ts';

export function SchedulePreview({ preview, cron }: { preview: FirePreview | undefined; cron: string }) {
  const { t, i18n } = useTranslation('designer');
  const fmt = useTimeFormat();
  if (!preview) return null;
  const words = describeSchedule(i18n.language, { cron, timezone: preview.timezone }, preview.text);
  return (
    <Flex vertical gap={4} data-testid="schedule-preview" style={{ marginBottom: 14 }}>
      <Typography.Text>
        <ClockCircleOutlined aria-hidden /> {words}
      </Typography.Text>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('schedule.nextFires')}
      </Typography.Text>
      <ol style={{ margin: 0, paddingInlineStart: 20, fontSize: 12 }}>
        {preview.times.map((ms) => {
          const z = fmt.inZones(ms, preview.timezone);
          return (
            <li key={ms}>
              {z.main}
              {z.other && (
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>{` · ${z.other}`}</Typography.Text>
              )}
            </li>
          );
        })}
      </ol>
    </Flex>
  );
}
