// A run at a glance: workflow, how it was started and by whom, its logical time, state and
// duration (live while it runs), its params and the backfill it belongs to.
import { Card, Descriptions, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router-dom';
import type { RunRecord } from '../../../engine/api/types.ts';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { ParamValues } from '../shared/ParamValues.tsx';
import { useReasonText } from '../shared/reason-text.ts';
import { When } from '../shared/When.tsx';
import { showBidiControls } from '../../../engine/api/bidi-text.ts';

export function RunSummary({ run, live }: { run: RunRecord; live: boolean }) {
  const { t } = useTranslation('runs');
  const now = useNow(live ? 1000 : 60_000);
  const fmt = useTimeFormat();
  const reason = useReasonText()(run);
  const from = run.startedAt ?? run.createdAt;
  const took = (run.finishedAt ?? now) - from;
  return (
    <Card size="small">
      <Descriptions
        size="small"
        column={{ xs: 1, sm: 2, lg: 4 }}
        items={[
          {
            key: 'workflow',
            label: t('summary.workflow'),
            children: <Link to={`/workflows/${encodeURIComponent(run.workflowName)}`}>{run.workflowName}</Link>,
          },
          {
            key: 'trigger',
            label: t('summary.trigger'),
            children: t(`common:trigger.${run.trigger}`, { defaultValue: run.trigger }),
          },
          { key: 'who', label: t('summary.who'), children: run.triggeredBy || '—' },
          { key: 'logical', label: t('summary.logicalTime'), children: <When ms={run.logicalTime} /> },
          { key: 'started', label: t('summary.started'), children: <When ms={run.startedAt} /> },
          { key: 'finished', label: t('summary.finished'), children: <When ms={run.finishedAt} /> },
          { key: 'duration', label: t('summary.duration'), children: fmt.duration(Math.max(0, took)) },
          ...(run.onlyTask ? [{ key: 'only', label: t('summary.onlyTask'), children: run.onlyTask }] : []),
          ...(run.backfillId !== undefined
            ? [
                {
                  key: 'backfill',
                  label: t('summary.backfill'),
                  children: (
                    <Link to={`/backfills/${run.backfillId}`} data-testid="run-backfill">
                      {t('backfills:name', { id: run.backfillId })}
                    </Link>
                  ),
                },
              ]
            : []),
          ...(run.params && Object.keys(run.params).length > 0
            ? [
                {
                  key: 'params',
                  label: t('summary.params'),
                  span: 'filled' as const,
                  children: <ParamValues params={run.params} testId="run-params" />,
                },
              ]
            : []),
          ...(reason
            ? [
                {
                  key: 'reason',
                  label: t('summary.reason'),
                  span: 'filled' as const,
                  children: (
                    <Typography.Text style={{ whiteSpace: 'pre-wrap' }}>{showBidiControls(reason)}</Typography.Text>
                  ),
                },
              ]
            : []),
        ]}
      />
    </Card>
  );
}
