// The signed-in person, top right (team mode with accounts): name, role and groups; Change
// password, Sign out, Sign out everywhere. Solo and the desktop app have one local user and no
// session: nothing is shown.
import { KeyOutlined, LogoutOutlined, SafetyOutlined, UserOutlined } from '@ant-design/icons';
import { App, Button, Dropdown, Flex, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router-dom';
import { ChangePasswordModal } from '../people/ChangePasswordModal.tsx';
import { hasAccounts } from '../people/can.ts';
import { useSignOutEverywhere, useWhoami } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { useSessionActions } from './session-context.ts';

export function UserMenu() {
  const { t } = useTranslation('people');
  const { modal, message } = App.useApp();
  const me = useWhoami().data;
  const session = useSessionActions();
  const navigate = useNavigate();
  const [changing, setChanging] = useState(false);
  const everywhere = useSignOutEverywhere({
    onSuccess: () => session?.signedOut(),
    onError: (error) => void message.error(errorMessage(error)),
  });
  if (!me || !hasAccounts(me)) return null;
  const signedIn = me.via === 'session';
  const confirmEverywhere = () =>
    void modal.confirm({
      title: t('menu.everywhereTitle'),
      content: t('menu.everywhereHelp'),
      okText: t('menu.everywhere'),
      okButtonProps: { danger: true },
      cancelText: t('common:action.cancel'),
      onOk: () => everywhere.mutateAsync(),
    });
  return (
    <>
      <Dropdown
        trigger={['click']}
        placement="bottomRight"
        menu={{
          items: [
            {
              key: 'who',
              disabled: true,
              style: { cursor: 'default' },
              label: (
                <Flex vertical gap={4} style={{ padding: '4px 0', maxWidth: 280 }} data-testid="user-menu-who">
                  <Typography.Text strong>{me.user}</Typography.Text>
                  <span>
                    <Tag color="blue">{t(`role.${me.role}`)}</Tag>
                  </span>
                  <Typography.Text type="secondary" style={{ whiteSpace: 'normal' }}>
                    {me.groups.length ? t('menu.groups', { groups: me.groups.join(', ') }) : t('menu.noGroups')}
                  </Typography.Text>
                </Flex>
              ),
            },
            { type: 'divider' },
            { key: 'tokens', icon: <SafetyOutlined />, label: t('menu.tokens') },
            ...(signedIn
              ? [
                  { key: 'password', icon: <KeyOutlined />, label: t('menu.password') },
                  { type: 'divider' as const },
                  { key: 'signOut', icon: <LogoutOutlined />, label: t('menu.signOut') },
                  { key: 'everywhere', icon: <LogoutOutlined />, label: t('menu.everywhere'), danger: true },
                ]
              : []),
          ],
          onClick: ({ key }) => {
            if (key === 'tokens') navigate('/tokens');
            else if (key === 'password') setChanging(true);
            else if (key === 'signOut') void session?.signOut();
            else if (key === 'everywhere') confirmEverywhere();
          },
        }}
      >
        <Button icon={<UserOutlined />} aria-label={t('menu.label', { user: me.user })} data-testid="user-menu">
          <span style={{ maxWidth: 160, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
            {me.user}
          </span>
        </Button>
      </Dropdown>
      <ChangePasswordModal open={changing} onClose={() => setChanging(false)} />
    </>
  );
}
