// On an engine without workflows the dashboard is all zeros: say what to do first.
import { PlusOutlined } from '@ant-design/icons';
import { Alert, Button } from 'antd';
import { Trans, useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useWorkflows } from '../server-state/index.ts';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

export function GettingStarted() {
  const { t } = useTranslation('dashboard');
  const navigate = useNavigate();
  const can = useCan()('apply');
  const workflows = useWorkflows();
  if (workflows.data?.length !== 0) return null;
  return (
    <Alert
      type="info"
      showIcon
      style={{ marginBottom: 16 }}
      title={t('start.title')}
      description={<Trans t={t} i18nKey="start.help" components={{ cmd: <code className="ax-cmd" /> }} />}
      action={
        <Guarded can={can} hide>
          <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/designer/new')}>
            {t('start.new')}
          </Button>
        </Guarded>
      }
    />
  );
}
