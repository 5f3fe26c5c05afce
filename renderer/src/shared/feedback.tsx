// The three states every screen has besides its data: loading, failed (with the engine's own
// message, which says what to do), and empty (with what to do next).
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Empty, Flex, Spin } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

export function LoadingState({ label }: { label?: string }) {
  const { t } = useTranslation('common');
  return (
    <Flex justify="center" align="center" style={{ padding: 48 }} role="status" aria-live="polite">
      <Spin description={label ?? t('loading')} />
    </Flex>
  );
}

export function ErrorState({ error, onRetry, title }: { error: unknown; onRetry?: () => void; title?: string }) {
  const { t } = useTranslation('common');
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      title={title ?? t('error.title')}
      description={errorMessage(error)}
      action={
        onRetry && (
          <Button size="small" icon={<ReloadOutlined />} onClick={onRetry}>
            {t('action.retry')}
          </Button>
        )
      }
    />
  );
}

export function EmptyState({ title, children }: { title: ReactNode; children?: ReactNode }) {
  return (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        <div style={{ maxWidth: 560, margin: '0 auto' }}>
          <div style={{ fontWeight: 500 }}>{title}</div>
          {children && <div style={{ marginTop: 8 }}>{children}</div>}
        </div>
      }
    />
  );
}

/** loading → error → children, for one react-query result */
export function QueryView<T>({
  query,
  children,
}: {
  query: { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown };
  children: (data: T) => ReactNode;
}) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.error) return <ErrorState error={query.error} onRetry={() => void query.refetch()} />;
  return <LoadingState />;
}
