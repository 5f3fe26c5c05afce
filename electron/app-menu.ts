// The native application menu: standard roles only, so every platform's usual shortcuts work
// (copy and paste in the designer, undo, zoom, full screen, close, quit). The developer tools
// and reload are there only in an unpackaged app. (A type import of 'electron' only: this module
// runs in the tests without Electron.)

import type { MenuItemConstructorOptions } from 'electron';

type MenuItemSpec = MenuItemConstructorOptions;

const r = (role: NonNullable<MenuItemSpec['role']>): MenuItemSpec => ({ role });
const sep: MenuItemSpec = { type: 'separator' };

export function appMenuTemplate(platform: string, options: { packaged: boolean; appName: string }): MenuItemSpec[] {
  const mac = platform === 'darwin';
  const developer = options.packaged ? [] : [r('reload'), r('forceReload'), r('toggleDevTools'), sep];
  const appMenu: MenuItemSpec[] = mac ? [{ label: options.appName, submenu: [r('about'), sep, r('hide'), r('hideOthers'), r('unhide'), sep, r('quit')] }] : [];
  return [
    ...appMenu,
    { label: 'File', submenu: [mac ? r('close') : r('quit')] },
    { label: 'Edit', submenu: [r('undo'), r('redo'), sep, r('cut'), r('copy'), r('paste'), r('selectAll')] },
    { label: 'View', submenu: [...developer, r('resetZoom'), r('zoomIn'), r('zoomOut'), sep, r('togglefullscreen')] },
    { label: 'Window', submenu: mac ? [r('minimize'), r('zoom'), sep, r('front')] : [r('minimize'), r('close')] },
  ];
}
