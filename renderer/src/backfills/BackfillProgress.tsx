// A backfill's progress as one bar of its total runs: succeeded (green), failed (red), running
// (blue), the rest still to create; the counts in words beside it and as the bar's value text.
import { Flex, theme, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { BackfillRecord } from '../../../engine/api/backfill.ts';

export function BackfillProgress({ backfill, width = 180 }: { backfill: BackfillRecord; width?: number }) {
  const { t } = useTranslation('backfills');
  const { token } = theme.useToken();
  const { total, done, failed, running } = backfill;
  const ok = Math.max(0, done - failed);
  const share = (n: number) => (total > 0 ? `${(100 * n) / total}%` : '0%');
  const words = t('progress.text', { done, total, failed, running });
  return (
    <Flex vertical gap={2} style={{ minWidth: width }}>
      <div
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={done}
        aria-valuetext={words}
        data-testid={`backfill-progress-${backfill.id}`}
        style={{
          display: 'flex',
          height: 8,
          width,
          borderRadius: 4,
          overflow: 'hidden',
          background: token.colorFillSecondary,
        }}
      >
        <span style={{ width: share(ok), background: token.colorSuccess }} />
        <span style={{ width: share(failed), background: token.colorError }} />
        <span style={{ width: share(running), background: token.colorPrimary, opacity: 0.7 }} />
      </div>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {t('progress.done', { done, total })}
        {failed > 0 && (
          <>
            {' · '}
            <Typography.Text type="danger" style={{ fontSize: 12 }}>
              {t('progress.failed', { count: failed })}
            </Typography.Text>
          </>
        )}
        {running > 0 && ` · ${t('progress.running', { count: running })}`}
      </Typography.Text>
    </Flex>
  );
}
