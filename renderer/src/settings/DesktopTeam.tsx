// This laptop as a temporary worker of the team (desktop app only): the team server's address and
// a worker token (the way in without database passwords), its state, the labels it offers, and
// Join / Leave. The shell carries it out (electron/team-membership.ts); the state
// comes back as window.axDesktop.team events.
import { Alert, App, Button, Card, Checkbox, Col, Flex, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  DESKTOP_SERVER_KEYS,
  type DesktopSettingsBridge,
  type DesktopTeamBridge,
  type DesktopTeamStatus,
} from '../../../engine/api/desktop-bridge.ts';
import { useDesktopSecrets, useDesktopTeam, useJoinOrLeaveTeam } from '../server-state/index.ts';
import { errorMessage, QueryView } from '../shared/feedback.tsx';
import { SecretField } from './SecretField.tsx';

export function DesktopTeam({ team, settings }: { team: DesktopTeamBridge; settings: DesktopSettingsBridge }) {
  const { t } = useTranslation('team-join');
  const status = useDesktopTeam(team);
  return (
    <Col xs={24}>
      <Card title={t('title')} size="small" data-testid="desktop-team">
        <Flex vertical gap={16}>
          <ServerFields settings={settings} />
          <QueryView query={status}>{(data) => <TeamBody status={data} team={team} />}</QueryView>
        </Flex>
      </Card>
    </Col>
  );
}

/** The way in that needs no database password: the team server's address, a worker token, a private CA. */
function ServerFields({ settings }: { settings: DesktopSettingsBridge }) {
  const { t } = useTranslation('team-join');
  const secrets = useDesktopSecrets(settings);
  const data = secrets.data;
  if (!data?.available) return null;
  return (
    <Flex vertical gap={8} data-testid="team-server">
      <Typography.Text strong>{t('viaServer.title')}</Typography.Text>
      <Typography.Text type="secondary">{t('viaServer.intro')}</Typography.Text>
      {DESKTOP_SERVER_KEYS.map((key) => (
        <SecretField key={key} name={key} stored={data.stored[key]} settings={settings} />
      ))}
    </Flex>
  );
}

function TeamBody({ status, team }: { status: DesktopTeamStatus; team: DesktopTeamBridge }) {
  const { t } = useTranslation('team-join');
  const { message } = App.useApp();
  const [labels, setLabels] = useState((status.labels ?? []).join(', '));
  const [acceptUnlabelled, setAcceptUnlabelled] = useState(status.acceptUnlabelled === true);
  const change = useJoinOrLeaveTeam(team, { onError: (error) => void message.error(errorMessage(error)) });
  const act = (join: boolean) =>
    change.mutate({
      join,
      labels: labels
        .split(',')
        .map((l) => l.trim())
        .filter(Boolean),
      acceptUnlabelled,
    });
  const member = status.state === 'joined' || status.state === 'joining';
  return (
    <Flex vertical gap={12}>
      <Typography.Text data-testid="team-state">
        {t(status.state === 'joined' && status.server ? 'state.joinedVia' : `state.${status.state}`, {
          workerId: status.workerId ?? '',
          running: status.running ?? 0,
          server: status.server ?? '',
        })}{' '}
        {status.state === 'joined' && status.labels?.map((l) => <Tag key={l}>{l}</Tag>)}
        {status.state === 'joined' && status.acceptUnlabelled && <Tag color="orange">{t('unlabelledTag')}</Tag>}
      </Typography.Text>
      {status.state === 'failed' && status.message && <Alert type="error" showIcon title={status.message} />}
      {!status.canJoin && <Alert type="info" showIcon title={t('needsConnection')} />}
      <Space.Compact style={{ width: '100%' }}>
        <Input
          aria-label={t('labels')}
          addonBefore={t('labels')}
          placeholder="laptop"
          value={labels}
          disabled={member || status.state === 'leaving'}
          onChange={(e) => setLabels(e.target.value)}
        />
        {member ? (
          <Button danger loading={change.isPending} onClick={() => act(false)}>
            {t('leave')}
          </Button>
        ) : (
          <Button
            type="primary"
            disabled={!status.canJoin || status.state === 'leaving'}
            loading={change.isPending}
            onClick={() => act(true)}
          >
            {t('join')}
          </Button>
        )}
      </Space.Compact>
      <Checkbox
        data-testid="accept-unlabelled"
        checked={acceptUnlabelled}
        disabled={member || status.state === 'leaving'}
        onChange={(e) => setAcceptUnlabelled(e.target.checked)}
      >
        {t('acceptUnlabelled')}
      </Checkbox>
      {acceptUnlabelled && !member && <Alert type="warning" showIcon title={t('acceptUnlabelledWarning')} />}
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {t('hint')}
      </Typography.Paragraph>
    </Flex>
  );
}
