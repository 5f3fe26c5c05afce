// The desktop app's own settings (shown only in the app): where its engine's data lives, with the
// `ax --data-dir` line that works on it; how its secrets are kept (safeStorage's backend, said
// plainly when it is only plain text); the team's database connection strings, stored encrypted by
// the shell (the server and token of a join through a server are in the team card, DesktopTeam.tsx).
import { Alert, Card, Col, Descriptions, Flex, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import {
  DESKTOP_DATABASE_KEYS,
  type DesktopSecretsStatus,
  type DesktopSettingsBridge,
} from '../../../engine/api/desktop-bridge.ts';
import { useDesktop } from '../desktop/desktop-context.ts';
import { SecretField } from './SecretField.tsx';
import { TaskSecretsSettings } from './TaskSecretsSettings.tsx';
import { useDesktopSecrets, useSetDesktopSecrets } from '../server-state/index.ts';
import { QueryView } from '../shared/feedback.tsx';
import { DesktopLocalApi } from './DesktopLocalApi.tsx';
import { DesktopTeam } from './DesktopTeam.tsx';

const labelStyle = { styles: { label: { width: 200 } } };

/** 'os', a Linux keyring, 'basic_text' or 'unavailable' → the words for it */
function backendKey(backend: string): string {
  if (backend.startsWith('kwallet')) return 'kwallet';
  return ['os', 'gnome_libsecret', 'basic_text', 'unavailable'].includes(backend) ? backend : 'other';
}

export function DesktopSettings() {
  const desktop = useDesktop();
  if (!desktop) return null;
  const { team, localApi } = desktop.bridge;
  return (
    <>
      <DesktopSettingsCard settings={desktop.bridge.settings} />
      {team && <DesktopTeam team={team} settings={desktop.bridge.settings} />}
      {localApi && <DesktopLocalApi localApi={localApi} onEngineStatus={desktop.bridge.onEngineStatus} />}
    </>
  );
}

function DesktopSettingsCard({ settings }: { settings: DesktopSettingsBridge }) {
  const { t } = useTranslation('settings');
  const status = useDesktopSecrets(settings);
  return (
    <Col xs={24}>
      <Card title={t('desktop.title')} size="small" data-testid="desktop-settings">
        <QueryView query={status}>{(data) => <DesktopSettingsBody status={data} settings={settings} />}</QueryView>
      </Card>
    </Col>
  );
}

function StorageAlert({ status }: { status: DesktopSecretsStatus }) {
  const { t } = useTranslation('settings');
  if (status.backend === 'unavailable') return <Alert type="error" showIcon title={t('desktop.storage.unavailable')} />;
  if (status.plaintext)
    return (
      <Alert
        type="warning"
        showIcon
        title={t('desktop.storage.plainTitle')}
        description={t('desktop.storage.plainBody', { file: status.file })}
      />
    );
  return (
    <Alert
      type="success"
      showIcon
      title={t('desktop.storage.encrypted', {
        backend: t(`desktop.backend.${backendKey(status.backend)}`, { name: status.backend }),
      })}
    />
  );
}

function DesktopSettingsBody({ status, settings }: { status: DesktopSecretsStatus; settings: DesktopSettingsBridge }) {
  const { t } = useTranslation('settings');
  const command = `ax --data-dir "${status.dataDir}" ls`;
  const putStatus = useSetDesktopSecrets();
  return (
    <Flex vertical gap={12}>
      <Descriptions
        column={1}
        size="small"
        {...labelStyle}
        items={[
          {
            key: 'data',
            label: t('desktop.dataDir'),
            children: (
              <Flex vertical gap={2}>
                <Typography.Text code copyable data-testid="desktop-data-dir">
                  {status.dataDir}
                </Typography.Text>
                <Typography.Text type="secondary">
                  {t('desktop.dataDirHint')}{' '}
                  <Typography.Text code copyable>
                    {command}
                  </Typography.Text>
                </Typography.Text>
              </Flex>
            ),
          },
          {
            key: 'backend',
            label: t('desktop.backendLabel'),
            children: t(`desktop.backend.${backendKey(status.backend)}`, { name: status.backend }),
          },
        ]}
      />
      <StorageAlert status={status} />
      {status.unreadable.length > 0 && (
        <Alert type="warning" showIcon title={t('desktop.unreadable', { keys: status.unreadable.join(', ') })} />
      )}
      {status.available &&
        DESKTOP_DATABASE_KEYS.map((key) => (
          <SecretField key={key} name={key} stored={status.stored[key]} settings={settings} />
        ))}
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {t('desktop.restartNote')}
      </Typography.Paragraph>
      <TaskSecretsSettings status={status} settings={settings} onStatus={putStatus} />
    </Flex>
  );
}
