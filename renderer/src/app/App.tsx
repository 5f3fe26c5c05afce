// The root: theme and language (antd ConfigProvider), then the session gate (the desktop gate
// inside the desktop app, which needs no sign-in), then the app.
import { App as AntApp, ConfigProvider, theme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { useTranslation } from 'react-i18next';
import { desktopBridge } from '../desktop/desktop-boot.ts';
import { DesktopGate } from '../desktop/DesktopGate.tsx';
import { SessionGate } from './SessionGate.tsx';
import { useThemeMode } from './theme-mode.ts';
import { ThemeContext } from './theme-context.ts';

export default function App() {
  const { i18n } = useTranslation();
  const mode = useThemeMode();
  const desktop = desktopBridge();
  return (
    <ConfigProvider
      locale={i18n.language === 'zh-CN' ? zhCN : enUS}
      // zeroRuntime: component styles come from antd's prebuilt CSS (main.tsx) instead of being
      // generated in the page on first render, which was most of the time to a painted dashboard
      theme={{ algorithm: mode.dark ? theme.darkAlgorithm : theme.defaultAlgorithm, zeroRuntime: true }}
    >
      <ThemeContext.Provider value={mode}>
        <AntApp style={{ minHeight: '100vh' }}>{desktop ? <DesktopGate bridge={desktop} /> : <SessionGate />}</AntApp>
      </ThemeContext.Provider>
    </ConfigProvider>
  );
}
