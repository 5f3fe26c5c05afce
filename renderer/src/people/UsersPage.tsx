// #/users — the accounts (admins): who, role, groups, where the account comes from, the last
// sign-in, locked and disabled; Add user; per row Edit (role, groups), Reset password, Unlock,
// Disable / Enable, Remove. Below, the groups with their Private switch.
import { EllipsisOutlined, PlusOutlined } from '@ant-design/icons';
import { App, Button, Dropdown, Flex, Table, Tag, Tooltip } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { UserRecord } from '../../../engine/api/access.ts';
import { useRemoveUser, useUpdateUser, useUsers, useWhoami } from '../server-state/index.ts';
import { EmptyState, ErrorState, errorMessage } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { When } from '../shared/When.tsx';
import { isAdmin } from './can.ts';
import { GroupsCard } from './GroupsCard.tsx';
import { ResetPasswordModal } from './ResetPasswordModal.tsx';
import { UserFormModal } from './UserFormModal.tsx';

export function isLocked(user: UserRecord, now = Date.now()): boolean {
  return user.lockedUntil !== undefined && user.lockedUntil !== null && user.lockedUntil > now;
}

export default function UsersPage() {
  const { t } = useTranslation('people');
  const me = useWhoami().data;
  const admin = isAdmin(me);
  const users = useUsers(admin);
  const { message, modal } = App.useApp();
  const [editing, setEditing] = useState<UserRecord | 'new' | undefined>();
  const [resetting, setResetting] = useState<string | undefined>();
  const update = useUpdateUser({ onError: (error) => void message.error(errorMessage(error)) });
  const remove = useRemoveUser({
    onSuccess: (_, name) => void message.success(t('users.removed', { name })),
    onError: (error) => void message.error(errorMessage(error)),
  });

  const act = (user: UserRecord, key: string) => {
    if (key === 'edit') setEditing(user);
    else if (key === 'reset') setResetting(user.name);
    else if (key === 'unlock')
      update.mutate(
        { name: user.name, change: { unlock: true } },
        { onSuccess: () => void message.success(t('users.unlocked', { name: user.name })) },
      );
    else if (key === 'disable' || key === 'enable')
      update.mutate(
        { name: user.name, change: { disabled: key === 'disable' } },
        { onSuccess: () => void message.success(t(`users.${key}d`, { name: user.name })) },
      );
    else if (key === 'remove')
      void modal.confirm({
        title: t('users.removeTitle', { name: user.name }),
        content: t('users.removeHelp'),
        okText: t('users.remove'),
        okButtonProps: { danger: true },
        cancelText: t('common:action.cancel'),
        onOk: () => remove.mutateAsync(user.name),
      });
  };

  if (me && !admin) return <EmptyState title={t('users.adminsOnly', { role: t(`role.${me.role}`) })} />;
  return (
    <>
      <PageHeader
        title={t('users.title')}
        subtitle={t('users.subtitle')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing('new')} data-testid="add-user">
            {t('users.add')}
          </Button>
        }
      />
      {users.error && !users.data ? (
        <ErrorState error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <Flex vertical gap={24}>
          <Table<UserRecord>
            rowKey="name"
            size="small"
            loading={users.isPending}
            dataSource={users.data ?? []}
            pagination={{ pageSize: 50, hideOnSinglePage: true }}
            scroll={{ x: 720 }}
            columns={[
              {
                title: t('users.name'),
                dataIndex: 'name',
                render: (name: string) => (
                  <span data-testid={`user-${name}`}>
                    {name}
                    {name === me?.user && <Tag style={{ marginInlineStart: 6 }}>{t('users.you')}</Tag>}
                  </span>
                ),
              },
              {
                title: t('users.role'),
                key: 'role',
                render: (_, u) => (
                  <Tooltip title={t(`roleHelp.${u.role}`)}>
                    <Tag color={u.role === 'admin' ? 'red' : u.role === 'viewer' ? 'default' : 'blue'}>
                      {t(`role.${u.role}`)}
                    </Tag>
                  </Tooltip>
                ),
              },
              {
                title: t('users.groups'),
                key: 'groups',
                render: (_, u) => (u.groups.length ? u.groups.map((g) => <Tag key={g}>{g}</Tag>) : '—'),
              },
              { title: t('users.source'), key: 'source', render: (_, u) => t(`source.${u.source}`) },
              {
                title: t('users.lastSignIn'),
                key: 'last',
                render: (_, u) => (u.lastSignInAt ? <When ms={u.lastSignInAt} /> : t('users.never')),
              },
              {
                title: t('users.status'),
                key: 'status',
                render: (_, u) => (
                  <Flex gap={4} wrap>
                    {u.disabled && <Tag color="default">{t('users.disabledTag')}</Tag>}
                    {isLocked(u) && (
                      <Tooltip title={t('users.lockedHelp')}>
                        <Tag color="orange">{t('users.lockedTag')}</Tag>
                      </Tooltip>
                    )}
                    {!u.disabled && !isLocked(u) && <Tag color="green">{t('users.activeTag')}</Tag>}
                  </Flex>
                ),
              },
              {
                title: '',
                key: 'actions',
                width: 56,
                // stays in view when a narrow window scrolls the table sideways
                fixed: 'right' as const,
                render: (_, u) => (
                  <Dropdown
                    trigger={['click']}
                    menu={{
                      items: [
                        { key: 'edit', label: t('users.edit') },
                        ...(u.source === 'local' ? [{ key: 'reset', label: t('users.reset') }] : []),
                        ...(isLocked(u) ? [{ key: 'unlock', label: t('users.unlock') }] : []),
                        u.disabled
                          ? { key: 'enable', label: t('users.enable') }
                          : { key: 'disable', label: t('users.disable') },
                        { type: 'divider' as const },
                        { key: 'remove', label: t('users.removeEllipsis'), danger: true },
                      ],
                      onClick: ({ key }) => act(u, key),
                    }}
                  >
                    <Button
                      size="small"
                      type="text"
                      icon={<EllipsisOutlined />}
                      aria-label={t('users.actionsNamed', { name: u.name })}
                      title={t('users.actions')}
                      data-testid={`user-actions-${u.name}`}
                    />
                  </Dropdown>
                ),
              },
            ]}
          />
          <GroupsCard users={users.data ?? []} />
        </Flex>
      )}
      <UserFormModal
        open={editing !== undefined}
        user={editing === 'new' ? undefined : editing}
        onClose={() => setEditing(undefined)}
        onDone={(name) => {
          void message.success(t(editing === 'new' ? 'users.added' : 'users.saved', { name }));
          setEditing(undefined);
        }}
      />
      <ResetPasswordModal
        user={resetting}
        onClose={() => setResetting(undefined)}
        onDone={(name) => {
          void message.success(t('reset.done', { name }));
          setResetting(undefined);
        }}
      />
    </>
  );
}
