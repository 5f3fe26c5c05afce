// The app inside the desktop shell: no sign-in, the engine over the shell's port, the engine's
// status from the shell, page changes asked by the tray or a notification, and the UI's language
// passed on to the shell's menus.
import i18next from 'i18next';
import { useEffect, useState } from 'react';
import { HashRouter, useNavigate } from 'react-router-dom';
import type { DesktopBridge } from '../../../engine/api/desktop-bridge.ts';
import { AppLayout } from '../app/AppLayout.tsx';
import { ApiProvider } from '../engine-client/index.ts';
import { currentLanguage } from '../i18n/index.ts';
import { desktopBoot } from './desktop-boot.ts';
import { DesktopContext } from './desktop-context.ts';

export function DesktopGate({ bridge }: { bridge: DesktopBridge }) {
  const [current] = useState(() => desktopBoot(bridge));
  useEffect(() => {
    current.connection.start(); // again after a StrictMode remount
    return () => current.connection.stop();
  }, [current]);
  useEffect(() => {
    bridge.setLanguage(currentLanguage());
    const follow = () => bridge.setLanguage(currentLanguage());
    i18next.on('languageChanged', follow);
    return () => i18next.off('languageChanged', follow);
  }, [bridge]);
  return (
    <DesktopContext.Provider value={current.desktop}>
      <ApiProvider connection={current.connection} queryClient={current.queryClient}>
        <HashRouter>
          <ShellNavigation bridge={bridge} />
          <AppLayout />
        </HashRouter>
      </ApiProvider>
    </DesktopContext.Provider>
  );
}

/** the shell asks for a page (a tray item, a notification click): '/runs/12?instance=34' */
function ShellNavigation({ bridge }: { bridge: DesktopBridge }) {
  const navigate = useNavigate();
  useEffect(
    () =>
      bridge.onNavigate((path) => {
        if (typeof path === 'string' && path.startsWith('/')) void navigate(path);
      }),
    [bridge, navigate],
  );
  return null;
}
