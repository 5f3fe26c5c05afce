// This laptop as a temporary worker of the team (desktop app only): its state, the labels it
// offers, and Join / Leave. The shell carries it out (electron/team-membership.ts); the state
// comes back as window.axDesktop.team events.
import { Alert, App, Button, Card, Checkbox, Col, Flex, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DesktopTeamBridge, DesktopTeamStatus } from '../../../engine/api/desktop-bridge.ts';
import { useDesktopTeam, useJoinOrLeaveTeam } from '../server-state/index.ts';
import { errorMessage, QueryView } from '../shared/feedback.tsx';

export function DesktopTeam({ team }: { team: DesktopTeamBridge }) {
  const { t } = useTranslation('team-join');
  const status = useDesktopTeam(team);
  return (
    <Col xs={24}>
      <Card title={t('title')} size="small" data-testid="desktop-team">
        <QueryView query={status}>{(data) => <TeamBody status={data} team={team} />}</QueryView>
      </Card>
    </Col>
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
        {t(`state.${status.state}`, { workerId: status.workerId ?? '', running: status.running ?? 0 })}{' '}
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
