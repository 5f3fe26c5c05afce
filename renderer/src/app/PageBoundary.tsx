// An error boundary around the routed page: a page that throws while rendering (an answer or an
// event of an unexpected shape, a chunk that failed to load) shows what failed, with Retry, in
// place of the page, while the navigation, header and banners around it keep working. Keyed by
// the path, so going to another page leaves the failure behind.
import { ReloadOutlined } from '@ant-design/icons';
import { Button, Result, Typography } from 'antd';
import { Component, type ErrorInfo, type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { useResetServerState } from '../server-state/index.ts';
import { errorMessage } from '../shared/feedback.tsx';

interface BoundaryProps {
  children: ReactNode;
  fallback: (error: unknown) => ReactNode;
}

class Boundary extends Component<BoundaryProps, { failed: boolean; error: unknown }> {
  override state = { failed: false, error: undefined as unknown };

  static getDerivedStateFromError(error: unknown) {
    return { failed: true, error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // for whoever opens the console: where in the page it broke
    console.error('AX: this page failed to render', error, info.componentStack);
  }

  override render(): ReactNode {
    return this.state.failed ? this.props.fallback(this.state.error) : this.props.children;
  }
}

function PageFailed({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation('common');
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  return (
    <Result
      status="error"
      role="alert"
      data-testid="page-error"
      title={t('pageFailed.title')}
      subTitle={t('pageFailed.hint')}
      extra={[
        <Button key="retry" type="primary" icon={<ReloadOutlined />} onClick={onRetry} data-testid="page-error-retry">
          {t('action.retry')}
        </Button>,
        <Link key="home" to="/">
          {t('notFound.home')}
        </Link>,
      ]}
    >
      <Typography.Paragraph style={{ marginBottom: 0 }}>
        <Typography.Text strong>{t('pageFailed.what')}</Typography.Text>{' '}
        <Typography.Text code data-testid="page-error-message">
          {`${name}${errorMessage(error)}`.slice(0, 2000)}
        </Typography.Text>
      </Typography.Paragraph>
    </Result>
  );
}

export function PageBoundary({ children }: { children: ReactNode }) {
  const location = useLocation();
  const resetServerState = useResetServerState();
  const [attempt, setAttempt] = useState(0);
  // Retry: what the page had cached may be what broke it, so its queries start again from the engine.
  const retry = () => {
    resetServerState();
    setAttempt((n) => n + 1);
  };
  return (
    <Boundary
      key={`${location.pathname}#${attempt}`}
      fallback={(error) => <PageFailed error={error} onRetry={retry} />}
    >
      {children}
    </Boundary>
  );
}
