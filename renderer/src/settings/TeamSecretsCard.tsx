// Team mode: the team's secrets, which workflows refer to by name like this node's own
// (env: { WH: { secret: warehouse } }), kept encrypted in the team database. Names, groups, who
// set them and when are listed; a value is never shown, only replaced or removed, and only by
// those allowed (admins; editors of the secret's group): the others see why not.
import { DeleteOutlined, LockOutlined } from '@ant-design/icons';
import { Alert, App, Button, Card, Col, Flex, Input, Popconfirm, Space, Table, Tooltip, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Principal } from '../../../engine/api/access.ts';
import { mayChangeTeamSecret, SECRET_NAME, type TeamSecretInfo } from '../../../engine/api/secrets.ts';
import { useRemoveTeamSecret, useSetTeamSecret, useTeamSecrets, useWhoami } from '../server-state/index.ts';
import { errorMessage, QueryView } from '../shared/feedback.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/;

export function TeamSecretsCard() {
  const { t } = useTranslation('settings');
  const list = useTeamSecrets(true);
  const me = useWhoami().data;
  return (
    <Col xs={24}>
      <Card
        size="small"
        data-testid="team-secrets"
        title={
          <>
            <LockOutlined /> {t('teamSecrets.title')}
          </>
        }
      >
        <Typography.Paragraph type="secondary">{t('teamSecrets.intro')}</Typography.Paragraph>
        <QueryView query={list}>{(data) => <SecretTable secrets={data} me={me} />}</QueryView>
        {me && <SetForm me={me} />}
      </Card>
    </Col>
  );
}

function SecretTable({ secrets, me }: { secrets: TeamSecretInfo[]; me: Principal | undefined }) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const time = useTimeFormat();
  const remove = useRemoveTeamSecret({
    onSuccess: (_, name) => void message.success(t('teamSecrets.removed', { name })),
    onError: (error) => void message.error(errorMessage(error)),
  });
  return (
    <Table<TeamSecretInfo>
      size="small"
      rowKey="name"
      pagination={false}
      dataSource={secrets}
      locale={{ emptyText: t('teamSecrets.none') }}
      columns={[
        {
          key: 'name',
          title: t('teamSecrets.name'),
          render: (_, s) => <Typography.Text code>{s.name}</Typography.Text>,
        },
        {
          key: 'group',
          title: t('teamSecrets.group'),
          render: (_, s) =>
            s.group ?? <Typography.Text type="secondary">{t('teamSecrets.anyWorkflow')}</Typography.Text>,
        },
        { key: 'by', title: t('teamSecrets.setBy'), render: (_, s) => s.setBy },
        { key: 'at', title: t('teamSecrets.setAt'), render: (_, s) => time.dateTime(s.setAt) },
        {
          key: 'actions',
          title: '',
          align: 'right',
          render: (_, s) => {
            const allowed = me !== undefined && mayChangeTeamSecret(me, s.group);
            const label = t('teamSecrets.remove', { name: s.name });
            if (!allowed)
              return (
                <Tooltip title={whyNot(t, me, s.group)}>
                  <Button size="small" danger disabled icon={<DeleteOutlined />} aria-label={label} />
                </Tooltip>
              );
            return (
              <Popconfirm
                title={t('teamSecrets.removeConfirm', { name: s.name })}
                onConfirm={() => remove.mutate(s.name)}
              >
                <Button size="small" danger icon={<DeleteOutlined />} aria-label={label} />
              </Popconfirm>
            );
          },
        },
      ]}
    />
  );
}

type T = ReturnType<typeof useTranslation<'settings'>>['t'];

/** why this person may not change a secret of `group`: the role, or the group they are not in */
function whyNot(t: T, me: Principal | undefined, group: string | undefined): string {
  if (!me || (me.role !== 'admin' && me.role !== 'editor'))
    return t('teamSecrets.needsEditor', { role: me?.role ?? '-' });
  return t('teamSecrets.needsGroup', { group: group ?? '' });
}

function SetForm({ me }: { me: Principal }) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const [name, setName] = useState('');
  const [group, setGroup] = useState('');
  const [value, setValue] = useState('');
  const save = useSetTeamSecret({
    onSuccess: (info) => {
      setName('');
      setValue('');
      void message.success(t('teamSecrets.saved', { name: info.name }));
    },
    onError: (error) => void message.error(errorMessage(error)),
  });
  if (me.role !== 'admin' && me.role !== 'editor')
    return <Alert type="info" showIcon style={{ marginTop: 12 }} title={whyNot(t, me, undefined)} />;
  const nameProblem = name !== '' && !SECRET_NAME.test(name);
  const groupProblem = group !== '' && !GROUP_NAME.test(group);
  const groupRefused = group !== '' && !groupProblem && !mayChangeTeamSecret(me, group);
  return (
    <Flex vertical gap={2} style={{ marginTop: 12 }}>
      <Space.Compact style={{ width: '100%' }}>
        <Input
          aria-label={t('teamSecrets.name')}
          placeholder={t('teamSecrets.namePlaceholder')}
          value={name}
          status={nameProblem ? 'error' : undefined}
          onChange={(e) => setName(e.target.value)}
          style={{ flex: '0 0 25%' }}
        />
        <Input
          aria-label={t('teamSecrets.group')}
          placeholder={t('teamSecrets.groupPlaceholder')}
          value={group}
          status={groupProblem || groupRefused ? 'error' : undefined}
          onChange={(e) => setGroup(e.target.value.trim())}
          style={{ flex: '0 0 25%' }}
        />
        <Input.Password
          aria-label={t('teamSecrets.value')}
          placeholder={t('teamSecrets.valuePlaceholder')}
          value={value}
          autoComplete="off"
          onChange={(e) => setValue(e.target.value)}
        />
        <Button
          type="primary"
          disabled={name === '' || value === '' || nameProblem || groupProblem || groupRefused}
          loading={save.isPending}
          onClick={() => save.mutate({ name, value, ...(group !== '' && { group }) })}
        >
          {t('teamSecrets.save')}
        </Button>
      </Space.Compact>
      {nameProblem && (
        <Typography.Text type="danger" style={{ fontSize: 12 }}>
          {t('desktop.taskSecrets.badName')}
        </Typography.Text>
      )}
      {groupProblem && (
        <Typography.Text type="danger" style={{ fontSize: 12 }}>
          {t('teamSecrets.badGroup')}
        </Typography.Text>
      )}
      {groupRefused && (
        <Typography.Text type="danger" style={{ fontSize: 12 }}>
          {whyNot(t, me, group)}
        </Typography.Text>
      )}
    </Flex>
  );
}
