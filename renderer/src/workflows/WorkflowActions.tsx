// The enable switch and the edit / delete buttons of one workflow (list rows and the detail page),
// and the list row's "…" menu, where Delete sits behind its confirmation. A role that may not
// (useCan): the switch and Edit disabled saying why, Delete left out. `owner`: the workflow's owner
// group, whose editors may change it.
import { DeleteOutlined, EditOutlined, EllipsisOutlined } from '@ant-design/icons';
import { App, Button, Dropdown, Popconfirm, Switch, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { Guarded } from '../people/Guarded.tsx';
import { useCan } from '../people/use-can.ts';
import { useWorkflowActions } from './use-workflow-actions.ts';

export function EnableSwitch({ name, enabled }: { name: string; enabled: boolean }) {
  const { t } = useTranslation('workflows');
  const { setEnabled } = useWorkflowActions();
  const can = useCan()('setEnabled');
  return (
    <Tooltip title={can.why ?? (enabled ? t('enable.onHelp') : t('enable.offHelp'))}>
      <Switch
        disabled={!can.allowed}
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

export function EditButton({
  name,
  owner,
  withText,
  size,
}: {
  name: string;
  owner?: string;
  withText?: boolean;
  size?: 'small' | 'middle';
}) {
  const { t } = useTranslation('workflows');
  const navigate = useNavigate();
  const can = useCan()('apply', owner);
  if (!can.allowed)
    return (
      <Guarded can={can}>
        <Button size={size} icon={<EditOutlined />} aria-label={t('action.editNamed', { name })}>
          {withText ? t('action.edit') : null}
        </Button>
      </Guarded>
    );
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
  owner,
  withText,
  size,
  onDeleted,
}: {
  name: string;
  owner?: string;
  withText?: boolean;
  size?: 'small' | 'middle';
  onDeleted?: () => void;
}) {
  const { t } = useTranslation('workflows');
  const { remove } = useWorkflowActions();
  // the button's tooltip would cover the confirmation's buttons: hidden while it is open
  const [confirming, setConfirming] = useState(false);
  if (!useCan()('removeWorkflow', owner).allowed) return null;
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

/** "…": the row's rarer actions; Delete asks first (the same words as the detail page's button). */
export function MoreMenu({ name, owner }: { name: string; owner?: string }) {
  const { t } = useTranslation('workflows');
  const { modal } = App.useApp();
  const { remove } = useWorkflowActions();
  const navigate = useNavigate();
  const can = useCan();
  const edit = can('apply', owner);
  const canDelete = can('removeWorkflow', owner).allowed;
  const confirmDelete = () =>
    void modal.confirm({
      title: t('delete.title', { name }),
      content: t('delete.description'),
      okText: t('action.delete'),
      okButtonProps: { danger: true },
      cancelText: t('common:action.cancel'),
      onOk: () => remove.mutateAsync(name),
    });
  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      menu={{
        items: [
          {
            key: 'edit',
            icon: <EditOutlined />,
            disabled: !edit.allowed,
            label: edit.allowed ? t('action.edit') : <Tooltip title={edit.why}>{t('action.edit')}</Tooltip>,
          },
          ...(canDelete
            ? [
                { type: 'divider' as const },
                { key: 'delete', icon: <DeleteOutlined />, label: t('action.deleteEllipsis'), danger: true },
              ]
            : []),
        ],
        onClick: ({ key }) => (key === 'edit' ? navigate(`/designer/${encodeURIComponent(name)}`) : confirmDelete()),
      }}
    >
      <Button
        size="small"
        type="text"
        icon={<EllipsisOutlined />}
        aria-label={t('action.moreNamed', { name })}
        title={t('action.more')}
        loading={remove.isPending}
      />
    </Dropdown>
  );
}
