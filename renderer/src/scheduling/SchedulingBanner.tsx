// On every screen while all scheduling is paused: since when, by whom, what that means, and the
// way back.
import { Alert, Button } from 'antd';
import { Trans, useTranslation } from 'react-i18next';
import { When } from '../shared/When.tsx';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';
import { useSchedulingPause, useSetSchedulingPaused } from './use-scheduling.ts';

export function SchedulingBanner() {
  const { t } = useTranslation('scheduling');
  const pause = useSchedulingPause();
  const set = useSetSchedulingPaused();
  const can = useCan()('setSchedulingPaused');
  if (!pause) return null;
  return (
    <Alert
      type="warning"
      showIcon
      banner
      role="status"
      data-testid="scheduling-paused-banner"
      title={
        <Trans
          t={t}
          i18nKey="banner.title"
          values={{ by: pause.by }}
          components={{ when: <When ms={pause.since} /> }}
        />
      }
      description={t('banner.body')}
      action={
        <Guarded can={can} hide>
          <Button size="small" type="primary" loading={set.isPending} onClick={() => set.mutate(false)}>
            {t('resume')}
          </Button>
        </Guarded>
      }
    />
  );
}
