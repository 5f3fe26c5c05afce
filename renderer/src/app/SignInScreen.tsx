// Shown when this browser has no session. A team server with accounts (GET /auth/config): the
// user name and password form, and SSO when configured. Otherwise (solo, a node without
// accounts): exactly what to run to get a sign-in link.
import { ApiOutlined, LockOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Result, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { AuthConfig } from '../../../engine/api/access.ts';
import { fetchAuthConfig } from '../engine-client/index.ts';
import { LoadingState } from '../shared/feedback.tsx';
import { PasswordSignIn } from './PasswordSignIn.tsx';
import { Preferences } from './Preferences.tsx';

/** the server's sign-in methods; a server that cannot say has none (the link help is shown) */
function useAuthConfig(skip: boolean): AuthConfig | undefined {
  const [config, setConfig] = useState<AuthConfig | undefined>(skip ? { accounts: false, local: false } : undefined);
  useEffect(() => {
    if (skip) return;
    let active = true;
    fetchAuthConfig()
      .catch((): AuthConfig => ({ accounts: false, local: false }))
      .then((answer) => active && setConfig(answer));
    return () => {
      active = false;
    };
  }, [skip]);
  return config;
}

export function SignInScreen({
  reason,
  detail,
  onRetry,
}: {
  reason: 'no-session' | 'code-refused' | 'unreachable';
  detail?: string;
  onRetry: () => void;
}) {
  const { t } = useTranslation('common');
  const unreachable = reason === 'unreachable';
  const config = useAuthConfig(unreachable);
  if (!config) return <LoadingState />;
  const accounts = config.accounts && !unreachable;
  return (
    <Flex vertical style={{ minHeight: '100vh' }}>
      <Flex justify="flex-end" style={{ padding: 16 }}>
        <Preferences />
      </Flex>
      <Flex justify="center" align="center" style={{ flex: 1, padding: 24 }}>
        <Card style={{ maxWidth: 640, width: '100%' }}>
          <Result
            icon={unreachable ? <ApiOutlined /> : <LockOutlined />}
            status={unreachable ? 'warning' : 'info'}
            title={
              <h1 style={{ fontSize: 24, margin: 0 }}>
                {unreachable ? t('signIn.unreachableTitle') : t('signIn.title')}
              </h1>
            }
            subTitle={
              <Flex vertical gap={8}>
                {unreachable ? (
                  <Typography.Text>
                    <Trans t={t} i18nKey="signIn.unreachableHelp" components={{ cmd: <code className="ax-cmd" /> }} />
                  </Typography.Text>
                ) : accounts ? (
                  <Typography.Text>{t('signIn.accountsHelp')}</Typography.Text>
                ) : (
                  <>
                    {reason === 'code-refused' && (
                      <Typography.Text type="warning">{t('signIn.codeRefused')}</Typography.Text>
                    )}
                    <Typography.Text>
                      <Trans t={t} i18nKey="signIn.help" components={{ cmd: <code className="ax-cmd" /> }} />
                    </Typography.Text>
                    <Typography.Text type="secondary">
                      <Trans t={t} i18nKey="signIn.printHelp" components={{ cmd: <code className="ax-cmd" /> }} />
                    </Typography.Text>
                  </>
                )}
                {detail && <Typography.Text type="secondary">{detail}</Typography.Text>}
              </Flex>
            }
            extra={
              accounts ? (
                <PasswordSignIn config={config} onSignedIn={onRetry} />
              ) : (
                <Button icon={<ReloadOutlined />} onClick={onRetry}>
                  {t('signIn.retry')}
                </Button>
              )
            }
          />
        </Card>
      </Flex>
    </Flex>
  );
}
