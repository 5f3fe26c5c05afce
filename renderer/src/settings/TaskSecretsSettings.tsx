// The desktop app's task secrets: the values that workflows refer to by name
// (env: { API_TOKEN: { secret: api-token } }), kept encrypted by the shell and handed to this
// computer's engine only. Names and when they were set are listed; a value is never shown, only
// replaced or removed. Where the storage is plain text this says so, as the storage alert does.
import { DeleteOutlined, LockOutlined } from '@ant-design/icons';
import { Alert, App, Button, Flex, Input, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type {
  DesktopSecretsStatus,
  DesktopSettingsBridge,
  DesktopTaskSecret,
} from '../../../engine/api/desktop-bridge.ts';
import { SECRET_NAME } from '../../../engine/api/secrets.ts';
import { useSetTaskSecret } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { useTimeFormat } from '../shared/use-time-format.ts';

interface Props {
  status: DesktopSecretsStatus;
  settings: DesktopSettingsBridge;
  /** the shell's answer after a change: the new status */
  onStatus: (status: DesktopSecretsStatus) => void;
}

export function TaskSecretsSettings({ status, settings, onStatus }: Props) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const time = useTimeFormat();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const save = useSetTaskSecret(settings, {
    onSuccess: (next, sent) => {
      onStatus(next);
      setName('');
      setValue('');
      void message.success(
        t(sent.next === null ? 'desktop.taskSecrets.removed' : 'desktop.taskSecrets.saved', { name: sent.secret }),
      );
    },
    onError: (error) => void message.error(errorMessage(error)),
  });
  const nameProblem = name !== '' && !SECRET_NAME.test(name);
  const cli = `ax --data-dir "${status.dataDir}" secrets set NAME`;

  return (
    <Flex vertical gap={8} data-testid="task-secrets">
      <Typography.Text strong>
        <LockOutlined /> {t('desktop.taskSecrets.title')}
      </Typography.Text>
      <Typography.Text type="secondary">{t('desktop.taskSecrets.intro')}</Typography.Text>
      {status.plaintext && (
        <Alert type="warning" showIcon title={t('desktop.taskSecrets.plain', { file: status.file })} />
      )}
      {!status.available && (
        <Alert
          type="error"
          showIcon
          title={t('desktop.taskSecrets.unavailable')}
          description={
            <Typography.Text code copyable>
              {cli}
            </Typography.Text>
          }
        />
      )}
      <Table<DesktopTaskSecret>
        size="small"
        rowKey="name"
        pagination={false}
        dataSource={status.taskSecrets}
        locale={{ emptyText: t('desktop.taskSecrets.none') }}
        columns={[
          {
            key: 'name',
            title: t('desktop.taskSecrets.name'),
            render: (_, s) => (
              <Space>
                <Typography.Text code>{s.name}</Typography.Text>
                {s.unreadable && <Tag color="warning">{t('desktop.taskSecrets.unreadable')}</Tag>}
              </Space>
            ),
          },
          {
            key: 'set',
            title: t('desktop.taskSecrets.setAt'),
            render: (_, s) => (s.setAt ? time.dateTime(s.setAt) : '-'),
          },
          {
            key: 'actions',
            title: '',
            align: 'right',
            render: (_, s) => (
              <Popconfirm
                title={t('desktop.taskSecrets.removeConfirm', { name: s.name })}
                onConfirm={() => save.mutate({ secret: s.name, next: null })}
              >
                <Button
                  size="small"
                  danger
                  icon={<DeleteOutlined />}
                  aria-label={t('desktop.taskSecrets.remove', { name: s.name })}
                />
              </Popconfirm>
            ),
          },
        ]}
      />
      {status.available && (
        <Flex vertical gap={2}>
          <Space.Compact style={{ width: '100%' }}>
            <Input
              aria-label={t('desktop.taskSecrets.name')}
              placeholder={t('desktop.taskSecrets.namePlaceholder')}
              value={name}
              status={nameProblem ? 'error' : undefined}
              onChange={(e) => setName(e.target.value)}
              style={{ flex: '0 0 35%' }}
            />
            <Input.Password
              aria-label={t('desktop.taskSecrets.value')}
              placeholder={t('desktop.taskSecrets.valuePlaceholder')}
              value={value}
              autoComplete="off"
              onChange={(e) => setValue(e.target.value)}
            />
            <Button
              type="primary"
              disabled={name === '' || nameProblem || value === ''}
              loading={save.isPending}
              onClick={() => save.mutate({ secret: name, next: value })}
            >
              {t('desktop.save')}
            </Button>
          </Space.Compact>
          {nameProblem && (
            <Typography.Text type="danger" style={{ fontSize: 12 }}>
              {t('desktop.taskSecrets.badName')}
            </Typography.Text>
          )}
        </Flex>
      )}
    </Flex>
  );
}
