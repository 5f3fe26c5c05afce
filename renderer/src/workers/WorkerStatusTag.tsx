// A worker's status with its own icon (never by colour alone).
import { CheckCircleOutlined, MinusCircleOutlined, PauseCircleOutlined, WarningOutlined } from '@ant-design/icons';
import { Tag } from 'antd';
import { useTranslation } from 'react-i18next';
import type { WorkerRecord } from '../../../engine/api/types.ts';

const LOOK: Record<WorkerRecord['status'], { icon: React.ReactNode; color: string }> = {
  online: { icon: <CheckCircleOutlined aria-hidden />, color: 'success' },
  draining: { icon: <PauseCircleOutlined aria-hidden />, color: 'warning' },
  lost: { icon: <WarningOutlined aria-hidden />, color: 'error' },
  offline: { icon: <MinusCircleOutlined aria-hidden />, color: 'default' },
};

export function WorkerStatusTag({ status }: { status: WorkerRecord['status'] }) {
  const { t } = useTranslation('workers');
  const look = LOOK[status] ?? LOOK.offline;
  return (
    <Tag icon={look.icon} color={look.color} data-status={status} style={{ marginInlineEnd: 0 }}>
      {t(`status.${status}`)}
    </Tag>
  );
}
