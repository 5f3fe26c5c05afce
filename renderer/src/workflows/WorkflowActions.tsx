// The enable switch and the edit / delete buttons of one workflow (list rows and the detail page).
import { DeleteOutlined, EditOutlined } from '@ant-design/icons';
import { Button, Popconfirm, Switch, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { useWorkflowActions } from './use-workflow-actions.ts';

export function EnableSwitch({ name, enabled }: { name: string; enabled: boolean }) {
  const { t } = useTranslation('workflows');
  const { setEnabled } = useWorkflowActions();
  return (
    <Tooltip title={enabled ? t('enable.onHelp') : t('enable.offHelp')}>
      <Switch
        checked={enabled}
        loading={setEnabled.isPending}
        aria-label={t('enable.label', { name })}
        checkedChildren={t('enable.on')}
        unCheckedChildren={t('enable.off')}
        onChange={(checked) => setEnabled.mutate({ name, enabled: checked })}
      />
    </Tooltip>
  );
}

export function EditButton({ name, withText, size }: { name: string; withText?: boolean; size?: 'small' | 'middle' }) {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  const button = (
    <Button
      size={size}
      icon={<EditOutlined />}
      aria-label={t('action.editNamed', { name })}
      onClick={() => navigate(`/designer/${encodeURIComponent(name)}`)}
    >
      {withText ? t('action.edit') : null}
    </Button>
  );
  return withText ? button : <Tooltip title={t('action.edit')}>{button}</Tooltip>;
}

export function DeleteButton({
  name,
  withText,
  size,
  onDeleted,
}: {
  name: string;
  withText?: boolean;
  size?: 'small' | 'middle';
  onDeleted?: () => void;
}) {
  const { t } = useTranslation('workflows');
  const { remove } = useWorkflowActions();
  // the button's tooltip would cover the confirmation's buttons: hidden while it is open
  const [confirming, setConfirming] = useState(false);
  const button = (
    <Button
      size={size}
      danger
      icon={<DeleteOutlined />}
      aria-label={t('action.deleteNamed', { name })}
      loading={remove.isPending}
    >
      {withText ? t('action.delete') : null}
    </Button>
  );
  return (
    <Popconfirm
      title={t('delete.title', { name })}
      description={t('delete.description')}
      okText={t('action.delete')}
      okButtonProps={{ danger: true }}
      cancelText={t('common:action.cancel')}
      open={confirming}
      onOpenChange={setConfirming}
      onConfirm={() => remove.mutateAsync(name).then(() => onDeleted?.())}
    >
      {withText ? (
        button
      ) : (
        <Tooltip title={t('action.delete')} open={confirming ? false : undefined}>
          {button}
        </Tooltip>
      )}
    </Popconfirm>
  );
}
