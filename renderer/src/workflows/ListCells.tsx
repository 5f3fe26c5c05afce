// The workflows list's schedule and next-fire cells, two short lines at most so nine rows fit a
// 900 px window: the details (the cron, the viewer's own time) are in tooltips.
import { EyeOutlined, PoweroffOutlined, ThunderboltOutlined } from '@ant-design/icons';
import { Flex, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import { fireTime } from '../dashboard/fire-time.ts';
import { useScheduleWords } from '../shared/schedule-words.ts';
import { useTimeFormat } from '../shared/use-time-format.ts';

const minor = { fontSize: 12 } as const;

export function ScheduleCell({ workflow }: { workflow: WorkflowListing }) {
  const { t } = useTranslation('workflows');
  const words = useScheduleWords();
  const fmt = useTimeFormat();
  const { schedule, onEvent, onEngineStart, monitor } = workflow;
  const text = schedule ? (words(schedule, workflow.scheduleText) ?? schedule.cron) : undefined;
  // the second line: the cron, and what else starts it (or that it is a monitor)
  const parts = [
    schedule && <code key="cron">{schedule.cron}</code>,
    monitor && (
      <span key="monitor">
        <EyeOutlined aria-hidden /> {t('schedule.monitor', { grace: fmt.duration(monitor.graceMs) })}
      </span>
    ),
    onEvent && (
      <span key="event">
        <ThunderboltOutlined aria-hidden /> {t('schedule.onEvent', { event: onEvent })}
      </span>
    ),
    onEngineStart && (
      <span key="start" data-testid="on-engine-start">
        <PoweroffOutlined aria-hidden /> {t('schedule.onEngineStart')}
      </span>
    ),
  ].filter(Boolean);
  const second = parts.length ? parts.flatMap((p, i) => (i ? [' · ', p] : [p])) : undefined;
  return (
    <Flex vertical gap={0} style={{ minWidth: 0 }}>
      {text ? (
        <Typography.Text ellipsis={{ tooltip: `${text} · ${schedule?.cron}` }}>{text}</Typography.Text>
      ) : !onEvent && !onEngineStart ? (
        <Typography.Text type="secondary">{t('schedule.manual')}</Typography.Text>
      ) : null}
      {second && (
        <Typography.Text
          type={text ? 'secondary' : undefined}
          style={text ? minor : undefined}
          ellipsis={{ tooltip: true }}
        >
          {second}
        </Typography.Text>
      )}
    </Flex>
  );
}

/** "in 3 h" over "02:00 Europe/Berlin" (the schedule's zone); the viewer's time in the tooltip */
export function NextFireCell({ at, zone, now }: { at: number; zone: string; now: number }) {
  const { i18n } = useTranslation();
  const fmt = useTimeFormat();
  return (
    <Tooltip title={`${fmt.dateTime(at)} · ${fmt.zone}`}>
      <Flex vertical gap={0} style={{ minWidth: 0 }}>
        <time dateTime={new Date(at).toISOString()} style={{ whiteSpace: 'nowrap' }}>
          {fmt.relative(at, now)}
        </time>
        <Typography.Text type="secondary" style={minor} ellipsis>
          {fireTime(at, zone, now, i18n.language)} {zone}
        </Typography.Text>
      </Flex>
    </Tooltip>
  );
}
