// The frame of every signed-in screen: navigation on the left, search and preferences on top,
// a banner while the engine connection is being restored (in the desktop app, the engine's own status), one while all
// scheduling is paused, and the routed page.
import {
  AuditOutlined,
  BellOutlined,
  ClusterOutlined,
  DashboardOutlined,
  HistoryOutlined,
  NodeIndexOutlined,
  OrderedListOutlined,
  SafetyOutlined,
  SettingOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { Alert, Flex, Layout, Menu, theme } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router-dom';
import { useDesktop, useDesktopEngineStatus } from '../desktop/desktop-context.ts';
import { engineIsDown, EngineDown, EngineStatusBanner } from '../desktop/EngineStatus.tsx';
import { useConnectionStatus, useStopReason } from '../engine-client/index.ts';
import type { Principal } from '../../../engine/api/access.ts';
import { hasAccounts, isAdmin, knownNotAdmin } from '../people/can.ts';
import { SchedulingBanner } from '../scheduling/SchedulingBanner.tsx';
import { useWhoami } from '../server-state/index.ts';
import { AppRoutes } from './AppRoutes.tsx';
import { GlobalKeys } from './GlobalKeys.tsx';
import { GlobalSearch } from './GlobalSearch.tsx';
import { Preferences } from './Preferences.tsx';
import { UserMenu } from './UserMenu.tsx';

const NAV = [
  { key: '/', icon: <DashboardOutlined />, label: 'nav.dashboard' },
  { key: '/workflows', icon: <NodeIndexOutlined />, label: 'nav.workflows' },
  { key: '/runs', icon: <OrderedListOutlined />, label: 'nav.runs' },
  { key: '/backfills', icon: <HistoryOutlined />, label: 'nav.backfills' },
  { key: '/workers', icon: <ClusterOutlined />, label: 'nav.workers' },
  { key: '/alerts', icon: <BellOutlined />, label: 'nav.alerts' },
  { key: '/audit', icon: <AuditOutlined />, label: 'nav.audit' },
  { key: '/users', icon: <TeamOutlined />, label: 'nav.users' },
  { key: '/tokens', icon: <SafetyOutlined />, label: 'nav.tokens' },
  { key: '/settings', icon: <SettingOutlined />, label: 'nav.settings' },
] as const;

/**
 * The entries this person sees: Users only for admins of a server with accounts, Tokens for anyone
 * with an account, the audit log for admins (solo's local user is an admin without accounts).
 */
export function navFor(me: Principal | undefined): (typeof NAV)[number][] {
  return NAV.filter((item) => {
    if (item.key === '/users') return hasAccounts(me) && isAdmin(me);
    if (item.key === '/tokens') return hasAccounts(me);
    if (item.key === '/audit') return !knownNotAdmin(me);
    return true;
  });
}

/** which navigation entry a route belongs to */
export function navKeyOf(pathname: string): string {
  // a run and its task instances are found from the runs page as often as from their workflow
  if (/^\/(runs|instances)(\/|$)/.test(pathname)) return '/runs';
  if (/^\/(workflows|designer|lineage)(\/|$)/.test(pathname)) return '/workflows';
  const match = NAV.find((item) => item.key !== '/' && pathname.startsWith(item.key));
  return match?.key ?? (pathname === '/' ? '/' : '');
}

/** true once `value` has been true for `ms` (a banner for a slow start, not a flash on every load) */
function useLasting(value: boolean, ms: number): boolean {
  const [lasting, setLasting] = useState(false);
  useEffect(() => {
    if (!value) {
      setLasting(false);
      return;
    }
    const timer = setTimeout(() => setLasting(true), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return lasting;
}

export function AppLayout() {
  const { t } = useTranslation('common');
  const { token } = theme.useToken();
  const location = useLocation();
  const status = useConnectionStatus();
  const stopReason = useStopReason();
  const desktop = useDesktop();
  const engine = useDesktopEngineStatus();
  // in the desktop app the shell says why the engine is away; the connection's own banners are
  // for a running engine whose port is being replaced
  const connectionBanners = !desktop || engine?.state === 'running';
  const slowConnect = useLasting(connectionBanners && status === 'connecting', 1_000);
  const [collapsed, setCollapsed] = useState(false);
  const me = useWhoami().data;
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <GlobalKeys />
      <a
        className="ax-skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        {t('nav.skip')}
      </a>
      <Layout.Sider
        collapsible
        collapsed={collapsed}
        onCollapse={setCollapsed}
        breakpoint="lg"
        width={208}
        theme="light"
        // Stays in view while a long page (Settings in the desktop app) scrolls: the navigation never goes away.
        style={{
          borderInlineEnd: `1px solid ${token.colorBorderSecondary}`,
          position: 'sticky',
          top: 0,
          height: '100vh',
          overflow: 'auto',
        }}
      >
        <Link
          to="/"
          style={{
            display: 'flex',
            alignItems: 'center',
            gap: 8,
            height: 56,
            padding: '0 20px',
            color: token.colorText,
            fontWeight: 600,
            fontSize: 16,
            whiteSpace: 'nowrap',
            overflow: 'hidden',
          }}
        >
          <span
            aria-hidden
            style={{
              display: 'inline-grid',
              placeItems: 'center',
              width: 24,
              height: 24,
              borderRadius: 6,
              background: token.colorPrimary,
              color: '#fff',
              fontSize: 12,
              flex: 'none',
            }}
          >
            AX
          </span>
          {!collapsed && t('appName')}
        </Link>
        <nav aria-label={t('nav.label')}>
          <Menu
            mode="inline"
            selectedKeys={[navKeyOf(location.pathname)]}
            style={{ borderInlineEnd: 0 }}
            items={navFor(me).map((item) => ({
              key: item.key,
              icon: item.icon,
              label: <Link to={item.key}>{t(item.label)}</Link>,
            }))}
          />
        </nav>
      </Layout.Sider>
      <Layout>
        <Layout.Header
          style={{
            display: 'flex',
            alignItems: 'center',
            gap: 16,
            padding: '0 24px',
            height: 56,
            lineHeight: 'normal',
            background: token.colorBgContainer,
            borderBottom: `1px solid ${token.colorBorderSecondary}`,
          }}
        >
          <div role="search" style={{ flex: 1, minWidth: 0 }}>
            <GlobalSearch />
          </div>
          <Preferences />
          <UserMenu />
        </Layout.Header>
        {desktop && <EngineStatusBanner />}
        {connectionBanners && status === 'reconnecting' && (
          <Alert
            type="warning"
            showIcon
            banner
            role="status"
            title={t('connection.reconnecting')}
            data-testid="reconnecting-banner"
          />
        )}
        {connectionBanners && status === 'stopped' && (
          <Alert
            type="error"
            showIcon
            banner
            role="status"
            title={t('connection.stopped')}
            description={t('connection.stoppedHelp', { reason: stopReason })}
            data-testid="engine-stopped-banner"
          />
        )}
        {slowConnect && <Alert type="info" showIcon banner role="status" title={t('connection.connecting')} />}
        {!engineIsDown(engine) && status === 'open' && <SchedulingBanner />}
        <Layout.Content id="main" tabIndex={-1} style={{ padding: 24, minWidth: 0, outline: 'none' }}>
          <Flex vertical style={{ maxWidth: 1600, margin: '0 auto', width: '100%' }}>
            {engineIsDown(engine) ? <EngineDown /> : <AppRoutes />}
          </Flex>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
