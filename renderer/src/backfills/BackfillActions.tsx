// Cancel a running backfill (after a confirmation: its live runs are stopped, no more are
// created) and re-run a finished one's failed runs; shared by the list and the backfill's page.
import { RedoOutlined, StopOutlined } from '@ant-design/icons';
import { App, Button, Popconfirm } from 'antd';
import { useTranslation } from 'react-i18next';
import type { BackfillRecord } from '../../../engine/api/backfill.ts';
import { useCancelBackfill, useRerunBackfillFailed } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

export function BackfillActions({ backfill, size }: { backfill: BackfillRecord; size?: 'small' }) {
  const { t } = useTranslation('backfills');
  const { message } = App.useApp();
  const onError = (error: Error) => void message.error(errorMessage(error));
  const cancel = useCancelBackfill({
    onSuccess: (_d, id) => void message.success(t('toast.cancelled', { id })),
    onError,
  });
  const rerun = useRerunBackfillFailed({
    onSuccess: (_d, id) => void message.success(t('toast.rerun', { id, count: backfill.failed })),
    onError,
  });
  const can = useCan();
  const { id } = backfill;
  if (backfill.state === 'RUNNING')
    return (
      <Guarded can={can('cancelBackfill')}>
        <Popconfirm
          placement="topRight"
          title={t('cancel.title', { id })}
          description={<div style={{ maxWidth: 320 }}>{t('cancel.text', { count: backfill.running })}</div>}
          okText={t('cancel.action')}
          okButtonProps={{ danger: true }}
          cancelText={t('cancel.keep')}
          onConfirm={() => cancel.mutateAsync(id)}
        >
          <Button
            size={size}
            danger
            icon={<StopOutlined />}
            loading={cancel.isPending}
            data-testid={`cancel-backfill-${id}`}
          >
            {t('cancel.action')}
          </Button>
        </Popconfirm>
      </Guarded>
    );
  if (backfill.failed > 0)
    return (
      <Guarded can={can('rerunBackfillFailed')}>
        <Popconfirm
          placement="topRight"
          title={t('rerun.title', { count: backfill.failed })}
          description={<div style={{ maxWidth: 320 }}>{t('rerun.text')}</div>}
          okText={t('rerun.action')}
          cancelText={t('common:action.cancel')}
          onConfirm={() => rerun.mutateAsync(id)}
        >
          <Button size={size} icon={<RedoOutlined />} loading={rerun.isPending} data-testid={`rerun-backfill-${id}`}>
            {t('rerun.action')}
          </Button>
        </Popconfirm>
      </Guarded>
    );
  return null;
}
