// The desktop engine's state where a person sees it. While it starts, restarts after a crash or
// stops, a banner above the page (the page keeps its last data); when it gave up after a crash
// loop or cannot start at all, the page is replaced by what happened and what to do, since no
// page can work without the engine.
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Collapse, Flex, Result, Spin, Typography } from 'antd';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { DesktopEngineStatus, EngineCrash } from '../../../engine/api/desktop-bridge.ts';
import { errorMessage } from '../shared/feedback.tsx';
import { useNow, useTimeFormat } from '../shared/use-time-format.ts';
import { useDesktop, useDesktopEngineStatus } from './desktop-context.ts';

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g;

/** how the engine ended, in words: "exit code 1", "killed by SIGKILL" */
function useHowItEnded(): (crash: EngineCrash) => string {
  const { t } = useTranslation('desktop');
  return (crash) =>
    crash.code !== null
      ? t('exitCode', { code: crash.code })
      : crash.signal
        ? t('signal', { signal: crash.signal })
        : t('exitUnknown');
}

/** the stderr tail the shell kept, in a monospace block that scrolls instead of growing */
function CrashOutput({ crash, open }: { crash: EngineCrash; open?: boolean }) {
  const { t } = useTranslation('desktop');
  const fmt = useTimeFormat();
  const text = crash.stderrTail.replace(ANSI, '').trimEnd();
  return (
    <Collapse
      size="small"
      defaultActiveKey={open ? ['stderr'] : []}
      style={{ width: '100%', textAlign: 'start' }}
      items={[
        {
          key: 'stderr',
          label: (
            <span>
              {t('stderr')}{' '}
              <Typography.Text type="secondary">{t('crashedAt', { time: fmt.dateTime(crash.at) })}</Typography.Text>
            </span>
          ),
          children: text ? (
            <Typography.Paragraph style={{ margin: 0 }}>
              <pre
                data-testid="engine-stderr"
                style={{
                  margin: 0,
                  maxHeight: 240,
                  overflow: 'auto',
                  whiteSpace: 'pre-wrap',
                  overflowWrap: 'anywhere',
                }}
              >
                {text}
              </pre>
            </Typography.Paragraph>
          ) : (
            <Typography.Text type="secondary">{t('stderrEmpty')}</Typography.Text>
          ),
        },
      ]}
    />
  );
}

function Countdown({ at }: { at: number }) {
  const { t } = useTranslation('desktop');
  const now = useNow(1_000);
  const seconds = Math.ceil((at - now) / 1_000);
  // not re-announced every second by the banner's live region
  return <span aria-live="off">{seconds > 0 ? t('restartingIn', { count: seconds }) : t('restartingNow')}</span>;
}

/** The banner for the passing states: starting, restarting after a crash, stopping. */
export function EngineStatusBanner() {
  const { t } = useTranslation('desktop');
  const status = useDesktopEngineStatus();
  const how = useHowItEnded();
  if (!status) return null;
  const common = {
    banner: true,
    showIcon: true,
    role: 'status',
    'data-testid': 'engine-status',
    'data-state': status.state,
  } as const;
  switch (status.state) {
    case 'starting':
      return (
        <Alert
          {...common}
          type={status.lastCrash ? 'warning' : 'info'}
          icon={<Spin size="small" />}
          title={status.attempt > 1 ? t('startingAgain', { attempt: status.attempt }) : t('starting')}
          description={
            (status.note || status.lastCrash) && (
              <>
                {status.note && <Typography.Text data-testid="engine-start-note">{status.note}</Typography.Text>}
                {status.lastCrash && <CrashOutput crash={status.lastCrash} />}
              </>
            )
          }
        />
      );
    case 'restarting':
      return (
        <Alert
          {...common}
          type="warning"
          title={
            <span>
              {t('crashed', { how: how(status.lastCrash) })} <Countdown at={status.retryAt} />
            </span>
          }
          description={<CrashOutput crash={status.lastCrash} />}
        />
      );
    case 'stopping':
      return <Alert {...common} type="info" icon={<Spin size="small" />} title={t('stopping')} />;
    default:
      return null;
  }
}

/** true when the engine is down for good until someone acts: the page shows EngineDown instead */
export function engineIsDown(status: DesktopEngineStatus | undefined): boolean {
  return status?.state === 'gave-up' || status?.state === 'failed';
}

function RestartButton({ label, primary }: { label: string; primary?: boolean }) {
  const { t } = useTranslation('desktop');
  const desktop = useDesktop();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const restart = () => {
    if (!desktop) return;
    setBusy(true);
    setError(undefined);
    desktop.bridge.restartEngine().then(
      () => setBusy(false),
      (e: unknown) => {
        setBusy(false);
        setError(errorMessage(e));
      },
    );
  };
  return (
    <Flex vertical gap={8} align="center">
      <Button type={primary ? 'primary' : 'default'} icon={<ReloadOutlined />} loading={busy} onClick={restart}>
        {label}
      </Button>
      {error && <Alert type="error" showIcon role="alert" title={t('restartFailed', { message: error })} />}
    </Flex>
  );
}

/** What to do when the engine gave up after a crash loop or cannot start. */
export function EngineDown() {
  const { t } = useTranslation('desktop');
  const status = useDesktopEngineStatus();
  const how = useHowItEnded();
  if (status?.state === 'gave-up') {
    return (
      <div data-testid="engine-status" data-state={status.state}>
        <Result
          status="error"
          title={t('gaveUpTitle')}
          subTitle={t('gaveUp', { count: status.attempts, how: how(status.lastCrash) })}
          extra={<RestartButton label={t('restart')} primary />}
        >
          <CrashOutput crash={status.lastCrash} open />
        </Result>
      </div>
    );
  }
  if (status?.state === 'failed') {
    return (
      <div data-testid="engine-status" data-state={status.state}>
        <Result
          status="error"
          title={t('failedTitle')}
          // the engine's own words say what is wrong: in the text colour, not the faint subtitle one
          subTitle={<Typography.Text data-testid="engine-failure">{status.message}</Typography.Text>}
          extra={<RestartButton label={t('tryAgain')} primary />}
        >
          <Typography.Paragraph style={{ margin: 0 }}>
            <Trans
              t={t}
              i18nKey={
                status.code === 'conflict'
                  ? 'failedHelpConflict'
                  : status.code === 'environment'
                    ? 'failedHelpEnvironment'
                    : 'failedHelp'
              }
              components={{ cmd: <code className="ax-cmd" /> }}
            />
          </Typography.Paragraph>
        </Result>
      </div>
    );
  }
  return null;
}
