// The native application menu: standard roles only, so every platform's usual shortcuts work
// (copy and paste in the designer, undo, zoom, full screen, close, quit). The developer tools
// and reload are there only in an unpackaged app. (A type import of 'electron' only: this module
// runs in the tests without Electron.)

import type { MenuItemConstructorOptions } from 'electron';
import type { ShellTexts } from './shell-texts.ts';

type MenuItemSpec = MenuItemConstructorOptions;

const r = (role: NonNullable<MenuItemSpec['role']>): MenuItemSpec => ({ role });
const sep: MenuItemSpec = { type: 'separator' };

export function appMenuTemplate(
  platform: string,
  options: { packaged: boolean; appName: string; texts: ShellTexts },
): MenuItemSpec[] {
  const labels = options.texts.menu;
  const mac = platform === 'darwin';
  const developer = options.packaged ? [] : [r('reload'), r('forceReload'), r('toggleDevTools'), sep];
  const appMenu: MenuItemSpec[] = mac
    ? [{ label: options.appName, submenu: [r('about'), sep, r('hide'), r('hideOthers'), r('unhide'), sep, r('quit')] }]
    : [];
  return [
    ...appMenu,
    { label: labels.file, submenu: [mac ? r('close') : r('quit')] },
    { label: labels.edit, submenu: [r('undo'), r('redo'), sep, r('cut'), r('copy'), r('paste'), r('selectAll')] },
    {
      label: labels.view,
      submenu: [...developer, r('resetZoom'), r('zoomIn'), r('zoomOut'), sep, r('togglefullscreen')],
    },
    { label: labels.window, submenu: mac ? [r('minimize'), r('zoom'), sep, r('front')] : [r('minimize'), r('close')] },
  ];
}
