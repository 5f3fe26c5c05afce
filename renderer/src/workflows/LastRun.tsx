// A workflow's last run in a list row: its state (a link to the run), when it started and how
// long it took ("3 h ago · 4 min"), or how long it has run so far.
import { Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { WorkflowListing } from '../../../engine/api/engine-api.ts';
import { StateTag } from '../shared/StateTag.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';

export function LastRun({ run, now }: { run: NonNullable<WorkflowListing['lastRun']>; now: number }) {
  const { t } = useTranslation('workflows');
  const fmt = useTimeFormat();
  // never "in 9 s": a monitor's missed run is stamped with its deadline, which may be a hair ahead
  const started = Math.min(run.startedAt ?? run.logicalTime, now);
  const took =
    run.startedAt === undefined
      ? undefined
      : run.finishedAt !== undefined
        ? // a run that never ran (a monitor's missed report) took nothing worth saying
          run.finishedAt > run.startedAt
          ? t('list.took', { d: fmt.duration(run.finishedAt - run.startedAt) })
          : undefined
        : t('list.runningFor', { d: fmt.duration(now - run.startedAt) });
  return (
    <Flex vertical gap={2} align="flex-start" style={{ minWidth: 0 }}>
      <Link to={`/runs/${run.id}`} aria-label={t('list.lastRunLink', { id: run.id })}>
        <StateTag state={run.state} />
      </Link>
      <Typography.Text
        type="secondary"
        style={{ fontSize: 12, maxWidth: '100%' }}
        ellipsis={{ tooltip: `${fmt.dateTime(started)}${took ? ` · ${took}` : ''}` }}
        data-testid="last-run-when"
      >
        {fmt.relative(started, now)}
        {took && ` · ${took}`}
      </Typography.Text>
    </Flex>
  );
}
