// The sign-in form of a team server with accounts (GET /auth/config says `accounts: true`): user
// name and password, and "Sign in with SSO" when the server has a provider. Every refusal in
// words: wrong user or password (never which), locked for N minutes, too many attempts from here.
import { LockOutlined, LoginOutlined, UserOutlined } from '@ant-design/icons';
import { Alert, Button, Divider, Flex, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AuthConfig } from '../../../engine/api/access.ts';
import { signInWithPassword, ssoStartUrl, type PasswordSignIn as Outcome } from '../engine-client/index.ts';

type Refusal = Extract<Outcome, { ok: false }>;

/** minutes, rounded up: "try again in 15 min", never "in 0 min" */
export function minutesOf(seconds: number | undefined): number {
  return Math.max(1, Math.ceil((seconds ?? 60) / 60));
}

export function PasswordSignIn({ config, onSignedIn }: { config: AuthConfig; onSignedIn: () => void }) {
  const { t } = useTranslation('common');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal | { why: 'unreachable'; message: string } | undefined>();
  const submit = async ({ user, password }: { user: string; password: string }) => {
    setBusy(true);
    setRefusal(undefined);
    try {
      const outcome = await signInWithPassword(user.trim(), password);
      if (outcome.ok) onSignedIn();
      else setRefusal(outcome);
    } catch (error) {
      setRefusal({ why: 'unreachable', message: error instanceof Error ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };
  const refusalText = (r: NonNullable<typeof refusal>): string => {
    switch (r.why) {
      case 'bad':
        return t('signIn.bad');
      case 'locked':
        return t('signIn.locked', { minutes: minutesOf(r.retryAfterSeconds) });
      case 'throttled':
        return t('signIn.throttled', { minutes: minutesOf(r.retryAfterSeconds) });
      case 'unreachable':
        return t('signIn.unreachableShort', { message: r.message });
      default:
        return r.message ?? t('signIn.failed');
    }
  };
  return (
    <Flex vertical gap={16} style={{ width: '100%', maxWidth: 360, margin: '0 auto', textAlign: 'start' }}>
      {config.local && (
        <Form<{ user: string; password: string }>
          layout="vertical"
          requiredMark={false}
          onFinish={(values) => void submit(values)}
          data-testid="password-sign-in"
        >
          <Form.Item
            name="user"
            label={t('signIn.user')}
            rules={[{ required: true, whitespace: true, message: t('signIn.userRequired') }]}
          >
            <Input prefix={<UserOutlined aria-hidden />} autoComplete="username" autoFocus />
          </Form.Item>
          <Form.Item
            name="password"
            label={t('signIn.password')}
            rules={[{ required: true, message: t('signIn.passwordRequired') }]}
          >
            <Input.Password prefix={<LockOutlined aria-hidden />} autoComplete="current-password" />
          </Form.Item>
          {refusal && (
            <Alert
              type={refusal.why === 'bad' ? 'error' : 'warning'}
              showIcon
              role="alert"
              data-testid="sign-in-refused"
              title={refusalText(refusal)}
              style={{ marginBottom: 16 }}
            />
          )}
          <Button type="primary" htmlType="submit" block loading={busy} icon={<LoginOutlined />}>
            {t('signIn.submit')}
          </Button>
        </Form>
      )}
      {config.sso && (
        <>
          {config.local && <Divider plain>{t('signIn.or')}</Divider>}
          <Button block href={ssoStartUrl()} data-testid="sso-sign-in">
            {t('signIn.sso', { label: config.sso.label })}
          </Button>
        </>
      )}
      {!config.local && !config.sso && <Typography.Text type="warning">{t('signIn.noMethod')}</Typography.Text>}
    </Flex>
  );
}
