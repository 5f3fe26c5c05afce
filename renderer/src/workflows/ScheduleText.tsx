// How a workflow starts, in words: its schedule with the time zone, an event, the engine's start, or
// only by hand; a monitor's schedule says when its reported runs are due (design.md §13).
import { EyeOutlined, PoweroffOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import { useScheduleWords } from '../shared/schedule-words.ts';
import { useTimeFormat } from '../shared/use-time-format.ts';

export function ScheduleText({
  workflow,
}: {
  workflow: Pick<WorkflowListing, 'schedule' | 'scheduleText' | 'onEvent' | 'onEngineStart' | 'monitor'>;
}) {
  const { t } = useTranslation('workflows');
  const words = useScheduleWords();
  const fmt = useTimeFormat();
  const { schedule, onEvent, onEngineStart } = workflow;
  // a second line under a schedule or an event is small and grey; alone it is the line
  const minor = schedule !== undefined || onEvent !== undefined;
  const scheduleText = words(schedule, workflow.scheduleText);
  return (
    <Flex vertical gap={2}>
      {schedule ? (
        <>
          <Typography.Text>{scheduleText ?? schedule.cron}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            <code style={{ whiteSpace: 'nowrap' }}>{schedule.cron}</code>
            {scheduleText?.includes(schedule.timezone) ? null : ` · ${schedule.timezone}`}
          </Typography.Text>
        </>
      ) : !onEvent && !onEngineStart ? (
        <Typography.Text type="secondary">{t('schedule.manual')}</Typography.Text>
      ) : null}
      {workflow.monitor && (
        <Typography.Text type="secondary" style={{ fontSize: 12 }}>
          <EyeOutlined aria-hidden /> {t('schedule.monitor', { grace: fmt.duration(workflow.monitor.graceMs) })}
        </Typography.Text>
      )}
      {onEvent && (
        <Typography.Text type={schedule ? 'secondary' : undefined} style={schedule ? { fontSize: 12 } : undefined}>
          <ThunderboltOutlined aria-hidden /> {t('schedule.onEvent', { event: onEvent })}
        </Typography.Text>
      )}
      {onEngineStart && (
        <Typography.Text
          type={minor ? 'secondary' : undefined}
          style={minor ? { fontSize: 12 } : undefined}
          data-testid="on-engine-start"
        >
          <PoweroffOutlined aria-hidden /> {t('schedule.onEngineStart')}
        </Typography.Text>
      )}
    </Flex>
  );
}
