// The backfill dialog's preview of a dry run: how many runs, the first and last logical times,
// how many already exist (left out unless "re-run existing"), and the engine's notes; over the
// limit, that it needs "force".
import { Alert, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { BACKFILL_FORCE_LIMIT, type BackfillPlan } from '../../../engine/api/backfill.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';

export function BackfillPreview({
  plan,
  error,
  loading,
  incomplete,
}: {
  plan?: BackfillPlan;
  error: Error | null;
  loading: boolean;
  /** what is missing before a preview can be asked (a sentence), if anything */
  incomplete?: string;
}) {
  const { t } = useTranslation('backfills');
  const fmt = useTimeFormat();
  const common = { showIcon: true, 'data-testid': 'backfill-preview', role: 'status' } as const;
  if (incomplete) return <Alert {...common} type="info" data-state="incomplete" title={incomplete} />;
  if (error) return <Alert {...common} type="error" data-state="error" title={errorMessage(error)} />;
  if (!plan) return <Alert {...common} type="info" data-state="loading" title={t('preview.loading')} />;
  const first = plan.logicalTimes[0];
  const last = plan.logicalTimes[plan.logicalTimes.length - 1];
  const over = plan.total > BACKFILL_FORCE_LIMIT;
  const title =
    plan.total === 0
      ? t('preview.none')
      : plan.total === 1
        ? t('preview.one', { at: fmt.dateTime(first as number) })
        : t('preview.many', {
            n: plan.total.toLocaleString(),
            first: fmt.dateTime(first as number),
            last: fmt.dateTime(last as number),
          });
  return (
    <Alert
      {...common}
      type={plan.total === 0 || over ? 'warning' : 'info'}
      data-state={over ? 'over-limit' : 'ok'}
      data-total={plan.total}
      style={{ opacity: loading ? 0.6 : 1 }}
      title={title}
      description={
        (plan.skippedExisting.length > 0 || over || (plan.notes?.length ?? 0) > 0) && (
          <>
            {plan.skippedExisting.length > 0 && (
              <div>{t('preview.existing', { count: plan.skippedExisting.length })}</div>
            )}
            {over && (
              <div data-testid="backfill-over-limit">
                {t('preview.overLimit', { limit: BACKFILL_FORCE_LIMIT.toLocaleString() })}
              </div>
            )}
            {plan.notes?.map((note) => (
              <Typography.Text key={note} type="secondary" style={{ display: 'block' }}>
                {note}
              </Typography.Text>
            ))}
          </>
        )
      }
    />
  );
}
