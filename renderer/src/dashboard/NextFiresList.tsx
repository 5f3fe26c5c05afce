// The next scheduled fire of every enabled workflow, soonest first: when (in the viewer's zone
// and the schedule's), how soon, and the schedule in words.
import { Flex, List, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { DashboardSummary } from '../../../engine/api/engine-api.ts';
import { EmptyState } from '../shared/feedback.tsx';
import { useScheduleWords } from '../shared/schedule-words.ts';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { When } from '../shared/When.tsx';
import { useWorkflows } from '../server-state/index.ts';

export function NextFiresList({ fires }: { fires: DashboardSummary['nextFires'] }) {
  const { t } = useTranslation('dashboard');
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
      dataSource={fires.slice(0, 8)}
      renderItem={(fire) => (
        <List.Item>
          <Flex vertical gap={2} style={{ minWidth: 0, width: '100%' }}>
            <Flex justify="space-between" gap={12}>
              <Link
                to={`/workflows/${encodeURIComponent(fire.workflow)}`}
                style={{ fontWeight: 500, wordBreak: 'break-word' }}
              >
                {fire.workflow}
              </Link>
              <Typography.Text type="secondary" style={{ whiteSpace: 'nowrap' }}>
                {fmt.relative(fire.at, now)}
              </Typography.Text>
            </Flex>
            <When ms={fire.at} zone={fire.timezone} stacked />
            <Typography.Text type="secondary" style={{ fontSize: 12 }}>
              {words(cronOf.get(fire.workflow), fire.scheduleText)}
            </Typography.Text>
          </Flex>
        </List.Item>
      )}
    />
  );
}
