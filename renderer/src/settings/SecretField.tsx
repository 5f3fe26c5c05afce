// A value the desktop app keeps encrypted (a connection string, the team server's address, a worker
// token, a CA file's path): what is stored, shown masked, a field to replace it, Save and Forget.
import { App, Button, Input, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DesktopSecretKey, DesktopSettingsBridge } from '../../../engine/api/desktop-bridge.ts';
import { useSetDesktopSecret } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

/** One stored value: what is kept (masked), a field to replace it, Save and Forget; an address or a path is typed in the clear. */
export function SecretField({
  name,
  stored,
  settings,
}: {
  name: DesktopSecretKey;
  stored: string | undefined;
  settings: DesktopSettingsBridge;
}) {
  const Field = name === 'server' || name === 'caFile' ? Input : Input.Password;
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const [value, setValue] = useState('');
  const save = useSetDesktopSecret(settings, name, {
    onSuccess: (_next, sent) => {
      setValue('');
      void message.success(t(sent === null ? 'desktop.forgotten' : 'desktop.saved'));
    },
    onError: (error) => void message.error(errorMessage(error)),
  });
  return (
    <div data-testid={`secret-${name}`}>
      <Typography.Text strong>{t(`field.${name}`)}</Typography.Text>{' '}
      <Typography.Text type="secondary">{stored ? <code>{stored}</code> : t('none')}</Typography.Text>
      <Space.Compact style={{ width: '100%', marginTop: 4 }}>
        <Field
          aria-label={t(`field.${name}`)}
          placeholder={t(`desktop.placeholder.${name}`)}
          value={value}
          autoComplete="off"
          onChange={(e) => setValue(e.target.value)}
        />
        <Button
          type="primary"
          disabled={value.trim() === ''}
          loading={save.isPending}
          onClick={() => save.mutate(value.trim())}
        >
          {t('desktop.save')}
        </Button>
        {stored && (
          <Button danger onClick={() => save.mutate(null)}>
            {t('desktop.forget')}
          </Button>
        )}
      </Space.Compact>
    </div>
  );
}
