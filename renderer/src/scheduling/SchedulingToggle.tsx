// The switch for all scheduling (the dashboard's header): "Pause all scheduling" asks first, as
// it holds back every schedule and event; "Resume scheduling" does not.
import { PauseCircleOutlined, PlayCircleOutlined } from '@ant-design/icons';
import { Button, Popconfirm } from 'antd';
import { useTranslation } from 'react-i18next';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';
import { useSchedulingPause, useSetSchedulingPaused } from './use-scheduling.ts';

export function SchedulingToggle() {
  const { t } = useTranslation('scheduling');
  const pause = useSchedulingPause();
  const set = useSetSchedulingPaused();
  const can = useCan()('setSchedulingPaused');
  if (pause === undefined) return null;
  if (pause) {
    return (
      <Guarded can={can}>
        <Button
          type="primary"
          icon={<PlayCircleOutlined />}
          loading={set.isPending}
          onClick={() => set.mutate(false)}
          data-testid="scheduling-toggle"
        >
          {t('resume')}
        </Button>
      </Guarded>
    );
  }
  return (
    <Guarded can={can}>
      <Popconfirm
        title={t('confirm.title')}
        description={<div style={{ maxWidth: 320 }}>{t('confirm.body')}</div>}
        okText={t('confirm.ok')}
        cancelText={t('common:action.cancel')}
        onConfirm={() => set.mutate(true)}
      >
        <Button icon={<PauseCircleOutlined />} loading={set.isPending} data-testid="scheduling-toggle">
          {t('pause')}
        </Button>
      </Popconfirm>
    </Guarded>
  );
}
