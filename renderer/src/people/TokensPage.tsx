// #/tokens — API tokens: everyone sees and makes their own; admins see everyone's (a user filter)
// and may make one for another account. Each with its scopes, limits, expiry, last use; Revoke.
// A new token is shown once (TokenShownOnce).
import { PlusOutlined } from '@ant-design/icons';
import { App, Button, Flex, Popconfirm, Select, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router-dom';
import type { CreatedToken, TokenRecord } from '../../../engine/api/access.ts';
import { useRevokeToken, useTokens, useUsers, useWhoami } from '../server-state/index.ts';
import { ErrorState, errorMessage, LoadingState } from '../shared/feedback.tsx';
import { PageHeader } from '../shared/PageHeader.tsx';
import { When } from '../shared/When.tsx';
import { isAdmin } from './can.ts';
import { CreateTokenModal } from './CreateTokenModal.tsx';
import { TokenShownOnce } from './TokenShownOnce.tsx';

export type TokenState = 'active' | 'revoked' | 'expired';

export function tokenState(token: TokenRecord, now = Date.now()): TokenState {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && token.expiresAt <= now) return 'expired';
  return 'active';
}

const STATE_COLOR: Record<TokenState, string> = { active: 'green', revoked: 'default', expired: 'orange' };

export default function TokensPage() {
  const { t } = useTranslation('people');
  const { message } = App.useApp();
  const me = useWhoami().data;
  const admin = isAdmin(me);
  // admins: ?user=NAME or ?user=* (everyone); without it, their own
  const [params, setParams] = useSearchParams();
  const filter = admin ? (params.get('user') ?? undefined) : undefined;
  const tokens = useTokens(filter, me !== undefined);
  const users = useUsers(admin);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedToken | undefined>();
  const revoke = useRevokeToken({
    onSuccess: (_, v) => void message.success(t('tokens.revoked', { name: v.name })),
    onError: (error) => void message.error(errorMessage(error)),
  });
  if (!me) return <LoadingState />;
  const showUser = admin && filter !== undefined && filter !== me.user;
  return (
    <>
      <PageHeader
        title={t('tokens.title')}
        subtitle={admin ? t('tokens.subtitleAdmin') : t('tokens.subtitle')}
        extra={
          <Flex gap={8} wrap>
            {admin && (
              <Select<string>
                aria-label={t('tokens.filterLabel')}
                style={{ minWidth: 200 }}
                value={filter ?? ''}
                onChange={(value) => setParams(value ? { user: value } : {}, { replace: true })}
                data-testid="token-user-filter"
                options={[
                  { value: '', label: t('tokens.mine') },
                  { value: '*', label: t('tokens.everyone') },
                  ...(users.data ?? [])
                    .filter((u) => u.name !== me.user)
                    .map((u) => ({ value: u.name, label: u.name })),
                ]}
              />
            )}
            <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)} data-testid="create-token">
              {t('tokens.create')}
            </Button>
          </Flex>
        }
      />
      {tokens.error && !tokens.data ? (
        <ErrorState error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : (
        <Table<TokenRecord>
          rowKey={(r) => `${r.user}/${r.name}`}
          size="small"
          loading={tokens.isPending}
          dataSource={tokens.data ?? []}
          pagination={{ pageSize: 50, hideOnSinglePage: true }}
          scroll={{ x: 900 }}
          locale={{ emptyText: t('tokens.empty') }}
          columns={[
            {
              title: t('tokens.name'),
              dataIndex: 'name',
              render: (v: string) => <Typography.Text strong>{v}</Typography.Text>,
            },
            ...(showUser ? [{ title: t('tokens.user'), dataIndex: 'user' }] : []),
            {
              title: t('tokens.scopes'),
              key: 'scopes',
              render: (_, r) => (
                <Flex gap={4} wrap>
                  {r.scopes.map((s) => (
                    <Tag key={s}>{s}</Tag>
                  ))}
                </Flex>
              ),
            },
            {
              title: t('tokens.limits'),
              key: 'limits',
              render: (_, r) =>
                [
                  r.workflow && t('tokens.onlyWorkflow', { workflow: r.workflow }),
                  r.workerId && t('tokens.asWorker', { id: r.workerId }),
                  r.labels?.length && t('tokens.withLabels', { labels: r.labels.join(', ') }),
                ]
                  .filter(Boolean)
                  .join(' · ') || '—',
            },
            { title: t('tokens.created'), key: 'created', render: (_, r) => <When ms={r.createdAt} /> },
            {
              title: t('tokens.expires'),
              key: 'expires',
              render: (_, r) => (r.expiresAt ? <When ms={r.expiresAt} /> : t('tokens.never')),
            },
            {
              title: t('tokens.lastUsed'),
              key: 'used',
              render: (_, r) => (r.lastUsedAt ? <When ms={r.lastUsedAt} relative /> : t('tokens.neverUsed')),
            },
            {
              title: t('tokens.state'),
              key: 'state',
              render: (_, r) => {
                const state = tokenState(r);
                return <Tag color={STATE_COLOR[state]}>{t(`tokenState.${state}`)}</Tag>;
              },
            },
            {
              title: '',
              key: 'revoke',
              fixed: 'right' as const,
              width: 100,
              render: (_, r) =>
                tokenState(r) === 'revoked' ? null : (
                  <Popconfirm
                    title={t('tokens.revokeTitle', { name: r.name })}
                    description={t('tokens.revokeHelp')}
                    okText={t('tokens.revoke')}
                    okButtonProps={{ danger: true }}
                    cancelText={t('common:action.cancel')}
                    onConfirm={() =>
                      revoke.mutateAsync({ user: r.user === me.user ? undefined : r.user, name: r.name })
                    }
                  >
                    <Button size="small" danger data-testid={`revoke-${r.name}`}>
                      {t('tokens.revoke')}
                    </Button>
                  </Popconfirm>
                ),
            },
          ]}
        />
      )}
      <CreateTokenModal
        open={creating}
        me={me}
        onClose={() => setCreating(false)}
        onCreated={(c) => {
          setCreating(false);
          setCreated(c);
        }}
      />
      <TokenShownOnce created={created} onClose={() => setCreated(undefined)} />
    </>
  );
}
