// The next scheduled fire of every enabled workflow, soonest first, one line each: the workflow,
// then when in the schedule's own zone, named ("02:00 Europe/Berlin · in 3 h"). The schedule in
// words and the time in the viewer's zone are in the tooltip.
import { Flex, List, Tooltip, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { DashboardSummary } from '../../../engine/api/engine-api.ts';
import { EmptyState } from '../shared/feedback.tsx';
import { useScheduleWords } from '../shared/schedule-words.ts';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { useWorkflows } from '../server-state/index.ts';
import { fireTime } from './fire-time.ts';

export function NextFiresList({ fires }: { fires: DashboardSummary['nextFires'] }) {
  const { t, i18n } = useTranslation('dashboard');
  const fmt = useTimeFormat();
  const words = useScheduleWords();
  const now = useNow(5_000);
  // the cron of each workflow, to describe it in the viewer's language (the summary has English words)
  const workflows = useWorkflows();
  if (fires.length === 0) return <EmptyState title={t('next.none')}>{t('next.noneHelp')}</EmptyState>;
  const cronOf = new Map((workflows.data ?? []).map((w) => [w.name, w.schedule]));
  return (
    <List
      size="small"
      dataSource={fires.slice(0, 10)}
      renderItem={(fire) => (
        <List.Item style={{ paddingInline: 0 }} data-testid="next-fire">
          <Flex justify="space-between" gap={12} style={{ minWidth: 0, width: '100%' }}>
            <Link
              to={`/workflows/${encodeURIComponent(fire.workflow)}`}
              style={{
                fontWeight: 500,
                minWidth: 0,
                overflow: 'hidden',
                textOverflow: 'ellipsis',
                whiteSpace: 'nowrap',
              }}
              title={fire.workflow}
            >
              {fire.workflow}
            </Link>
            <Tooltip
              title={
                <>
                  <div>{words(cronOf.get(fire.workflow), fire.scheduleText)}</div>
                  <div>{t('next.yourTime', { time: fmt.dateTime(fire.at), zone: fmt.zone })}</div>
                </>
              }
            >
              <Typography.Text style={{ whiteSpace: 'nowrap', flex: 'none' }}>
                <time dateTime={new Date(fire.at).toISOString()}>
                  {fireTime(fire.at, fire.timezone, now, i18n.language)}
                </time>{' '}
                <Typography.Text type="secondary">
                  {fire.timezone} · {fmt.relative(fire.at, now)}
                </Typography.Text>
              </Typography.Text>
            </Tooltip>
          </Flex>
        </List.Item>
      )}
    />
  );
}
