// "Re-run failed tasks" of a finished run: every task that failed for good and those that did not
// run because of them, with what depends on them, again in the same run. The confirmation says
// how many and which.
import { RedoOutlined } from '@ant-design/icons';
import { Button, Popconfirm } from 'antd';
import { useTranslation } from 'react-i18next';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import { failedTasks } from './run-state.ts';

export function RerunFailedButton({
  instances,
  onConfirm,
  loading,
}: {
  instances: readonly InstanceRecord[];
  onConfirm: () => Promise<unknown>;
  loading: boolean;
}) {
  const { t } = useTranslation('runs');
  const { failed, notRun } = failedTasks(instances);
  const can = useCan()('rerunFailed');
  if (failed.length + notRun.length === 0) return null;
  if (!can.allowed)
    return (
      <Guarded can={can}>
        <Button type="primary" icon={<RedoOutlined />} data-testid="rerun-failed">
          {t('rerunFailed.action')}
        </Button>
      </Guarded>
    );
  const list = (names: string[]) => names.map((n) => `“${n}”`).join(', ');
  return (
    <Popconfirm
      placement="bottomRight"
      title={t('rerunFailed.confirmTitle', { count: failed.length + notRun.length })}
      description={
        <div style={{ maxWidth: 360 }} data-testid="rerun-failed-confirm">
          {failed.length > 0 && <div>{t('rerunFailed.failed', { count: failed.length, tasks: list(failed) })}</div>}
          {notRun.length > 0 && <div>{t('rerunFailed.notRun', { count: notRun.length, tasks: list(notRun) })}</div>}
          <div style={{ marginTop: 4 }}>{t('rerunFailed.confirmText')}</div>
        </div>
      }
      okText={t('rerunFailed.action')}
      cancelText={t('common:action.cancel')}
      onConfirm={onConfirm}
    >
      <Button type="primary" icon={<RedoOutlined />} loading={loading} data-testid="rerun-failed">
        {t('rerunFailed.action')}
      </Button>
    </Popconfirm>
  );
}
