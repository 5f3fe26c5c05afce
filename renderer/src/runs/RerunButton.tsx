// "Re-run" for a task, after a confirmation that names it (the engine re-runs it and its
// downstream). The table, the graph and the instance page show the same one.
import { RedoOutlined } from '@ant-design/icons';
import { Button, Popconfirm } from 'antd';
import { useTranslation } from 'react-i18next';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';

interface Props {
  task: string;
  /** a promise keeps the confirmation's OK button spinning until the engine has answered */
  onConfirm: () => Promise<unknown>;
  loading?: boolean;
  size?: 'small';
  'data-testid'?: string;
}

export function RerunButton({ task, onConfirm, loading, size, 'data-testid': testId }: Props) {
  const { t } = useTranslation('runs');
  const can = useCan()('rerunTask');
  if (!can.allowed)
    return (
      <Guarded can={can}>
        <Button size={size} type="primary" icon={<RedoOutlined />} data-testid={testId}>
          {t('rerun.action')}
        </Button>
      </Guarded>
    );
  return (
    // topRight: the confirmation grows leftwards from the button, which often sits at the right
    // edge (the table's last column, the instance page's header); centred, it was pushed flush
    // against the edge and cut by the window's scrollbar
    <Popconfirm
      placement="topRight"
      title={t('rerun.confirmTitle', { task })}
      description={<div style={{ maxWidth: 320 }}>{t('rerun.confirmText')}</div>}
      okText={t('rerun.action')}
      cancelText={t('common:action.cancel')}
      onConfirm={onConfirm}
    >
      <Button size={size} type="primary" icon={<RedoOutlined />} loading={loading} data-testid={testId}>
        {t('rerun.action')}
      </Button>
    </Popconfirm>
  );
}
