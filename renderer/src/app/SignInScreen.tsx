// Shown when this browser has no session: says exactly what to run to get a sign-in link.
import { ApiOutlined, LockOutlined, ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Result, Typography } from 'antd';
import { Trans, useTranslation } from 'react-i18next';
import { Preferences } from './Preferences.tsx';

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
                {reason === 'code-refused' && (
                  <Typography.Text type="warning">{t('signIn.codeRefused')}</Typography.Text>
                )}
                {unreachable ? (
                  <Typography.Text>
                    <Trans t={t} i18nKey="signIn.unreachableHelp" components={{ cmd: <code className="ax-cmd" /> }} />
                  </Typography.Text>
                ) : (
                  <>
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
              <Button icon={<ReloadOutlined />} onClick={onRetry}>
                {t('signIn.retry')}
              </Button>
            }
          />
        </Card>
      </Flex>
    </Flex>
  );
}
