// Settings › Local API (desktop app only): whether the engine also serves its API on 127.0.0.1,
// so `ax` commands and scripts on this machine reach the app's engine. Off by default (the app
// needs no port); a change restarts the engine, which the card says before it is made.
import { App, Card, Col, Flex, Switch, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type {
  DesktopEngineStatus,
  DesktopLocalApiBridge,
  DesktopLocalApiStatus,
} from '../../../engine/api/desktop-bridge.ts';
import { useDesktopLocalApi, useSetLocalApi } from '../server-state/index.ts';
import { errorMessage, QueryView } from '../shared/feedback.tsx';

export function DesktopLocalApi({
  localApi,
  onEngineStatus,
}: {
  localApi: DesktopLocalApiBridge;
  onEngineStatus: (listener: (s: DesktopEngineStatus) => void) => () => void;
}) {
  const { t } = useTranslation('settings');
  // the port comes with the engine's next start: read again whenever the engine's state moves
  const status = useDesktopLocalApi(localApi, onEngineStatus);
  return (
    <Col xs={24}>
      <Card title={t('localApi.title')} size="small" data-testid="desktop-local-api">
        <QueryView query={status}>{(data) => <LocalApiBody status={data} localApi={localApi} />}</QueryView>
      </Card>
    </Col>
  );
}

function LocalApiBody({ status, localApi }: { status: DesktopLocalApiStatus; localApi: DesktopLocalApiBridge }) {
  const { t } = useTranslation('settings');
  const { message } = App.useApp();
  const change = useSetLocalApi(localApi, { onError: (error) => void message.error(errorMessage(error)) });
  const on = status.enabled || status.forcedBySwitch;
  return (
    <Flex vertical gap={10}>
      <Flex gap={10} align="center">
        <Switch
          checked={on}
          disabled={status.forcedBySwitch}
          loading={change.isPending}
          onChange={(enabled) => change.mutate(enabled)}
          aria-label={t('localApi.switch')}
        />
        <Typography.Text>{t('localApi.switch')}</Typography.Text>
      </Flex>
      <Typography.Text type="secondary">{t('localApi.what')}</Typography.Text>
      <Typography.Text type="secondary">{t('localApi.restart')}</Typography.Text>
      {status.forcedBySwitch && <Typography.Text type="secondary">{t('localApi.forced')}</Typography.Text>}
      {on && status.port !== undefined && (
        <Typography.Text data-testid="local-api-port">
          {t('localApi.listening', { port: status.port })}{' '}
          <Typography.Text code copyable>{`ax --data-dir "${status.dataDir ?? ''}" ls`}</Typography.Text>
        </Typography.Text>
      )}
      {on && status.port === undefined && <Typography.Text type="secondary">{t('localApi.starting')}</Typography.Text>}
    </Flex>
  );
}
